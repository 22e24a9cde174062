/* SPDX-License-Identifier: GPL-2.0-or-later */
/* The fingerprint's source registry (sources.def), the helpers sources
 * share, and its printing for people. */
#include "core/compat.h"
#include "core/escape.h"
#include "core/registry.h"
#include "fingerprint/fingerprint.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define UL_FP_SOURCE(file, ident) extern const struct ul_fp_source ul_fp_source_##ident;
#include "fingerprint/sources.def"
#undef UL_FP_SOURCE

static const struct ul_fp_source *const sources[] = {
#define UL_FP_SOURCE(file, ident) &ul_fp_source_##ident,
#include "fingerprint/sources.def"
#undef UL_FP_SOURCE
	NULL,
};

UL_REGISTRY_INDEX(struct ul_fp_source, ul_fp_source, sources)

json_t *ul_fingerprint_collect(const struct ul_fp_ctx *ctx)
{
	json_t *fp = json_object();

	if (!fp)
		return NULL;
	for (size_t i = 0; i < ul_fp_source_count(); i++) {
		json_t *obj = json_object();

		if (!obj || json_object_set_new(fp, sources[i]->name, obj) ||
		    sources[i]->collect(ctx, obj)) {
			json_decref(fp);
			return NULL;
		}
	}
	return fp;
}

int ul_fp_read_line(const char *path, char *buf, size_t len)
{
	FILE *f = fopen(path, "re");
	size_t n;

	if (!f)
		return -errno;
	if (!fgets(buf, (int)len, f)) {
		int rc = ferror(f) ? -EIO : -ENODATA;

		fclose(f);
		return rc;
	}
	fclose(f);
	n = strcspn(buf, "\n");
	while (n && (buf[n - 1] == ' ' || buf[n - 1] == '\t'))
		n--;
	buf[n] = '\0';
	return 0;
}

int ul_fp_put_str(json_t *obj, const char *key, const char *s)
{
	json_t *v = json_string(s ? s : UL_FP_ABSENT);

	if (!v && s) /* not UTF-8: keep what reads */
		v = json_string(UL_FP_ABSENT);
	return json_object_set_new(obj, key, v) ? -ENOMEM : 0;
}

int ul_fp_put_int(json_t *obj, const char *key, int64_t v)
{
	return json_object_set_new(obj, key, json_integer((json_int_t)v)) ? -ENOMEM : 0;
}

int ul_fp_put_file(json_t *obj, const char *key, const char *path)
{
	char buf[512];

	return ul_fp_put_str(obj, key, ul_fp_read_line(path, buf, sizeof(buf)) ? NULL : buf);
}

/* ---- printing ---- */

static int print_value(FILE *out, const json_t *v)
{
	size_t i;
	json_t *e;

	switch (json_typeof(v)) {
	case JSON_STRING: /* an imported run's: escaped, never raw control bytes */
		return ul_fput_escaped(out, json_string_value(v), SIZE_MAX);
	case JSON_ARRAY:
		if (!json_array_size(v))
			fputs("(none)", out);
		json_array_foreach (v, i, e) {
			if (i)
				fputs(", ", out);
			if (print_value(out, e))
				return -EIO;
		}
		return 0;
	default: {
		char *s = json_dumps(v, JSON_COMPACT | JSON_ENCODE_ANY);
		int rc = s && fputs(s, out) >= 0 ? 0 : -EIO;

		free(s);
		return rc;
	}
	}
}

static int print_object(FILE *out, const char *prefix, const json_t *obj)
{
	const char *key;
	json_t *v;

	json_object_foreach ((json_t *)obj, key, v) {
		char name[256];
		const char *shown;
		size_t n;

		snprintf(name, sizeof(name), "%s%s%s", prefix, *prefix ? "." : "", key);
		if (json_is_object(v) && json_object_size(v)) {
			if (print_object(out, name, v))
				return -EIO;
			continue;
		}
		shown = ul_esc(name);
		n = strlen(shown);
		fprintf(out, "  %s:%*s", shown, n < 40 ? (int)(41 - n) : 1, "");
		if (print_value(out, v) || fputc('\n', out) == EOF)
			return -EIO;
	}
	return 0;
}

int ul_fingerprint_print(FILE *out, const json_t *fp)
{
	const char *key;
	json_t *section;

	if (!fp || !json_is_object(fp)) {
		fputs("no fingerprint: the run was stored before underload recorded one\n", out);
		return ferror(out) ? -EIO : 0;
	}
	json_object_foreach ((json_t *)fp, key, section) {
		fprintf(out, "%s:\n", ul_esc(key));
		if (json_is_object(section) ? print_object(out, key, section)
					    : (fputs("  ", out), print_value(out, section)))
			return -EIO;
	}
	return ferror(out) ? -EIO : 0;
}

/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * The fingerprint as compare sees it: flat "section.key" facts, and which
 * differences make a comparison unfair.  The rules below are the one
 * place that says so: a fact not listed is a setting of the machine, and
 * runs that differ in it are not comparable (a warning; compare --strict
 * exits 2).
 */
#include "core/compat.h"
#include "fingerprint/fingerprint.h"
#include "fingerprint/diff.h"

#include <errno.h>
#include <fnmatch.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static const struct {
	const char *pattern; /* fnmatch(3) on the flat key */
	enum ul_fp_class cls;
} rules[] = {
	/* What a comparison of kernels compares. */
	{ "kernel.release", UL_FP_EXPECTED },
	{ "kernel.version", UL_FP_EXPECTED },
	{ "kernel.config_crc32", UL_FP_EXPECTED },
	{ "kernel.config_source", UL_FP_EXPECTED },
	/* underload vm: the image booted; which boot, how long, how it ended. */
	{ "vm.kernel_image", UL_FP_EXPECTED },
	{ "vm.boot", UL_FP_VOLATILE },
	{ "vm.boot_wall_s", UL_FP_VOLATILE },
	{ "vm.end", UL_FP_VOLATILE },
	{ "vm.console_tail", UL_FP_VOLATILE },
	/* Moments, not settings: they differ between any two runs. */
	{ "activity.*", UL_FP_VOLATILE },
	{ "doctor*", UL_FP_VOLATILE },
	{ "memory.buddyinfo", UL_FP_VOLATILE },
	{ "memory.free_below_order4_pct", UL_FP_VOLATILE },
	{ "memory.page_cache_kb", UL_FP_VOLATILE },
	{ "memory.dirty_kb", UL_FP_VOLATILE },
	{ "memory.writeback_kb", UL_FP_VOLATILE },
	{ "memory.available_kb", UL_FP_VOLATILE },
	/* Swap files have made-up names; their total is memory.swap_kb. */
	{ "memory.swap_devices", UL_FP_VOLATILE },
	{ "storage.dir", UL_FP_VOLATILE },
};

enum ul_fp_class ul_fp_classify(const char *key)
{
	for (size_t i = 0; i < UL_ARRAY_SIZE(rules); i++)
		if (!fnmatch(rules[i].pattern, key, 0))
			return rules[i].cls;
	return UL_FP_UNFAIR;
}

/* The boot loader's words name the kernel image, which is what is compared. */
static bool boot_word(const char *w, size_t n)
{
	return (n > 11 && !strncmp(w, "BOOT_IMAGE=", 11)) || (n > 7 && !strncmp(w, "initrd=", 7));
}

/*
 * Sizes the kernel works out at boot from the memory it found: they move by
 * a few KiB from one boot of a kernel to the next (a VM's most of all), so
 * their fairness is decided in whole MiB.
 */
static const char *const boot_sizes_kb[] = { "memory.ram_kb", "sysctl.vm.user_reserve_kbytes" };

void ul_fp_fair_value(const char *key, const char *value, char *buf, size_t len)
{
	size_t off = 0;

	for (size_t i = 0; i < UL_ARRAY_SIZE(boot_sizes_kb); i++) {
		char *end;
		long long kb;

		if (strcmp(key, boot_sizes_kb[i]))
			continue;
		errno = 0;
		kb = strtoll(value, &end, 10);
		if (errno || end == value || *end)
			break; /* not a number: the value itself */
		snprintf(buf, len, "%lld MiB", (kb + 512) / 1024);
		return;
	}
	if (strcmp(key, "kernel.cmdline")) {
		snprintf(buf, len, "%s", value);
		return;
	}
	buf[0] = '\0';
	for (const char *p = value; *p && off + 1 < len;) {
		size_t n = strcspn(p, " ");

		if (n && !boot_word(p, n))
			off += (size_t)snprintf(buf + off, len - off, "%s%.*s", off ? " " : "",
						(int)n, p);
		p += n + strspn(p + n, " ");
	}
}

/* A value as one line of text (arrays joined by ", "); malloc'd or NULL. */
static char *value_text(const json_t *v)
{
	if (json_is_string(v))
		return strdup(json_string_value(v));
	if (json_is_array(v)) {
		size_t i, len = 1;
		json_t *e;
		char *out, **parts = calloc(json_array_size(v) + 1, sizeof(*parts));

		if (!parts)
			return NULL;
		json_array_foreach ((json_t *)v, i, e) {
			parts[i] = value_text(e);
			len += (parts[i] ? strlen(parts[i]) : 0) + 2;
		}
		out = malloc(len);
		if (out) {
			out[0] = '\0';
			for (i = 0; i < json_array_size(v); i++) {
				if (i)
					strcat(out, ", ");
				strcat(out, parts[i] ? parts[i] : "");
			}
		}
		for (i = 0; i < json_array_size(v); i++)
			free(parts[i]);
		free(parts);
		return out;
	}
	return json_dumps(v, JSON_COMPACT | JSON_ENCODE_ANY);
}

static int flatten_into(json_t *flat, const char *prefix, const json_t *obj)
{
	const char *key;
	json_t *v;

	json_object_foreach ((json_t *)obj, key, v) {
		char name[256];
		char *text;
		int bad;

		snprintf(name, sizeof(name), "%s%s%s", prefix, *prefix ? "." : "", key);
		if (json_is_object(v) && json_object_size(v)) {
			if (flatten_into(flat, name, v))
				return -ENOMEM;
			continue;
		}
		text = value_text(v);
		bad = !text || json_object_set_new(flat, name, json_string(text));
		free(text);
		if (bad)
			return -ENOMEM;
	}
	return 0;
}

json_t *ul_fp_flatten(const json_t *fp)
{
	json_t *flat = json_object();

	if (flat && json_is_object(fp) && flatten_into(flat, "", fp)) {
		json_decref(flat);
		return NULL;
	}
	return flat;
}

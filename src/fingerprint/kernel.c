/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Fingerprint source "kernel": release, version, command line, and the
 * config: a CRC-32 of its text (which kernel build this is) and the
 * options that change timing (PREEMPT model, HZ, debug options).  The
 * config is /proc/config.gz (gzip, read with zlib) or /boot/config-RELEASE.
 */
#include "core/compat.h"
#include "fingerprint/fingerprint.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/utsname.h>
#include <zlib.h>

#define CONFIG_MAX (4u << 20) /* a config is ~300 KiB; more is not one */

/* The whole (decompressed) file, NUL-terminated, in *out (malloc'd); its length or -errno. */
static ssize_t read_gz(const char *path, char **out)
{
	gzFile f = gzopen(path, "rbe");
	size_t cap = 256 * 1024, n = 0;
	char *buf;

	*out = NULL;
	if (!f)
		return errno ? -errno : -ENOMEM;
	buf = malloc(cap);
	while (buf) {
		int got = gzread(f, buf + n, (unsigned)(cap - n - 1));

		if (got <= 0) {
			if (got < 0) {
				free(buf);
				buf = NULL;
			}
			break;
		}
		n += (size_t)got;
		if (n + 1 == cap) {
			char *nb = cap < CONFIG_MAX ? realloc(buf, cap * 2) : NULL;

			if (!nb)
				free(buf);
			buf = nb;
			cap *= 2;
		}
	}
	gzclose(f);
	if (!buf)
		return -EIO;
	buf[n] = '\0';
	*out = buf;
	return (ssize_t)n;
}

/* The config text and where it came from; NULL when neither file reads. */
static char *read_config(const char *release, char *from, size_t len, size_t *n)
{
	char path[256], *text;
	ssize_t got;

	/* gzopen reads a plain file as it is, so one reader serves both. */
	snprintf(path, sizeof(path), "/boot/config-%s", release);
	const char *paths[] = { "/proc/config.gz", path };

	for (size_t i = 0; i < UL_ARRAY_SIZE(paths); i++) {
		got = read_gz(paths[i], &text);
		if (got > 0) {
			snprintf(from, len, "%s", paths[i]);
			*n = (size_t)got;
			return text;
		}
		free(text);
	}
	return NULL;
}

static int put_config(json_t *obj, const char *release)
{
	char from[256], hash[32];
	size_t n = 0;
	char *text = read_config(release, from, sizeof(from), &n);
	json_t *timing;
	int rc;

	if (!text)
		return ul_fp_put_str(obj, "config_source", NULL) ||
				       ul_fp_put_str(obj, "config_crc32", NULL) ||
				       ul_fp_put_str(obj, "config", NULL)
			       ? -ENOMEM
			       : 0;
	snprintf(hash, sizeof(hash), "%08lx",
		 (unsigned long)crc32(crc32(0L, Z_NULL, 0), (const Bytef *)text, (uInt)n));
	timing = json_object();
	rc = timing ? ul_fp_kconfig_timing(text, timing) : -ENOMEM;
	free(text);
	if (rc || ul_fp_put_str(obj, "config_source", from) ||
	    ul_fp_put_str(obj, "config_crc32", hash)) {
		json_decref(timing);
		return -ENOMEM;
	}
	return json_object_set_new(obj, "config", timing) ? -ENOMEM : 0;
}

static int collect(const struct ul_fp_ctx *ctx, json_t *obj)
{
	struct utsname u;
	char cmdline[4096];
	bool named = !uname(&u);

	(void)ctx;
	if (ul_fp_put_str(obj, "release", named ? u.release : NULL) ||
	    ul_fp_put_str(obj, "version", named ? u.version : NULL) ||
	    ul_fp_put_str(obj, "arch", named ? u.machine : NULL) ||
	    ul_fp_put_str(obj, "cmdline",
			  ul_fp_read_line("/proc/cmdline", cmdline, sizeof(cmdline)) ? NULL
										     : cmdline))
		return -ENOMEM;
	return put_config(obj, named ? u.release : "");
}

const struct ul_fp_source ul_fp_source_kernel = {
	.name = "kernel",
	.collect = collect,
};

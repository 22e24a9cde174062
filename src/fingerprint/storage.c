/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Fingerprint source "storage": where --dir lives: its mount point,
 * filesystem, source, mount options, and the I/O scheduler and rotational
 * flag of its block device (a partition's come from its disk).  Without
 * --dir, or on a filesystem with no block device (tmpfs, overlay), the
 * device facts are "absent".
 */
#include "core/compat.h"
#include "core/file.h"
#include "fingerprint/fingerprint.h"

#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>

#define MOUNTINFO_MAX (1u << 20)

/* /proc/self/mountinfo whole (it is larger than a page: read in steps). */
static char *read_mountinfo(void)
{
	FILE *f = fopen("/proc/self/mountinfo", "re");
	size_t cap = 64 * 1024, n = 0, got;
	char *buf = f ? malloc(cap) : NULL;

	while (buf && (got = fread(buf + n, 1, cap - n - 1, f)) > 0) {
		n += got;
		if (n + 1 == cap) {
			char *nb = cap < MOUNTINFO_MAX ? realloc(buf, cap * 2) : NULL;

			if (!nb)
				free(buf);
			buf = nb;
			cap *= 2;
		}
	}
	if (f)
		fclose(f);
	if (buf)
		buf[n] = '\0';
	return buf;
}

/* The scheduler and rotational flag of block device maj:min (or its disk). */
static int put_queue(json_t *obj, unsigned maj, unsigned min)
{
	char path[128], text[256], sel[64], rot[16];
	const char *const dirs[] = { "queue", "../queue" }; /* a disk, a partition */

	for (size_t i = 0; i < UL_ARRAY_SIZE(dirs); i++) {
		snprintf(path, sizeof(path), "/sys/dev/block/%u:%u/%s/scheduler", maj, min,
			 dirs[i]);
		if (ul_fp_read_line(path, text, sizeof(text)))
			continue;
		if (ul_fp_selected(text, sel, sizeof(sel)))
			snprintf(sel, sizeof(sel), "%.63s", text);
		snprintf(path, sizeof(path), "/sys/dev/block/%u:%u/%s/rotational", maj, min,
			 dirs[i]);
		if (ul_fp_read_line(path, rot, sizeof(rot)))
			snprintf(rot, sizeof(rot), "%s", UL_FP_ABSENT);
		return ul_fp_put_str(obj, "io_scheduler", sel) ||
				       ul_fp_put_str(obj, "rotational", rot)
			       ? -ENOMEM
			       : 0;
	}
	return ul_fp_put_str(obj, "io_scheduler", NULL) || ul_fp_put_str(obj, "rotational", NULL)
		       ? -ENOMEM
		       : 0;
}

static int collect(const struct ul_fp_ctx *ctx, json_t *obj)
{
	char real[PATH_MAX], dev[32];
	struct ul_fp_mount m;
	struct stat st;
	char *info;
	bool found;

	if (!ctx->dir || !realpath(ctx->dir, real) || stat(real, &st))
		return ul_fp_put_str(obj, "dir", ctx->dir) || ul_fp_put_str(obj, "device", NULL)
			       ? -ENOMEM
			       : 0;
	info = read_mountinfo();
	found = info && !ul_fp_mount_find(info, major(st.st_dev), minor(st.st_dev), real, &m);
	free(info);
	snprintf(dev, sizeof(dev), "%u:%u", major(st.st_dev), minor(st.st_dev));
	if (ul_fp_put_str(obj, "dir", real) || ul_fp_put_str(obj, "device", dev) ||
	    ul_fp_put_str(obj, "mount_point", found ? m.point : NULL) ||
	    ul_fp_put_str(obj, "fstype", found ? m.fstype : NULL) ||
	    ul_fp_put_str(obj, "source", found ? m.source : NULL) ||
	    ul_fp_put_str(obj, "mount_options", found ? m.options : NULL))
		return -ENOMEM;
	return put_queue(obj, major(st.st_dev), minor(st.st_dev));
}

const struct ul_fp_source ul_fp_source_storage = {
	.name = "storage",
	.collect = collect,
};

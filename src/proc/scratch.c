/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * The run's private scratch directory: created with mkdtemp(), removed as
 * a whole tree without following symlinks or crossing mount points.
 */
#include "proc/scratch.h"

#include <errno.h>
#include <ftw.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/statvfs.h>
#include <unistd.h>

/* Removal passes: each may open up one more level of unreadable dirs. */
#define SCRATCH_MAX_PASSES 8
#define SCRATCH_NFTW_FDS 16

int ul_scratch_create(const char *parent, char *out, size_t len)
{
	size_t plen;
	int n;

	if (!parent || !parent[0] || !out || !len)
		return -EINVAL;
	plen = strlen(parent);
	while (plen > 1 && parent[plen - 1] == '/')
		plen--; /* "/tmp/" -> "/tmp", but "/" stays */
	n = snprintf(out, len, "%.*s%s" UL_SCRATCH_PREFIX "XXXXXX", (int)plen, parent,
		     parent[plen - 1] == '/' ? "" : "/");
	if (n < 0 || (size_t)n >= len) {
		out[0] = '\0';
		return -ENAMETOOLONG;
	}
	if (!mkdtemp(out)) { /* mode 0700 */
		int err = -errno;

		out[0] = '\0';
		return err;
	}
	return 0;
}

/*
 * nftw() passes no user pointer.  Removal is not reentrant anyway; the
 * state is thread-local so two threads could still remove two trees.
 */
static _Thread_local struct {
	int first_err; /* first failure, as -errno */
	bool retry;    /* a permission was fixed: another pass may get further */
} scratch_rm;

static void scratch_note_err(int err)
{
	if (!scratch_rm.first_err)
		scratch_rm.first_err = -err;
}

/*
 * Give ourselves rwx on the directory holding fpath (the tree is ours:
 * loads may have left a read-only directory behind).
 */
static void scratch_open_parent(const char *fpath, const struct FTW *ftw)
{
	char dir[4096];

	if (ftw->base <= 0 || (size_t)ftw->base >= sizeof(dir))
		return;
	memcpy(dir, fpath, (size_t)ftw->base);
	dir[ftw->base] = '\0';
	if (chmod(dir, 0700) == 0)
		scratch_rm.retry = true;
}

static int scratch_rm_one(const char *fpath, const struct stat *sb, int type, struct FTW *ftw)
{
	int r;

	(void)sb;
	switch (type) {
	case FTW_DNR:
		/* Unreadable, so its contents were skipped: fix and go again. */
		if (chmod(fpath, 0700) == 0)
			scratch_rm.retry = true;
		else
			scratch_note_err(errno);
		return 0;
	case FTW_DP:
		r = rmdir(fpath);
		break;
	default: /* FTW_F, FTW_SL, FTW_SLN, FTW_NS: never followed, just unlinked */
		r = unlink(fpath);
		break;
	}
	if (r < 0 && (errno == EACCES || errno == EPERM)) {
		scratch_open_parent(fpath, ftw);
		r = type == FTW_DP ? rmdir(fpath) : unlink(fpath);
	}
	if (r < 0 && errno != ENOENT)
		scratch_note_err(errno);
	return 0; /* carry on: remove as much as possible */
}

int ul_scratch_remove(const char *path)
{
	const char *base, *end;
	struct stat st;
	size_t len;

	if (!path || !path[0])
		return -EINVAL;
	/* The last component, ignoring trailing slashes, must carry the prefix. */
	len = strlen(path);
	while (len > 1 && path[len - 1] == '/')
		len--;
	end = path + len;
	base = end;
	while (base > path && base[-1] != '/')
		base--;
	if ((size_t)(end - base) <= strlen(UL_SCRATCH_PREFIX) ||
	    strncmp(base, UL_SCRATCH_PREFIX, strlen(UL_SCRATCH_PREFIX)) != 0)
		return -EINVAL;

	if (lstat(path, &st) < 0)
		return -errno;
	if (!S_ISDIR(st.st_mode))
		return -ENOTDIR; /* a symlink named like us is not ours to follow */

	for (int pass = 0; pass < SCRATCH_MAX_PASSES; pass++) {
		scratch_rm.first_err = 0;
		scratch_rm.retry = false;
		if (nftw(path, scratch_rm_one, SCRATCH_NFTW_FDS,
			 FTW_DEPTH | FTW_PHYS | FTW_MOUNT) < 0 && errno != ENOENT)
			scratch_note_err(errno);
		if (lstat(path, &st) < 0 && errno == ENOENT)
			return 0;
		if (!scratch_rm.retry)
			break;
	}
	return scratch_rm.first_err ? scratch_rm.first_err : -ENOTEMPTY;
}

int ul_fs_free_bytes(const char *path, uint64_t *out)
{
	struct statvfs sv;

	if (statvfs(path, &sv) < 0)
		return -errno;
	*out = (uint64_t)sv.f_bavail * (sv.f_frsize ? sv.f_frsize : sv.f_bsize);
	return 0;
}

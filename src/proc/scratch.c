/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * The run's private scratch directory: a parent no other user can tamper
 * with, a 0700 directory of a random name, and a removal that walks by
 * directory fds without following symlinks or crossing mount points.
 */
#include "core/log.h"
#include "proc/scratch.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/random.h>
#include <sys/stat.h>
#include <sys/statvfs.h>
#include <time.h>
#include <unistd.h>

/* Deeper trees are left (and reported): each level holds one fd. */
#define SCRATCH_MAX_DEPTH 256
#define SCRATCH_NAME_TRIES 16

/* ---- walking paths -------------------------------------------------- */

int ul_open_dir_nofollow(const char *path, int flags)
{
	char buf[PATH_MAX], *save = NULL, *comp;
	int fd, next;

	if (!path || !path[0])
		return -EINVAL;
	if (snprintf(buf, sizeof(buf), "%s", path) >= (int)sizeof(buf))
		return -ENAMETOOLONG;
	fd = open(path[0] == '/' ? "/" : ".", O_PATH | O_DIRECTORY | O_CLOEXEC);
	if (fd < 0)
		return -errno;
	for (comp = strtok_r(buf, "/", &save); comp; comp = strtok_r(NULL, "/", &save)) {
		if (!strcmp(comp, "..")) {
			close(fd);
			return -EINVAL; /* ".." would make the walk's checks meaningless */
		}
		if (!strcmp(comp, "."))
			continue;
		next = openat(fd, comp, O_PATH | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
		close(fd);
		if (next < 0)
			return errno == ENOTDIR || errno == ELOOP ? -ELOOP : -errno;
		fd = next;
	}
	if (!(flags & O_PATH)) {
		/* Reopen the final directory for reading through its own fd. */
		next = openat(fd, ".", O_RDONLY | O_DIRECTORY | O_CLOEXEC);
		close(fd);
		if (next < 0)
			return -errno;
		fd = next;
	}
	return fd;
}

/* Split "a/b/c" into the parent "a/b" (or "/" or ".") and the name "c". */
static int split(const char *path, char *parent, size_t plen, char *name, size_t nlen)
{
	size_t len = strlen(path);
	const char *base;

	while (len > 1 && path[len - 1] == '/')
		len--;
	base = path + len;
	while (base > path && base[-1] != '/')
		base--;
	if ((size_t)(path + len - base) >= nlen || len >= plen)
		return -ENAMETOOLONG;
	memcpy(name, base, (size_t)(path + len - base));
	name[path + len - base] = '\0';
	if (base == path)
		snprintf(parent, plen, ".");
	else if (base == path + 1)
		snprintf(parent, plen, "/");
	else
		snprintf(parent, plen, "%.*s", (int)(base - path - 1), path);
	return 0;
}

static bool has_prefix(const char *name)
{
	size_t n = strlen(UL_SCRATCH_PREFIX);

	return strlen(name) > n && !strncmp(name, UL_SCRATCH_PREFIX, n) && strcmp(name, ".") &&
	       strcmp(name, "..") && !strchr(name, '/');
}

/* ---- the parent ------------------------------------------------------ */

static bool safe_dir(const struct stat *st)
{
	bool owner_ok = st->st_uid == 0 || st->st_uid == geteuid();
	bool writable = st->st_mode & (S_IWGRP | S_IWOTH);

	return S_ISDIR(st->st_mode) && owner_ok && (!writable || (st->st_mode & S_ISVTX));
}

int ul_scratch_check_parent(const char *parent, char *real, size_t real_len, char *why,
			    size_t whylen)
{
	char buf[PATH_MAX], *slash;
	struct stat st;

	if (!parent || !parent[0]) {
		ul_whyf(why, whylen, "no directory given");
		return -EINVAL;
	}
	if (!realpath(parent, buf)) {
		int err = -errno;

		ul_whyf(why, whylen, "%s", strerror(-err));
		return err;
	}
	if (real && snprintf(real, real_len, "%s", buf) >= (int)real_len)
		return -ENAMETOOLONG;
	/* From the directory itself up to /: any unsafe level lets another
	 * user swap what lies below it. */
	for (;;) {
		if (stat(buf[0] ? buf : "/", &st) < 0) {
			int err = -errno;

			ul_whyf(why, whylen, "%s: %s", buf[0] ? buf : "/", strerror(-err));
			return err;
		}
		if (!S_ISDIR(st.st_mode)) {
			ul_whyf(why, whylen, "%s is not a directory", buf);
			return -ENOTDIR;
		}
		if (!safe_dir(&st)) {
			ul_whyf(why, whylen,
				"%s is %s without the sticky bit (another user could "
				"replace the scratch directory); use a directory only "
				"root or you can write, or one with mode 1777",
				buf[0] ? buf : "/",
				st.st_uid != 0 && st.st_uid != geteuid()
					? "owned by another user"
					: "group- or world-writable");
			return -EPERM;
		}
		if (!buf[0])
			return 0;
		slash = strrchr(buf, '/');
		*slash = '\0'; /* "/tmp" -> "" (the root, checked last) */
	}
}

int ul_scratch_name(const char *parent, char *out, size_t len, char *why, size_t whylen)
{
	static const char set[] = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789";
	char real[PATH_MAX], suffix[7];
	unsigned char r[6];
	int rc = ul_scratch_check_parent(parent, real, sizeof(real), why, whylen);

	if (rc)
		return rc;
	if (getrandom(r, sizeof(r), GRND_NONBLOCK) != (ssize_t)sizeof(r)) {
		struct timespec ts;
		uint64_t x;

		clock_gettime(CLOCK_MONOTONIC, &ts);
		x = (uint64_t)ts.tv_nsec ^ ((uint64_t)getpid() << 20) ^ (uint64_t)ts.tv_sec;
		for (size_t i = 0; i < sizeof(r); i++, x >>= 7)
			r[i] = (unsigned char)x;
	}
	for (size_t i = 0; i < sizeof(r); i++)
		suffix[i] = set[r[i] % (sizeof(set) - 1)];
	suffix[6] = '\0';
	rc = snprintf(out, len, "%s%s" UL_SCRATCH_PREFIX "%s", real, strcmp(real, "/") ? "/" : "",
		      suffix);
	if (rc < 0 || (size_t)rc >= len) {
		if (len)
			out[0] = '\0';
		ul_whyf(why, whylen, "path too long");
		return -ENAMETOOLONG;
	}
	return 0;
}

int ul_scratch_make(const char *path)
{
	char parent[PATH_MAX], name[NAME_MAX + 1];
	int dfd, rc = 0;

	if (!path || split(path, parent, sizeof(parent), name, sizeof(name)) || !has_prefix(name))
		return -EINVAL;
	dfd = ul_open_dir_nofollow(parent, O_PATH);
	if (dfd < 0)
		return dfd;
	if (mkdirat(dfd, name, 0700) < 0)
		rc = -errno;
	close(dfd);
	return rc;
}

int ul_scratch_create(const char *parent, char *out, size_t len)
{
	int rc = -EEXIST;

	if (!parent || !parent[0] || !out || !len)
		return -EINVAL;
	if (strlen(parent) + 1 + UL_SCRATCH_NAME_LEN >= len) {
		out[0] = '\0';
		return -ENAMETOOLONG;
	}
	for (int i = 0; i < SCRATCH_NAME_TRIES && rc == -EEXIST; i++) {
		rc = ul_scratch_name(parent, out, len, NULL, 0);
		if (!rc)
			rc = ul_scratch_make(out);
	}
	if (rc && len)
		out[0] = '\0';
	return rc;
}

/* ---- removal --------------------------------------------------------- */

struct rm_state {
	dev_t dev; /* never cross into another filesystem */
	int first_err;
};

static void rm_note(struct rm_state *rs, int err)
{
	if (!rs->first_err && err)
		rs->first_err = err;
}

static void rm_contents(int dfd, struct rm_state *rs, int depth);

/* Remove one entry of dfd, recursing into directories by fd. */
static void rm_entry(int dfd, const char *name, struct rm_state *rs, int depth)
{
	struct stat st;
	int cfd;

	if (fstatat(dfd, name, &st, AT_SYMLINK_NOFOLLOW) < 0) {
		if (errno != ENOENT)
			rm_note(rs, -errno);
		return;
	}
	if (!S_ISDIR(st.st_mode)) {
		if (unlinkat(dfd, name, 0) < 0 && errno != ENOENT)
			rm_note(rs, -errno);
		return;
	}
	if (st.st_dev != rs->dev) {
		rm_note(rs, -EXDEV); /* a mount point: never descend */
		return;
	}
	if (depth >= SCRATCH_MAX_DEPTH) {
		rm_note(rs, -ELOOP);
		return;
	}
	cfd = openat(dfd, name, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
	if (cfd < 0 && errno == EACCES && st.st_uid == geteuid()) {
		/* A load left it unreadable; it is ours (checked above, no symlink). */
		if (fchmodat(dfd, name, 0700, 0) == 0)
			cfd = openat(dfd, name, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
		/* else errno says why it stays: noted below */
	}
	if (cfd < 0) {
		rm_note(rs, -errno);
		return;
	}
	rm_contents(cfd, rs, depth + 1);
	close(cfd);
	if (unlinkat(dfd, name, AT_REMOVEDIR) < 0 && errno != ENOENT)
		rm_note(rs, -errno);
}

static void rm_contents(int dfd, struct rm_state *rs, int depth)
{
	struct stat st;
	struct dirent *e;
	DIR *d;
	int fd;

	/* Unwritable (a load's chmod): open it up when it is ours. */
	if (fstat(dfd, &st) == 0 && st.st_uid == geteuid() && (st.st_mode & 0700) != 0700)
		(void)fchmod(dfd, 0700);
	fd = dup(dfd);
	if (fd < 0) {
		rm_note(rs, -errno);
		return;
	}
	d = fdopendir(fd);
	if (!d) {
		rm_note(rs, -errno);
		close(fd);
		return;
	}
	while ((e = readdir(d))) {
		if (!strcmp(e->d_name, ".") || !strcmp(e->d_name, ".."))
			continue;
		rm_entry(dfd, e->d_name, rs, depth);
	}
	closedir(d);
}

int ul_scratch_remove(const char *path)
{
	char parent[PATH_MAX], name[NAME_MAX + 1];
	struct rm_state rs = { 0 };
	struct stat st;
	int pfd, dfd, rc = 0;

	if (!path || !path[0] || split(path, parent, sizeof(parent), name, sizeof(name)) ||
	    !has_prefix(name))
		return -EINVAL;
	pfd = ul_open_dir_nofollow(parent, O_PATH);
	if (pfd < 0)
		return pfd;
	if (fstatat(pfd, name, &st, AT_SYMLINK_NOFOLLOW) < 0) {
		rc = -errno;
	} else if (!S_ISDIR(st.st_mode)) {
		rc = -ENOTDIR; /* a symlink named like us is not ours to follow */
	} else if (st.st_uid != geteuid()) {
		rc = -EPERM;
	} else {
		dfd = openat(pfd, name, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
		if (dfd < 0) {
			rc = -errno;
		} else {
			rs.dev = st.st_dev;
			rm_contents(dfd, &rs, 0);
			close(dfd);
			if (unlinkat(pfd, name, AT_REMOVEDIR) < 0 && errno != ENOENT)
				rc = rs.first_err ? rs.first_err : -errno;
		}
	}
	close(pfd);
	return rc;
}

int ul_scratch_is_ours(const char *path)
{
	char parent[PATH_MAX], name[NAME_MAX + 1];
	struct stat st;
	int pfd, rc = 0;

	if (!path || path[0] != '/' || strstr(path, "//") || strstr(path, "/./") ||
	    strstr(path, "/../") || split(path, parent, sizeof(parent), name, sizeof(name)) ||
	    !has_prefix(name) || strlen(name) != UL_SCRATCH_NAME_LEN)
		return -EINVAL;
	pfd = ul_open_dir_nofollow(parent, O_PATH);
	if (pfd < 0)
		return pfd;
	if (fstatat(pfd, name, &st, AT_SYMLINK_NOFOLLOW) < 0)
		rc = -errno;
	else if (!S_ISDIR(st.st_mode))
		rc = -ELOOP;
	else if (st.st_uid != geteuid() || (st.st_mode & 07777) != 0700)
		rc = -EPERM;
	close(pfd);
	return rc;
}

int ul_scratch_openat(const char *dir, const char *name, int flags, mode_t mode)
{
	struct stat st;
	int dfd, fd;

	if (!name || !name[0] || strchr(name, '/') || !strcmp(name, "..") ||
	    (!strcmp(name, ".") && (flags & O_TMPFILE) != O_TMPFILE))
		return -EINVAL;
	dfd = ul_open_dir_nofollow(dir, O_PATH);
	if (dfd < 0)
		return dfd;
	if (fstat(dfd, &st) < 0) {
		fd = -errno;
	} else if (st.st_uid != geteuid() || (st.st_mode & 077)) {
		fd = -EPERM;
	} else {
		fd = openat(dfd, name, flags | O_NOFOLLOW | O_CLOEXEC, mode);
		if (fd < 0)
			fd = -errno;
	}
	close(dfd);
	return fd;
}

int ul_scratch_open_anon(const char *dir, const char *name, int flags)
{
	int fd = ul_scratch_openat(dir, ".", flags | O_TMPFILE, 0600), rc;

	if (fd >= 0 || (fd != -EOPNOTSUPP && fd != -EISDIR && fd != -EINVAL))
		return fd;
	/* No O_TMPFILE here: a name for as short a time as possible. */
	fd = ul_scratch_openat(dir, name, flags | O_CREAT | O_EXCL, 0600);
	if (fd < 0)
		return fd;
	rc = ul_scratch_unlinkat(dir, name);
	if (rc) {
		close(fd);
		return rc;
	}
	return fd;
}

int ul_scratch_unlinkat(const char *dir, const char *name)
{
	int dfd, rc = 0;

	if (!name || !name[0] || strchr(name, '/') || !strcmp(name, ".") || !strcmp(name, ".."))
		return -EINVAL;
	dfd = ul_open_dir_nofollow(dir, O_PATH);
	if (dfd < 0)
		return dfd;
	if (unlinkat(dfd, name, 0) < 0)
		rc = -errno;
	close(dfd);
	return rc;
}

int ul_fs_free_bytes(const char *path, uint64_t *out)
{
	struct statvfs sv;

	if (statvfs(path, &sv) < 0)
		return -errno;
	*out = (uint64_t)sv.f_bavail * (sv.f_frsize ? sv.f_frsize : sv.f_bsize);
	return 0;
}

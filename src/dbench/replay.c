/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * One operation of a trace against the local file system (see replay.h
 * for the semantics, which follow dbench 4's fileio backend).
 */
#include "core/compat.h"
#include "core/clock.h"
#include "dbench/replay.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/stat.h>
#include <sys/statvfs.h>
#include <unistd.h>

#define FILE_DIRECTORY_FILE 0x1
/* A client's budget is 1/RESERVE_SHARE_PART of its share of the headroom. */
#define RESERVE_SHARE_PART 2

int ul_fsb_client_init(struct ul_fsb_client *c, const struct ul_fsb_trace *t, int root_fd,
		       int index, int n_clients, uint64_t disk_reserve_bytes)
{
	memset(c, 0, sizeof(*c));
	c->t = t;
	c->root_fd = root_fd;
	c->n_clients = n_clients > 0 ? n_clients : 1;
	c->disk_reserve_bytes = disk_reserve_bytes;
	snprintf(c->name, sizeof(c->name), "client%d", index + 1);
	c->name_len = strlen(c->name);
	/* Zeros, as dbench 4 writes (calloc); at least one page. */
	c->buf = calloc(1, t->max_io_bytes > 4096 ? t->max_io_bytes : 4096);
	return c->buf ? 0 : -ENOMEM;
}

void ul_fsb_client_fini(struct ul_fsb_client *c)
{
	for (size_t i = 0; i < c->n_open; i++)
		close(c->open[i].fd);
	c->n_open = 0;
	free(c->buf);
	c->buf = NULL;
}

/* The op's path k for this client in c->path[k]: "client1" renamed. */
static const char *op_path(struct ul_fsb_client *c, const struct ul_fsb_op *op, int k)
{
	const char *src = ul_fsb_path(c->t, op->path[k]);
	char *dst = c->path[k];
	size_t len = strlen(src);

	if (!len)
		return ".";
	if (op->sub[k] == UL_FSB_NO_SUB) {
		if (len >= PATH_MAX)
			return ".";
		memcpy(dst, src, len + 1);
		return dst;
	}
	if (len - 7 + c->name_len >= PATH_MAX)
		return ".";
	memcpy(dst, src, op->sub[k]);
	memcpy(dst + op->sub[k], c->name, c->name_len);
	memcpy(dst + op->sub[k] + c->name_len, src + op->sub[k] + 7, len - op->sub[k] - 7 + 1);
	return dst;
}

/* dbench's resolve_name(): stat, and on a miss scan the parent for a
 * case-insensitive match (what a Windows server would do). */
static void resolve(struct ul_fsb_client *c, const char *path)
{
	struct stat st;
	const char *slash;
	char dir[PATH_MAX];
	struct dirent *d;
	DIR *dp;
	int fd;

	if (fstatat(c->root_fd, path, &st, 0) == 0)
		return;
	slash = strrchr(path, '/');
	if (!slash)
		return;
	snprintf(dir, sizeof(dir), "%.*s", (int)(slash - path), path);
	fd = openat(c->root_fd, dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	if (fd < 0)
		return;
	dp = fdopendir(fd);
	if (!dp) {
		close(fd);
		return;
	}
	while ((d = readdir(dp)))
		if (!strcasecmp(slash + 1, d->d_name))
			break;
	closedir(dp);
}

static int find_handle(struct ul_fsb_client *c, int64_t handle)
{
	for (size_t i = 0; i < c->n_open; i++)
		if (c->open[i].handle == handle)
			return (int)i;
	return -1;
}

static int rc_of(int r)
{
	return r < 0 ? -errno : 0;
}

static int do_create(struct ul_fsb_client *c, const struct ul_fsb_op *op, size_t i)
{
	const char *path = op_path(c, op, 0);
	int64_t opts = op->arg[0], disp = op->arg[1];
	int flags = O_RDWR | O_CLOEXEC, fd;
	struct stat st;

	resolve(c, path);
	if (disp == 0 || disp == 2 || disp == 3) /* SUPERSEDE, CREATE, OPEN_IF */
		flags |= O_CREAT;
	if (disp == 4 || disp == 5) /* OVERWRITE, OVERWRITE_IF */
		flags |= O_CREAT | O_TRUNC;
	if (opts & FILE_DIRECTORY_FILE) {
		mkdirat(c->root_fd, path, 0700);
		flags = O_RDONLY | O_DIRECTORY | O_CLOEXEC;
	}
	fd = openat(c->root_fd, path, flags, 0600);
	if (fd < 0 && errno == EISDIR)
		fd = openat(c->root_fd, path, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	if (fd < 0)
		return -errno;
	if (!op->expect_ok || c->n_open == UL_FSB_MAX_OPEN) {
		close(fd); /* opened where the trace expected a failure: not kept */
		return op->expect_ok ? -EMFILE : 0;
	}
	c->open[c->n_open].handle = op->arg[2];
	c->open[c->n_open].fd = fd;
	c->open[c->n_open].op = i;
	c->n_open++;
	return rc_of(fstat(fd, &st));
}

static int do_close(struct ul_fsb_client *c, int h)
{
	int r = close(c->open[h].fd);

	c->open[h] = c->open[--c->n_open];
	return rc_of(r);
}

uint64_t ul_fsb_write_budget(uint64_t free_bytes, uint64_t reserve_bytes, int n_clients,
			     uint64_t write_bytes)
{
	uint64_t budget;

	if (free_bytes <= reserve_bytes || n_clients < 1)
		return 0;
	budget = (free_bytes - reserve_bytes) / (uint64_t)n_clients / RESERVE_SHARE_PART;
	return budget < write_bytes ? 0 : budget;
}

/*
 * Before a write of `size` bytes: within the budget it just goes; else
 * the free space is looked at (below the reserve: fatal, -ENOSPC) and a
 * new budget drawn from it, this write included.
 */
static int check_reserve(struct ul_fsb_client *c, uint64_t size)
{
	struct statvfs sv;
	uint64_t free_bytes;

	if (!c->disk_reserve_bytes)
		return 0;
	if (size <= c->write_budget) {
		c->write_budget -= size;
		return 0;
	}
	c->write_budget = 0;
	if (fstatvfs(c->root_fd, &sv) < 0)
		return 0; /* unknown: the write's own ENOSPC still stops the client */
	free_bytes = (uint64_t)sv.f_bavail * sv.f_frsize;
	if (free_bytes < c->disk_reserve_bytes) {
		if (c->stats)
			c->stats->reserve_hit = true;
		return -ENOSPC;
	}
	c->write_budget = ul_fsb_write_budget(free_bytes, c->disk_reserve_bytes, c->n_clients,
					      c->t->max_io_bytes);
	c->write_budget -= size < c->write_budget ? size : c->write_budget;
	return 0;
}

static int do_io(struct ul_fsb_client *c, const struct ul_fsb_op *op, int h)
{
	size_t size = (size_t)op->arg[2];
	ssize_t r;
	int rc;

	if (op->kind == UL_FSB_WRITEX) {
		rc = check_reserve(c, size);
		if (rc)
			return rc;
		r = pwrite(c->open[h].fd, c->buf, size, (off_t)op->arg[1]);
		if (r > 0 && c->stats)
			c->stats->write_bytes += (uint64_t)r;
	} else {
		r = pread(c->open[h].fd, c->buf, size, (off_t)op->arg[1]);
		if (r > 0 && c->stats)
			c->stats->read_bytes += (uint64_t)r;
	}
	if (r < 0)
		return -errno;
	return r == op->arg[3] ? 0 : -EIO;
}

static int do_setinfo(struct ul_fsb_client *c, int h)
{
	const struct ul_fsb_op *open_op = &c->t->ops[c->open[h].op];
	struct timespec ts[2];
	struct stat st;

	if (fstat(c->open[h].fd, &st) < 0)
		return -errno;
	ts[0] = (struct timespec){ .tv_sec = st.st_atime - 10 };
	ts[1] = (struct timespec){ .tv_sec = st.st_mtime - 12 };
	return rc_of(utimensat(c->root_fd, op_path(c, open_op, 0), ts, 0));
}

static int do_lock(struct ul_fsb_client *c, const struct ul_fsb_op *op, int h)
{
	struct flock fl = {
		.l_type = op->kind == UL_FSB_LOCKX ? F_WRLCK : F_UNLCK,
		.l_whence = SEEK_SET,
		.l_start = (off_t)op->arg[1],
		.l_len = (off_t)op->arg[2],
	};

	return rc_of(fcntl(c->open[h].fd, F_SETLK, &fl));
}

/* Remove everything under dirfd/path (dbench's Deltree); ignores errors. */
static void deltree_at(int dirfd, const char *path, int depth)
{
	int fd = openat(dirfd, path, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
	struct dirent *d;
	DIR *dp;

	if (fd < 0)
		return;
	dp = fdopendir(fd);
	if (!dp) {
		close(fd);
		return;
	}
	while ((d = readdir(dp))) {
		if (!strcmp(d->d_name, ".") || !strcmp(d->d_name, ".."))
			continue;
		if (d->d_type == DT_DIR && depth < 64) {
			deltree_at(fd, d->d_name, depth + 1);
			unlinkat(fd, d->d_name, AT_REMOVEDIR);
		} else if (unlinkat(fd, d->d_name, 0) < 0 && errno == EISDIR && depth < 64) {
			deltree_at(fd, d->d_name, depth + 1);
			unlinkat(fd, d->d_name, AT_REMOVEDIR);
		}
	}
	closedir(dp);
}

static int do_findfirst(struct ul_fsb_client *c, const struct ul_fsb_op *op)
{
	char *path = (char *)op_path(c, op, 0), *slash;
	int64_t left = op->arg[1];
	DIR *dp;
	int fd;

	resolve(c, path);
	if (!strpbrk(path, "<>*?\""))
		return 0;
	slash = strrchr(path, '/');
	if (!slash)
		return 0;
	*slash = '\0';
	fd = openat(c->root_fd, path, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	if (fd < 0)
		return 0;
	dp = fdopendir(fd);
	if (!dp) {
		close(fd);
		return 0;
	}
	while (left && readdir(dp))
		left--;
	closedir(dp);
	return 0;
}

/* The operation itself: 0 success, -errno failure (its outcome). */
static int execute(struct ul_fsb_client *c, const struct ul_fsb_op *op, size_t i)
{
	struct statvfs sv;
	struct stat st;
	int h = -1;

	switch (op->kind) {
	case UL_FSB_CLOSE:
	case UL_FSB_READX:
	case UL_FSB_WRITEX:
	case UL_FSB_FLUSH:
	case UL_FSB_LOCKX:
	case UL_FSB_UNLOCKX:
	case UL_FSB_QUERY_FILE_INFORMATION:
	case UL_FSB_SET_FILE_INFORMATION:
		h = find_handle(c, op->arg[0]);
		if (h < 0)
			return -EBADF;
		break;
	default:
		break;
	}
	switch (op->kind) {
	case UL_FSB_NTCREATEX:
		return do_create(c, op, i);
	case UL_FSB_CLOSE:
		return do_close(c, h);
	case UL_FSB_READX:
	case UL_FSB_WRITEX:
		return do_io(c, op, h);
	case UL_FSB_FLUSH:
		return rc_of(fsync(c->open[h].fd));
	case UL_FSB_LOCKX:
	case UL_FSB_UNLOCKX:
		return do_lock(c, op, h);
	case UL_FSB_QUERY_FILE_INFORMATION:
		return rc_of(fstat(c->open[h].fd, &st));
	case UL_FSB_SET_FILE_INFORMATION:
		return do_setinfo(c, h);
	case UL_FSB_QUERY_FS_INFORMATION:
		return rc_of(fstatvfs(c->root_fd, &sv));
	case UL_FSB_QUERY_PATH_INFORMATION: {
		const char *p = op_path(c, op, 0);

		resolve(c, p);
		return rc_of(fstatat(c->root_fd, p, &st, 0));
	}
	case UL_FSB_FIND_FIRST:
		return do_findfirst(c, op);
	case UL_FSB_RENAME: {
		const char *a = op_path(c, op, 0), *b = op_path(c, op, 1);

		resolve(c, a);
		resolve(c, b);
		return rc_of(renameat(c->root_fd, a, c->root_fd, b));
	}
	case UL_FSB_UNLINK: {
		const char *p = op_path(c, op, 0);

		resolve(c, p);
		return rc_of(unlinkat(c->root_fd, p, 0));
	}
	case UL_FSB_RMDIR: {
		const char *p = op_path(c, op, 0);

		resolve(c, p);
		return rc_of(unlinkat(c->root_fd, p, AT_REMOVEDIR));
	}
	case UL_FSB_MKDIR: {
		const char *p = op_path(c, op, 0);

		resolve(c, p);
		return rc_of(mkdirat(c->root_fd, p, 0777));
	}
	case UL_FSB_DELTREE:
		deltree_at(c->root_fd, op_path(c, op, 0), 0);
		return 0;
	case UL_FSB_SLEEP: {
		int64_t us = op->arg[0] < 0 ? 0 : op->arg[0] > 10000000 ? 10000000 : op->arg[0];

		usleep((useconds_t)us);
		return 0;
	}
	default:
		return -EINVAL;
	}
}

static bool outcome_checked(int kind)
{
	return kind != UL_FSB_DELTREE && kind != UL_FSB_MKDIR && kind != UL_FSB_FIND_FIRST &&
	       kind != UL_FSB_SLEEP;
}

static void record(struct ul_fsb_stats *s, int kind, uint64_t ns, bool mismatch)
{
	struct ul_fsb_opstat *o = &s->op[kind];

	o->count++;
	o->sum_ns += ns;
	if (ns > o->max_ns)
		o->max_ns = ns;
	o->hist[ul_hist_bucket(ns)]++;
	s->ops++;
	if (mismatch) {
		o->mismatches++;
		s->mismatches++;
	}
}

int ul_fsb_replay_op(struct ul_fsb_client *c, size_t i)
{
	const struct ul_fsb_op *op = &c->t->ops[i];
	ul_nsec t0 = ul_now_ns(), t1;
	int rc = execute(c, op, i);
	bool mismatch;

	t1 = ul_now_ns();
	if (rc == -ENOSPC || rc == -EDQUOT) {
		if (c->stats) {
			c->stats->fatal_errno = -rc;
			c->stats->fatal_line = op->line;
			c->stats->fatal_index = i;
			c->stats->fatal_kind = op->kind;
		}
		return rc;
	}
	mismatch = outcome_checked(op->kind) && (rc == 0) != op->expect_ok;
	if (c->stats)
		record(c->stats, op->kind, (uint64_t)(t1 - t0), mismatch);
	if (c->units)
		atomic_fetch_add_explicit(c->units, 1, memory_order_relaxed);
	return mismatch;
}

void ul_fsb_client_cleanup(struct ul_fsb_client *c)
{
	char path[64];

	for (size_t i = 0; i < c->n_open; i++)
		close(c->open[i].fd);
	c->n_open = 0;
	snprintf(path, sizeof(path), "clients/%s", c->name);
	ul_fsb_remove_tree(c->root_fd, path);
	/* Never clients/ itself, even when empty: a client still starting
	 * may have made it (Mkdir "\clients") and not yet its own directory
	 * under it.  The round removes clients/ once every client has ended. */
}

void ul_fsb_remove_tree(int dirfd, const char *path)
{
	deltree_at(dirfd, path, 0);
	unlinkat(dirfd, path, AT_REMOVEDIR);
}

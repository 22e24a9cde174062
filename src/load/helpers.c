/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Helpers for the loads: running external programs (tar, ls), sizing trees
 * and files against the disk reserve, the tar loads' hooks and the
 * streaming-write loop.  See load/helpers.h.
 */
#include "core/compat.h"
#include "load/helpers.h"
#include "proc/supervise.h"
#include "load/internal.h"
#include "proc/scratch.h"

#include <errno.h>
#include <fcntl.h>
#include <ftw.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

int ul_load_exec_wait(char *const argv[], const char *cwd, int *wstatus)
{
	sigset_t waitset, old;
	pid_t pid;
	bool stopping = false;
	int err = 0;

	if (!argv || !argv[0] || argv[0][0] != '/')
		return EINVAL;
	sigemptyset(&waitset);
	sigaddset(&waitset, SIGTERM);
	sigaddset(&waitset, SIGCHLD);
	if (sigprocmask(SIG_BLOCK, &waitset, &old) < 0)
		return errno;

	pid = ul_fork_child(&old, 0, UL_LOAD_EXEC_FAILED);
	if (pid < 0) {
		err = errno;
		sigprocmask(SIG_SETMASK, &old, NULL);
		return err;
	}
	if (pid == 0) {
		int fd;

		if (cwd && chdir(cwd) < 0)
			_exit(UL_LOAD_EXEC_FAILED);
		fd = open("/dev/null", O_RDONLY | O_CLOEXEC);
		if (fd < 0 || dup2(fd, STDIN_FILENO) < 0)
			_exit(UL_LOAD_EXEC_FAILED);
		execv(argv[0], argv);
		_exit(UL_LOAD_EXEC_FAILED);
	}

	for (;;) {
		int sig = sigwaitinfo(&waitset, NULL);
		pid_t r;

		if (sig < 0 && errno == EINTR)
			continue;
		if (sig == SIGTERM) {
			stopping = true;
			kill(pid, SIGKILL);
		}
		/* SIGCHLD, or after the kill: reap it (blocking only once killed). */
		do
			r = waitpid(pid, wstatus, stopping ? 0 : WNOHANG);
		while (r < 0 && errno == EINTR);
		if (r == pid)
			break;
		if (r < 0) {
			err = errno;
			break;
		}
		if (sig < 0) {
			err = errno;
			break;
		}
	}
	if (stopping) {
		ul_load_die_of_stop();
	}
	sigprocmask(SIG_SETMASK, &old, NULL);
	return err;
}

/* nftw() has no user pointer: the walk is single-threaded, so a file-scope sum will do. */
static uint64_t tree_sum;

static int tree_add(const char *path, const struct stat *st, int type, struct FTW *ftw)
{
	(void)path;
	(void)ftw;
	if (type == FTW_F)
		tree_sum += (uint64_t)st->st_size;
	return 0;
}

int ul_load_tree_bytes(const char *dir, uint64_t *bytes)
{
	tree_sum = 0;
	if (nftw(dir, tree_add, 32, FTW_PHYS) < 0)
		return errno ? -errno : -EIO;
	*bytes = tree_sum;
	return 0;
}

/* Free space above the reserve, and renderings of both for reasons. */
static int room(const struct ul_load_ctx *ctx, uint64_t *avail, char *free_s, char *res_s,
		size_t slen, char *why, size_t len)
{
	uint64_t free_bytes;
	int r = ul_fs_free_bytes(ctx->scratch_dir, &free_bytes);

	if (r) {
		snprintf(why, len, "cannot find free space on '%s': %s", ctx->scratch_dir,
			 strerror(-r));
		return r;
	}
	*avail = free_bytes > ctx->disk_reserve_bytes ? free_bytes - ctx->disk_reserve_bytes : 0;
	ul_load_fmt_bytes(free_s, slen, free_bytes);
	ul_load_fmt_bytes(res_s, slen, ctx->disk_reserve_bytes);
	return 0;
}

int ul_load_size_file(const struct ul_load_ctx *ctx, uint64_t *size, char *why, size_t len)
{
	char a[32], b[32], c[32];
	uint64_t avail, want = *size;
	int r = room(ctx, &avail, b, c, sizeof(b), why, len);

	if (r)
		return r;
	if (want == 0) {
		want = ctx->mem_budget_bytes < avail ? ctx->mem_budget_bytes : avail;
		want -= want % UL_MiB;
		if (want == 0) {
			snprintf(why, len,
				 "no room for even 1M: %s free on the scratch fs, reserve %s", b,
				 c);
			return -ENOSPC;
		}
	} else {
		if (want < UL_MiB) {
			snprintf(why, len, "size must be 0 (auto) or at least 1M");
			return -EINVAL;
		}
		want -= want % UL_MiB;
		if (want > avail) {
			ul_load_fmt_bytes(a, sizeof(a), want);
			snprintf(why, len,
				 "size %s does not fit: %s free on the scratch fs, reserve %s", a,
				 b, c);
			return -ENOSPC;
		}
	}
	*size = want;
	return 0;
}

int ul_load_check_room(const struct ul_load_ctx *ctx, uint64_t need, const char *what, char *why,
		       size_t len)
{
	char a[32], b[32], c[32];
	uint64_t avail;
	int r = room(ctx, &avail, b, c, sizeof(b), why, len);

	if (r)
		return r;
	if (need > avail) {
		ul_load_fmt_bytes(a, sizeof(a), need);
		snprintf(why, len, "%s needs about %s: %s free on the scratch fs, reserve %s", what,
			 a, b, c);
		return -ENOSPC;
	}
	return 0;
}

/* One pass of ul_load_stream_run(): 0 or a positive errno; *written counts completed writes. */
static int stream_pass(struct ul_load_ctx *ctx, const char *name, char *buf, uint64_t chunks,
		       unsigned int flags, uint64_t *written)
{
	/* With UNLINK the file has no name: its blocks go with the last fd,
	 * even when the load is killed mid-pass. */
	int fd = flags & UL_LOAD_STREAM_UNLINK
			 ? ul_scratch_open_anon(ctx->scratch_dir, name, O_WRONLY)
			 : ul_scratch_openat(ctx->scratch_dir, name, O_WRONLY | O_CREAT | O_TRUNC,
					     0600);
	int err = 0;

	*written = 0;
	if (fd < 0)
		return -fd;
	for (uint64_t i = 0; i < chunks; i++) {
		if (flags & UL_LOAD_STREAM_STAMP)
			buf[0] = (char)i;
		err = ul_load_write_all(fd, buf, UL_LOAD_STREAM_CHUNK);
		if (err)
			break;
		ul_load_add_units(ctx, 1);
		(*written)++;
	}
	if (flags & UL_LOAD_STREAM_UNLINK)
		close(fd); /* the data are discarded: its error says nothing */
	else if (close(fd) < 0 && !err)
		err = errno;
	return err;
}

int ul_load_stream_run(struct ul_load_ctx *ctx, const char *name, char *buf, uint64_t chunks,
		       unsigned int flags)
{
	const struct timespec backoff = { 0, 100 * 1000 * 1000 };
	uint64_t written;

	for (;;) {
		int err = stream_pass(ctx, name, buf, chunks, flags, &written);

		if (!err)
			continue;
		if (err != ENOSPC)
			return ul_load_fail(ctx, err);
		/*
		 * Someone else filled the disk after check(): recorded for the
		 * report, not fatal; the next pass truncates (or recreates) the
		 * file and starts over.  Back off when no progress is possible.
		 */
		ul_load_fail(ctx, ENOSPC);
		if (written == 0)
			nanosleep(&backoff, NULL);
	}
	return EINTR;
}

int ul_load_stream_check(struct ul_load_ctx *ctx, char *why, size_t len)
{
	uint64_t size = (uint64_t)ctx->opt[0];
	int r = ul_load_size_file(ctx, &size, why, len);

	if (r)
		return r;
	ctx->opt[0] = (int64_t)size;
	return 0;
}

int ul_load_need_program(const char *path, char *why, size_t len)
{
	if (access(path, X_OK) < 0) {
		snprintf(why, len, "cannot execute '%s': %s", path, strerror(errno));
		return -ENOTSUP;
	}
	return 0;
}

int ul_load_tar_supported(char *why, size_t len)
{
	return ul_load_need_program(UL_LOAD_TAR_PROG, why, len);
}

int ul_load_tar_check(const struct ul_load_ctx *ctx, unsigned int copies, const char *what,
		      char *why, size_t len)
{
	uint64_t bytes;
	struct stat st;
	int r;

	if (!ctx->src_dir) {
		snprintf(why, len,
			 "needs a tree to archive (the contest suite gives its job's tree)");
		return -EINVAL;
	}
	if (stat(ctx->src_dir, &st) < 0 || !S_ISDIR(st.st_mode)) {
		snprintf(why, len, "'%s' is not a directory", ctx->src_dir);
		return -ENOTDIR;
	}
	r = ul_load_tree_bytes(ctx->src_dir, &bytes);
	if (r) {
		snprintf(why, len, "cannot measure '%s': %s", ctx->src_dir, strerror(-r));
		return r;
	}
	return ul_load_check_room(ctx, copies * (bytes + bytes / 4 + UL_MiB), what, why, len);
}

/* Run tar with argv; 0 if it exited with a status <= max_ok, else as ul_load_tar_create(). */
static int tar_run(char *const argv[], int max_ok)
{
	int st, err = ul_load_exec_wait(argv, NULL, &st);

	if (err)
		return err;
	if (WIFEXITED(st) && WEXITSTATUS(st) == UL_LOAD_EXEC_FAILED)
		return ENOEXEC;
	if (!WIFEXITED(st) || WEXITSTATUS(st) > max_ok)
		return EIO; /* tar's fatal error, or killed */
	return 0;
}

/* tar's "some files differed" exit status: the archive is still whole. */
#define TAR_EXIT_DIFFERED 1

int ul_load_tar_create(const char *archive, const char *dir)
{
	char *const argv[] = { (char *)UL_LOAD_TAR_PROG,
			       (char *)"-cf",
			       (char *)archive,
			       (char *)"-C",
			       (char *)dir,
			       (char *)".",
			       NULL };

	return tar_run(argv, TAR_EXIT_DIFFERED);
}

int ul_load_tar_extract(const char *archive, const char *dir)
{
	char *const argv[] = { (char *)UL_LOAD_TAR_PROG,
			       (char *)"-xf",
			       (char *)archive,
			       (char *)"-C",
			       (char *)dir,
			       NULL };

	return tar_run(argv, 0);
}

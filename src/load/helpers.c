/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Helpers for the contest loads: running external programs (tar, ls),
 * sizing trees and files against the disk reserve.  See load/helpers.h.
 */
#include "core/compat.h"
#include "load/helpers.h"
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
#include <unistd.h>

int ul_load_exec_wait(char *const argv[], const char *cwd, int *wstatus)
{
	sigset_t waitset, old;
	pid_t parent = getpid(), pid;
	bool stopping = false;
	int err = 0;

	if (!argv || !argv[0] || argv[0][0] != '/')
		return EINVAL;
	sigemptyset(&waitset);
	sigaddset(&waitset, SIGTERM);
	sigaddset(&waitset, SIGCHLD);
	if (sigprocmask(SIG_BLOCK, &waitset, &old) < 0)
		return errno;

	pid = fork();
	if (pid < 0) {
		err = errno;
		sigprocmask(SIG_SETMASK, &old, NULL);
		return err;
	}
	if (pid == 0) {
		int fd;

		/* Same process group as the load: stopped with it; and never outlives it. */
		if (prctl(PR_SET_PDEATHSIG, SIGKILL) < 0 || getppid() != parent)
			_exit(UL_LOAD_EXEC_FAILED);
		sigprocmask(SIG_SETMASK, &old, NULL);
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
		/* Die of the SIGTERM we took, as an unhandled one would have. */
		signal(SIGTERM, SIG_DFL);
		raise(SIGTERM);
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
		snprintf(why, len, "%s needs about %s: %s free on the scratch fs, reserve %s",
			 what, a, b, c);
		return -ENOSPC;
	}
	return 0;
}

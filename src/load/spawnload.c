/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * The "spawnload" load: a continuous fork + exec("/bin/true") + exit storm
 * with a capped number of children in flight; the unit is a completed fork.
 */
#include "core/compat.h"
#include "load/internal.h"
#include "load/helpers.h"
#include "load/load.h"

#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#define SPAWN_PROG "/bin/true"
#define SPAWN_MAX_CHILDREN 256
/* Exit status of a child whose exec failed; /bin/true never returns it. */
#define SPAWN_EXEC_FAILED 127

enum {
	OPT_MAX_CHILDREN
};

static const struct ul_opt spawnload_opts[] = {
	{ "max-children", UL_OPT_COUNT, 0, SPAWN_MAX_CHILDREN, 0,
	  "children in flight at most; 0 = auto: 4 per online CPU, at most 256" },
	{ NULL, UL_OPT_COUNT, 0, 0, 0, NULL },
};

/* The load execs a real program: without it, it would silently measure nothing. */
static int spawnload_supported(char *why, size_t len)
{
	return ul_load_need_program(SPAWN_PROG, why, len);
}

static int spawnload_check(struct ul_load_ctx *ctx, char *why, size_t len)
{
	int64_t n = ctx->opt[OPT_MAX_CHILDREN];

	(void)why;
	(void)len;
	if (n == 0) {
		n = 4 * (int64_t)(ctx->ncpu > 0 ? ctx->ncpu : 1);
		ctx->opt[OPT_MAX_CHILDREN] = n < SPAWN_MAX_CHILDREN ? n : SPAWN_MAX_CHILDREN;
	}
	return 0;
}

/* Reap one child; 0 if it ran /bin/true successfully, else a positive errno. */
static int reap_one(struct ul_load_ctx *ctx, int *inflight)
{
	int st;
	pid_t pid;

	while ((pid = waitpid(-1, &st, 0)) < 0 && errno == EINTR)
		;
	if (pid < 0)
		return errno == ECHILD ? EPROTO : errno; /* our count is wrong */
	(*inflight)--;
	if (WIFEXITED(st) && WEXITSTATUS(st) == 0) {
		ul_load_add_units(ctx, 1);
		return 0;
	}
	if (WIFEXITED(st) && WEXITSTATUS(st) == SPAWN_EXEC_FAILED)
		return ENOEXEC;
	return ECHILD; /* /bin/true failed or was killed by someone else */
}

static int spawnload_run(struct ul_load_ctx *ctx, void *state)
{
	char *const argv[] = { (char *)SPAWN_PROG, NULL };
	const struct timespec backoff = { 0, 10 * 1000 * 1000 };
	int max = (int)ctx->opt[OPT_MAX_CHILDREN];
	int inflight = 0, err;

	(void)state;
	for (;;) {
		pid_t pid;

		if (inflight >= max) {
			err = reap_one(ctx, &inflight);
			if (err)
				return ul_load_fail(ctx, err);
			continue;
		}
		pid = fork();
		if (pid == 0) {
			/* Same process group as the leader: stopped with it. */
			execv(SPAWN_PROG, argv);
			_exit(SPAWN_EXEC_FAILED);
		}
		if (pid > 0) {
			inflight++;
			continue;
		}
		if (errno != EAGAIN && errno != ENOMEM)
			return ul_load_fail(ctx, errno);
		/*
		 * Out of processes or memory is what this load provokes on a
		 * bad kernel (resp1's "no resources on fork()"): note it, make
		 * room and keep going, rather than die and end the test.
		 */
		ul_load_fail(ctx, errno);
		if (inflight > 0) {
			err = reap_one(ctx, &inflight);
			if (err)
				return ul_load_fail(ctx, err);
		} else {
			nanosleep(&backoff, NULL);
		}
	}
	return EINTR;
}

const struct ul_load ul_load_spawnload = {
	.name = "spawnload",
	.summary = "fork + exec /bin/true + exit continuously, a capped number at a time",
	.unit = "forks",
	.opts = spawnload_opts,
	.flags = UL_LOAD_FORKS,
	.supported = spawnload_supported,
	.check = spawnload_check,
	.prepare = NULL,
	.run = spawnload_run,
};

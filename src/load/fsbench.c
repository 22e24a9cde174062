/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * The "fsbench" load (contest v0.61's dbench_load): worker processes replay
 * the fsbench trace over and over, each in its own clients/clientN
 * directory, counting operations.  The trace is Debian's dbench client.txt
 * when installed, else the built-in one (dbench/loadfile.h).
 */
#include "core/compat.h"
#include "dbench/replay.h"
#include "load/internal.h"
#include "load/load.h"
#include "proc/scratch.h"

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

enum {
	OPT_CLIENTS,
	OPT_BUILTIN
};

static const struct ul_opt fsbench_load_opts[] = {
	{ "clients", UL_OPT_COUNT, 0, UL_FSB_MAX_CLIENTS, 0,
	  "replaying processes; 0 = one per CPU" },
	{ "builtin", UL_OPT_BOOL, 0, 1, 0,
	  "replay the built-in trace even when dbench's client.txt is installed" },
	{ NULL, UL_OPT_COUNT, 0, 0, 0, NULL },
};

struct fl_state {
	struct ul_fsb_trace trace;
	int root_fd;
};

static int fsbench_load_check(struct ul_load_ctx *ctx, char *why, size_t len)
{
	uint64_t free_bytes;
	int r;

	if (!ctx->opt[OPT_CLIENTS])
		ctx->opt[OPT_CLIENTS] = ctx->ncpu > 0 ? ctx->ncpu : 1;
	r = ul_fs_free_bytes(ctx->scratch_dir, &free_bytes);
	if (r) {
		snprintf(why, len, "cannot find free space on '%s': %s", ctx->scratch_dir,
			 strerror(-r));
		return r;
	}
	if (free_bytes <= ctx->disk_reserve_bytes) {
		char a[32], b[32];

		ul_load_fmt_bytes(a, sizeof(a), free_bytes);
		ul_load_fmt_bytes(b, sizeof(b), ctx->disk_reserve_bytes);
		snprintf(why, len, "only %s free on the scratch fs, reserve %s", a, b);
		return -ENOSPC;
	}
	return 0;
}

static int fsbench_load_prepare(struct ul_load_ctx *ctx, void **state)
{
	struct fl_state *s = calloc(1, sizeof(*s));
	char path[PATH_MAX], err[256];
	int rc;

	if (!s)
		return ENOMEM;
	ul_fsb_trace_init(&s->trace);
	if (!ctx->opt[OPT_BUILTIN] && access(UL_FSB_DEFAULT_LOADFILE, R_OK) == 0)
		rc = ul_fsb_trace_load(&s->trace, UL_FSB_DEFAULT_LOADFILE, err, sizeof(err));
	else
		rc = ul_fsb_trace_generate(&s->trace, UL_FSB_GEN_SESSIONS);
	if (rc)
		return -rc;
	if (snprintf(path, sizeof(path), "%s/fsbench-load", ctx->scratch_dir) >= (int)sizeof(path))
		return ENAMETOOLONG;
	if (mkdir(path, 0700) < 0 && errno != EEXIST)
		return errno;
	s->root_fd = open(path, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	if (s->root_fd < 0)
		return errno;
	*state = s;
	return 0;
}

static int fsbench_worker(struct ul_load_ctx *ctx, void *state, int index)
{
	struct fl_state *s = state;
	struct ul_fsb_client c;
	_Atomic int phase = UL_FSB_MEASURE;
	int rc;

	rc = ul_fsb_client_init(&c, &s->trace, s->root_fd, index, (int)ctx->opt[OPT_CLIENTS],
				ctx->disk_reserve_bytes);
	if (rc)
		return -rc;
	c.units = &ctx->shared->units;
	rc = ul_fsb_client_run(&c, &phase, false, 0); /* returns only on a fatal error */
	return ul_load_fail(ctx, rc ? -rc : EPIPE);
}

static int fsbench_load_run(struct ul_load_ctx *ctx, void *state)
{
	return ul_load_run_workers(ctx, state, (int)ctx->opt[OPT_CLIENTS], fsbench_worker);
}

const struct ul_load ul_load_fsbench = {
	.name = "fsbench",
	.summary = "processes replaying dbench's file-server trace (contest's dbench_load)",
	.unit = "ops",
	.opts = fsbench_load_opts,
	.flags = UL_LOAD_DISK,
	.supported = NULL,
	.check = fsbench_load_check,
	.prepare = fsbench_load_prepare,
	.run = fsbench_load_run,
};

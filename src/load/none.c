/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * The "noload" load, and the annotated template for new loads: copy this
 * file, rename the descriptor, add a line to loads.def.  noload is a real
 * process that does nothing until it is stopped, so the baseline goes
 * through the same supervision (spawn, barrier, stop, reap) as every load.
 */
#include "core/compat.h"
#include "load/load.h"

#include <errno.h>
#include <unistd.h>

/*
 * Options: one entry per tunable, ending with a NULL name.  Values reach
 * the hooks in ctx->opt[] in this order (sizes in bytes, durations in ns).
 * noload has none; a typical entry is
 *	{ "size", UL_OPT_SIZE, 4096, 1 << 30, 1 << 20, "bytes per write" },
 */
static const struct ul_opt noload_opts[] = {
	{ NULL, UL_OPT_COUNT, 0, 0, 0, NULL },
};

/*
 * check(): runs in the supervisor before the fork.  Resolve "auto" (0)
 * options against ctx->mem_budget_bytes / ctx->disk_reserve_bytes, write
 * them back into ctx->opt, and refuse impossible requests with a reason.
 * noload needs nothing.
 */

/*
 * prepare(): runs in the leader child before the start barrier; allocate
 * and create files here so set-up cost is not counted as load.
 */

/*
 * run(): runs in the leader child after the barrier.  Do the work until
 * killed, adding to ctx->shared->units as work completes.  Return a
 * positive errno only on failure.  Never print, never exit().
 */
static int noload_run(struct ul_load_ctx *ctx, void *state)
{
	(void)ctx;
	(void)state;
	for (;;)
		pause(); /* SIGTERM's default action ends us */
	return EINTR;
}

const struct ul_load ul_load_noload = {
	.name = "noload",
	.summary = "nothing: the baseline every other load is compared with",
	.unit = "units",
	.opts = noload_opts,
	.flags = 0,
	.supported = NULL,
	.check = NULL,
	.prepare = NULL,
	.run = noload_run,
};

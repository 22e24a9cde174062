/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * The "null" probe, and the annotated template for new repeat probes:
 * copy this file, rename the descriptor, add a line to probes.def.  It
 * times nothing (two clock reads), which makes it the zero-cost baseline
 * for the supervision path in tests.
 */
#include "core/compat.h"
#include "core/clock.h"
#include "probe/probe.h"

/* Options: as in load/none.c; values arrive in ctx->opt[] in this order. */
static const struct ul_opt null_opts[] = {
	{ NULL, UL_OPT_COUNT, 0, 0, 0, NULL },
};

/*
 * setup(): in the probe child, before it reports ready.  Allocate the
 * working set and create files here; *state reaches sample()/teardown().
 */

/*
 * sample(): in the probe child, after the think-time sleep.  Time the task
 * with CLOCK_MONOTONIC, store ns in *out_ns, return 0 or a positive errno.
 * No allocation, printing or logging on this path.
 */
static int null_sample(struct ul_probe_ctx *ctx, void *state, int64_t *out_ns)
{
	ul_nsec t0 = ul_now_ns();

	(void)ctx;
	(void)state;
	*out_ns = ul_now_ns() - t0;
	return 0;
}

const struct ul_probe ul_probe_null = {
	.name = "null",
	.summary = "times nothing: the cost of two clock reads",
	.unit = "ns",
	.opts = null_opts,
	.kind = UL_PROBE_REPEAT,
	.supported = NULL,
	.setup = NULL,
	.sample = null_sample,
	.teardown = NULL,
};

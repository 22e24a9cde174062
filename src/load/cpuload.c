/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * The "cpuload" load: one busy spinner per CPU doing integer work, counting
 * millions of loop iterations, so a kernel cannot look good by starving it.
 */
#include "core/compat.h"
#include "load/internal.h"
#include "load/load.h"

#include <errno.h>

/* Iterations per unit: one "Mloop". */
#define LOOPS_PER_UNIT (1u << 20)

enum {
	OPT_SPINNERS
};

static const struct ul_opt cpuload_opts[] = {
	{ "spinners", UL_OPT_COUNT, 0, 4096, 0, "busy processes; 0 = auto: one per online CPU" },
	{ NULL, UL_OPT_COUNT, 0, 0, 0, NULL },
};

static int cpuload_check(struct ul_load_ctx *ctx, char *why, size_t len)
{
	(void)why;
	(void)len;
	if (ctx->opt[OPT_SPINNERS] == 0)
		ctx->opt[OPT_SPINNERS] = ctx->ncpu > 0 ? ctx->ncpu : 1;
	return 0;
}

/* The result is stored here so the loop cannot be optimised away. */
static volatile uint64_t cpuload_sink;

static int cpuload_spin(struct ul_load_ctx *ctx, void *state, int index)
{
	uint64_t x = UINT64_C(0x9e3779b97f4a7c15) ^ (uint64_t)(index + 1);

	(void)state;
	for (;;) {
		/* xorshift steps have no closed form the compiler could fold. */
		for (unsigned i = 0; i < LOOPS_PER_UNIT; i++) {
			x ^= x << 13;
			x ^= x >> 7;
			x ^= x << 17;
		}
		cpuload_sink = x;
		ul_load_add_units(ctx, 1);
	}
	return EINTR;
}

static int cpuload_run(struct ul_load_ctx *ctx, void *state)
{
	return ul_load_run_workers(ctx, state, (int)ctx->opt[OPT_SPINNERS], cpuload_spin);
}

const struct ul_load ul_load_cpuload = {
	.name = "cpuload",
	.summary = "CPU-bound spinners, one per CPU, doing integer work",
	.unit = "Mloops",
	.opts = cpuload_opts,
	.flags = 0,
	.supported = NULL,
	.check = cpuload_check,
	.prepare = NULL,
	.run = cpuload_run,
};

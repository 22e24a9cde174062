/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * The "8ctx-mem" and "2ctx-mem" loads: N processes pass a token around a
 * ring of pipes; the holder writes to every page of its share of a memory
 * footprint larger than the budget, then passes the token on (resp1's
 * context-switch-plus-swap loads).  The unit is one token pass.
 */
#include "core/compat.h"
#include "core/file.h"
#include "load/internal.h"
#include "load/load.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#define CTX_MAX_PROCS 8

enum {
	OPT_FOOTPRINT
};

static const struct ul_opt ctxmem_opts[] = {
	{ "footprint", UL_OPT_SIZE, 0, INT64_C(1) << 44, 0,
	  "memory touched by all processes together; 0 = auto: 110% of the memory budget, "
	  "capped at the memory ceiling" },
	{ NULL, UL_OPT_COUNT, 0, 0, 0, NULL },
};

struct ctx_state {
	int nprocs;
	int ring[CTX_MAX_PROCS][2]; /* process i reads ring[i][0], writes ring[i+1][1] */
	size_t share_bytes;	    /* per process, whole pages */
	size_t page;
};

/*
 * The footprint must exceed the budget to cause paging, but never the
 * ceiling (90% of MemAvailable + SwapFree): beyond it the OOM killer, not
 * the kernel's paging, would decide the result.
 */
static int ctxmem_check(struct ul_load_ctx *ctx, int nprocs, char *why, size_t len)
{
	uint64_t fp = (uint64_t)ctx->opt[OPT_FOOTPRINT];
	uint64_t ceiling = ctx->mem_ceiling_bytes;
	uint64_t page = (uint64_t)sysconf(_SC_PAGESIZE);
	char a[32], b[32];

	if (fp == 0) {
		fp = ctx->mem_budget_bytes + ctx->mem_budget_bytes / 10;
		if (fp > ceiling)
			fp = ceiling;
	} else if (fp > ceiling) {
		ul_load_fmt_bytes(a, sizeof(a), fp);
		ul_load_fmt_bytes(b, sizeof(b), ceiling);
		snprintf(why, len,
			 "footprint %s exceeds the memory ceiling %s (90%% of available+free swap)",
			 a, b);
		return -E2BIG;
	}
	if (fp < (uint64_t)nprocs * page) {
		ul_load_fmt_bytes(a, sizeof(a), fp);
		snprintf(why, len, "footprint %s is less than one page for each of %d processes", a,
			 nprocs);
		return -EINVAL;
	}
	ctx->opt[OPT_FOOTPRINT] = (int64_t)fp;
	return 0;
}

/* The ring exists before the workers fork, with the token in the first pipe. */
static int ctxmem_prepare(struct ul_load_ctx *ctx, int nprocs, void **state)
{
	struct ctx_state *s = calloc(1, sizeof(*s));
	const char token = 'T';

	if (!s)
		return ENOMEM;
	s->nprocs = nprocs;
	s->page = (size_t)sysconf(_SC_PAGESIZE);
	s->share_bytes = (size_t)((uint64_t)ctx->opt[OPT_FOOTPRINT] / (uint64_t)nprocs);
	s->share_bytes -= s->share_bytes % s->page;
	for (int i = 0; i < nprocs; i++)
		if (pipe(s->ring[i]) < 0)
			return errno;
	if (write(s->ring[0][1], &token, 1) != 1)
		return errno ? errno : EIO;
	*state = s;
	return 0;
}

static int ctxmem_worker(struct ul_load_ctx *ctx, void *state, int index)
{
	struct ctx_state *s = state;
	int in = s->ring[index][0];
	int out = s->ring[(index + 1) % s->nprocs][1];
	unsigned char *mem;
	char token;
	uint64_t pass = 0;

	/* MAP_NORESERVE: pages are only committed as they are touched. */
	mem = mmap(NULL, s->share_bytes, PROT_READ | PROT_WRITE,
		   MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
	if (mem == MAP_FAILED)
		return errno;
	for (;;) {
		/* EPIPE cannot happen while the leader holds the ring. */
		int rc = ul_read_full(in, &token, 1);

		if (rc)
			return -rc;
		pass++;
		/* A write per page dirties it: under pressure it must be swapped. */
		for (size_t off = 0; off < s->share_bytes; off += s->page)
			mem[off] = (unsigned char)pass;
		rc = ul_write_full(out, &token, 1);
		if (rc)
			return -rc;
		ul_load_add_units(ctx, 1);
	}
	return EINTR;
}

static int ctxmem_run(struct ul_load_ctx *ctx, void *state)
{
	struct ctx_state *s = state;

	return ul_load_run_workers(ctx, state, s->nprocs, ctxmem_worker);
}

static int ctx2_check(struct ul_load_ctx *ctx, char *why, size_t len)
{
	return ctxmem_check(ctx, 2, why, len);
}

static int ctx2_prepare(struct ul_load_ctx *ctx, void **state)
{
	return ctxmem_prepare(ctx, 2, state);
}

static int ctx8_check(struct ul_load_ctx *ctx, char *why, size_t len)
{
	return ctxmem_check(ctx, 8, why, len);
}

static int ctx8_prepare(struct ul_load_ctx *ctx, void **state)
{
	return ctxmem_prepare(ctx, 8, state);
}

const struct ul_load ul_load_ctx2_mem = {
	.name = "2ctx-mem",
	.summary = "2 processes pass a token over pipes, each touching its half of a "
		   "budget-sized footprint",
	.unit = "token passes",
	.opts = ctxmem_opts,
	.flags = UL_LOAD_MEMORY,
	.supported = NULL,
	.check = ctx2_check,
	.prepare = ctx2_prepare,
	.run = ctxmem_run,
};

const struct ul_load ul_load_ctx8_mem = {
	.name = "8ctx-mem",
	.summary = "8 processes pass a token around a ring of pipes, each touching its "
		   "eighth of a budget-sized footprint",
	.unit = "token passes",
	.opts = ctxmem_opts,
	.flags = UL_LOAD_MEMORY,
	.supported = NULL,
	.check = ctx8_check,
	.prepare = ctx8_prepare,
	.run = ctxmem_run,
};

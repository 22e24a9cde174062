/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * contest's "mem_load": repeatedly writes to 110% of the memory budget in
 * an order that defeats caches and readahead; the unit is a pass over one
 * 1 MiB block (a write to every page of it).
 */
#include "core/compat.h"
#include "load/internal.h"
#include "load/load.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/mman.h>
#include <unistd.h>

#define ML_BLOCK UL_MiB

enum {
	OPT_SIZE
};

static const struct ul_opt mem_load_opts[] = {
	{ "size", UL_OPT_SIZE, 0, INT64_C(1) << 44, 0,
	  "memory referenced, whole MiB; 0 = auto: 110% of the memory budget, capped at the "
	  "memory ceiling" },
	{ NULL, UL_OPT_COUNT, 0, 0, 0, NULL },
};

struct ml_state {
	unsigned char *mem;
	uint64_t blocks;
	size_t page;
};

/*
 * 110% of the budget forces paging (contest: 110% of RAM), but never more
 * than the ceiling (90% of MemAvailable + SwapFree): beyond it the OOM
 * killer, not the kernel's paging, would decide the result.
 */
static int mem_load_check(struct ul_load_ctx *ctx, char *why, size_t len)
{
	uint64_t size = (uint64_t)ctx->opt[OPT_SIZE];
	char a[32], b[32];

	if (size == 0) {
		size = ctx->mem_budget_bytes + ctx->mem_budget_bytes / 10;
		if (size > ctx->mem_ceiling_bytes)
			size = ctx->mem_ceiling_bytes;
	} else if (size > ctx->mem_ceiling_bytes) {
		ul_load_fmt_bytes(a, sizeof(a), size);
		ul_load_fmt_bytes(b, sizeof(b), ctx->mem_ceiling_bytes);
		snprintf(why, len,
			 "size %s exceeds the memory ceiling %s (90%% of available+free swap)", a,
			 b);
		return -E2BIG;
	}
	size -= size % ML_BLOCK;
	if (size == 0) {
		snprintf(why, len, "size must be at least 1M (the ceiling may be too low)");
		return -EINVAL;
	}
	ctx->opt[OPT_SIZE] = (int64_t)size;
	return 0;
}

/* Reserve the address space only: pages are committed as run() touches them. */
static int mem_load_prepare(struct ul_load_ctx *ctx, void **state)
{
	struct ml_state *s = calloc(1, sizeof(*s));

	if (!s)
		return ENOMEM;
	s->page = (size_t)sysconf(_SC_PAGESIZE);
	s->blocks = (uint64_t)ctx->opt[OPT_SIZE] / ML_BLOCK;
	s->mem = mmap(NULL, (size_t)ctx->opt[OPT_SIZE], PROT_READ | PROT_WRITE,
		      MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
	if (s->mem == MAP_FAILED)
		return errno;
	*state = s;
	return 0;
}

/* Euclid: the block stride must be coprime with the block count to visit every block. */
static uint64_t gcd(uint64_t a, uint64_t b)
{
	while (b) {
		uint64_t t = a % b;

		a = b;
		b = t;
	}
	return a;
}

/*
 * Blocks are visited with a large stride coprime with their count, so
 * consecutive blocks are far apart (no readahead of swap, no LRU luck);
 * within a block every page is written at a cache-line offset that moves
 * each round, so no write hits a line the previous round left in cache.
 */
static int mem_load_run(struct ul_load_ctx *ctx, void *state)
{
	struct ml_state *s = state;
	uint64_t stride = s->blocks / 2 + 1, round = 0;

	while (stride > 1 && gcd(stride, s->blocks) != 1)
		stride--;
	for (;;) {
		size_t line = (size_t)(round % (s->page / 64)) * 64;
		uint64_t b = 0;

		for (uint64_t i = 0; i < s->blocks; i++) {
			unsigned char *blk = s->mem + b * ML_BLOCK;

			for (size_t off = line; off < ML_BLOCK; off += s->page)
				blk[off] = (unsigned char)(round + off);
			ul_load_add_units(ctx, 1);
			b = (b + stride) % s->blocks;
		}
		round++;
	}
	return EINTR;
}

const struct ul_load ul_load_mem_load = {
	.name = "mem_load",
	.summary = "contest: writes to 110% of the memory budget, cache-hostile, again and again",
	.unit = "block passes",
	.opts = mem_load_opts,
	.flags = UL_LOAD_MEMORY,
	.supported = NULL,
	.check = mem_load_check,
	.prepare = mem_load_prepare,
	.run = mem_load_run,
};

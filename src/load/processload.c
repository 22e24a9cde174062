/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * contest's "process_load": N processes (4 per CPU) in a one-way ring of
 * pipes pass M << N data chunks round and round; the unit is one hop.
 */
#include "core/compat.h"
#include "core/file.h"
#include "load/internal.h"
#include "load/load.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#define PL_MAX_PROCS 1024
/* A pipe holds 64 KiB by default: one chunk must fit an empty pipe, so
 * the initial chunks can be placed in prepare() without blocking. */
#define PL_MAX_CHUNK_BYTES (64 * 1024)

enum {
	OPT_PROCS,
	OPT_CHUNKS,
	OPT_CHUNK_SIZE
};

static const struct ul_opt process_load_opts[] = {
	{ "procs", UL_OPT_COUNT, 0, PL_MAX_PROCS, 0,
	  "processes in the ring; 0 = auto: 4 per online CPU (contest v0.61)" },
	{ "chunks", UL_OPT_COUNT, 0, PL_MAX_PROCS - 1, 0,
	  "chunks travelling round the ring, fewer than procs; 0 = auto: procs / 4, at least 1" },
	{ "chunk-size", UL_OPT_SIZE, 1, PL_MAX_CHUNK_BYTES, 4096, "bytes per chunk" },
	{ NULL, UL_OPT_COUNT, 0, 0, 0, NULL },
};

struct pl_state {
	int nprocs;
	size_t chunk;
	int (*ring)[2]; /* process i reads ring[i][0] and writes ring[(i + 1) % n][1] */
};

static int process_load_check(struct ul_load_ctx *ctx, char *why, size_t len)
{
	int64_t n = ctx->opt[OPT_PROCS], m = ctx->opt[OPT_CHUNKS];

	if (n == 0) {
		n = 4 * (int64_t)(ctx->ncpu > 0 ? ctx->ncpu : 1);
		if (n > PL_MAX_PROCS)
			n = PL_MAX_PROCS;
	}
	if (n < 2) {
		snprintf(why, len, "a ring needs at least 2 procs");
		return -EINVAL;
	}
	if (m == 0)
		m = n / 4 > 0 ? n / 4 : 1;
	if (m >= n) {
		snprintf(why, len, "chunks (%lld) must be fewer than procs (%lld)", (long long)m,
			 (long long)n);
		return -EINVAL;
	}
	ctx->opt[OPT_PROCS] = n;
	ctx->opt[OPT_CHUNKS] = m;
	return 0;
}

/* The ring exists before the workers fork; chunk j starts in pipe j * n / m. */
static int process_load_prepare(struct ul_load_ctx *ctx, void **state)
{
	struct pl_state *s = calloc(1, sizeof(*s));
	int m = (int)ctx->opt[OPT_CHUNKS];
	char *buf;
	int err;

	if (!s)
		return ENOMEM;
	s->nprocs = (int)ctx->opt[OPT_PROCS];
	s->chunk = (size_t)ctx->opt[OPT_CHUNK_SIZE];
	s->ring = calloc((size_t)s->nprocs, sizeof(*s->ring));
	buf = malloc(s->chunk);
	if (!s->ring || !buf)
		return ENOMEM;
	memset(buf, 'c', s->chunk);
	for (int i = 0; i < s->nprocs; i++)
		if (pipe(s->ring[i]) < 0)
			return errno;
	for (int j = 0; j < m; j++) {
		err = ul_load_write_all(s->ring[(int)((int64_t)j * s->nprocs / m)][1], buf,
					s->chunk);
		if (err)
			return err;
	}
	free(buf);
	*state = s;
	return 0;
}

static int process_load_worker(struct ul_load_ctx *ctx, void *state, int index)
{
	struct pl_state *s = state;
	int in = s->ring[index][0], out = s->ring[(index + 1) % s->nprocs][1];
	char *buf = malloc(s->chunk);
	int err;

	if (!buf)
		return ENOMEM;
	for (;;) {
		err = -ul_read_full(in, buf, s->chunk);
		if (!err)
			err = ul_load_write_all(out, buf, s->chunk);
		if (err)
			return err;
		ul_load_add_units(ctx, 1);
	}
	return EINTR;
}

static int process_load_run(struct ul_load_ctx *ctx, void *state)
{
	struct pl_state *s = state;

	return ul_load_run_workers(ctx, state, s->nprocs, process_load_worker);
}

const struct ul_load ul_load_process_load = {
	.name = "process_load",
	.summary = "contest: 4 processes per CPU in a ring of pipes pass a few data chunks round",
	.unit = "hops",
	.opts = process_load_opts,
	.flags = 0,
	.supported = NULL,
	.check = process_load_check,
	.prepare = process_load_prepare,
	.run = process_load_run,
};

/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * The "largewrite" load: streams one large file in 1 MiB writes, deletes it
 * and starts again, so writeback of a big dirty file runs all the time.
 */
#include "core/compat.h"
#include "load/helpers.h"
#include "load/internal.h"
#include "load/load.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>

#define LW_CHUNK UL_LOAD_STREAM_CHUNK

enum {
	OPT_SIZE
}; /* 0: ul_load_stream_check() sizes it */

static const struct ul_opt largewrite_opts[] = {
	{ "size", UL_OPT_SIZE, 0, INT64_C(1) << 44, 0,
	  "file size, whole MiB; 0 = auto: the memory budget, shrunk to fit the free disk" },
	{ NULL, UL_OPT_COUNT, 0, 0, 0, NULL },
};

struct lw_state {
	char *buf;
};

static int largewrite_prepare(struct ul_load_ctx *ctx, void **state)
{
	struct lw_state *s = calloc(1, sizeof(*s));

	(void)ctx; /* the file is named in run() */
	if (!s)
		return ENOMEM;
	s->buf = malloc(LW_CHUNK);
	if (!s->buf)
		return ENOMEM;
	for (size_t i = 0; i < LW_CHUNK; i++)
		s->buf[i] = (char)(i * 251 + 1); /* not zeros: nothing to elide */
	*state = s;
	return 0;
}

/*
 * Each pass: create and delete at once (the file lives as long as the
 * pass, so a stopped load leaves no gigabytes behind), stream (every chunk
 * stamped with its index), close.
 * ENOSPC is recorded, not fatal (see ul_load_stream_run()).
 */
static int largewrite_run(struct ul_load_ctx *ctx, void *state)
{
	struct lw_state *s = state;

	return ul_load_stream_run(ctx, "largewrite", s->buf,
				  (uint64_t)ctx->opt[OPT_SIZE] / LW_CHUNK,
				  UL_LOAD_STREAM_STAMP | UL_LOAD_STREAM_UNLINK);
}

const struct ul_load ul_load_largewrite = {
	.name = "largewrite",
	.summary = "streams a memory-sized file in 1 MiB writes, deletes it, starts again",
	.unit = "MiB written",
	.opts = largewrite_opts,
	.flags = UL_LOAD_DISK,
	.supported = NULL,
	.check = ul_load_stream_check,
	.prepare = largewrite_prepare,
	.run = largewrite_run,
};

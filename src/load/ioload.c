/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * contest's "io_load": copies zeroes (contest used /dev/zero) into a file
 * the size of the memory budget, again and again; the unit is a MiB written.
 */
#include "core/compat.h"
#include "load/helpers.h"
#include "load/internal.h"
#include "load/load.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>

#define IO_CHUNK UL_LOAD_STREAM_CHUNK

enum {
	OPT_SIZE
}; /* 0: ul_load_stream_check() sizes it */

static const struct ul_opt io_load_opts[] = {
	{ "size", UL_OPT_SIZE, 0, INT64_C(1) << 44, 0,
	  "file size, whole MiB; 0 = auto: the memory budget, shrunk to fit the free disk "
	  "above the reserve" },
	{ NULL, UL_OPT_COUNT, 0, 0, 0, NULL },
};

struct io_state {
	char *zeros;
};

static int io_load_prepare(struct ul_load_ctx *ctx, void **state)
{
	struct io_state *s = calloc(1, sizeof(*s));

	(void)ctx; /* the file is named in run() */
	if (!s)
		return ENOMEM;
	s->zeros = calloc(1, IO_CHUNK);
	if (!s->zeros)
		return ENOMEM;
	*state = s;
	return 0;
}

/*
 * Each pass as `dd if=/dev/zero of=FILE` did it: truncate and rewrite the
 * whole file.  Truncation frees the old blocks, so every pass allocates
 * anew (Andrew Morton: plain overwrites are the VM's best case).  ENOSPC
 * is recorded, not fatal (see ul_load_stream_run()).
 */
static int io_load_run(struct ul_load_ctx *ctx, void *state)
{
	struct io_state *s = state;

	return ul_load_stream_run(ctx, "io_load.dat", s->zeros,
				  (uint64_t)ctx->opt[OPT_SIZE] / IO_CHUNK, 0);
}

const struct ul_load ul_load_io_load = {
	.name = "io_load",
	.summary = "contest: writes zeroes to a memory-budget-sized file, again and again",
	.unit = "MiB written",
	.opts = io_load_opts,
	.flags = UL_LOAD_DISK,
	.supported = NULL,
	.check = ul_load_stream_check,
	.prepare = io_load_prepare,
	.run = io_load_run,
};

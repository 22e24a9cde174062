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
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>
#include <unistd.h>

#define IO_CHUNK UL_MiB

enum { OPT_SIZE };

static const struct ul_opt io_load_opts[] = {
	{ "size", UL_OPT_SIZE, 0, INT64_C(1) << 44, 0,
	  "file size, whole MiB; 0 = auto: the memory budget, shrunk to fit the free disk "
	  "above the reserve" },
	{ NULL, UL_OPT_COUNT, 0, 0, 0, NULL },
};

struct io_state {
	char path[4096];
	char *zeros;
};

static int io_load_check(struct ul_load_ctx *ctx, char *why, size_t len)
{
	uint64_t size = (uint64_t)ctx->opt[OPT_SIZE];
	int r = ul_load_size_file(ctx, &size, why, len);

	if (r)
		return r;
	ctx->opt[OPT_SIZE] = (int64_t)size;
	return 0;
}

static int io_load_prepare(struct ul_load_ctx *ctx, void **state)
{
	struct io_state *s = calloc(1, sizeof(*s));

	if (!s)
		return ENOMEM;
	s->zeros = calloc(1, IO_CHUNK);
	if (!s->zeros)
		return ENOMEM;
	snprintf(s->path, sizeof(s->path), "%s/io_load.dat", ctx->scratch_dir);
	*state = s;
	return 0;
}

/*
 * One pass, as `dd if=/dev/zero of=FILE` did it: truncate and rewrite the
 * whole file.  Truncation frees the old blocks, so every pass allocates
 * anew (Andrew Morton: plain overwrites are the VM's best case).
 */
static int io_load_pass(struct ul_load_ctx *ctx, struct io_state *s, uint64_t chunks,
			uint64_t *written)
{
	int fd = open(s->path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0600);
	int err = 0;

	*written = 0;
	if (fd < 0)
		return errno;
	for (uint64_t i = 0; i < chunks && !err; i++) {
		err = ul_load_write_all(fd, s->zeros, IO_CHUNK);
		if (!err) {
			ul_load_add_units(ctx, 1);
			(*written)++;
		}
	}
	if (close(fd) < 0 && !err)
		err = errno;
	return err;
}

static int io_load_run(struct ul_load_ctx *ctx, void *state)
{
	const struct timespec backoff = { 0, 100 * 1000 * 1000 };
	uint64_t chunks = (uint64_t)ctx->opt[OPT_SIZE] / IO_CHUNK;
	uint64_t written;

	for (;;) {
		int err = io_load_pass(ctx, state, chunks, &written);

		if (!err)
			continue;
		if (err != ENOSPC)
			return ul_load_fail(ctx, err);
		/* Someone else filled the disk after check(): recorded, not
		 * fatal; the next pass truncates the file and starts over. */
		ul_load_fail(ctx, ENOSPC);
		if (written == 0)
			nanosleep(&backoff, NULL);
	}
	return EINTR;
}

const struct ul_load ul_load_io_load = {
	.name = "io_load",
	.summary = "contest: writes zeroes to a memory-budget-sized file, again and again",
	.unit = "MiB written",
	.opts = io_load_opts,
	.flags = UL_LOAD_DISK,
	.supported = NULL,
	.check = io_load_check,
	.prepare = io_load_prepare,
	.run = io_load_run,
};

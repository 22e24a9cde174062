/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * contest's "read_load": reads a file the size of the memory budget from
 * start to end, again and again; the unit is a MiB read.
 */
#include "core/compat.h"
#include "load/helpers.h"
#include "load/internal.h"
#include "load/load.h"
#include "proc/scratch.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>

#define RD_CHUNK UL_MiB

enum {
	OPT_SIZE
};

static const struct ul_opt read_load_opts[] = {
	{ "size", UL_OPT_SIZE, 0, INT64_C(1) << 44, 0,
	  "file size, whole MiB; 0 = auto: the memory budget, shrunk to fit the free disk "
	  "above the reserve" },
	{ NULL, UL_OPT_COUNT, 0, 0, 0, NULL },
};

struct rd_state {
	int fd;
	char *buf;
};

static int read_load_check(struct ul_load_ctx *ctx, char *why, size_t len)
{
	uint64_t size = (uint64_t)ctx->opt[OPT_SIZE];
	int r = ul_load_size_file(ctx, &size, why, len);

	if (r)
		return r;
	ctx->opt[OPT_SIZE] = (int64_t)size;
	return 0;
}

/*
 * Write the file before "go" (set-up is not load), flush it and drop it
 * from the page cache, so the reads start from the disk even without root
 * (contest flushed memory before each run).
 */
static int read_load_prepare(struct ul_load_ctx *ctx, void **state)
{
	struct rd_state *s = calloc(1, sizeof(*s));
	uint64_t chunks = (uint64_t)ctx->opt[OPT_SIZE] / RD_CHUNK;
	int err = 0;

	if (!s)
		return ENOMEM;
	s->buf = malloc(RD_CHUNK);
	if (!s->buf)
		return ENOMEM;
	for (size_t i = 0; i < RD_CHUNK; i++)
		s->buf[i] = (char)(i * 131 + 7); /* not zeros: nothing a filesystem could elide */
	s->fd = ul_scratch_openat(ctx->scratch_dir, "read_load.dat", O_RDWR | O_CREAT | O_TRUNC,
				  0600);
	if (s->fd < 0)
		return -s->fd;
	for (uint64_t i = 0; i < chunks && !err; i++) {
		s->buf[0] = (char)i;
		err = ul_load_write_all(s->fd, s->buf, RD_CHUNK);
	}
	if (err)
		return err;
	if (fdatasync(s->fd) < 0)
		return errno;
	/* Advice only: a failure leaves the file cached, which is still a read load. */
	posix_fadvise(s->fd, 0, 0, POSIX_FADV_DONTNEED);
	*state = s;
	return 0;
}

static int read_load_run(struct ul_load_ctx *ctx, void *state)
{
	struct rd_state *s = state;
	off_t off = 0;

	for (;;) {
		ssize_t n = pread(s->fd, s->buf, RD_CHUNK, off);

		if (n < 0) {
			if (errno == EINTR)
				continue;
			return ul_load_fail(ctx, errno);
		}
		if (n == 0) {
			off = 0; /* end of the file: the next pass */
			continue;
		}
		off += n;
		if (off % RD_CHUNK == 0)
			ul_load_add_units(ctx, 1);
	}
	return EINTR;
}

const struct ul_load ul_load_read_load = {
	.name = "read_load",
	.summary = "contest: reads a file the size of the memory budget, again and again",
	.unit = "MiB read",
	.opts = read_load_opts,
	.flags = UL_LOAD_DISK,
	.supported = NULL,
	.check = read_load_check,
	.prepare = read_load_prepare,
	.run = read_load_run,
};

/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * The "smallwrite" load: many small writes that dirty page-cache pages,
 * scattered over a fixed set of files, with a periodic fdatasync().
 */
#include "core/compat.h"
#include "load/internal.h"
#include "load/load.h"
#include "proc/scratch.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#define SW_MAX_FILES 256 /* all stay open: well under the usual 1024 fd limit */

enum {
	OPT_FILES,
	OPT_FILE_SIZE,
	OPT_BLOCK,
	OPT_SYNC_EVERY
};

static const struct ul_opt smallwrite_opts[] = {
	{ "files", UL_OPT_COUNT, 1, SW_MAX_FILES, 64, "files written to, at random" },
	{ "file-size", UL_OPT_SIZE, 4096, INT64_C(1) << 30, 256 * 1024,
	  "size of each file; the load never uses more than files x file-size" },
	{ "block", UL_OPT_SIZE, 512, 1024 * 1024, 4096, "bytes per write" },
	{ "sync-every", UL_OPT_COUNT, 0, 1000000, 16,
	  "fdatasync() the file after this many writes; 0 = never" },
	{ NULL, UL_OPT_COUNT, 0, 0, 0, NULL },
};

struct sw_state {
	int fds[SW_MAX_FILES];
	char *buf;
};

/* The files are bounded up front: refuse what would eat into the reserve. */
static int smallwrite_check(struct ul_load_ctx *ctx, char *why, size_t len)
{
	uint64_t total = (uint64_t)ctx->opt[OPT_FILES] * (uint64_t)ctx->opt[OPT_FILE_SIZE];
	uint64_t free_bytes;
	char a[32], b[32], c[32];
	int r;

	if (ctx->opt[OPT_BLOCK] > ctx->opt[OPT_FILE_SIZE]) {
		ul_load_fmt_bytes(a, sizeof(a), (uint64_t)ctx->opt[OPT_BLOCK]);
		ul_load_fmt_bytes(b, sizeof(b), (uint64_t)ctx->opt[OPT_FILE_SIZE]);
		snprintf(why, len, "block %s is larger than file-size %s", a, b);
		return -EINVAL;
	}
	r = ul_fs_free_bytes(ctx->scratch_dir, &free_bytes);
	if (r) {
		snprintf(why, len, "cannot find free space on '%s': %s", ctx->scratch_dir,
			 strerror(-r));
		return r;
	}
	if (free_bytes < ctx->disk_reserve_bytes || free_bytes - ctx->disk_reserve_bytes < total) {
		ul_load_fmt_bytes(a, sizeof(a), total);
		ul_load_fmt_bytes(b, sizeof(b), free_bytes);
		ul_load_fmt_bytes(c, sizeof(c), ctx->disk_reserve_bytes);
		snprintf(why, len,
			 "files x file-size = %s does not fit: %s free on scratch fs, reserve %s",
			 a, b, c);
		return -ENOSPC;
	}
	return 0;
}

/* Create the files (sparse: blocks get allocated by the load itself). */
static int smallwrite_prepare(struct ul_load_ctx *ctx, void **state)
{
	struct sw_state *s = calloc(1, sizeof(*s));
	char name[32];

	if (!s)
		return ENOMEM;
	s->buf = malloc((size_t)ctx->opt[OPT_BLOCK]);
	if (!s->buf)
		return ENOMEM;
	for (size_t i = 0; i < (size_t)ctx->opt[OPT_BLOCK]; i++)
		s->buf[i] = (char)(i * 131 + 7); /* not zeros: nothing to elide */
	for (int i = 0; i < ctx->opt[OPT_FILES]; i++) {
		snprintf(name, sizeof(name), "smallwrite.%d", i);
		s->fds[i] =
			ul_scratch_openat(ctx->scratch_dir, name, O_RDWR | O_CREAT | O_TRUNC, 0600);
		if (s->fds[i] < 0)
			return -s->fds[i];
		if (ftruncate(s->fds[i], ctx->opt[OPT_FILE_SIZE]) < 0)
			return errno;
	}
	*state = s;
	return 0;
}

static int smallwrite_run(struct ul_load_ctx *ctx, void *state)
{
	struct sw_state *s = state;
	size_t block = (size_t)ctx->opt[OPT_BLOCK];
	uint64_t blocks = (uint64_t)ctx->opt[OPT_FILE_SIZE] / block;
	uint64_t files = (uint64_t)ctx->opt[OPT_FILES];
	uint64_t sync_every = (uint64_t)ctx->opt[OPT_SYNC_EVERY];
	uint64_t rng = UINT64_C(0x2545f4914f6cdd1d), n = 0;

	for (;;) {
		uint64_t f = ul_load_rand(&rng) % files;
		off_t off = (off_t)((ul_load_rand(&rng) % blocks) * block);
		ssize_t w;

		s->buf[0] = (char)++n; /* each write differs from the last */
		w = pwrite(s->fds[f], s->buf, block, off);
		if (w < 0 && errno == EINTR)
			continue;
		if (w < 0)
			return ul_load_fail(ctx, errno);
		if ((size_t)w != block)
			return ul_load_fail(ctx, EIO); /* within the file: cannot be short */
		ul_load_add_units(ctx, 1);
		if (sync_every && n % sync_every == 0 && fdatasync(s->fds[f]) < 0)
			return ul_load_fail(ctx, errno);
	}
	return EINTR;
}

const struct ul_load ul_load_smallwrite = {
	.name = "smallwrite",
	.summary = "small writes at random offsets over a set of files, with periodic fdatasync",
	.unit = "writes",
	.opts = smallwrite_opts,
	.flags = UL_LOAD_DISK,
	.supported = NULL,
	.check = smallwrite_check,
	.prepare = smallwrite_prepare,
	.run = smallwrite_run,
};

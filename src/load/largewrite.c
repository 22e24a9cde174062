/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * The "largewrite" load: streams one large file in 1 MiB writes, deletes it
 * and starts again, so writeback of a big dirty file runs all the time.
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
#include <time.h>
#include <unistd.h>

#define LW_CHUNK UL_MiB

enum { OPT_SIZE };

static const struct ul_opt largewrite_opts[] = {
	{ "size", UL_OPT_SIZE, 0, INT64_C(1) << 44, 0,
	  "file size, whole MiB; 0 = auto: the memory budget, shrunk to fit the free disk" },
	{ NULL, UL_OPT_COUNT, 0, 0, 0, NULL },
};

struct lw_state {
	char path[4096];
	char *buf;
};

/*
 * Size the file: it must fit in the free space above the reserve.  "auto"
 * shrinks to fit; an explicit size that does not fit is refused, since a
 * smaller file than asked for would be a different load.
 */
static int largewrite_check(struct ul_load_ctx *ctx, char *why, size_t len)
{
	uint64_t size = (uint64_t)ctx->opt[OPT_SIZE];
	uint64_t free_bytes, avail;
	char a[32], b[32], c[32];
	int r;

	r = ul_fs_free_bytes(ctx->scratch_dir, &free_bytes);
	if (r) {
		snprintf(why, len, "cannot find free space on '%s': %s", ctx->scratch_dir,
			 strerror(-r));
		return r;
	}
	avail = free_bytes > ctx->disk_reserve_bytes ? free_bytes - ctx->disk_reserve_bytes : 0;
	ul_load_fmt_bytes(b, sizeof(b), free_bytes);
	ul_load_fmt_bytes(c, sizeof(c), ctx->disk_reserve_bytes);

	if (size == 0) {
		size = ctx->mem_budget_bytes < avail ? ctx->mem_budget_bytes : avail;
		size -= size % LW_CHUNK;
		if (size == 0) {
			snprintf(why, len,
				 "no room for even 1M: %s free on the scratch fs, reserve %s",
				 b, c);
			return -ENOSPC;
		}
	} else {
		if (size < LW_CHUNK) {
			snprintf(why, len, "size must be 0 (auto) or at least 1M");
			return -EINVAL;
		}
		size -= size % LW_CHUNK;
		if (size > avail) {
			ul_load_fmt_bytes(a, sizeof(a), size);
			snprintf(why, len,
				 "size %s does not fit: %s free on the scratch fs, reserve %s",
				 a, b, c);
			return -ENOSPC;
		}
	}
	ctx->opt[OPT_SIZE] = (int64_t)size;
	return 0;
}

static int largewrite_prepare(struct ul_load_ctx *ctx, void **state)
{
	struct lw_state *s = calloc(1, sizeof(*s));

	if (!s)
		return ENOMEM;
	s->buf = malloc(LW_CHUNK);
	if (!s->buf)
		return ENOMEM;
	for (size_t i = 0; i < LW_CHUNK; i++)
		s->buf[i] = (char)(i * 251 + 1); /* not zeros: nothing to elide */
	snprintf(s->path, sizeof(s->path), "%s/largewrite", ctx->scratch_dir);
	*state = s;
	return 0;
}

/* One pass: create, stream, delete.  Returns 0, or a positive errno. */
static int largewrite_pass(struct ul_load_ctx *ctx, struct lw_state *s, uint64_t chunks,
			   uint64_t *written)
{
	int fd = open(s->path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0600);
	int err = 0;

	*written = 0;
	if (fd < 0)
		return errno;
	for (uint64_t i = 0; i < chunks; i++) {
		s->buf[0] = (char)i; /* each chunk differs */
		err = ul_load_write_all(fd, s->buf, LW_CHUNK);
		if (err)
			break;
		ul_load_add_units(ctx, 1);
		(*written)++;
	}
	close(fd);
	if (unlink(s->path) < 0 && !err)
		err = errno;
	return err;
}

static int largewrite_run(struct ul_load_ctx *ctx, void *state)
{
	const struct timespec backoff = { 0, 100 * 1000 * 1000 };
	uint64_t chunks = (uint64_t)ctx->opt[OPT_SIZE] / LW_CHUNK;
	uint64_t written;

	for (;;) {
		int err = largewrite_pass(ctx, state, chunks, &written);

		if (!err)
			continue;
		if (err != ENOSPC)
			return ul_load_fail(ctx, err);
		/*
		 * Someone else filled the disk after check(): the file is
		 * gone again, so start over; recorded for the report, not
		 * fatal.  Back off when no progress is possible at all.
		 */
		ul_load_fail(ctx, ENOSPC);
		if (written == 0)
			nanosleep(&backoff, NULL);
	}
	return EINTR;
}

const struct ul_load ul_load_largewrite = {
	.name = "largewrite",
	.summary = "streams a memory-sized file in 1 MiB writes, deletes it, starts again",
	.unit = "MB written",
	.opts = largewrite_opts,
	.flags = UL_LOAD_DISK,
	.supported = NULL,
	.check = largewrite_check,
	.prepare = largewrite_prepare,
	.run = largewrite_run,
};

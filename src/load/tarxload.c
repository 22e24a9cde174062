/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * contest's "tarx_load": /bin/tar extracts an archive of a source tree (the
 * contest job's) into a fresh directory, again and again; the unit is a
 * completed extraction.
 */
#include "core/compat.h"
#include "load/helpers.h"
#include "load/internal.h"
#include "load/load.h"
#include "proc/scratch.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/stat.h>

static const struct ul_opt tarx_load_opts[] = {
	{ NULL, UL_OPT_COUNT, 0, 0, 0, NULL },
};

/* The tree must exist; the archive and one extracted copy must fit above the reserve. */
static int tarx_load_check(struct ul_load_ctx *ctx, char *why, size_t len)
{
	return ul_load_tar_check(ctx, 2, "the archive and one extracted copy", why, len);
}

struct tarx_state {
	char archive[4096];
	/* The last component has the scratch prefix, so ul_scratch_remove() takes it. */
	char dest[4096];
};

/* Archive the tree once, before "go": making the archive is set-up, not load. */
static int tarx_load_prepare(struct ul_load_ctx *ctx, void **state)
{
	struct tarx_state *s = calloc(1, sizeof(*s));
	int err;

	if (!s)
		return ENOMEM;
	snprintf(s->archive, sizeof(s->archive), "%s/tarx_load.tar", ctx->scratch_dir);
	snprintf(s->dest, sizeof(s->dest), "%s/" UL_SCRATCH_PREFIX "tarx", ctx->scratch_dir);
	err = ul_load_tar_create(s->archive, ctx->src_dir);
	if (err)
		return err;
	*state = s;
	return 0;
}

static int tarx_load_run(struct ul_load_ctx *ctx, void *state)
{
	struct tarx_state *s = state;

	for (;;) {
		int err;

		if (mkdir(s->dest, 0700) < 0)
			return ul_load_fail(ctx, errno);
		err = ul_load_tar_extract(s->archive, s->dest);
		if (err)
			return ul_load_fail(ctx, err);
		ul_load_add_units(ctx, 1);
		/* Deleting the copy is part of the load's work, as in contest's loop. */
		err = ul_scratch_remove(s->dest);
		if (err)
			return ul_load_fail(ctx, -err);
	}
	return EINTR;
}

const struct ul_load ul_load_tarx_load = {
	.name = "tarx_load",
	.summary = "contest: tar extracts an archive of the job's source tree, again and again",
	.unit = "extractions",
	.opts = tarx_load_opts,
	.flags = UL_LOAD_DISK,
	.supported = ul_load_tar_supported,
	.check = tarx_load_check,
	.prepare = tarx_load_prepare,
	.run = tarx_load_run,
};

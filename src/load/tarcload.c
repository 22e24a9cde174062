/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * contest's "tarc_load": /bin/tar creates an archive of a source tree (the
 * contest job's), again and again; the unit is a completed archive.
 */
#include "core/compat.h"
#include "load/helpers.h"
#include "load/internal.h"
#include "load/load.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>

static const struct ul_opt tarc_load_opts[] = {
	{ NULL, UL_OPT_COUNT, 0, 0, 0, NULL },
};

/* The tree must exist; its archive (contents plus headers) must fit above the reserve. */
static int tarc_load_check(struct ul_load_ctx *ctx, char *why, size_t len)
{
	return ul_load_tar_check(ctx, 1, "the archive", why, len);
}

struct tarc_state {
	char archive[4096];
};

static int tarc_load_prepare(struct ul_load_ctx *ctx, void **state)
{
	struct tarc_state *s = calloc(1, sizeof(*s));

	if (!s)
		return ENOMEM;
	snprintf(s->archive, sizeof(s->archive), "%s/tarc_load.tar", ctx->scratch_dir);
	*state = s;
	return 0;
}

/* A "some files differed" archive counts: the job may be compiling in the same tree. */
static int tarc_load_run(struct ul_load_ctx *ctx, void *state)
{
	struct tarc_state *s = state;

	for (;;) {
		int err = ul_load_tar_create(s->archive, ctx->src_dir);

		if (err)
			return ul_load_fail(ctx, err);
		ul_load_add_units(ctx, 1);
	}
	return EINTR;
}

const struct ul_load ul_load_tarc_load = {
	.name = "tarc_load",
	.summary = "contest: tar creates an archive of the job's source tree, again and again",
	.unit = "archives",
	.opts = tarc_load_opts,
	.flags = UL_LOAD_DISK,
	.supported = ul_load_tar_supported,
	.check = tarc_load_check,
	.prepare = tarc_load_prepare,
	.run = tarc_load_run,
};

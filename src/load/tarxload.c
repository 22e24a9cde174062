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
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#define TAR_PROG "/bin/tar"

static const struct ul_opt tarx_load_opts[] = {
	{ NULL, UL_OPT_COUNT, 0, 0, 0, NULL },
};

static int tarx_supported(char *why, size_t len)
{
	if (access(TAR_PROG, X_OK) < 0) {
		snprintf(why, len, "cannot execute '%s': %s", TAR_PROG, strerror(errno));
		return -ENOTSUP;
	}
	return 0;
}

/* The archive and one extracted copy must fit above the reserve. */
static int tarx_load_check(struct ul_load_ctx *ctx, char *why, size_t len)
{
	uint64_t bytes;
	struct stat st;
	int r;

	if (!ctx->src_dir) {
		snprintf(why, len,
			 "needs a tree to archive (the contest suite gives its job's tree)");
		return -EINVAL;
	}
	if (stat(ctx->src_dir, &st) < 0 || !S_ISDIR(st.st_mode)) {
		snprintf(why, len, "'%s' is not a directory", ctx->src_dir);
		return -ENOTDIR;
	}
	r = ul_load_tree_bytes(ctx->src_dir, &bytes);
	if (r) {
		snprintf(why, len, "cannot measure '%s': %s", ctx->src_dir, strerror(-r));
		return r;
	}
	return ul_load_check_room(ctx, 2 * (bytes + bytes / 4) + 2 * UL_MiB,
				  "the archive and one extracted copy", why, len);
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
	int st, err;

	if (!s)
		return ENOMEM;
	snprintf(s->archive, sizeof(s->archive), "%s/tarx_load.tar", ctx->scratch_dir);
	snprintf(s->dest, sizeof(s->dest), "%s/" UL_SCRATCH_PREFIX "tarx", ctx->scratch_dir);
	{
		char *const argv[] = { (char *)TAR_PROG, (char *)"-cf", s->archive, (char *)"-C",
				       (char *)ctx->src_dir, (char *)".", NULL };

		err = ul_load_exec_wait(argv, NULL, &st);
	}
	if (err)
		return err;
	if (WIFEXITED(st) && WEXITSTATUS(st) == UL_LOAD_EXEC_FAILED)
		return ENOEXEC;
	if (!WIFEXITED(st) || WEXITSTATUS(st) > 1)
		return EIO;
	*state = s;
	return 0;
}

static int tarx_load_run(struct ul_load_ctx *ctx, void *state)
{
	struct tarx_state *s = state;
	char *const argv[] = { (char *)TAR_PROG, (char *)"-xf", s->archive, (char *)"-C", s->dest,
			       NULL };

	for (;;) {
		int st, err;

		if (mkdir(s->dest, 0700) < 0)
			return ul_load_fail(ctx, errno);
		err = ul_load_exec_wait(argv, NULL, &st);
		if (err)
			return ul_load_fail(ctx, err);
		if (WIFEXITED(st) && WEXITSTATUS(st) == UL_LOAD_EXEC_FAILED)
			return ul_load_fail(ctx, ENOEXEC);
		if (!WIFEXITED(st) || WEXITSTATUS(st) != 0)
			return ul_load_fail(ctx, EIO);
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
	.supported = tarx_supported,
	.check = tarx_load_check,
	.prepare = tarx_load_prepare,
	.run = tarx_load_run,
};

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
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#define TAR_PROG "/bin/tar"
/* tar's "some files differed" (a file changed while it was read: the job
 * is compiling in the same tree) still makes a whole archive. */
#define TAR_EXIT_DIFFERED 1

static const struct ul_opt tarc_load_opts[] = {
	{ NULL, UL_OPT_COUNT, 0, 0, 0, NULL },
};

/* The tar loads exec a real program: without it they would silently measure nothing. */
static int tar_supported(char *why, size_t len)
{
	if (access(TAR_PROG, X_OK) < 0) {
		snprintf(why, len, "cannot execute '%s': %s", TAR_PROG, strerror(errno));
		return -ENOTSUP;
	}
	return 0;
}

/* The tree must exist; its archive (contents plus headers) must fit above the reserve. */
static int tarc_load_check(struct ul_load_ctx *ctx, char *why, size_t len)
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
	return ul_load_check_room(ctx, bytes + bytes / 4 + UL_MiB, "the archive", why, len);
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

static int tarc_load_run(struct ul_load_ctx *ctx, void *state)
{
	struct tarc_state *s = state;
	char *const argv[] = { (char *)TAR_PROG, (char *)"-cf", s->archive, (char *)"-C",
			       (char *)ctx->src_dir, (char *)".", NULL };

	for (;;) {
		int st, err = ul_load_exec_wait(argv, NULL, &st);

		if (err)
			return ul_load_fail(ctx, err);
		if (WIFEXITED(st) && WEXITSTATUS(st) == UL_LOAD_EXEC_FAILED)
			return ul_load_fail(ctx, ENOEXEC);
		if (!WIFEXITED(st) || WEXITSTATUS(st) > TAR_EXIT_DIFFERED)
			return ul_load_fail(ctx, EIO); /* tar's fatal error, or killed */
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
	.supported = tar_supported,
	.check = tarc_load_check,
	.prepare = tarc_load_prepare,
	.run = tarc_load_run,
};

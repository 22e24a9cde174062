/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * contest's "lslr_load": `ls -lRa DIR` (default /usr; contest listed /)
 * with its output to /dev/null, again and again; the unit is a listing.
 */
#include "core/compat.h"
#include "load/helpers.h"
#include "load/internal.h"
#include "load/load.h"

#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#define LS_PROG "/bin/ls"
#define LS_DEFAULT_DIR "/usr"
/* ls: 1 = minor problems (an unreadable subdirectory, a file that vanished
 * while listed): the listing still completed.  2 = serious trouble. */
#define LS_EXIT_MINOR 1

static const struct ul_opt lslr_load_opts[] = {
	{ NULL, UL_OPT_COUNT, 0, 0, 0, NULL },
};

static int lslr_supported(char *why, size_t len)
{
	return ul_load_need_program(LS_PROG, why, len);
}

static const char *lslr_dir(const struct ul_load_ctx *ctx)
{
	return ctx->src_dir ? ctx->src_dir : LS_DEFAULT_DIR;
}

static int lslr_load_check(struct ul_load_ctx *ctx, char *why, size_t len)
{
	struct stat st;
	int err;

	if (stat(lslr_dir(ctx), &st) < 0) {
		err = errno;
		snprintf(why, len, "cannot list '%s': %s", lslr_dir(ctx), strerror(err));
		return -err;
	}
	if (!S_ISDIR(st.st_mode)) {
		snprintf(why, len, "'%s' is not a directory", lslr_dir(ctx));
		return -ENOTDIR;
	}
	return 0;
}

/* The leader's stdout and stderr are /dev/null (ul_load_start()): ls inherits them. */
static int lslr_load_run(struct ul_load_ctx *ctx, void *state)
{
	char *const argv[] = { (char *)LS_PROG, (char *)"-lRa", (char *)lslr_dir(ctx), NULL };

	(void)state;
	for (;;) {
		int st, err = ul_load_exec_wait(argv, NULL, &st);

		if (err)
			return ul_load_fail(ctx, err);
		if (WIFEXITED(st) && WEXITSTATUS(st) == UL_LOAD_EXEC_FAILED)
			return ul_load_fail(ctx, ENOEXEC);
		if (!WIFEXITED(st) || WEXITSTATUS(st) > LS_EXIT_MINOR)
			return ul_load_fail(ctx, EIO);
		ul_load_add_units(ctx, 1);
	}
	return EINTR;
}

const struct ul_load ul_load_lslr_load = {
	.name = "lslr_load",
	.summary = "contest: ls -lRa of a large tree (default /usr) to /dev/null, again and again",
	.unit = "listings",
	.opts = lslr_load_opts,
	.flags = 0,
	.supported = lslr_supported,
	.check = lslr_load_check,
	.prepare = NULL,
	.run = lslr_load_run,
};

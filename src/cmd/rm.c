/* SPDX-License-Identifier: GPL-2.0-or-later */
/* `underload rm RUN...`: delete stored runs, asking first on a terminal. */
#include "core/compat.h"
#include "cmd/cmd.h"
#include "core/escape.h"
#include "core/log.h"
#include "store/store.h"

#include <stdio.h>
#include <string.h>
#include <unistd.h>

static const char rm_help[] =
	"Delete runs and everything they hold.  RUN is a numeric id, a UUID or a\n"
	"unique UUID prefix (4 characters or more), or 'last'.  Every RUN is\n"
	"resolved before anything is deleted.  On a terminal each deletion is\n"
	"confirmed; otherwise --yes is required.  A run whose status is 'running'\n"
	"(still measuring, or killed before 'underload cleanup') is deleted only\n"
	"with --force; it then stays deleted: the recovery file it may write at\n"
	"its end is removed by the next run, not loaded.\n"
	"\n";

struct rm_args {
	const char *db;
	bool yes, force;
};

static const struct ul_opt rm_opts[] = {
	UL_CMD_OPT_DB(struct rm_args),
	{ "yes", UL_OPT_FLAG, 0, 1, 0, .short_name = 'y', UL_OPT_AT(struct rm_args, yes),
	  .help = "delete without asking" },
	{ "force", UL_OPT_FLAG, 0, 1, 0, UL_OPT_AT(struct rm_args, force),
	  .help = "delete a run whose status is running as well (it may still be measuring)" },
	{ NULL },
};

extern const struct ul_cmd ul_cmd_desc_rm;

/* Ask on the terminal; only "y" or "yes" agrees. */
static bool confirm(const struct ul_run_summary *r)
{
	char answer[16];

	fprintf(stderr, "delete run %lld (%s, label '%s', %d tests)? [y/N] ", (long long)r->id,
		r->uuid, ul_esc(r->label), r->n_cells);
	fflush(stderr);
	if (!fgets(answer, sizeof(answer), stdin))
		return false;
	answer[strcspn(answer, "\n")] = '\0';
	return !strcmp(answer, "y") || !strcmp(answer, "yes");
}

static int rm_runs(struct ul_store *st, char **refs, int n, const struct rm_args *a)
{
	struct ul_run_summary rs[64];
	int ret = UL_EXIT_OK;

	if (n > (int)UL_ARRAY_SIZE(rs))
		return ul_usage_error("rm", "at most %zu runs at a time", UL_ARRAY_SIZE(rs));
	for (int i = 0; i < n; i++) {
		ret = ul_cmd_find_run(st, refs[i], &rs[i]);
		if (ret)
			return ret;
		if (rs[i].status == UL_RUN_RUNNING && !a->force) {
			ul_error("run %lld (%s) is running: it may still be measuring (after a "
				 "kill, 'underload cleanup' marks it interrupted); --force "
				 "deletes it anyway",
				 (long long)rs[i].id, rs[i].uuid);
			return UL_EXIT_ERROR;
		}
	}
	for (int i = 0; i < n; i++) {
		if (!a->yes && !confirm(&rs[i])) {
			printf("kept run %lld (%s)\n", (long long)rs[i].id, rs[i].uuid);
			continue;
		}
		if (st->ops->delete_run(st, rs[i].uuid)) {
			/* Named twice on the command line: already gone is fine. */
			if (i && strstr(st->err, "no run"))
				continue;
			ul_error("cannot delete run %s: %s", rs[i].uuid, st->err);
			ret = UL_EXIT_ERROR;
			continue;
		}
		printf("deleted run %lld (%s)\n", (long long)rs[i].id, rs[i].uuid);
	}
	return ret;
}

int ul_cmd_rm(int argc, char **argv);
int ul_cmd_rm(int argc, char **argv)
{
	struct rm_args a;
	struct ul_store *store;
	int first, ret;

	ret = ul_cmd_parse(&ul_cmd_desc_rm, &a, argc, argv, &first);
	if (ret)
		return ret == UL_CMD_HELP_SHOWN ? UL_EXIT_OK : ret;
	if (first == argc)
		return ul_usage_error("rm", "expected at least one RUN");
	if (!a.yes && !isatty(STDIN_FILENO))
		return ul_usage_error("rm",
				      "not on a terminal: give --yes to delete without asking");
	ret = ul_cmd_open_store_rw(a.db, &store);
	if (ret)
		return ret;
	ret = rm_runs(store, argv + first, argc - first, &a);
	ul_store_close(store);
	return ret;
}

const struct ul_cmd ul_cmd_desc_rm = {
	.name = "rm",
	.summary = "delete stored runs",
	.operands = "RUN...",
	.help = rm_help,
	.opts = rm_opts,
	.fn = ul_cmd_rm,
};

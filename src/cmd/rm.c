/* SPDX-License-Identifier: GPL-2.0-or-later */
/* `underload rm RUN...`: delete stored runs, asking first on a terminal. */
#include "core/compat.h"
#include "cmd/cmd.h"
#include "core/escape.h"
#include "core/log.h"
#include "store/store.h"

#include <errno.h>
#include <getopt.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

static const char rm_help[] =
	"usage: underload rm [--db PATH] [--yes] RUN...\n"
	"\n"
	"Delete runs and everything they hold.  RUN is a numeric id, a UUID or a\n"
	"unique UUID prefix (4 characters or more), or 'last'.  Every RUN is\n"
	"resolved before anything is deleted.  On a terminal each deletion is\n"
	"confirmed; otherwise --yes is required.\n"
	"\n"
	"  --db PATH   results database (default: $XDG_DATA_HOME/underload/results.db)\n"
	"  -y, --yes   delete without asking\n"
	"  -h, --help  this help\n";

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

static int rm_runs(struct ul_store *st, char **refs, int n, bool yes)
{
	struct ul_run_summary rs[64];
	int ret = UL_EXIT_OK;

	if (n > (int)UL_ARRAY_SIZE(rs))
		return ul_usage_error("rm", "at most %zu runs at a time", UL_ARRAY_SIZE(rs));
	for (int i = 0; i < n; i++) {
		int rc = st->ops->find_run(st, refs[i], &rs[i]);

		if (rc) {
			ul_error("%s", st->err);
			return rc == -ENOENT || rc == -EINVAL ? UL_EXIT_USAGE : UL_EXIT_ERROR;
		}
	}
	for (int i = 0; i < n; i++) {
		if (!yes && !confirm(&rs[i])) {
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
	static const struct option opts[] = {
		{ "db", required_argument, NULL, 'd' },
		{ "yes", no_argument, NULL, 'y' },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};
	const char *db_opt = NULL;
	struct ul_store *store;
	bool yes = false;
	int c, ret;

	optind = 1;
	while ((c = getopt_long(argc, argv, "yh", opts, NULL)) != -1) {
		switch (c) {
		case 'd':
			db_opt = optarg;
			break;
		case 'y':
			yes = true;
			break;
		case 'h':
			fputs(rm_help, stdout);
			return UL_EXIT_OK;
		default:
			return ul_usage_error("rm", "unknown option");
		}
	}
	if (optind == argc)
		return ul_usage_error("rm", "expected at least one RUN");
	if (!yes && !isatty(STDIN_FILENO))
		return ul_usage_error("rm", "not on a terminal: give --yes to delete without asking");
	ret = ul_cmd_open_store_rw(db_opt, &store);
	if (ret)
		return ret;
	ret = rm_runs(store, argv + optind, argc - optind, yes);
	ul_store_close(store);
	return ret;
}

const struct ul_cmd ul_cmd_desc_rm = {
	.name = "rm",
	.summary = "delete stored runs",
	.help = rm_help,
	.fn = ul_cmd_rm,
};

/* SPDX-License-Identifier: GPL-2.0-or-later */
/* `underload relabel RUN NEWLABEL`: rename the kernel/setting a stored run is filed under. */
#include "core/compat.h"
#include "cmd/cmd.h"
#include "core/escape.h"
#include "core/log.h"
#include "store/store.h"

#include <errno.h>
#include <getopt.h>
#include <stdio.h>
#include <string.h>

static const char relabel_help[] =
	"usage: underload relabel [--db PATH] RUN NEWLABEL\n"
	"\n"
	"Give a stored run a new label (1 to 127 bytes of UTF-8).  RUN is a numeric\n"
	"id, a UUID or a unique UUID prefix (4 characters or more), or 'last'.\n"
	"\n"
	"  --db PATH   results database (default: $XDG_DATA_HOME/underload/results.db)\n"
	"  -h, --help  this help\n";

int ul_cmd_relabel(int argc, char **argv);
int ul_cmd_relabel(int argc, char **argv)
{
	static const struct option opts[] = {
		{ "db", required_argument, NULL, 'd' },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};
	const char *db_opt = NULL, *label;
	struct ul_run_summary rs;
	struct ul_store *store;
	int c, ret, rc;

	optind = 1;
	while ((c = getopt_long(argc, argv, "h", opts, NULL)) != -1) {
		switch (c) {
		case 'd':
			db_opt = optarg;
			break;
		case 'h':
			fputs(relabel_help, stdout);
			return UL_EXIT_OK;
		default:
			return ul_usage_error("relabel", "unknown option");
		}
	}
	if (argc - optind != 2)
		return ul_usage_error("relabel", "expected RUN and NEWLABEL");
	label = argv[optind + 1];
	if (ul_label_check("relabel", "NEWLABEL", label))
		return UL_EXIT_USAGE;
	ret = ul_cmd_open_store_rw(db_opt, &store);
	if (ret)
		return ret;
	rc = store->ops->find_run(store, argv[optind], &rs);
	if (!rc)
		rc = store->ops->relabel_run(store, rs.uuid, label);
	if (rc) {
		ul_error("%s", store->err);
		ret = rc == -ENOENT || rc == -EINVAL ? UL_EXIT_USAGE : UL_EXIT_ERROR;
	} else {
		printf("run %lld (%s): label '%s' -> '%s'\n", (long long)rs.id, rs.uuid,
		       ul_esc(rs.label), ul_esc(label));
	}
	ul_store_close(store);
	return ret;
}

const struct ul_cmd ul_cmd_desc_relabel = {
	.name = "relabel",
	.summary = "give a stored run a new label",
	.help = relabel_help,
	.fn = ul_cmd_relabel,
};

/* SPDX-License-Identifier: GPL-2.0-or-later */
/* `underload relabel RUN NEWLABEL`: rename the kernel/setting a stored run is filed under. */
#include "core/compat.h"
#include "cmd/cmd.h"
#include "core/escape.h"
#include "core/log.h"
#include "store/store.h"

#include <stdio.h>

static const char relabel_help[] =
	"Give a stored run a new label (1 to 127 bytes of UTF-8).  RUN is a numeric\n"
	"id, a UUID or a unique UUID prefix (4 characters or more), or 'last'.\n"
	"\n";

extern const struct ul_cmd ul_cmd_desc_relabel;

int ul_cmd_relabel(int argc, char **argv);
int ul_cmd_relabel(int argc, char **argv)
{
	struct ul_cmd_db_args a;
	struct ul_run_summary rs;
	struct ul_store *store;
	const char *label;
	int first, ret;

	ret = ul_cmd_parse(&ul_cmd_desc_relabel, &a, argc, argv, &first);
	if (ret)
		return ret == UL_CMD_HELP_SHOWN ? UL_EXIT_OK : ret;
	if (argc - first != 2)
		return ul_usage_error("relabel", "expected RUN and NEWLABEL");
	label = argv[first + 1];
	if (ul_label_check("relabel", "NEWLABEL", label))
		return UL_EXIT_USAGE;
	ret = ul_cmd_open_store_rw(a.db, &store);
	if (ret)
		return ret;
	ret = ul_cmd_find_run(store, argv[first], &rs);
	if (!ret)
		ret = ul_cmd_run_exit(store, store->ops->relabel_run(store, rs.uuid, label));
	if (!ret)
		printf("run %lld (%s): label '%s' -> '%s'\n", (long long)rs.id, rs.uuid,
		       ul_esc(rs.label), ul_esc(label));
	ul_store_close(store);
	return ret;
}

const struct ul_cmd ul_cmd_desc_relabel = {
	.name = "relabel",
	.summary = "give a stored run a new label",
	.operands = "RUN NEWLABEL",
	.help = relabel_help,
	.opts = ul_cmd_db_opts,
	.fn = ul_cmd_relabel,
};

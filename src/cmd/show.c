/* SPDX-License-Identifier: GPL-2.0-or-later */
/* `underload show RUN`: re-print a stored run in any formats. */
#include "core/compat.h"
#include "cmd/cmd.h"
#include "store/store.h"

#include <getopt.h>
#include <stdio.h>

static const char show_help[] =
	"usage: underload show [--db PATH] [--format LIST] RUN\n"
	"\n"
	"Print a stored run.  RUN is a numeric id, a UUID or a unique UUID prefix\n"
	"(4 characters or more), or 'last'.\n"
	"\n"
	"  --db PATH      results database (default: $XDG_DATA_HOME/underload/results.db)\n"
	"  --format LIST  outputs, e.g. text,resp1,json=FILE (default: the seed table\n"
	"                 of each suite of the run, then text, as 'run' printed it)\n"
	"  -h, --help     this help\n";

int ul_cmd_show(int argc, char **argv);
int ul_cmd_show(int argc, char **argv)
{
	static const struct option opts[] = {
		{ "db", required_argument, NULL, 'd' },
		{ "format", required_argument, NULL, 'f' },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};
	const char *db_opt = NULL, *formats = NULL;
	char defaults[256];
	struct ul_outputs outs;
	struct ul_store *store;
	struct ul_run run;
	int c, ret;

	optind = 1;
	while ((c = getopt_long(argc, argv, "h", opts, NULL)) != -1) {
		switch (c) {
		case 'd':
			db_opt = optarg;
			break;
		case 'f':
			formats = optarg;
			break;
		case 'h':
			fputs(show_help, stdout);
			return UL_EXIT_OK;
		default:
			return ul_usage_error("show", "unknown option");
		}
	}
	if (argc - optind != 1)
		return ul_usage_error("show", "expected exactly one RUN");
	if (formats && ul_outputs_parse("show", formats, &outs))
		return UL_EXIT_USAGE;
	ret = ul_cmd_open_store(db_opt, &store);
	if (ret)
		return ret;
	ret = ul_cmd_load_run(store, argv[optind], &run);
	if (ret == UL_EXIT_OK) {
		if (!formats) {
			ul_default_formats(run.suites, defaults, sizeof(defaults));
			if (ul_outputs_parse("show", defaults, &outs))
				ret = UL_EXIT_USAGE;
		}
		if (ret == UL_EXIT_OK && ul_outputs_write(&outs, &run))
			ret = UL_EXIT_ERROR;
	}
	ul_run_release(&run);
	ul_store_close(store);
	return ret;
}

const struct ul_cmd ul_cmd_desc_show = {
	.name = "show",
	.summary = "re-print a stored run in any format",
	.help = show_help,
	.fn = ul_cmd_show,
};

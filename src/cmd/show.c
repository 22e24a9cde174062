/* SPDX-License-Identifier: GPL-2.0-or-later */
/* `underload show RUN`: re-print a stored run in any formats. */
#include "core/compat.h"
#include "cmd/cmd.h"
#include "fingerprint/fingerprint.h"
#include "store/store.h"

#include <limits.h>
#include <stdio.h>

static const char show_help[] =
	"Print a stored run.  RUN is a numeric id, a UUID or a unique UUID prefix\n"
	"(4 characters or more), or 'last' (with --host, that host's newest run).\n"
	"With --env, print what the machine was when the run started (its\n"
	"fingerprint) instead.\n"
	"\n";

struct show_args {
	const char *db, *formats;
	struct ul_cmd_hosts hosts;
	bool env;
};

static const struct ul_opt show_opts[] = {
	UL_CMD_OPT_DB(struct show_args),
	{ "format", UL_OPT_STRING, .arg = "LIST", UL_OPT_AT(struct show_args, formats),
	  .help = "outputs, e.g. text,resp1,json=FILE",
	  .def_text = "the seed table of each suite of the run, then text, as 'run' printed it" },
	{ "env", UL_OPT_FLAG, 0, 1, 0, UL_OPT_AT(struct show_args, env),
	  .help = "print the run's fingerprint (kernel, config, sysctls, CPU, memory, "
		  "storage, virtualisation, activity at the start) and the doctor's findings" },
	UL_CMD_OPT_HOST(struct show_args, hosts, ": RUN must be a run of one of them"),
	{ NULL },
};

extern const struct ul_cmd ul_cmd_desc_show;

/* ul_run_init() run, then load the run `ref` names among the hosts' runs (cmd/names.c). */
static int load_run(struct ul_store *st, const struct ul_cmd_hosts *hosts, const char *ref,
		    struct ul_run *run)
{
	struct ul_cmd_scope sc;
	struct ul_run_summary sum;
	int ret;

	if (!hosts->n) /* the store resolves it alone: no list to read */
		return ul_cmd_load_run(st, ref, run);
	ul_run_init(run);
	ret = ul_cmd_scope_open(st, hosts, &sc);
	if (!ret)
		ret = ul_cmd_scope_find_run(&sc, "show", ref, &sum);
	ul_cmd_scope_free(&sc);
	return ret ? ret : ul_cmd_load_run(st, sum.uuid, run);
}

int ul_cmd_show(int argc, char **argv);
int ul_cmd_show(int argc, char **argv)
{
	struct show_args a;
	char defaults[256], db[PATH_MAX];
	struct ul_outputs outs;
	struct ul_store *store;
	struct ul_run run;
	int first, ret;
	const char *db_opt, *formats;

	ret = ul_cmd_parse(&ul_cmd_desc_show, &a, argc, argv, &first);
	if (ret)
		return ret == UL_CMD_HELP_SHOWN ? UL_EXIT_OK : ret;
	db_opt = a.db;
	formats = a.formats;
	if (argc - first != 1)
		return ul_usage_error("show", "expected exactly one RUN");
	if (a.env && formats)
		return ul_usage_error("show", "--env prints the fingerprint: it takes no --format");
	/* The store first: an output file may never be it (ul_cmd_db_path()). */
	ret = ul_cmd_db_path(db_opt, db, sizeof(db));
	if (ret)
		return ret;
	if (formats && ul_outputs_parse("show", formats, &outs))
		return UL_EXIT_USAGE;
	ret = ul_cmd_open_store_settled(db, &store);
	if (ret)
		return ret;
	ret = load_run(store, &a.hosts, argv[first], &run);
	if (ret == UL_EXIT_OK && a.env) {
		if (ul_fingerprint_print(stdout, run.fingerprint) || fflush(stdout))
			ret = UL_EXIT_ERROR;
	} else if (ret == UL_EXIT_OK) {
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
	.operands = "RUN",
	.help = show_help,
	.opts = show_opts,
	.fn = ul_cmd_show,
};

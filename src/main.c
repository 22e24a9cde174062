/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * underload: argv -> command table (git.c style).  The only place besides
 * the commands that decides an exit code; checks stdout before exiting.
 */
#include "core/compat.h"
#include "cmd/cmd.h"
#include "cmd/run.h"
#include "core/log.h"
#include "core/signals.h"
#include "engine/engine.h"
#include "model/suite.h"
#include "probe/probe.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static void usage(FILE *out)
{
	fprintf(out, "usage: underload [--version] [--help] COMMAND [ARGS]\n\n"
		     "Measure how a Linux system responds while it is under load.\n\n"
		     "Commands:\n");
	for (size_t i = 0; i < ul_cmd_count(); i++)
		fprintf(out, "  %-10s %s\n", ul_cmd_at(i)->name, ul_cmd_at(i)->summary);
	fprintf(out, "\nSee 'underload COMMAND --help' and underload(1).\n");
}

int main(int argc, char **argv)
{
	const struct ul_cmd *cmd;
	int ret;

	/* Hidden helper mode the resp probe execs: must stay tiny and silent. */
	if (argc >= 2 && !strcmp(argv[1], "__lsdir"))
		return ul_probe_lsdir_main(argc, argv);
	ul_signals_init();
	ul_suites_install(ul_engine_suites);
	/* Hidden: the man page's generated OPTIONS sections (docs/update-man). */
	if (argc >= 2 && !strcmp(argv[1], "__man-options"))
		return ul_cmd_man_options(argc - 1, argv + 1) || ul_stdout_close() ? UL_EXIT_ERROR
										   : UL_EXIT_OK;
	/* Hidden: what shell completion offers (cmd/complete.c). */
	if (argc >= 2 && !strcmp(argv[1], "__complete"))
		return ul_cmd_complete(argc - 1, argv + 1) || ul_stdout_close() ? UL_EXIT_ERROR
										: UL_EXIT_OK;
	/* Hidden: run's options and the suites that read each (tests/cli/t0007). */
	if (argc == 2 && !strcmp(argv[1], "__run-options")) {
		ul_run_opts_list(stdout);
		return ul_stdout_close() ? UL_EXIT_ERROR : UL_EXIT_OK;
	}
	if (argc < 2) {
		usage(stderr);
		return UL_EXIT_USAGE;
	}
	if (!strcmp(argv[1], "--help") || !strcmp(argv[1], "-h") || !strcmp(argv[1], "help")) {
		if (argc >= 3 && (cmd = ul_cmd_find(argv[2]))) {
			ul_cmd_print_help(cmd, stdout);
		} else {
			usage(stdout);
		}
		return ul_stdout_close() ? UL_EXIT_ERROR : UL_EXIT_OK;
	}
	if (!strcmp(argv[1], "--version") || !strcmp(argv[1], "-V")) {
		ul_print_version(stdout);
		return ul_stdout_close() ? UL_EXIT_ERROR : UL_EXIT_OK;
	}
	cmd = ul_cmd_find(argv[1]);
	if (!cmd) {
		fprintf(stderr, "error: '%s' is not an underload command\n", argv[1]);
		usage(stderr);
		return UL_EXIT_USAGE;
	}
	ret = cmd->fn(argc - 1, argv + 1);
	if (ul_stdout_close() && ret == UL_EXIT_OK)
		ret = UL_EXIT_ERROR;
	return ret;
}

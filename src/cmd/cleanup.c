/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * `underload cleanup`: undo what killed runs left behind (swap files,
 * memory cgroups, scratch directories, sysctls) from their journals.
 */
#include "core/compat.h"
#include "cmd/cmd.h"
#include "core/log.h"
#include "proc/journal.h"

#include <getopt.h>
#include <stdio.h>
#include <string.h>

static const char cleanup_help[] =
	"usage: underload cleanup\n"
	"\n"
	"Undo the system changes of runs that did not end normally (killed with\n"
	"SIGKILL, machine crash): swap files are turned off and deleted, memory\n"
	"cgroups emptied and removed, scratch directories deleted, sysctls restored.\n"
	"Runs find them in their journals under /run/underload.  Runs still alive\n"
	"are left alone.  Exit status 0 when everything was undone, 1 otherwise.\n";

static void report(void *arg, const char *kind, const char *what, int rc)
{
	(void)arg;
	if (rc)
		ul_error_errno(rc, "cannot undo %s '%s'", kind, what);
	else
		printf("removed %s %s\n", kind, what);
}

int ul_cmd_cleanup(int argc, char **argv);
int ul_cmd_cleanup(int argc, char **argv)
{
	static const struct option opts[] = {
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};
	int c, rc, n = 0;

	optind = 1;
	while ((c = getopt_long(argc, argv, "h", opts, NULL)) != -1) {
		if (c == 'h') {
			fputs(cleanup_help, stdout);
			return UL_EXIT_OK;
		}
		return ul_usage_error("cleanup", "unknown option");
	}
	if (optind != argc)
		return ul_usage_error("cleanup", "no arguments expected");
	rc = ul_journal_cleanup(NULL, report, NULL, &n);
	if (rc) {
		ul_error_errno(rc, "cleanup incomplete");
		return UL_EXIT_ERROR;
	}
	printf("%d change%s undone\n", n, n == 1 ? "" : "s");
	return UL_EXIT_OK;
}

const struct ul_cmd ul_cmd_desc_cleanup = {
	.name = "cleanup",
	.summary = "undo what killed runs left behind (swap, cgroups, scratch)",
	.help = cleanup_help,
	.fn = ul_cmd_cleanup,
};

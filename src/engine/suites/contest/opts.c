/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * The contest suite's options of `underload run`, described once: --help,
 * getopt and the man page come from this table.  Bad input (a job that
 * cannot be found, a missing directory, a range) is a usage error before
 * anything runs.
 */
#include "core/compat.h"
#include "core/log.h"
#include "engine/suites/contest/contest.h"
#include "engine/suites/contest/srctree.h"

#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define O(member) UL_OPT_AT(struct ul_contest_opts, member)

const struct ul_opt ul_contest_opt_table[] = {
	{ "job", UL_OPT_STRING, .arg = "'CMD ARGS'", O(job),
	  .help = "time this command instead of building the generated tree; split into words "
		  "at blanks, '...' and \"...\" quote, no shell (write sh -c '...' for one)",
	  .man = "The program is looked up in PATH.  Its output goes to a log whose last\n"
		 "lines are quoted if it fails." },
	{ "job-dir", UL_OPT_DIR, .arg = "DIR", O(job_dir),
	  .def_text = "the current directory; the tar loads: the generated tree",
	  .help = "where --job runs, and the tree the tar loads archive" },
	{ "job-prep", UL_OPT_STRING, .arg = "'CMD'", O(job_prep),
	  .help = "untimed, in the job's directory before each job (e.g. 'make clean'; the "
		  "generated tree's default)" },
	{ "job-timeout", UL_OPT_DURATION, UL_NS_PER_SEC, 7 * 24 * 3600 * UL_NS_PER_SEC,
	  UL_CONTEST_DEFAULT_JOB_TIMEOUT_NS, "a job running longer fails its test", .arg = "DUR",
	  .accepted = "a duration from 1s to 7 days", O(job_timeout_ns) },
	{ "lead-time", UL_OPT_DURATION, 0, 600 * UL_NS_PER_SEC, UL_CONTEST_DEFAULT_LEAD_NS,
	  "load start to job start", .arg = "DUR", O(lead_ns) },
	{ "no-drop-caches", UL_OPT_FLAG, 0, 1, 0, O(no_drop_caches),
	  .def_text = "also drop the page cache when root", .help = "only sync before each job",
	  .man = "By default, when root, 3 is also written to\n.B /proc/sys/vm/drop_caches\n"
		 "so every job starts from the disk." },
	{ "lslr-dir", UL_OPT_DIR, .arg = "DIR", O(lslr_dir), .def_str = "/usr",
	  .help = "the tree lslr_load lists" },
	{ "tree-units", UL_OPT_COUNT, 1, 100000, 0, "translation units of the generated tree",
	  .arg = "N", .def_text = "480, about a minute of make -j2; --quick: 24", O(tree_units) },
	{ "tree-seed", UL_OPT_COUNT, 0, INT64_MAX, UL_SRCTREE_DEFAULT_SEED,
	  "seed of the generated tree", .arg = "N", .accepted = "a count from 0 to 2^63-1",
	  O(tree_seed) },
	{ NULL },
};

/* A command's words and program; -EINVAL with the reason when either is wrong. */
static int check_command(const char *opt, const char *cmd, const char *dir, char *err,
			 size_t errlen)
{
	char **argv = NULL, why[128], path[PATH_MAX];
	int rc = ul_contest_split(cmd, &argv, why, sizeof(why));

	if (rc == -ENOMEM) {
		snprintf(err, errlen, UL_OOM_TEXT);
		return -EINVAL;
	}
	if (rc) {
		snprintf(err, errlen, "%s '%s': %s", opt, cmd, why);
		return -EINVAL;
	}
	rc = ul_contest_which(argv[0], dir, path, sizeof(path));
	if (rc)
		snprintf(err, errlen, "%s '%s': cannot execute '%s': %s", opt, cmd, argv[0],
			 rc == -ENOENT && !strchr(argv[0], '/') ? "not found in PATH"
								: strerror(-rc));
	free(argv);
	return rc ? -EINVAL : 0;
}

int ul_contest_check_opts(const void *opts, char *err, size_t errlen)
{
	const struct ul_contest_opts *o = opts;

	if (!o->job && (o->job_dir || o->job_prep)) {
		snprintf(err, errlen, "%s needs --job (the generated tree has its own)",
			 o->job_dir ? "--job-dir" : "--job-prep");
		return -EINVAL;
	}
	if (o->job && check_command("--job", o->job, o->job_dir, err, errlen))
		return -EINVAL;
	if (o->job_prep && check_command("--job-prep", o->job_prep, o->job_dir, err, errlen))
		return -EINVAL;
	return 0;
}

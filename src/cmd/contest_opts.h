/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * The contest suite's options of `underload run`, kept out of cmd/run.c:
 * run.c splices UL_CONTEST_LONG_OPTIONS into its getopt table and
 * UL_CONTEST_HELP into its help, and hands these option codes here.
 */
#ifndef UL_CMD_CONTEST_OPTS_H
#define UL_CMD_CONTEST_OPTS_H

#include "core/compat.h"
#include "engine/contest.h"

#include <getopt.h>

/* getopt codes, above run.c's own (which start at 256). */
enum {
	UL_CONTEST_OPT_JOB = 0x300,
	UL_CONTEST_OPT_JOB_DIR,
	UL_CONTEST_OPT_JOB_PREP,
	UL_CONTEST_OPT_JOB_TIMEOUT,
	UL_CONTEST_OPT_LEAD_TIME,
	UL_CONTEST_OPT_NO_DROP_CACHES,
	UL_CONTEST_OPT_LSLR_DIR,
	UL_CONTEST_OPT_TREE_UNITS,
	UL_CONTEST_OPT_TREE_SEED,
	UL_CONTEST_OPT_END,
};

#define UL_CONTEST_LONG_OPTIONS                                                                    \
	{ "job", required_argument, NULL, UL_CONTEST_OPT_JOB },                                    \
	{ "job-dir", required_argument, NULL, UL_CONTEST_OPT_JOB_DIR },                            \
	{ "job-prep", required_argument, NULL, UL_CONTEST_OPT_JOB_PREP },                          \
	{ "job-timeout", required_argument, NULL, UL_CONTEST_OPT_JOB_TIMEOUT },                    \
	{ "lead-time", required_argument, NULL, UL_CONTEST_OPT_LEAD_TIME },                        \
	{ "no-drop-caches", no_argument, NULL, UL_CONTEST_OPT_NO_DROP_CACHES },                    \
	{ "lslr-dir", required_argument, NULL, UL_CONTEST_OPT_LSLR_DIR },                          \
	{ "tree-units", required_argument, NULL, UL_CONTEST_OPT_TREE_UNITS },                      \
	{ "tree-seed", required_argument, NULL, UL_CONTEST_OPT_TREE_SEED },

#define UL_CONTEST_HELP                                                                            \
	"contest suite (--runs N: N rounds of every load, interleaved; default 1):\n"              \
	"  --job 'CMD ARGS'       time this command instead of building the generated tree;\n"     \
	"                         split into words at blanks, '...' and \"...\" quote, no shell\n" \
	"                         (write sh -c '...' for one)\n"                                   \
	"  --job-dir DIR          where --job runs, and the tree the tar loads archive\n"          \
	"                         (default: the current directory; the tar loads: the\n"           \
	"                         generated tree)\n"                                               \
	"  --job-prep 'CMD'       untimed, in the job's directory before each job (e.g. 'make\n"   \
	"                         clean'; the generated tree's default)\n"                         \
	"  --job-timeout DUR      a job running longer fails its test (default: 1h)\n"             \
	"  --lead-time DUR        load start to job start (default: 3s)\n"                         \
	"  --no-drop-caches       only sync before each job (default: also drop the page cache\n"  \
	"                         when root)\n"                                                    \
	"  --lslr-dir DIR         the tree lslr_load lists (default: /usr)\n"                      \
	"  --tree-units N         translation units of the generated tree (default: 480,\n"        \
	"                         about a minute of make -j2; --quick: 24)\n"                      \
	"  --tree-seed N          seed of the generated tree (default: 20021011)\n"

static inline bool ul_contest_is_opt(int c)
{
	return c >= UL_CONTEST_OPT_JOB && c < UL_CONTEST_OPT_END;
}

/*
 * One contest option (ul_contest_is_opt(c)): parse and range-check it into
 * o.  (--runs is run.c's, shared with mtest: cfg->mtest_runs.)  0, or
 * UL_EXIT_USAGE after printing the usage error.
 */
int ul_contest_parse_opt(int c, const char *arg, struct ul_contest_opts *o);

/*
 * After all options: the checks that need several of them (--job with its
 * --job-dir: the program must exist there or in PATH).  `selected` says
 * whether the contest suite runs; contest-only options without it are a
 * usage error.  0, or UL_EXIT_USAGE after printing.
 */
int ul_contest_check_opts(const struct ul_contest_opts *o, bool selected);

#endif

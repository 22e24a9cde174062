/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Run until decided (`sweep --until-decided`, `vm --until-decided`): the
 * two sides are run in balanced blocks, A B, B A, A B ... (so that over
 * two blocks each side is first once and slow drift cancels within a
 * pair), and after every pair the runs of this sequence are read back
 * from the store and decided by stats/seqab.h.  It stops at the first of:
 * every test decided (slower, faster or equal within the margin), the
 * run budget (--max-runs, both sides together), or the time budget
 * (--budget: no pair is started that the pairs so far say would end past
 * it).  Every run is stored as any other, so `compare` of the labels gives
 * the same shifts afterwards (its fixed-design verdicts are its own).
 */
#ifndef UL_CMD_DECIDE_H
#define UL_CMD_DECIDE_H

#include "core/compat.h"
#include "core/opt.h"
#include "stats/seqab.h"

/* The options the commands share, parsed into struct ul_decide_args. */
struct ul_decide_args {
	bool until_decided;
	int64_t margin_centi; /* equal within +-this/100 %, 0 until parsed */
	int max_runs;	      /* both sides together; 0: none */
	int64_t budget_ns;    /* 0: none */
	const char *fail_on;  /* NULL, "slower", "faster", "changed" */
};

/* The option table's entries for struct ul_decide_args `member` of `type`
 * (a command's table lists them among its own). */
#define UL_DECIDE_OPTS(type, member)                                                               \
	{ "until-decided",                                                                         \
	  UL_OPT_FLAG,                                                                             \
	  0,                                                                                       \
	  1,                                                                                       \
	  0,                                                                                       \
	  "run pairs of the two sides (A B, B A, ...) until every test is decided",                \
	  UL_OPT_AT(type, member.until_decided) },                                                 \
		{ "margin",                                                                        \
		  UL_OPT_PCT,                                                                      \
		  1,                                                                               \
		  10000,                                                                           \
		  500,                                                                             \
		  "--until-decided: equal means within +-PCT%",                                    \
		  .arg = "PCT",                                                                    \
		  UL_OPT_AT(type, member.margin_centi) },                                          \
		{ "max-runs", UL_OPT_COUNT,                                                        \
		  0,	      100000,                                                              \
		  0,	      "--until-decided: stop after N runs in all (0: no limit)",           \
		  .arg = "N", UL_OPT_AT(type, member.max_runs) },                                  \
		{ "budget",                                                                        \
		  UL_OPT_DURATION,                                                                 \
		  0,                                                                               \
		  INT64_MAX,                                                                       \
		  0,                                                                               \
		  "--until-decided: start no pair that would end after this (0: none)",            \
		  .arg = "DURATION",                                                               \
		  UL_OPT_AT(type, member.budget_ns) },                                             \
	{                                                                                          \
		"fail-on", UL_OPT_CHOICE,                                                          \
			.arg = "slower|faster|changed",                                            \
			.help = "exit 5 when a test's verdict is the one named (changed: either)", \
			.def_text = "none", UL_OPT_AT(type, member.fail_on)                        \
	}

/* Does run's option `name` (--min-points, --max-points, --quick) fix the
 * points a cell?  Then they are the user's, and no pilot designs them. */
bool ul_decide_fixes_points(const char *name);

/*
 * The sequence's plan, from the arguments alone (before any pair, as the
 * restart's union bound needs; decide.c): the confidence sequence's
 * options, with a pilot (opts->pilot_pairs) when the run's arguments fix
 * no points and --max-runs is none or leaves room for the pilot and the
 * pairs after it that a first bound needs.  A caller that decides the
 * stored runs again (bisect) gets the same verdicts with it.
 */
void ul_decide_plan(const struct ul_decide_args *a, bool points_given, struct ul_seqab_opts *o);

/* The option checks after parsing: UL_EXIT_OK or UL_EXIT_USAGE (printed). */
int ul_decide_check(const char *cmd, const struct ul_decide_args *a, size_t n_sides);

struct ul_decide {
	const char *cmd;       /* "sweep", "vm": for messages */
	const char *db;	       /* the runs' --db; NULL: the default store */
	const char *labels[2]; /* A, the baseline, and B */
	struct ul_decide_args a;
	/* One run of side 0 (A) or 1 (B), stored under labels[side]: an exit
	 * code (UL_EXIT_OK, UL_EXIT_FLAGGED, or a failure that ends it all). */
	int (*run_side)(void *ctx, int side);
	/* Run every later run with this many points a cell (the pilot's
	 * design, when ul_decide_plan() plans one); NULL: the points are the
	 * user's (given) or fixed. */
	void (*set_points)(void *ctx, int points);
	void *ctx;
};

/*
 * Run the sequence to its end and print its result (stdout) and progress
 * (stderr).  Returns UL_EXIT_OK (decided or a budget reached: the result
 * says which), UL_EXIT_FLAGGED (some run finished flagged), UL_EXIT_GATE
 * (--fail-on matched), or a run's failure, UL_EXIT_INTERRUPTED included.
 */
int ul_decide_run(const struct ul_decide *d);

#endif

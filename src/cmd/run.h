/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Inside `underload run`: what the command line fills (cmd/run_opts.c
 * describes every option once) and the parsing flow (cmd/run.c).
 */
#ifndef UL_CMD_RUN_H
#define UL_CMD_RUN_H

#include "core/compat.h"
#include "core/optparse.h"
#include "engine/engine.h"

/* --dir's default: the parent of the scratch directory (sweep's too). */
#define UL_RUN_DEFAULT_DIR "/var/tmp"

struct run_args {
	const char *label, *db, *formats, *tests, *dir;
	bool quick;
	bool strict;  /* refuse to start on a doctor's blocker */
	int progress; /* -1 auto */
	struct ul_engine_config cfg;
	const struct ul_suite *suites[UL_MAX_SUITES];
	size_t n_suites;
	char tests_buf[1024];
	void *suite_opts[UL_MAX_SUITES];     /* each suite's option struct (its table) */
	void *monitor_opts[UL_MAX_MONITORS]; /* each monitor's, by registry index */
	/* groups[0 .. n_own_groups): run's own options in --help's order (its
	 * table's first part, each monitor's table, its second part); then
	 * one group per suite with options, under its heading. */
	struct ul_opt_group groups[UL_OPT_GROUPS_MAX];
	size_t n_groups, n_own_groups;
	/* The loads and probes -o set options of (registry indexes): each must
	 * be one a selected test runs (check_item_opts in cmd/run.c). */
	bool load_opt_given[UL_MAX_ITEMS], probe_opt_given[UL_MAX_ITEMS];
};

/*
 * Zero `a`, apply every default (run's table, each load's and probe's,
 * each monitor's and suite's table into a struct allocated here) and
 * build the option groups: run's own, then each suite's under its
 * heading.  0, or -1 after printing (out of memory).  The monitors' and
 * suites' structs are the caller's to free, with ul_run_args_release().
 */
int ul_run_args_init(struct run_args *a);
/* Frees each suite's and monitor's struct ul_run_args_init allocated. */
void ul_run_args_release(struct run_args *a);
/* Whether `suite` reads run's option `o` (its used_by names it, or it has
 * none: every suite reads it). */
bool ul_run_opt_reads(const struct ul_opt *o, const char *suite);
/* Run's own option `name` (its table's or a monitor's), used_by filled;
 * a bug when there is none. */
const struct ul_opt *ul_run_own_opt(const char *name);
/* Whether run's own option `name` (its table's or a monitor's) was given. */
bool ul_run_opt_given(const struct run_args *a, const char *name);
/* The run options that only some suites read and `suite` does, as
 * "--interval --min-points", for `list suites -v`; "" for none. */
void ul_run_opts_read_by(const char *suite, char *buf, size_t len);
/*
 * The hidden `underload __run-options`: a line per option of run's own
 * (its table's and the monitors'), "NAME ARG SUITES WITH": ARG its metavariable ("-" for a flag),
 * SUITES every suite that reads it, comma-separated ("-" for none), WITH
 * the option that makes every suite read it (used_with) or "-".  The
 * tests drive every option x suite combination from it.
 */
void ul_run_opts_list(FILE *out);
/* Is "ITEM.NAME=VALUE" a valid -o of run (a load's or probe's option, in
 * range)?  0, or -EINVAL with why in err (sweep checks its -o values). */
int ul_run_item_option_check(const char *arg, char *err, size_t errlen);
/* run's option groups outside the command (`help run`, the man page). */
size_t ul_run_opt_groups(struct ul_opt_group *groups, size_t max);

#endif

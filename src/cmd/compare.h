/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Pieces of `underload compare` shared by its files (cmd/compare*.c).
 */
#ifndef UL_CMD_COMPARE_H
#define UL_CMD_COMPARE_H

#include "core/compat.h"
#include "cmd/cmd.h"
#include "model/model.h"
#include "stats/runcmp.h"

/* At most this many earlier runs (newest first) are read to learn the
 * run-to-run variance of a configuration. */
#define UL_COMPARE_HISTORY_MAX 64

/* What compare compares: every run loaded once, and the groups pointing into them. */
struct ul_compare_state {
	struct ul_cmd_scope sc; /* the store's runs, and the --host hosts' */
	bool cross_host;	/* several --host: one group per label and host */
	struct ul_run **loaded;
	size_t n_loaded;
	struct ul_runcmp_group groups[UL_RUNCMP_MAX_GROUPS];
	size_t n_groups;
	/* earlier runs of the baseline's host and configuration, by label */
	struct ul_runcmp_group history[UL_COMPARE_HISTORY_MAX];
	size_t n_history;
};

/*
 * The groups (cmd/compare_pick.c): each name's runs (a label's finished
 * runs, across hosts one group per host, or one run), or without names
 * every label's newest run, oldest label first; then the baseline's moved
 * (or added) first.  An exit code, after printing why.
 */
int ul_compare_select(struct ul_compare_state *st, char **names, size_t n_names,
		      const char *baseline);
/*
 * The history: finished runs not compared, of the baseline's host and
 * configuration (ul_compare_same_config), at most UL_COMPARE_HISTORY_MAX
 * read (repeated labels' runs first, newest first), grouped by label.  A
 * row with one replicate a side learns its run-to-run variance there.  0
 * or UL_EXIT_ERROR.
 */
int ul_compare_pick_history(struct ul_compare_state *st);
/* At most this many metrics over all suites are compared at once. */
#define UL_COMPARE_MAX_METRICS 64
/* The metrics the groups' suites declare (struct ul_suite's metrics), of
 * the suite `only` alone unless NULL; at most UL_COMPARE_MAX_METRICS
 * (cmd/compare.c). */
size_t ul_compare_pick_metrics(const struct ul_compare_state *st, const char *only,
			       struct ul_runcmp_metric *out);
/* Free what the state holds (its store is the caller's to close). */
void ul_compare_state_free(struct ul_compare_state *st);

/*
 * Fill c->env with every environment property that differs between the
 * compared groups (kernel, CPU, memory, swap, tool version, suite
 * parameters, probe and load options), marking the unfair ones (probe
 * options, memory budget or limit, tool version), except those expect
 * names: comma-separated fnmatch(3) patterns on the property ("memory
 * limit") or fingerprint key ("sysctl.vm.swappiness"), the difference the
 * comparison is about (a sweep's setting); NULL: none.  0 or -ENOMEM.
 */
int ul_compare_env(struct ul_runcmp *c, const char *expect);

/*
 * Were runs a and b measured on the same host in the same configuration
 * (CPUs, memory limit and budget, swap file, interval, points, probe and
 * load options), whatever their kernels?  Where compare learns the
 * run-to-run variance of a configuration from earlier repeated runs.
 */
bool ul_compare_same_config(const struct ul_run *a, const struct ul_run *b);

/*
 * One run holding the cells of `suite` of every run of the group, cells of
 * the same test merged (their samples appended in run order, their counts
 * pooled as report/replicate.h says), header from
 * the group's newest run: what the single-run seed formats print for a
 * label of several runs.  The caller ul_run_release()s `out`.  0 or -ENOMEM.
 */
int ul_compare_pool_run(const struct ul_runcmp_group *g, const char *suite, struct ul_run *out);

#endif

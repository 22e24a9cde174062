/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * What report shows of a suite beyond the generic tables and plots: the
 * suite's report block, which its descriptor carries (`report` of struct
 * ul_suite, set in engine/suites/NAME/), so generic code (the text format,
 * the page, compare) never compares suite names.  A suite without extras
 * has none.  The hooks are report/'s functions; they are called where they
 * belong (text.c, html/suite.c).
 */
#ifndef UL_REPORT_SUITES_H
#define UL_REPORT_SUITES_H

#include "core/compat.h"

#include <stdio.h>

struct ul_run;
struct ul_cell;
struct ul_hdoc;

enum ul_report_suite_flag {
	/* The page draws no time-order scatter of its samples: its probe
	 * plots them itself (the deadline periods). */
	UL_RS_NO_SCATTER = 1u << 0,
	/* The suite prints the deadline probe in its own block, so the
	 * per-cell monitor lines leave it out. */
	UL_RS_OWN_DEADLINE = 1u << 1,
	/* It samples after a think time or for interval x points, so the
	 * text header prints the run's sampling parameters (resp, deadline). */
	UL_RS_SAMPLING = 1u << 2,
};

struct ul_suite_report {
	/* Below a group's text table, once (the deadline table); text.c. */
	int (*text_group)(FILE *out, const struct ul_run *run);
	/* Below it, per test, its replicates pooled (the mtest and fsbench
	 * blocks); text.c. */
	int (*text_cell)(FILE *out, const struct ul_cell *cell);
	/* Under the suite's heading on the page (contest's seed table);
	 * html/suite.c. */
	void (*html_intro)(struct ul_hdoc *d, const char *suite);
	/* Above a test's plots (the deadline timeline); html/suite.c. */
	void (*html_test)(struct ul_hdoc *d, const char *suite, const char *load);
	unsigned flags; /* enum ul_report_suite_flag */
	/* Formats that print this suite's cells only, besides the
	 * descriptor's `format` and `compare_format` (micro's own table),
	 * NULL-terminated; NULL = none. */
	const char *const *formats;
};

/* The report block of suite `name`: its descriptor's, or an empty one
 * (a suite without extras, or one this build does not know). */
const struct ul_suite_report *ul_report_suite(const char *name);
/* The flags of suite `name` (0 for a suite without a block). */
unsigned ul_report_suite_flags(const char *name);
/* True if one of the run's suites has every flag of `flags`. */
bool ul_report_run_has_flag(const struct ul_run *run, unsigned flags);
/* The name of the suite whose cells format `format` prints (its
 * `format`, `compare_format` or one of its block's `formats`); "" when
 * none, which matches no cell. */
const char *ul_report_format_suite(const char *format);

#endif

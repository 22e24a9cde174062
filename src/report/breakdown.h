/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * "Why was it slow", read back: the medians of a test's delay and of each
 * part of it (model/breakdown.h), for `show --format breakdown`, the text
 * format's block, show's JSON and the HTML report.
 *
 * A cell has a breakdown when its wall series (ul_breakdown_wall: the
 * sample series, series[0], unless it has UL_BREAKDOWN_WALL_SERIES, as
 * fsbench's clients and deadline's cells do) has samples and every
 * always-present part (needs_delayacct 0) has a series of the same
 * length; a cell without one shows nothing and is no error.  "delay" below
 * is that wall series.  A part
 * that only delay accounting counts is "not counted" when its series is
 * absent (or not as long as the samples'): shown "n/c" and JSON null,
 * never 0.  A test's replicates (--runs) are pooled
 * (report/replicate.h) before the medians are taken; the medians of the
 * parts need not add up to the median delay (each is its own median).
 */
#ifndef UL_REPORT_BREAKDOWN_H
#define UL_REPORT_BREAKDOWN_H

#include "core/compat.h"
#include "model/breakdown.h"
#include "model/model.h"

#include <stdio.h>

/* Not-counted, as the tables show it. */
#define UL_BREAKDOWN_NOT_COUNTED "n/c"

struct ul_breakdown_medians {
	size_t n;		     /* samples */
	double delay;		     /* median of the wall series, its unit (ns) */
	bool counted[UL_PART_COUNT]; /* false: delay accounting was off */
	double part[UL_PART_COUNT];  /* median of each counted part; NaN if not */
};

/* The series the parts of c split (the contract above), or NULL. */
const struct ul_series *ul_breakdown_wall(const struct ul_cell *c);

/* The series of part p in cell c when it is aligned with the samples, else NULL. */
const struct ul_series *ul_breakdown_series(const struct ul_cell *c, enum ul_breakdown_part p);

/* Does the cell have a breakdown (the contract above)? */
bool ul_breakdown_has(const struct ul_cell *c);

/* The medians of cell c; 1 when it has no breakdown (m untouched), 0, or -ENOMEM. */
int ul_breakdown_medians(const struct ul_cell *c, struct ul_breakdown_medians *m) UL_MUST_CHECK;

/*
 * The breakdown table of the tests of one group (suite, probe): a row per
 * test with a breakdown, in order of first appearance, its replicates
 * pooled; columns test, median delay, "=", each part's median, "+"
 * between them, every value with its unit (report/quantity.h), lines
 * indented by two blanks like the text format's tables.  Prints nothing
 * when no test of the group has a breakdown; *printed says whether it
 * printed.  0 or a negative errno.
 */
int ul_breakdown_print_group(FILE *out, const struct ul_run *run, const char *suite,
			     const char *probe, bool *printed) UL_MUST_CHECK;

/*
 * The same table under a blank line and the line "HEAD: median delay =
 * median of each part (n/c = not counted: delay accounting was off)", or
 * nothing (*printed false) when no test of the group has a breakdown.
 */
int ul_breakdown_block(FILE *out, const struct ul_run *run, const char *suite, const char *probe,
		       const char *head, bool *printed) UL_MUST_CHECK;

struct json_t;
struct ul_json_style;
/*
 * The rows of the table as a JSON array for show's JSON (report/json.c;
 * fields in report/breakdown_json.c); [] when no test has a breakdown.
 * 0 with *out owned by the caller, or -ENOMEM and *out NULL.
 */
int ul_breakdown_json(const struct ul_run *run, const struct ul_json_style *st,
		      struct json_t **out) UL_MUST_CHECK;

#endif

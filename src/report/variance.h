/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * `compare --variance`: for each compared label and each test, the
 * variance components (points within a cell, rounds within a run, runs or
 * boots) and the cheapest design reaching a precision (stats/varcomp.h),
 * as text, JSON or CSV.
 */
#ifndef UL_REPORT_VARIANCE_H
#define UL_REPORT_VARIANCE_H

#include "core/compat.h"
#include "stats/runcmp.h"
#include "stats/varcomp.h"

#include <stdio.h>

/* The JSON document's format_version ("format": "underload-compare-variance"). */
#define UL_REPORT_VARIANCE_VERSION 1

/*
 * One row per group, metric (count metrics have one value per cell, no
 * points: skipped) and test of the metric's suite in the group's cells,
 * groups in order.  `precision`: the target relative half-width of the
 * 95% CI of the mean (0.02).  `format`: "text", "json" or "csv".  0,
 * -ENOMEM or -EIO (the stream's error).
 */
int ul_report_variance(FILE *out, const struct ul_runcmp_group *groups, size_t n_groups,
		       const struct ul_runcmp_metric *metrics, size_t n_metrics, double precision,
		       const char *format);

/* One label's components and design for one test of a metric. */
struct ul_variance_of {
	struct ul_varcomp v;
	double cost[UL_VARCOMP_LEVELS]; /* ns, as the report's head comment says */
	bool boots;			/* every run an `underload vm` boot */
	/* One round a run: the rounds and runs levels are one (comp[CELLS]
	 * 0, comp[RUNS] both: S3^2 - S1^2 / n, n the mean points a cell) */
	bool merged;
	bool designed; /* d holds the cheapest design */
	struct ul_varcomp_design d;
};

/*
 * The components and the cheapest design (for `precision`, as above) of
 * group g's cells of test for metric m: what a row of the report shows,
 * except that runs of one round each (the sequential mode's) are designed
 * on the merged levels instead of asking for --runs 2.  0 or -ENOMEM.
 */
int ul_variance_of(const struct ul_runcmp_group *g, const struct ul_runcmp_metric *m,
		   const char *test, double precision, struct ul_variance_of *out) UL_MUST_CHECK;

#endif

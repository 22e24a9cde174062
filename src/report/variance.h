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

#endif

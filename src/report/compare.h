/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Printing a comparison of stored runs (stats/runcmp.h) as text, JSON or
 * CSV.  Pure functions of the struct: nothing here computes a statistic.
 * Each returns 0 or -EIO when the stream reported an error (-ENOMEM for
 * JSON when jansson cannot allocate).
 */
#ifndef UL_REPORT_COMPARE_H
#define UL_REPORT_COMPARE_H

#include "core/compat.h"
#include "stats/runcmp.h"

#include <stdio.h>

/* Text: who is compared (runs pooled), the environment differences (the
 * shown ones, or with `all` every one) and the unfairness warning lines. */
int ul_report_compare_header(FILE *out, const struct ul_runcmp *c, bool all);
/* Text: "label 'B' (runs 4, 5 pooled)" above a seed table of that label. */
int ul_report_compare_group_line(FILE *out, const struct ul_runcmp_group *g);
/* Text: the native comparison table of one suite (its rows). */
int ul_report_compare_table(FILE *out, const struct ul_runcmp *c, const char *suite);
/* JSON: everything above, one document ("format": "underload-compare"). */
int ul_report_compare_json(FILE *out, const struct ul_runcmp *c);
/* CSV (RFC 4180): one row per comparison row, units in column names. */
int ul_report_compare_csv(FILE *out, const struct ul_runcmp *c);

/* The JSON document's format_version. */
/* 2: the verdict rests on replicates (basis, reps_*, need_per_side counts
 * replicates), unconfirmed verdicts, count rows. */
#define UL_REPORT_COMPARE_VERSION 2

#endif

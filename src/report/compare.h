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
/*
 * Text: the verdict first, one line per row (metric, test, candidate,
 * change with the CI of the shift, verdict, Holm, the row's flags), the
 * verdict coloured when `colour` (a terminal's SGR codes).
 */
int ul_report_compare_summary(FILE *out, const struct ul_runcmp *c, bool colour);

/* A row's verdict in words: the statistical one, or the crash first. */
void ul_report_compare_verdict(char *buf, size_t len, const struct ul_runcmp *c,
			       const struct ul_runcmp_row *r);
/* The text's note of a row: crashes, why untested, what the verdict
 * rests on, counts, disturbed cells ("; "-separated). */
void ul_report_compare_note(char *buf, size_t len, const struct ul_runcmp *c,
			    const struct ul_runcmp_row *r);
/* A row's Holm column: "yes", "no", or "-" for no call to correct. */
void ul_report_compare_holm(char *buf, size_t len, const struct ul_runcmp_row *r);
/* A row's relative change ("+12.3%") and its CI ("[+8.0%, +16.1%]"), "-" when none. */
void ul_report_compare_change(char *change, size_t change_len, char *ci, size_t ci_len,
			      const struct ul_runcmp_row *r);
/* What undermines a row, "; "-separated, "" for nothing: its disturbed
 * and no-pressure cells, crashes in its test, crashed runs' cells pooled. */
void ul_report_compare_flags(char *buf, size_t len, const struct ul_runcmp *c,
			     const struct ul_runcmp_row *r);
/* How a row's verdict reads: what the summaries colour. */
enum ul_report_tone {
	UL_TONE_PLAIN = 0, /* no difference proven, equal, not tested */
	UL_TONE_WORSE,	   /* slower (also unconfirmed) */
	UL_TONE_BETTER,	   /* faster (also unconfirmed) */
	UL_TONE_CRASHED,   /* a side went down in the test */
};
enum ul_report_tone ul_report_compare_tone(const struct ul_runcmp_row *r);

/* JSON: everything above, one document ("format": "underload-compare"),
 * a row's members the CSV's columns (compare_data.c). */
int ul_report_compare_json(FILE *out, const struct ul_runcmp *c);
/* CSV (RFC 4180): one row per comparison row, units in column names. */
int ul_report_compare_csv(FILE *out, const struct ul_runcmp *c);

/* The JSON document's format_version. */
/* 2: the verdict rests on replicates (basis, reps_*, need_per_side counts
 * replicates), unconfirmed verdicts, count rows. */
#define UL_REPORT_COMPARE_VERSION 2

#endif

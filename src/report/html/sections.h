/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Internal to report/html/: the sections of the page, each a file of its
 * own writing through the document (doc.h).  page.c calls the first four
 * in page order; suite.c calls the per-suite ones below them.
 */
#ifndef UL_REPORT_HTML_SECTIONS_H
#define UL_REPORT_HTML_SECTIONS_H

#include "report/html/doc.h"
#include "stats/runcmp.h"

/* A test of a suite: a load measured by a probe (micro has many per load). */
struct ul_html_test {
	const char *load, *probe;
	char name[2 * UL_NAME_LEN + 8]; /* for people: "cpuload", or "lat_mem under cpuload" */
};

/* The sections, in page order. */
void ul_html_summary(struct ul_hdoc *d);
void ul_html_environment(struct ul_hdoc *d);
void ul_html_suites(struct ul_hdoc *d);
void ul_html_monitors(struct ul_hdoc *d);
/* contest: Time and Loads per load, one bar per label. */
void ul_html_contest(struct ul_hdoc *d, const char *suite);
/* micro: each label's memory latency against working-set size, when the
 * cells of (suite, load, probe) hold lat_mem's curve. */
void ul_html_micro_curve(struct ul_hdoc *d, const char *suite, const char *load, const char *probe);
/* deadline: each label's latency over time with its missed periods marked. */
void ul_html_deadline(struct ul_hdoc *d, const char *suite, const char *load);
/* Per suite: change of each label against the baseline with verdicts. */
void ul_html_verdicts(struct ul_hdoc *d, const char *suite);
/*
 * Per suite, "why was it slow" (report/breakdown.h): the medians of each
 * test's parts as a stacked bar per test and label, and one line naming
 * the runs without a breakdown when other runs of the suite have one;
 * nothing at all when no run of the suite has one.
 */
void ul_html_breakdown(struct ul_hdoc *d, const char *suite, const struct ul_html_test *tests,
		       size_t n);
/* Per test and label with a breakdown: each sample's parts, stacked, in time order. */
void ul_html_breakdown_samples(struct ul_hdoc *d, const char *suite,
			       const struct ul_html_test *test);

/* A suite's comparison of each label against the baseline, as the
 * summary and the suite's verdicts show it: its first metric, the
 * two-sided Mann-Whitney test at alpha 0.05.  c points into g and m. */
struct ul_html_cmp {
	struct ul_runcmp_group g[UL_HTML_MAX_LABELS];
	size_t label_of[UL_HTML_MAX_LABELS]; /* d->labels index of g[i] */
	struct ul_runcmp_metric m;
	struct ul_runcmp c;
};
/* 1: rows built (ul_runcmp_free(&x->c) frees them); 0: nothing to
 * compare (one label, a suite without metrics, no rows); or -ENOMEM. */
int ul_html_compare(const struct ul_hdoc *d, const char *suite, struct ul_html_cmp *x);

#endif

/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Internal to report/html/: the document being written (HTML page or one
 * SVG file per figure) and the runs grouped by label; what every section
 * writes through (doc.c).  The sections themselves: sections.h.
 */
#ifndef UL_REPORT_HTML_DOC_H
#define UL_REPORT_HTML_DOC_H

#include "core/compat.h"
#include "report/html/html.h"
#include "report/svg/svg.h"

#include <stdio.h>

struct ul_hlabel {
	const char *label;
	const char *colour;
	const struct ul_run **runs; /* in the order given */
	size_t n_runs;
};

struct ul_hdoc {
	const struct ul_run *const *runs;
	size_t n_runs;
	struct ul_hlabel labels[UL_HTML_MAX_LABELS];
	size_t n_labels;
	size_t baseline;		   /* index into labels */
	FILE *html;			   /* the page; NULL when writing SVG files */
	const struct ul_report_sink *sink; /* SVG files; NULL for the page */
	unsigned n_figures;
	int err; /* first error; later output is skipped */
};

/*
 * Groups d->runs by label in the order given and picks the baseline
 * (opts may be NULL); -E2BIG beyond UL_HTML_MAX_LABELS, -ENOMEM.  The
 * labels are freed by ul_hdoc_free_labels(), also after a failure.
 */
int ul_hdoc_group_labels(struct ul_hdoc *d, const struct ul_report_opts *opts);
void ul_hdoc_free_labels(struct ul_hdoc *d);

/*
 * Opens a figure: a <figure> in the page, or a file from the sink.  Returns
 * the stream to draw into, or NULL after recording an error.  `slug` parts
 * are joined by '-' and cleaned to a safe file name.
 */
FILE *ul_hdoc_figure_begin(struct ul_hdoc *d, const char *a, const char *b, const char *c);
/* Closes it with the chart's result `rc`; `caption` (escaped) under it in the page. */
void ul_hdoc_figure_end(struct ul_hdoc *d, FILE *f, int rc, const char *caption);
/* A heading in the page (text escaped); nothing in SVG mode. */
void ul_hdoc_heading(struct ul_hdoc *d, int level, const char *id, const char *text);

/*
 * Values of the primary series of every cell of (suite, load, probe; a
 * NULL probe matches any) in the
 * label's runs, in time order, divided by div; *out is malloc'ed (NULL and
 * 0 when there are none).  -ENOMEM on failure.  *series gets the series
 * name, *cells the number of cells found and *bad those not OK.
 */
int ul_hdoc_values(const struct ul_hlabel *l, const char *suite, const char *load,
		   const char *probe, double div, double **out, size_t *n, const char **series,
		   size_t *bad);

#endif

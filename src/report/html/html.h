/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * report/html/: the HTML (and --format svg) report; this header is its
 * face.  page.c is the top: it walks the page and calls the sections
 * (sections.h: env.c, suite.c, monitor.c; suite.c calls extra.c and
 * verdict.c), which all write through the document (doc.h, doc.c) and
 * nothing else calls back up.  The charts they draw are report/svg/'s;
 * the numbers come from the model and stats/.
 *
 * The HTML report (`underload report`, format "html"): one self-contained
 * page of inline CSS and SVG (no script, no font, no network; a Content
 * Security Policy forbids them) over one or more runs, readable offline
 * and printable.  Runs are grouped by label, in the order given; the first
 * label (or opts->baseline) is the baseline of the comparisons.
 *
 * The same walk writes each picture to its own SVG file instead
 * (`--format svg`): the caller's sink opens one stream per figure.
 * Pure functions of the model: nothing here opens files or prints to the
 * terminal.  Return 0 or a negative errno (-EIO on a stream error).
 */
#ifndef UL_REPORT_HTML_H
#define UL_REPORT_HTML_H

#include "core/compat.h"
#include "model/model.h"
#include "report/format.h"

#include <stdio.h>

/* Labels (colours) a report distinguishes; runs of further labels are refused. */
#define UL_HTML_MAX_LABELS 16

int ul_report_html(FILE *out, const struct ul_run *const *runs, size_t n,
		   const struct ul_report_opts *opts);

/*
 * Where `--format svg` puts figures.  open() returns a stream for the
 * figure named `slug` (lower-case letters, digits, '-' and '.' only: safe
 * as a file name) or NULL with errno set; close() finishes it and returns
 * 0 or a negative errno.
 */
struct ul_report_sink {
	FILE *(*open)(void *ctx, const char *slug);
	int (*close)(void *ctx, FILE *f);
	void *ctx;
};
int ul_report_svgs(const struct ul_run *const *runs, size_t n, const struct ul_report_opts *opts,
		   const struct ul_report_sink *sink);

#endif

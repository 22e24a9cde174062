/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * report/svg/: the chart primitives of the report, knowing nothing of
 * runs or suites: svg.c (distribution charts), lines.c (series over
 * time), frame.c (axes, legend and the escaping; frame.h).  Used by
 * report/html/ and nothing else of the report depends on it.
 *
 * The SVG charts of the HTML report, each a pure function of plain arrays
 * writing one standalone <svg> element (valid inside HTML and as an .svg
 * file).  Every string from the store goes through ul_svg_escape(), so a
 * label such as "<script>" is drawn as text.  Numbers are printed with
 * "%.1f"-style fixed precision, never through the locale.
 *
 * Charts return 0 or -EIO (stream error), -EINVAL (nothing to draw) or
 * -ENOMEM.  Class names on the elements (ul-pts, ul-cdf, ul-box, ul-bar,
 * ul-line, ul-miss, ul-cell) are part of the contract: the CLI test counts
 * them in the browser's DOM.
 */
#ifndef UL_REPORT_SVG_H
#define UL_REPORT_SVG_H

#include "core/compat.h"

#include <stdio.h>

/*
 * Writes s (at most cap bytes, stopping at NUL) escaped for HTML text and
 * attribute values and for XML: & < > " ' become entities, control
 * characters become spaces and bytes that are not valid UTF-8 become
 * U+FFFD, so any stored string yields a well-formed document.
 */
void ul_svg_escape(FILE *out, const char *s, size_t cap);

/* One label's values for the distribution charts, already in display units. */
struct ul_chart_group {
	const char *name;   /* label (escaped when written) */
	const char *colour; /* "#rrggbb" from ul_plot_colour() */
	const double *v;    /* in time order */
	size_t n;
};

/* Title and axis text of a chart (escaped when written). */
struct ul_chart_text {
	const char *title;
	const char *x_label;
	const char *y_label;
};

/* Every sample against its index, one colour per group (McVoy's plot);
 * long groups are downsampled keeping each pixel column's extremes. */
int ul_chart_scatter(FILE *out, const struct ul_chart_text *t, const struct ul_chart_group *g,
		     size_t ng);
/* Empirical CDF of each group (a step line); log x when the values span
 * two decades. */
int ul_chart_cdf(FILE *out, const struct ul_chart_text *t, const struct ul_chart_group *g,
		 size_t ng);
/* Tukey box plots side by side, one per group, outliers as dots. */
int ul_chart_box(FILE *out, const struct ul_chart_text *t, const struct ul_chart_group *g,
		 size_t ng);

/* One bar of a bar chart, grouped by category (a test), coloured by label. */
struct ul_chart_bar {
	const char *category; /* "cpuload" */
	const char *group;    /* label */
	const char *colour;
	double value;
	bool has_ci;
	double lo, hi;	  /* confidence interval, drawn as a whisker */
	const char *note; /* printed at the bar's end ("slower"), may be NULL */
};
/*
 * Horizontal bars, one row per bar, categories separated by a rule; a
 * dashed reference line at `ref` (e.g. 0 % change); when `has_ref` is
 * false there is none.  Bars start at ref (or 0).
 */
int ul_chart_bars(FILE *out, const struct ul_chart_text *t, const struct ul_chart_bar *b, size_t nb,
		  bool has_ref, double ref);

/* A line of a time-series chart. */
struct ul_chart_line {
	const char *name;
	const char *colour;
	const double *x, *y;
	size_t n;
	bool dashed;
};
/* A named interval of the x axis (a cell of the run), shaded alternately. */
struct ul_chart_band {
	const char *name;
	double x0, x1;
};
/*
 * Lines over x, with optional bands (cells, named at the top) and marks
 * (x positions drawn as red ticks under the plot: missed deadlines).
 * Lines are downsampled keeping extremes; y starts at 0 unless a value
 * is negative; log_y draws a log10 y axis (values <= 0 are skipped), log_x
 * a log10 x axis when the range spans two decades.
 */
struct ul_chart_series {
	const struct ul_chart_line *lines;
	size_t n_lines;
	const struct ul_chart_band *bands;
	size_t n_bands;
	const double *marks;
	size_t n_marks;
	bool log_y;
	bool log_x;    /* log10 x axis when x spans two decades */
	double height; /* pixels of the plot area; 0 = default */
};
int ul_chart_lines(FILE *out, const struct ul_chart_text *t, const struct ul_chart_series *s);

#endif

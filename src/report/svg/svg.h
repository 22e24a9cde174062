/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * report/svg/: the chart primitives of the report, knowing nothing of
 * runs or suites: svg.c (distribution charts), lines.c (series over
 * time), stack.c (wholes split into parts), frame.c (axes, legend and
 * the escaping; frame.h).  Used by report/html/ and nothing else of the
 * report depends on it.
 *
 * The SVG charts of the HTML report, each a pure function of plain arrays
 * writing one standalone <svg> element (valid inside HTML and as an .svg
 * file).  Every string from the store goes through ul_svg_escape(), so a
 * label such as "<script>" is drawn as text.  Numbers are printed with
 * "%.1f"-style fixed precision, never through the locale.
 *
 * Charts return 0 or -EIO (stream error), -EINVAL (nothing to draw) or
 * -ENOMEM.  Class names on the elements (ul-pts, ul-cdf, ul-box, ul-bar,
 * ul-line, ul-miss, ul-cell, ul-seg, ul-total, ul-area) are part of the
 * contract: the CLI test counts them in the browser's DOM.
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
 * With x_names, x = 0, 1, ... are named points (a history's kernels): the
 * x axis is labelled with their names, slanted, every k-th name only
 * when they would overlap (each point still gets a tick).
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
	bool log_x;		    /* log10 x axis when x spans two decades */
	double height;		    /* pixels of the plot area; 0 = default */
	const char *const *x_names; /* the name of x = i (escaped when written), or NULL */
	size_t n_x_names;
};
int ul_chart_lines(FILE *out, const struct ul_chart_text *t, const struct ul_chart_series *s);

/*
 * The parts a whole is split into (the causes of a delay), shared by the
 * stacked charts: names and colours in stacking order, the first at the
 * base.  The legend names the parts that have a value somewhere.
 */
struct ul_chart_parts {
	const char *const *names; /* escaped when written */
	const char *const *colours;
	size_t n;
};
/* One stacked bar: a whole's parts laid end to end from 0. */
struct ul_chart_stack {
	const char *category; /* "cpuload" */
	const char *group;    /* label */
	const double *v;      /* parts->n values, >= 0; NaN: not counted, no segment */
	double total;	      /* NaN: none; else marked by a black tick (class ul-total) */
	const char *note;     /* printed after the bar ("229.8 ms"), may be NULL */
};
/*
 * Horizontal stacked bars, one row per bar, categories separated by a
 * rule, all on one linear x axis from 0: each counted part of a bar is a
 * <rect class="ul-seg"> whose width is proportional to its value, so the
 * bar's length is the sum of its parts.  -EINVAL without bars or parts.
 */
int ul_chart_stacks(FILE *out, const struct ul_chart_text *t, const struct ul_chart_parts *p,
		    const struct ul_chart_stack *b, size_t nb);
/*
 * The parts of each of n wholes in order (samples in time order),
 * stacked: part k of whole i is v[k][i] (v[k] NULL: part k not counted;
 * NaN or negative: 0).  Whole i is the column [i + 0.5, i + 1.5] of the
 * x axis (numbered from 1); each part is one <path class="ul-area">
 * between the sum of the parts below it and that sum plus itself.  When
 * n exceeds the plot's width in pixels, consecutive wholes are averaged
 * into one column per pixel (a mean of stacks is the stack of the means).
 * -EINVAL when n is 0 or no part is counted; -ENOMEM.
 */
int ul_chart_strata(FILE *out, const struct ul_chart_text *t, const struct ul_chart_parts *p,
		    const double *const *v, size_t n);

#endif

/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Internal to report/svg*.c: the frame every chart shares (size, plot
 * area, scales, axes with ticks and grid, title, legend).  Not a public
 * interface: charts are the public functions of svg.h.
 */
#ifndef UL_REPORT_SVG_FRAME_H
#define UL_REPORT_SVG_FRAME_H

#include "core/compat.h"
#include "report/plot.h"
#include "report/svg/svg.h"

#include <stdio.h>

#define UL_SVG_W 440.0
#define UL_SVG_H 270.0
#define UL_SVG_CHAR_W 6.2 /* average glyph width at font-size 11, for layout estimates */

struct ul_frame {
	double w, h;		/* whole picture */
	double x0, x1, y0, y1;	/* plot area: x0 < x1, y0 (top) < y1 (bottom) */
	struct ul_scale xs, ys; /* domain -> plot area */
	double xstep, ystep;	/* linear tick steps (0 on a log axis) */
	bool no_x_ticks;	/* categorical x axis: the chart labels it */
	bool no_y_ticks;	/* rows labelled by the chart (bars) */
	double x_drop;		/* room the chart's x names take under the axis,
				 * above the axis label and the legend */
};

/* Sets the size and a plot area with room for ticks, title and a legend
 * line of `legend_rows` rows. */
void ul_frame_init(struct ul_frame *f, double w, double h, size_t legend_rows);
/* x and y domains: nice linear ranges, or log ranges when log is set. */
void ul_frame_x(struct ul_frame *f, double lo, double hi, bool log);
void ul_frame_y(struct ul_frame *f, double lo, double hi, bool log);
/* <svg ...><title>, the title line. */
void ul_frame_begin(FILE *out, const struct ul_frame *f, const char *cls,
		    const struct ul_chart_text *t);
/* Grid, ticks and tick labels on both axes, axis labels, the plot border. */
void ul_frame_axes(FILE *out, const struct ul_frame *f, const struct ul_chart_text *t);
/* A grey rule at y from the left edge to x1: between two categories of a
 * chart with a row per bar. */
void ul_frame_category_rule(FILE *out, const struct ul_frame *f, double y);
/* One row of coloured squares and names under the x axis label. */
void ul_frame_legend(FILE *out, const struct ul_frame *f, const char *const *names,
		     const char *const *colours, size_t n);
/* Rows ul_frame_legend() takes for these names between x0 and x1 (at least 1). */
size_t ul_frame_legend_rows(const char *const *names, size_t n, double x0, double x1);
/* </svg> and the stream's state: 0 or -EIO. */
int ul_frame_end(FILE *out);
/* Smallest and largest finite values of the groups; false when none. */
bool ul_groups_range(const struct ul_chart_group *g, size_t ng, double *lo, double *hi);

#endif

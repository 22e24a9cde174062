/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * The distribution charts of the report: every sample in time order, the
 * empirical CDF and box plots, one colour per label (svg.h).
 */
#include "core/compat.h"
#include "report/svg/frame.h"
#include "stats/stats.h"

#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#define CDF_POINTS 800 /* vertices of one CDF line: well beyond what a screen resolves */

static void legend_of(FILE *out, const struct ul_frame *f, const struct ul_chart_group *g,
		      size_t ng)
{
	const char *names[16], *colours[16];
	size_t n = ng < 16 ? ng : 16;

	for (size_t i = 0; i < n; i++) {
		names[i] = g[i].name;
		colours[i] = g[i].colour;
	}
	ul_frame_legend(out, f, names, colours, n);
}

/* Legend rows the groups need (an estimate from the glyph width). */
static size_t legend_rows(const struct ul_chart_group *g, size_t ng, double width)
{
	double x = 0;
	size_t rows = 1;

	for (size_t i = 0; i < ng && i < 16; i++) {
		double wd = 28 + 6.2 * (double)strlen(g[i].name);

		if (x > 0 && x + wd > width) {
			rows++;
			x = 0;
		}
		x += wd;
	}
	return rows;
}

/* A sorted copy of the finite values; NULL with *n = 0 when none (or no memory: -ENOMEM in *err). */
static double *sorted_copy(const struct ul_chart_group *g, size_t *n, int *err)
{
	double *v = malloc((g->n ? g->n : 1) * sizeof(*v));

	*n = 0;
	if (!v) {
		*err = -ENOMEM;
		return NULL;
	}
	for (size_t i = 0; i < g->n; i++)
		if (isfinite(g->v[i]))
			v[(*n)++] = g->v[i];
	ul_stats_sort(v, *n);
	return v;
}

int ul_chart_scatter(FILE *out, const struct ul_chart_text *t, const struct ul_chart_group *g,
		     size_t ng)
{
	struct ul_frame f;
	double lo, hi;
	size_t nmax = 0, *keep;

	if (!ul_groups_range(g, ng, &lo, &hi))
		return -EINVAL;
	for (size_t i = 0; i < ng; i++)
		nmax = g[i].n > nmax ? g[i].n : nmax;
	ul_frame_init(&f, UL_SVG_W, UL_SVG_H, legend_rows(g, ng, UL_SVG_W - 80));
	ul_frame_x(&f, 1, (double)(nmax > 1 ? nmax : 2), false);
	ul_frame_y(&f, ul_plot_spans_decades(lo, hi) ? lo : (lo > 0 ? 0 : lo), hi,
		   ul_plot_spans_decades(lo, hi));
	keep = malloc(nmax * sizeof(*keep) + 1);
	if (!keep)
		return -ENOMEM;
	ul_frame_begin(out, &f, "ul-scatter", t);
	ul_frame_axes(out, &f, t);
	for (size_t i = 0; i < ng; i++) {
		/* One bucket per pixel column keeps every spike visible. */
		size_t k = ul_plot_downsample(g[i].v, g[i].n, (size_t)(f.x1 - f.x0), keep);

		fprintf(out,
			"<path class=\"ul-pts\" fill=\"none\" stroke=\"%s\" stroke-width=\"5\" "
			"stroke-linecap=\"round\" stroke-opacity=\"0.8\" d=\"",
			g[i].colour);
		for (size_t j = 0; j < k; j++) {
			double y = g[i].v[keep[j]];

			if (isfinite(y))
				fprintf(out, "M%.1f %.1fh0",
					ul_scale_map(&f.xs, (double)keep[j] + 1),
					ul_scale_map(&f.ys, y));
		}
		fputs("\"/>\n", out);
	}
	free(keep);
	legend_of(out, &f, g, ng);
	return ul_frame_end(out);
}

/* One CDF step line of sorted values v[0..n-1]. */
static int cdf_line(FILE *out, const struct ul_frame *f, const char *colour, const double *v,
		    size_t n)
{
	size_t *keep = malloc((CDF_POINTS + 1) * sizeof(*keep)), k;
	double py = f->y1;

	if (!keep)
		return -ENOMEM;
	k = ul_plot_cdf_ranks(n, CDF_POINTS, keep);
	fprintf(out, "<path class=\"ul-cdf\" fill=\"none\" stroke=\"%s\" stroke-width=\"1.6\" d=\"",
		colour);
	for (size_t j = 0; j < k; j++) {
		double x = ul_scale_map(&f->xs, v[keep[j]]);
		double y = ul_scale_map(&f->ys, (double)(keep[j] + 1) / (double)n);

		fprintf(out, j ? "H%.1fV%.1f" : "M%.1f %.1fV%.1f", x, j ? y : py, y);
		py = y;
	}
	fputs("\"/>\n", out);
	free(keep);
	return 0;
}

int ul_chart_cdf(FILE *out, const struct ul_chart_text *t, const struct ul_chart_group *g,
		 size_t ng)
{
	struct ul_frame f;
	double lo, hi;
	int err = 0;

	if (!ul_groups_range(g, ng, &lo, &hi))
		return -EINVAL;
	ul_frame_init(&f, UL_SVG_W, UL_SVG_H, legend_rows(g, ng, UL_SVG_W - 80));
	ul_frame_x(&f, lo, hi, true);
	ul_frame_y(&f, 0, 1, false);
	ul_frame_begin(out, &f, "ul-cdfs", t);
	ul_frame_axes(out, &f, t);
	for (size_t i = 0; i < ng && !err; i++) {
		size_t n;
		double *v = sorted_copy(&g[i], &n, &err);

		if (v && n)
			err = cdf_line(out, &f, g[i].colour, v, n);
		free(v);
	}
	if (err)
		return err;
	legend_of(out, &f, g, ng);
	return ul_frame_end(out);
}

/* Dots of the values beyond the whiskers, at most one per pixel row. */
static void box_outliers(FILE *out, const struct ul_frame *f, double x, const double *v, size_t n,
			 const struct ul_box *b)
{
	double last = -1;

	fputs("<path class=\"ul-out\" fill=\"none\" stroke=\"#555\" stroke-width=\"3\" "
	      "stroke-linecap=\"round\" d=\"",
	      out);
	for (size_t i = 0; i < n; i++) {
		double y;

		if (v[i] >= b->wlo && v[i] <= b->whi)
			continue;
		y = ul_scale_map(&f->ys, v[i]);
		if (fabs(y - last) < 1)
			continue;
		fprintf(out, "M%.1f %.1fh0", x, y);
		last = y;
	}
	fputs("\"/>\n", out);
}

static void box_one(FILE *out, const struct ul_frame *f, double cx, double bw, const char *colour,
		    const struct ul_box *b)
{
	double q1 = ul_scale_map(&f->ys, b->q1), q3 = ul_scale_map(&f->ys, b->q3);
	double md = ul_scale_map(&f->ys, b->median);

	fprintf(out, "<g class=\"ul-box\" stroke=\"%s\" stroke-width=\"1.5\">", colour);
	fprintf(out, "<line x1=\"%.1f\" x2=\"%.1f\" y1=\"%.1f\" y2=\"%.1f\"/>", cx, cx,
		ul_scale_map(&f->ys, b->wlo), q1);
	fprintf(out, "<line x1=\"%.1f\" x2=\"%.1f\" y1=\"%.1f\" y2=\"%.1f\"/>", cx, cx, q3,
		ul_scale_map(&f->ys, b->whi));
	fprintf(out,
		"<rect x=\"%.1f\" y=\"%.1f\" width=\"%.1f\" height=\"%.1f\" fill=\"%s\" "
		"fill-opacity=\"0.25\"/>",
		cx - bw / 2, q3, bw, q1 - q3 > 0.5 ? q1 - q3 : 0.5, colour);
	fprintf(out, "<line x1=\"%.1f\" x2=\"%.1f\" y1=\"%.1f\" y2=\"%.1f\" stroke-width=\"3\"/>",
		cx - bw / 2, cx + bw / 2, md, md);
	fputs("</g>\n", out);
}

int ul_chart_box(FILE *out, const struct ul_chart_text *t, const struct ul_chart_group *g,
		 size_t ng)
{
	struct ul_frame f;
	double lo, hi, slot;
	bool log;
	int err = 0;

	if (!ul_groups_range(g, ng, &lo, &hi))
		return -EINVAL;
	log = ul_plot_spans_decades(lo, hi);
	ul_frame_init(&f, UL_SVG_W, UL_SVG_H, 0);
	f.no_x_ticks = true;
	ul_frame_y(&f, log ? lo : (lo > 0 ? 0 : lo), hi, log);
	ul_frame_begin(out, &f, "ul-boxes", t);
	ul_frame_axes(out, &f, t);
	slot = (f.x1 - f.x0) / (double)ng;
	for (size_t i = 0; i < ng && !err; i++) {
		double cx = f.x0 + slot * ((double)i + 0.5), bw = slot * 0.4 < 60 ? slot * 0.4 : 60;
		struct ul_box b;
		size_t n;
		double *v = sorted_copy(&g[i], &n, &err);

		if (v && n && !ul_plot_box(v, n, &b)) {
			box_one(out, &f, cx, bw, g[i].colour, &b);
			box_outliers(out, &f, cx, v, n, &b);
		}
		free(v);
		fprintf(out, "<text x=\"%.1f\" y=\"%.1f\" text-anchor=\"middle\" fill=\"%s\">", cx,
			f.y1 + 14, g[i].colour);
		ul_svg_escape(out, g[i].name, 40);
		fputs("</text>\n", out);
	}
	if (err)
		return err;
	return ul_frame_end(out);
}

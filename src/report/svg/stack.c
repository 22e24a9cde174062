/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * The stacked charts of the report (svg.h): wholes split into parts, as
 * bars laid end to end and as stacked columns over a sequence of wholes
 * (a delay's causes, by label and sample after sample).
 */
#include "core/compat.h"
#include "report/svg/frame.h"

#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#define BAR_ROW 18.0
#define BAR_LEFT 210.0 /* room for "category · label", as the plain bars */
#define STRATA_H 150.0
#define MAX_PARTS 16

/* A part's value as stacked: NaN (not counted) and negatives add nothing. */
static double part_value(double v)
{
	return isfinite(v) && v > 0 ? v : 0;
}

/* A pixel rounded as it is printed ("%.1f"), so that adjacent segments
 * abut exactly and their widths add up to the bar's length. */
static double px(double x)
{
	return round(x * 10) / 10;
}

/* The names and colours of the parts in `used`, for the legend; their count. */
static size_t used_parts(const struct ul_chart_parts *p, const bool *used, const char **names,
			 const char **colours)
{
	size_t n = 0;

	for (size_t k = 0; k < p->n && k < MAX_PARTS; k++)
		if (used[k]) {
			names[n] = p->names[k];
			colours[n++] = p->colours[k];
		}
	return n;
}

/* Segments, total tick and note of one bar centred on y. */
static void stack_one(FILE *out, const struct ul_frame *f, const struct ul_chart_parts *p,
		      const struct ul_chart_stack *b, double y)
{
	double sum = 0, end;

	fprintf(out, "<text x=\"%.1f\" y=\"%.1f\" text-anchor=\"end\">", f->x0 - 6, y + 4);
	ul_svg_escape(out, b->category, 32);
	fputs(" \xc2\xb7 ", out);
	ul_svg_escape(out, b->group, 28);
	fputs("</text>\n", out);
	for (size_t k = 0; k < p->n; k++) {
		double v = part_value(b->v[k]);
		double a = px(ul_scale_map(&f->xs, sum)), z = px(ul_scale_map(&f->xs, sum + v));

		sum += v;
		if (v <= 0)
			continue;
		fprintf(out,
			"<rect class=\"ul-seg\" x=\"%.1f\" y=\"%.1f\" width=\"%.1f\" height=\"12\" "
			"fill=\"%s\"><title>",
			a, y - 6, z - a, p->colours[k]);
		ul_svg_escape(out, p->names[k], SIZE_MAX);
		fputs("</title></rect>", out);
	}
	end = ul_scale_map(&f->xs, sum);
	if (isfinite(b->total)) {
		double x = ul_scale_map(&f->xs, b->total);

		fprintf(out,
			"<line class=\"ul-total\" x1=\"%.1f\" x2=\"%.1f\" y1=\"%.1f\" y2=\"%.1f\" "
			"stroke=\"#000\" stroke-width=\"2\"/>",
			x, x, y - 8, y + 8);
		end = fmax(end, x);
	}
	if (b->note) {
		fprintf(out, "<text x=\"%.1f\" y=\"%.1f\" fill=\"#222\">", end + 5, y + 4);
		ul_svg_escape(out, b->note, 64);
		fputs("</text>", out);
	}
	fputc('\n', out);
}

int ul_chart_stacks(FILE *out, const struct ul_chart_text *t, const struct ul_chart_parts *p,
		    const struct ul_chart_stack *b, size_t nb)
{
	const char *names[MAX_PARTS], *colours[MAX_PARTS];
	bool used[MAX_PARTS] = { false };
	struct ul_frame f;
	double hi = 0, y;
	size_t nl;

	if (!nb || !p->n || p->n > MAX_PARTS)
		return -EINVAL;
	for (size_t i = 0; i < nb; i++) {
		double sum = 0;

		for (size_t k = 0; k < p->n; k++) {
			sum += part_value(b[i].v[k]);
			used[k] |= isfinite(b[i].v[k]);
		}
		hi = fmax(hi, isfinite(b[i].total) ? fmax(sum, b[i].total) : sum);
	}
	nl = used_parts(p, used, names, colours);
	ul_frame_init(&f, 760, 28 + 40 + BAR_ROW * (double)nb + 8,
		      ul_frame_legend_rows(names, nl, BAR_LEFT, 760 - 130));
	f.x0 = BAR_LEFT;
	f.x1 = f.w - 130; /* room for the note after the longest bar */
	/* from 0 on the left edge, even when every bar is 0 */
	ul_frame_x(&f, 0, hi > 0 ? hi : 1, false);
	ul_scale_init(&f.ys, 0, 1, f.y1, f.y0, false);
	f.no_y_ticks = true; /* rows are labelled */
	ul_frame_begin(out, &f, "ul-stacks", t);
	ul_frame_axes(out, &f, t);
	y = f.y0 + 4 + BAR_ROW / 2;
	for (size_t i = 0; i < nb; i++, y += BAR_ROW) {
		if (i && strcmp(b[i].category, b[i - 1].category))
			ul_frame_category_rule(out, &f, y - BAR_ROW / 2);
		stack_one(out, &f, p, &b[i], y);
	}
	ul_frame_legend(out, &f, names, colours, nl);
	return ul_frame_end(out);
}

/* The wholes [lo, hi) of column j when n wholes share `cols` columns. */
static void column_span(size_t j, size_t n, size_t cols, size_t *lo, size_t *hi)
{
	*lo = j * n / cols;
	*hi = (j + 1) * n / cols;
}

/* Mean of part values v[lo..hi-1] (NaN and negatives as 0). */
static double column_mean(const double *v, size_t lo, size_t hi)
{
	double s = 0;

	for (size_t i = lo; i < hi; i++)
		s += part_value(v[i]);
	return hi > lo ? s / (double)(hi - lo) : 0;
}

/* One part's band over the columns: along its tops (base + the part's
 * mean) left to right, back along its bases; the tops become the bases
 * of the next part. */
static void stratum(FILE *out, const struct ul_frame *f, const char *colour, const double *v,
		    size_t n, size_t cols, double *base, double *top)
{
	size_t lo, hi;

	fprintf(out, "<path class=\"ul-area\" fill=\"%s\" stroke=\"none\" d=\"", colour);
	for (size_t j = 0; j < cols; j++) {
		column_span(j, n, cols, &lo, &hi);
		top[j] = base[j] + column_mean(v, lo, hi);
		if (!j)
			fprintf(out, "M%.1f %.1f", ul_scale_map(&f->xs, (double)lo + 0.5),
				ul_scale_map(&f->ys, top[j]));
		else
			fprintf(out, "V%.1f", ul_scale_map(&f->ys, top[j]));
		fprintf(out, "H%.1f", ul_scale_map(&f->xs, (double)hi + 0.5));
	}
	for (size_t j = cols; j-- > 0;) {
		column_span(j, n, cols, &lo, &hi);
		fprintf(out, "V%.1fH%.1f", ul_scale_map(&f->ys, base[j]),
			ul_scale_map(&f->xs, (double)lo + 0.5));
		base[j] = top[j];
	}
	fputs("Z\"/>\n", out);
}

int ul_chart_strata(FILE *out, const struct ul_chart_text *t, const struct ul_chart_parts *p,
		    const double *const *v, size_t n)
{
	const char *names[MAX_PARTS], *colours[MAX_PARTS];
	bool used[MAX_PARTS] = { false };
	struct ul_frame f;
	double hi = 0, *base, *top;
	size_t nl, cols, lo_i, hi_i;

	if (!n || p->n > MAX_PARTS)
		return -EINVAL;
	for (size_t k = 0; k < p->n; k++)
		used[k] = v[k] != NULL;
	nl = used_parts(p, used, names, colours);
	if (!nl)
		return -EINVAL;
	ul_frame_init(&f, 900, STRATA_H + 28 + 40, ul_frame_legend_rows(names, nl, 64, 900 - 16));
	cols = n < (size_t)(f.x1 - f.x0) ? n : (size_t)(f.x1 - f.x0);
	base = calloc(cols, sizeof(*base));
	top = calloc(cols, sizeof(*top));
	if (!base || !top) {
		free(base);
		free(top);
		return -ENOMEM;
	}
	for (size_t j = 0; j < cols; j++) { /* the highest stack sets the y axis */
		double sum = 0;

		column_span(j, n, cols, &lo_i, &hi_i);
		for (size_t k = 0; k < p->n; k++)
			sum += v[k] ? column_mean(v[k], lo_i, hi_i) : 0;
		hi = fmax(hi, sum);
	}
	ul_scale_init(&f.xs, 0.5, (double)n + 0.5, f.x0, f.x1, false);
	f.xstep = ul_plot_nice_step(1, (double)(n > 1 ? n : 2), 8);
	ul_frame_y(&f, 0, hi > 0 ? hi : 1, false);
	ul_frame_begin(out, &f, "ul-strata", t);
	ul_frame_axes(out, &f, t);
	for (size_t k = 0; k < p->n; k++)
		if (v[k])
			stratum(out, &f, p->colours[k], v[k], n, cols, base, top);
	free(base);
	free(top);
	ul_frame_legend(out, &f, names, colours, nl);
	return ul_frame_end(out);
}

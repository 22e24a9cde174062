/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * The bar and time-series charts of the report (svg.h): ratio bars with
 * their confidence intervals and verdicts, and lines over time with the
 * run's cells as named bands and missed deadlines as marks.
 */
#include "core/compat.h"
#include "report/svg/frame.h"

#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#define BAR_ROW 18.0
#define BAR_LEFT 210.0 /* room for "category  label" */
#define LINE_H 150.0
#define NAME_CAP 24	/* bytes of a point's name written under the axis */
#define NAME_PITCH 16.0 /* pixels between two slanted names: a line of text at 45 degrees */
#define SLANT 0.7071	/* sine and cosine of the names' 45 degrees */

static void bars_range(const struct ul_chart_bar *b, size_t nb, bool has_ref, double ref,
		       double *lo, double *hi)
{
	*lo = has_ref ? ref : 0;
	*hi = *lo;
	for (size_t i = 0; i < nb; i++) {
		double a = b[i].has_ci ? fmin(b[i].lo, b[i].value) : b[i].value;
		double z = b[i].has_ci ? fmax(b[i].hi, b[i].value) : b[i].value;

		if (isfinite(a) && a < *lo)
			*lo = a;
		if (isfinite(z) && z > *hi)
			*hi = z;
	}
}

static void bar_one(FILE *out, const struct ul_frame *f, const struct ul_chart_bar *b, double y,
		    double base)
{
	double x0 = ul_scale_map(&f->xs, base), x1 = ul_scale_map(&f->xs, b->value);
	double xe = x1 > x0 ? x1 : x0;

	fprintf(out, "<text x=\"%.1f\" y=\"%.1f\" text-anchor=\"end\">", f->x0 - 6, y + 4);
	ul_svg_escape(out, b->category, 32);
	fputs(" \xc2\xb7 ", out);
	ul_svg_escape(out, b->group, 28);
	fputs("</text>\n", out);
	if (!isfinite(b->value))
		return;
	fprintf(out,
		"<rect class=\"ul-bar\" x=\"%.1f\" y=\"%.1f\" width=\"%.1f\" height=\"%.1f\" "
		"fill=\"%s\" fill-opacity=\"0.7\"/>",
		fmin(x0, x1), y - 6, fabs(x1 - x0) > 0.5 ? fabs(x1 - x0) : 0.5, 12.0, b->colour);
	if (b->has_ci && isfinite(b->lo) && isfinite(b->hi)) {
		double l = ul_scale_map(&f->xs, b->lo), h = ul_scale_map(&f->xs, b->hi);

		fprintf(out,
			"<path class=\"ul-ci\" stroke=\"#222\" fill=\"none\" "
			"d=\"M%.1f %.1fH%.1fM%.1f %.1fV%.1fM%.1f %.1fV%.1f\"/>",
			l, y, h, l, y - 4, y + 4, h, y - 4, y + 4);
		xe = fmax(xe, h);
	}
	if (b->note) {
		fprintf(out, "<text x=\"%.1f\" y=\"%.1f\" fill=\"#222\">", xe + 5, y + 4);
		ul_svg_escape(out, b->note, 64);
		fputs("</text>", out);
	}
	fputc('\n', out);
}

int ul_chart_bars(FILE *out, const struct ul_chart_text *t, const struct ul_chart_bar *b, size_t nb,
		  bool has_ref, double ref)
{
	struct ul_frame f;
	double lo, hi, y, base = has_ref ? ref : 0;

	if (!nb)
		return -EINVAL;
	ul_frame_init(&f, 760, 28 + 40 + BAR_ROW * (double)nb + 8, 0);
	f.x0 = BAR_LEFT;
	f.x1 = f.w - 130; /* room for the verdict after the longest bar */
	bars_range(b, nb, has_ref, ref, &lo, &hi);
	ul_frame_x(&f, lo, hi, false);
	ul_scale_init(&f.ys, 0, 1, f.y1, f.y0, false);
	f.no_y_ticks = true; /* rows are labelled */
	ul_frame_begin(out, &f, "ul-bars", t);
	ul_frame_axes(out, &f, t);
	y = f.y0 + 4 + BAR_ROW / 2;
	for (size_t i = 0; i < nb; i++, y += BAR_ROW) {
		if (i && strcmp(b[i].category, b[i - 1].category))
			ul_frame_category_rule(out, &f, y - BAR_ROW / 2);
		bar_one(out, &f, &b[i], y, base);
	}
	if (has_ref)
		fprintf(out,
			"<line x1=\"%.1f\" x2=\"%.1f\" y1=\"%.1f\" y2=\"%.1f\" stroke=\"#000\" "
			"stroke-dasharray=\"4 3\"/>\n",
			ul_scale_map(&f.xs, ref), ul_scale_map(&f.xs, ref), f.y0, f.y1);
	return ul_frame_end(out);
}

static void lines_range(const struct ul_chart_series *s, double *xlo, double *xhi, double *ylo,
			double *yhi)
{
	*xlo = *ylo = INFINITY;
	*xhi = *yhi = -INFINITY;
	for (size_t i = 0; i < s->n_lines; i++)
		for (size_t j = 0; j < s->lines[i].n; j++) {
			double x = s->lines[i].x[j], y = s->lines[i].y[j];

			if (!isfinite(x) || !isfinite(y) || (s->log_y && y <= 0))
				continue;
			*xlo = fmin(*xlo, x);
			*xhi = fmax(*xhi, x);
			*ylo = fmin(*ylo, y);
			*yhi = fmax(*yhi, y);
		}
	for (size_t i = 0; i < s->n_bands; i++) {
		*xlo = fmin(*xlo, s->bands[i].x0);
		*xhi = fmax(*xhi, s->bands[i].x1);
	}
}

static void bands(FILE *out, const struct ul_frame *f, const struct ul_chart_series *s)
{
	for (size_t i = 0; i < s->n_bands; i++) {
		double a = ul_scale_map(&f->xs, s->bands[i].x0);
		double z = ul_scale_map(&f->xs, s->bands[i].x1);

		fprintf(out, "<g class=\"ul-cell\"><title>");
		ul_svg_escape(out, s->bands[i].name, SIZE_MAX);
		fprintf(out,
			"</title><rect x=\"%.1f\" y=\"%.1f\" width=\"%.1f\" height=\"%.1f\" "
			"fill=\"%s\"/><line x1=\"%.1f\" x2=\"%.1f\" y1=\"%.1f\" y2=\"%.1f\" "
			"stroke=\"#999\" stroke-dasharray=\"2 2\"/>",
			a, f->y0, z - a > 0 ? z - a : 0, f->y1 - f->y0,
			i % 2 ? "#f3f3f3" : "#fafafa", a, a, f->y0, f->y1);
		fprintf(out,
			"<text transform=\"translate(%.1f %.1f) rotate(90)\" fill=\"#666\" "
			"font-size=\"9\">",
			a + 3, f->y0 + 3);
		ul_svg_escape(out, s->bands[i].name, 24);
		fputs("</text></g>\n", out);
	}
}

static int line_one(FILE *out, const struct ul_frame *f, const struct ul_chart_line *l, bool log_y,
		    size_t *keep)
{
	size_t k = ul_plot_downsample(l->y, l->n, (size_t)(f->x1 - f->x0), keep);
	bool pen = false;

	fprintf(out,
		"<path class=\"ul-line\" fill=\"none\" stroke=\"%s\" stroke-width=\"1.3\"%s "
		"d=\"",
		l->colour, l->dashed ? " stroke-dasharray=\"5 3\"" : "");
	for (size_t j = 0; j < k; j++) {
		double x = l->x[keep[j]], y = l->y[keep[j]];

		if (!isfinite(x) || !isfinite(y) || (log_y && y <= 0)) {
			pen = false;
			continue;
		}
		fprintf(out, "%c%.1f %.1f", pen ? 'L' : 'M', ul_scale_map(&f->xs, x),
			ul_scale_map(&f->ys, y));
		pen = true;
	}
	fputs("\"/>\n", out);
	return 0;
}

/* Room under the x axis the slanted point names take: the longest's height. */
static double names_drop(const struct ul_chart_series *s)
{
	size_t longest = 0;

	for (size_t i = 0; i < s->n_x_names; i++) {
		size_t n = strnlen(s->x_names[i], NAME_CAP + 1);

		longest = n > longest ? n : longest;
	}
	return UL_SVG_CHAR_W * (double)longest * SLANT;
}

/* The x axis of named points: a tick per point and, slanted, the name of
 * every step-th, step the fewest points that keep two names NAME_PITCH
 * apart; a name longer than NAME_CAP is cut with an ellipsis, whole in
 * its tooltip. */
static void x_names(FILE *out, const struct ul_frame *f, const struct ul_chart_series *s)
{
	double pitch = ul_scale_map(&f->xs, 1) - ul_scale_map(&f->xs, 0);
	size_t step = pitch >= NAME_PITCH ? 1 : (size_t)ceil(NAME_PITCH / pitch);

	fputs("<g class=\"ul-xnames\" fill=\"#333\">\n", out);
	for (size_t i = 0; i < s->n_x_names; i++) {
		double x = ul_scale_map(&f->xs, (double)i);

		fprintf(out,
			"<line class=\"ul-xtick\" x1=\"%.1f\" x2=\"%.1f\" y1=\"%.1f\" y2=\"%.1f\" "
			"stroke=\"#888\"/>\n",
			x, x, f->y1, f->y1 + 4);
		if (i % step)
			continue;
		fprintf(out,
			"<text transform=\"translate(%.1f %.1f) rotate(-45)\" "
			"text-anchor=\"end\"><title>",
			x + 3, f->y1 + 10);
		ul_svg_escape(out, s->x_names[i], SIZE_MAX);
		fputs("</title>", out);
		ul_svg_escape(out, s->x_names[i], NAME_CAP);
		if (strnlen(s->x_names[i], NAME_CAP + 1) > NAME_CAP)
			fputs("\xe2\x80\xa6", out); /* ... */
		fputs("</text>\n", out);
	}
	fputs("</g>\n", out);
}

int ul_chart_lines(FILE *out, const struct ul_chart_text *t, const struct ul_chart_series *s)
{
	const char *names[16], *colours[16];
	struct ul_frame f;
	double xlo, xhi, ylo, yhi, h = s->height > 0 ? s->height : LINE_H;
	double drop = names_drop(s);
	size_t nmax = 0, *keep;

	lines_range(s, &xlo, &xhi, &ylo, &yhi);
	if (!(xhi >= xlo))
		return -EINVAL;
	if (!(yhi >= ylo))
		ylo = yhi = 0;
	for (size_t i = 0; i < s->n_lines; i++)
		nmax = s->lines[i].n > nmax ? s->lines[i].n : nmax;
	ul_frame_init(&f, 900, h + 28 + 40 + drop, s->n_lines > 1 ? 1 : 0);
	f.y1 -= drop; /* the plot area keeps its height, the names go under it */
	f.x_drop = drop;
	f.no_x_ticks = s->n_x_names > 0;
	if (s->log_x && ul_plot_spans_decades(xlo, xhi)) {
		ul_frame_x(&f, xlo, xhi, true);
	} else {
		ul_scale_init(&f.xs, xlo, xhi, f.x0, f.x1, false);
		f.xstep = ul_plot_nice_step(xlo, xhi, 8);
	}
	ul_frame_y(&f, s->log_y ? ylo : fmin(0, ylo), yhi > 0 || s->log_y ? yhi : 1, s->log_y);
	keep = malloc((nmax ? nmax : 1) * sizeof(*keep));
	if (!keep)
		return -ENOMEM;
	ul_frame_begin(out, &f, "ul-lines", t);
	bands(out, &f, s);
	ul_frame_axes(out, &f, t);
	if (s->n_x_names)
		x_names(out, &f, s);
	for (size_t i = 0; i < s->n_lines; i++)
		line_one(out, &f, &s->lines[i], s->log_y, keep);
	free(keep);
	if (s->n_marks) {
		fputs("<path class=\"ul-miss\" stroke=\"#d00\" stroke-width=\"1.5\" d=\"", out);
		for (size_t i = 0; i < s->n_marks; i++)
			fprintf(out, "M%.1f %.1fv-8", ul_scale_map(&f.xs, s->marks[i]), f.y1);
		fputs("\"/>\n", out);
	}
	if (s->n_lines > 1) {
		size_t n = s->n_lines < 16 ? s->n_lines : 16;

		for (size_t i = 0; i < n; i++) {
			names[i] = s->lines[i].name;
			colours[i] = s->lines[i].colour;
		}
		ul_frame_legend(out, &f, names, colours, n);
	}
	return ul_frame_end(out);
}

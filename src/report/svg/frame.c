/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * The frame shared by the report's SVG charts (svg/frame.h) and the string
 * escaping every chart and the HTML page use.
 */
#include "core/compat.h"
#include "report/svg/frame.h"

#include <errno.h>
#include <math.h>
#include <string.h>

#define ML 64.0 /* left margin: y tick labels and the y axis label */
#define MR 16.0
#define MT 28.0 /* title line */
#define MB 40.0 /* x tick labels and the x axis label */
#define LEGEND_ROW 16.0
#define CHAR_W UL_SVG_CHAR_W

/* Length of a valid UTF-8 sequence starting at s (at most `left` bytes), 0 if invalid. */
static size_t utf8_len(const unsigned char *s, size_t left)
{
	size_t len = *s >= 0xf0 && *s <= 0xf4  ? 4
		     : *s >= 0xe0	       ? 3
		     : *s >= 0xc2 && *s < 0xe0 ? 2
					       : 0;

	if (!len || len > left)
		return 0;
	for (size_t i = 1; i < len; i++)
		if ((s[i] & 0xc0) != 0x80)
			return 0;
	/* Overlong 3/4-byte forms, surrogates and code points above U+10FFFF. */
	if ((s[0] == 0xe0 && s[1] < 0xa0) || (s[0] == 0xed && s[1] >= 0xa0) ||
	    (s[0] == 0xf0 && s[1] < 0x90) || (s[0] == 0xf4 && s[1] >= 0x90))
		return 0;
	return len;
}

void ul_svg_escape(FILE *out, const char *s, size_t cap)
{
	size_t n = strnlen(s, cap);

	for (size_t i = 0; i < n;) {
		unsigned char c = (unsigned char)s[i];
		size_t len;

		switch (c) {
		case '&':
			fputs("&amp;", out);
			i++;
			continue;
		case '<':
			fputs("&lt;", out);
			i++;
			continue;
		case '>':
			fputs("&gt;", out);
			i++;
			continue;
		case '"':
			fputs("&quot;", out);
			i++;
			continue;
		case '\'':
			fputs("&#39;", out);
			i++;
			continue;
		default:
			break;
		}
		if (c < 0x20 || c == 0x7f) {
			fputc(' ', out);
			i++;
		} else if (c < 0x80) {
			fputc(c, out);
			i++;
		} else if ((len = utf8_len((const unsigned char *)s + i, n - i))) {
			fwrite(s + i, 1, len, out);
			i += len;
		} else {
			fputs("\xef\xbf\xbd", out); /* U+FFFD */
			i++;
		}
	}
}

void ul_frame_init(struct ul_frame *f, double w, double h, size_t legend_rows)
{
	memset(f, 0, sizeof(*f));
	f->w = w;
	f->h = h + (double)legend_rows * LEGEND_ROW;
	f->x0 = ML;
	f->x1 = w - MR;
	f->y0 = MT;
	f->y1 = h - MB;
	ul_scale_init(&f->xs, 0, 1, f->x0, f->x1, false);
	ul_scale_init(&f->ys, 0, 1, f->y1, f->y0, false);
}

void ul_frame_x(struct ul_frame *f, double lo, double hi, bool log)
{
	if (log && ul_plot_spans_decades(lo, hi)) {
		f->xstep = 0;
		ul_plot_log_range(&lo, &hi);
		ul_scale_init(&f->xs, lo, hi, f->x0, f->x1, true);
		return;
	}
	ul_plot_nice_range(&lo, &hi, 6);
	f->xstep = ul_plot_nice_step(lo, hi, 6);
	ul_scale_init(&f->xs, lo, hi, f->x0, f->x1, false);
}

void ul_frame_y(struct ul_frame *f, double lo, double hi, bool log)
{
	if (log && lo > 0 && hi > lo) {
		f->ystep = 0;
		ul_plot_log_range(&lo, &hi);
		ul_scale_init(&f->ys, lo, hi, f->y1, f->y0, true);
		return;
	}
	ul_plot_nice_range(&lo, &hi, 5);
	f->ystep = ul_plot_nice_step(lo, hi, 5);
	ul_scale_init(&f->ys, lo, hi, f->y1, f->y0, false);
}

void ul_frame_begin(FILE *out, const struct ul_frame *f, const char *cls,
		    const struct ul_chart_text *t)
{
	fprintf(out,
		"<svg xmlns=\"http://www.w3.org/2000/svg\" class=\"ul-chart %s\" "
		"viewBox=\"0 0 %.0f %.0f\" width=\"%.0f\" height=\"%.0f\" "
		"font-family=\"sans-serif\" font-size=\"11\" role=\"img\"><title>",
		cls, f->w, f->h, f->w, f->h);
	ul_svg_escape(out, t->title, SIZE_MAX);
	fputs("</title>\n<rect width=\"100%\" height=\"100%\" fill=\"#fff\"/>\n", out);
	fprintf(out, "<text x=\"%.1f\" y=\"16\" font-size=\"13\" font-weight=\"bold\">", f->x0);
	ul_svg_escape(out, t->title, SIZE_MAX);
	fputs("</text>\n", out);
}

/* Tick values of one axis (linear or log) into v; returns the count. */
static size_t axis_ticks(const struct ul_scale *s, double step, double *v, size_t cap)
{
	if (s->log)
		return ul_plot_log_ticks(pow(10, s->d0), pow(10, s->d1), v, cap);
	return ul_plot_ticks_at(s->d0, s->d1, step, v, cap);
}

void ul_frame_category_rule(FILE *out, const struct ul_frame *f, double y)
{
	fprintf(out, "<line x1=\"%.1f\" x2=\"%.1f\" y1=\"%.1f\" y2=\"%.1f\" stroke=\"#bbb\"/>\n",
		8.0, f->x1, y, y);
}

void ul_frame_axes(FILE *out, const struct ul_frame *f, const struct ul_chart_text *t)
{
	double v[64];
	char lab[48];
	size_t n;

	fputs("<g class=\"ul-axes\" stroke=\"#ddd\" stroke-width=\"1\">\n", out);
	n = f->no_x_ticks ? 0 : axis_ticks(&f->xs, f->xstep, v, UL_ARRAY_SIZE(v));
	for (size_t i = 0; i < n; i++) {
		double x = ul_scale_map(&f->xs, v[i]);

		fprintf(out, "<line x1=\"%.1f\" x2=\"%.1f\" y1=\"%.1f\" y2=\"%.1f\"/>", x, x, f->y0,
			f->y1);
		fprintf(out,
			"<text x=\"%.1f\" y=\"%.1f\" text-anchor=\"middle\" stroke=\"none\" "
			"fill=\"#333\">%s</text>\n",
			x, f->y1 + 14, ul_plot_tick_label(v[i], f->xstep, lab, sizeof(lab)));
	}
	n = f->no_y_ticks ? 0 : axis_ticks(&f->ys, f->ystep, v, UL_ARRAY_SIZE(v));
	for (size_t i = 0; i < n; i++) {
		double y = ul_scale_map(&f->ys, v[i]);

		fprintf(out, "<line x1=\"%.1f\" x2=\"%.1f\" y1=\"%.1f\" y2=\"%.1f\"/>", f->x0,
			f->x1, y, y);
		fprintf(out,
			"<text x=\"%.1f\" y=\"%.1f\" text-anchor=\"end\" stroke=\"none\" "
			"fill=\"#333\">%s</text>\n",
			f->x0 - 4, y + 4, ul_plot_tick_label(v[i], f->ystep, lab, sizeof(lab)));
	}
	fprintf(out,
		"<rect x=\"%.1f\" y=\"%.1f\" width=\"%.1f\" height=\"%.1f\" fill=\"none\" "
		"stroke=\"#888\"/>\n</g>\n",
		f->x0, f->y0, f->x1 - f->x0, f->y1 - f->y0);
	fprintf(out, "<text x=\"%.1f\" y=\"%.1f\" text-anchor=\"middle\" fill=\"#333\">",
		(f->x0 + f->x1) / 2, f->y1 + 30 + f->x_drop);
	ul_svg_escape(out, t->x_label ? t->x_label : "", SIZE_MAX);
	fprintf(out,
		"</text>\n<text transform=\"translate(14 %.1f) rotate(-90)\" "
		"text-anchor=\"middle\" fill=\"#333\">",
		(f->y0 + f->y1) / 2);
	ul_svg_escape(out, t->y_label ? t->y_label : "", SIZE_MAX);
	fputs("</text>\n", out);
}

/* Width of a legend entry: its square, its name and the gap after it. */
static double legend_entry_w(const char *name)
{
	return 16 + CHAR_W * (double)strlen(name) + 12;
}

size_t ul_frame_legend_rows(const char *const *names, size_t n, double x0, double x1)
{
	double x = x0;
	size_t rows = 1;

	for (size_t i = 0; i < n; i++) {
		double wd = legend_entry_w(names[i]);

		if (x > x0 && x + wd > x1) {
			x = x0;
			rows++;
		}
		x += wd;
	}
	return rows;
}

void ul_frame_legend(FILE *out, const struct ul_frame *f, const char *const *names,
		     const char *const *colours, size_t n)
{
	double x = f->x0, y = f->y1 + 40 + 4 + f->x_drop;

	fputs("<g class=\"ul-legend\">\n", out);
	for (size_t i = 0; i < n; i++) {
		double wd = legend_entry_w(names[i]);

		if (x > f->x0 && x + wd > f->x1) {
			x = f->x0;
			y += LEGEND_ROW;
		}
		fprintf(out,
			"<rect x=\"%.1f\" y=\"%.1f\" width=\"10\" height=\"10\" fill=\"%s\"/>"
			"<text x=\"%.1f\" y=\"%.1f\">",
			x, y, colours[i], x + 14, y + 9);
		ul_svg_escape(out, names[i], SIZE_MAX);
		fputs("</text>\n", out);
		x += wd;
	}
	fputs("</g>\n", out);
}

int ul_frame_end(FILE *out)
{
	fputs("</svg>\n", out);
	return ferror(out) ? -EIO : 0;
}

bool ul_groups_range(const struct ul_chart_group *g, size_t ng, double *lo, double *hi)
{
	bool any = false;

	*lo = INFINITY;
	*hi = -INFINITY;
	for (size_t i = 0; i < ng; i++)
		for (size_t j = 0; j < g[i].n; j++) {
			if (!isfinite(g[i].v[j]))
				continue;
			any = true;
			if (g[i].v[j] < *lo)
				*lo = g[i].v[j];
			if (g[i].v[j] > *hi)
				*hi = g[i].v[j];
		}
	return any;
}

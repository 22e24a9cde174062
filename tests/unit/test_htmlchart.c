/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Unit tests for the report's stacked charts (report/svg/svg.h): the SVG
 * they write read back, its geometry checked (a segment's width, a band's
 * height proportional to its value on one scale for all bars; a bar as
 * long as its parts' sum; each band stacked on the one below), parts not
 * counted left out, an axis from 0 even for a whole of nothing, long
 * sequences averaged into one column per pixel, and labels escaped.
 * The line chart of named points (a history's kernels): every point
 * named under the axis, slanted, thinned so that no two names overlap.
 */
#include "unit.h"
#include "report/svg/svg.h"

#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static const char *const names[3] = { "on-CPU", "run queue", "<i>/O" };
static const char *const colours[3] = { "#0072b2", "#d55e00", "#009e73" };
static const struct ul_chart_parts parts = { names, colours, 3 };
static const struct ul_chart_text text = { .title = "t", .x_label = "ms", .y_label = "ms" };

static size_t count(const char *hay, const char *needle)
{
	size_t n = 0;

	for (const char *p = hay; (p = strstr(p, needle)); p++)
		n++;
	return n;
}

/* Opens a stream into *buf for a chart. */
static FILE *mem_open(char **buf, size_t *len)
{
	FILE *f = open_memstream(buf, len);

	ck_assert_ptr_nonnull(f);
	return f;
}

/* The stacked bars as a string; *rc the chart's result. */
static char *stacks_svg(const struct ul_chart_stack *b, size_t nb, int *rc)
{
	char *buf = NULL;
	size_t len = 0;
	FILE *f = mem_open(&buf, &len);

	*rc = ul_chart_stacks(f, &text, &parts, b, nb);
	ck_assert_int_eq(fclose(f), 0);
	return buf;
}

/* The stacked columns as a string; *rc the chart's result. */
static char *strata_svg(const double *const *v, size_t n, int *rc)
{
	char *buf = NULL;
	size_t len = 0;
	FILE *f = mem_open(&buf, &len);

	*rc = ul_chart_strata(f, &text, &parts, v, n);
	ck_assert_int_eq(fclose(f), 0);
	return buf;
}

struct seg {
	double x, y, w;
	char fill[8];
};

/* The ul-seg rects of svg, in order; their count (at most cap). */
static size_t segments(const char *svg, struct seg *s, size_t cap)
{
	size_t n = 0;

	for (const char *p = svg; n < cap && (p = strstr(p, "<rect class=\"ul-seg\"")); p++) {
		ck_assert_int_eq(sscanf(p,
					"<rect class=\"ul-seg\" x=\"%lf\" y=\"%lf\" width=\"%lf\" "
					"height=\"12\" fill=\"%7[^\"]\"",
					&s[n].x, &s[n].y, &s[n].w, s[n].fill),
				 4);
		n++;
	}
	return n;
}

START_TEST(stacks_geometry)
{
	const double a[3] = { 1, 2, 3 }, b[3] = { 2, NAN, 0.5 };
	const struct ul_chart_stack bars[2] = {
		{ .category = "cpuload", .group = "A", .v = a, .total = 5.5, .note = "5.5 ms" },
		{ .category = "<b>", .group = "B", .v = b, .total = NAN },
	};
	struct seg s[8];
	size_t n;
	double k, left;
	int rc;
	char *svg = stacks_svg(bars, 2, &rc);

	ck_assert_int_eq(rc, 0);
	ck_assert_ptr_nonnull(strstr(svg, "class=\"ul-chart ul-stacks\""));
	/* bar A: 3 segments; bar B: its counted, non-zero parts only */
	n = segments(svg, s, 8);
	ck_assert_uint_eq(n, 3 + 2);
	ck_assert_str_eq(s[0].fill, colours[0]);
	ck_assert_str_eq(s[4].fill, colours[2]); /* B's 0.5 is the I/O part: its colour */
	/* One scale for every bar: width / value is the same for all segments. */
	k = s[0].w / a[0];
	ck_assert_double_gt(k, 1);
	for (size_t i = 0; i < 3; i++)
		ck_assert_double_eq_tol(s[i].w, k * a[i], 0.11);
	ck_assert_double_eq_tol(s[3].w, k * b[0], 0.11);
	ck_assert_double_eq_tol(s[4].w, k * b[2], 0.11);
	/* Laid end to end from the same origin: a bar is as long as its sum. */
	left = s[0].x;
	ck_assert_double_eq(s[3].x, left);
	for (size_t i = 1; i < 3; i++)
		ck_assert_double_eq_tol(s[i].x, s[i - 1].x + s[i - 1].w, 1e-9);
	ck_assert_double_eq_tol(s[4].x, s[3].x + s[3].w, 1e-9);
	ck_assert_double_eq_tol(s[2].x + s[2].w - left, s[0].w + s[1].w + s[2].w, 1e-9);
	ck_assert_double_eq_tol(s[2].x + s[2].w - left, k * (a[0] + a[1] + a[2]), 0.11);
	ck_assert_double_eq_tol(s[4].x + s[4].w - left, k * (b[0] + b[2]), 0.11);
	/* rows: A's segments on one line, B's on the next */
	ck_assert_double_eq(s[0].y, s[2].y);
	ck_assert_double_gt(s[3].y, s[0].y);
	/* A's total marked at 5.5 on the same scale, with its note; B has none */
	ck_assert_uint_eq(count(svg, "class=\"ul-total\""), 1);
	{
		double x;
		const char *p = strstr(svg, "<line class=\"ul-total\" x1=\"");

		ck_assert_ptr_nonnull(p);
		ck_assert_int_eq(sscanf(p, "<line class=\"ul-total\" x1=\"%lf\"", &x), 1);
		ck_assert_double_eq_tol(x - left, k * 5.5, 0.11);
	}
	ck_assert_ptr_nonnull(strstr(svg, ">5.5 ms</text>"));
	/* every part is in the legend (B's NaN is counted in A), names escaped */
	ck_assert_ptr_nonnull(strstr(svg, "<g class=\"ul-legend\">"));
	ck_assert_ptr_nonnull(strstr(svg, ">run queue</text>"));
	ck_assert_ptr_nonnull(strstr(svg, ">&lt;i&gt;/O</text>"));
	ck_assert_ptr_null(strstr(svg, "<b>"));
	ck_assert_ptr_null(strstr(svg, "<i>"));
	free(svg);
}
END_TEST

START_TEST(stacks_refusals_and_uncounted)
{
	const double a[3] = { 1, NAN, 2 };
	const struct ul_chart_stack bar = { .category = "x", .group = "A", .v = a, .total = NAN };
	int rc;
	char *svg = stacks_svg(&bar, 0, &rc);

	ck_assert_int_eq(rc, -EINVAL);
	free(svg);
	svg = stacks_svg(&bar, 1, &rc);
	ck_assert_int_eq(rc, 0);
	/* a part counted in no bar: no segment and not in the legend */
	ck_assert_uint_eq(count(svg, "class=\"ul-seg\""), 2);
	ck_assert_ptr_null(strstr(svg, ">run queue</text>"));
	ck_assert_ptr_nonnull(strstr(svg, ">on-CPU</text>"));
	free(svg);
}
END_TEST

/* A whole of nothing (every part and the total 0): the axis still starts
 * at 0 on the plot's left edge, where the total's tick is, no negative. */
START_TEST(stacks_all_zero)
{
	const double a[3] = { 0, 0, 0 };
	const struct ul_chart_stack bar = { .category = "x", .group = "A", .v = a, .total = 0 };
	double left, tick;
	int rc;
	char *svg = stacks_svg(&bar, 1, &rc);
	const char *frame = strstr(svg, "<rect x=\"");
	const char *total = strstr(svg, "<line class=\"ul-total\" x1=\"");

	ck_assert_int_eq(rc, 0);
	ck_assert_uint_eq(count(svg, "class=\"ul-seg\""), 0);
	ck_assert_ptr_nonnull(frame); /* the axes' frame: the plot's edges */
	ck_assert_ptr_nonnull(total);
	ck_assert_int_eq(sscanf(frame, "<rect x=\"%lf\"", &left), 1);
	ck_assert_int_eq(sscanf(total, "<line class=\"ul-total\" x1=\"%lf\"", &tick), 1);
	ck_assert_double_eq_tol(tick, left, 1e-9);
	ck_assert_ptr_null(strstr(svg, ">-"));
	free(svg);
}
END_TEST

/* The vertices of the n-th ul-area path: x[i], y[i]; their count. */
static size_t area(const char *svg, size_t nth, double *x, double *y, size_t cap)
{
	const char *p = svg;
	double cx = 0, cy = 0;
	size_t n = 0;

	for (size_t i = 0; i <= nth; i++, p++) {
		p = strstr(p, "<path class=\"ul-area\"");
		ck_assert_ptr_nonnull(p);
	}
	p = strstr(p, " d=\"") + 4;
	while (*p != 'Z') {
		char cmd = *p++;
		int used = 0;

		if (cmd == 'M')
			ck_assert_int_eq(sscanf(p, "%lf %lf%n", &cx, &cy, &used), 2);
		else if (cmd == 'H')
			ck_assert_int_eq(sscanf(p, "%lf%n", &cx, &used), 1);
		else if (cmd == 'V')
			ck_assert_int_eq(sscanf(p, "%lf%n", &cy, &used), 1);
		else
			ck_abort_msg("unexpected path command '%c'", cmd);
		p += used;
		ck_assert_uint_lt(n, cap);
		x[n] = cx;
		y[n++] = cy;
	}
	return n;
}

START_TEST(strata_geometry)
{
	const double a[4] = { 1, 2, 0, 1 }, b[4] = { 1, NAN, 3, -1 };
	const double *v[3] = { a, b, NULL };
	double ax[32], ay[32], bx[32], by[32], k;
	size_t na, nb;
	int rc;
	char *svg = strata_svg(v, 4, &rc);

	ck_assert_int_eq(rc, 0);
	ck_assert_ptr_nonnull(strstr(svg, "class=\"ul-chart ul-strata\""));
	/* one band per counted part; the uncounted third is not in the legend */
	ck_assert_uint_eq(count(svg, "class=\"ul-area\""), 2);
	ck_assert_ptr_null(strstr(svg, "/O</text>"));
	/* A band: M, then H and V H per column along the tops (4 columns:
	 * 1 + 1 + 2 * 3 vertices), V H back per column along the bases (8). */
	na = area(svg, 0, ax, ay, 32);
	nb = area(svg, 1, bx, by, 32);
	ck_assert_uint_eq(na, 16);
	ck_assert_uint_eq(nb, 16);
	/* Columns of equal width, sample i from the left, the same for both bands. */
	for (size_t j = 0; j < 4; j++) {
		ck_assert_double_eq_tol(ax[1 + 2 * j] - ax[2 * j], ax[1] - ax[0], 0.11);
		ck_assert_double_eq(bx[2 * j], ax[2 * j]);
	}
	/* Heights: the first band from the bottom (the same y for all
	 * columns), the second from the first's tops; proportional to the
	 * values on one scale, NaN and negatives as 0. */
	k = (ay[8] - ay[0]) / a[0]; /* bottom minus top of column 0 */
	ck_assert_double_gt(k, 1);
	for (size_t j = 0; j < 4; j++) {
		double a_top = ay[2 * j], a_base = ay[15 - 2 * j];
		double b_top = by[2 * j], b_base = by[15 - 2 * j];
		double bv = isfinite(b[j]) && b[j] > 0 ? b[j] : 0;

		ck_assert_double_eq(a_base, ay[8]);
		ck_assert_double_eq_tol(a_base - a_top, k * a[j], 0.11);
		ck_assert_double_eq(b_base, a_top);
		ck_assert_double_eq_tol(b_base - b_top, k * bv, 0.11);
	}
	free(svg);
}
END_TEST

/* Heights (base minus top) of the columns of band `nth`; the column count. */
static size_t band_heights(const char *svg, size_t nth, double *x, double *y, size_t cap, double *h)
{
	size_t n = area(svg, nth, x, y, cap);

	ck_assert_uint_eq(n % 4, 0);
	for (size_t j = 0; j < n / 4; j++)
		h[j] = y[n - 1 - 2 * j] - y[2 * j];
	return n / 4;
}

START_TEST(strata_long_and_refusals)
{
	const size_t N = 5000;
	double *a = malloc(N * sizeof(*a)), *b = malloc(N * sizeof(*b));
	const double *v[3] = { a, b, NULL }, *none[3] = { NULL, NULL, NULL };
	double *x = malloc(4 * N * sizeof(*x)), *y = malloc(4 * N * sizeof(*y));
	double *ha = malloc(N * sizeof(*ha)), *hb = malloc(N * sizeof(*hb));
	size_t cols;
	int rc;
	char *svg;

	ck_assert(a && b && x && y && ha && hb);
	/* a alternates 0 and 2, b is 1: a column of m samples has a's mean 1
	 * (m even) or (m +- 1) / m (m odd), never a lone sample's 0 or 2. */
	for (size_t i = 0; i < N; i++) {
		a[i] = i % 2 ? 2 : 0;
		b[i] = 1;
	}
	svg = strata_svg(v, N, &rc);
	ck_assert_int_eq(rc, 0);
	cols = band_heights(svg, 0, x, y, 4 * N, ha);
	ck_assert_uint_eq(band_heights(svg, 1, x, y, 4 * N, hb), cols);
	/* about one column per pixel: 5000 samples over a plot of some 800 */
	ck_assert_uint_lt(cols, N / 5);
	ck_assert_double_eq_tol((x[2 * cols - 1] - x[0]) / (double)cols, 1.0, 0.05);
	ck_assert_double_gt(hb[0], 1);
	for (size_t j = 0; j < cols; j++) {
		size_t m = (j + 1) * N / cols - j * N / cols;

		ck_assert_uint_ge(m, 5);
		ck_assert_double_eq_tol(hb[j], hb[0], 0.11);
		ck_assert_double_ge(ha[j] / hb[0], 1.0 - 1.0 / (double)m - 0.01);
		ck_assert_double_le(ha[j] / hb[0], 1.0 + 1.0 / (double)m + 0.01);
	}
	free(svg);
	svg = strata_svg(v, 0, &rc);
	ck_assert_int_eq(rc, -EINVAL);
	free(svg);
	svg = strata_svg(none, 4, &rc);
	ck_assert_int_eq(rc, -EINVAL);
	free(svg);
	free(a);
	free(b);
	free(x);
	free(y);
	free(ha);
	free(hb);
}
END_TEST

/* A line chart over n named points (x = 0 .. n-1, names[i]) as a string. */
static char *named_lines_svg(const char *const *pnames, size_t n)
{
	double *x = calloc(n, sizeof(double)), *y = calloc(n, sizeof(double));
	struct ul_chart_line line = { "median", "#0072b2", x, y, n, false };
	struct ul_chart_series s = {
		.lines = &line, .n_lines = 1, .x_names = pnames, .n_x_names = n
	};
	char *buf = NULL;
	size_t len = 0;
	FILE *f = mem_open(&buf, &len);

	ck_assert_ptr_nonnull(x);
	ck_assert_ptr_nonnull(y);
	for (size_t i = 0; i < n; i++) {
		x[i] = (double)i;
		y[i] = 100 + (double)(i % 7);
	}
	ck_assert_int_eq(ul_chart_lines(f, &text, &s), 0);
	ck_assert_int_eq(fclose(f), 0);
	free(x);
	free(y);
	return buf;
}

/* The slanted names' anchors, in order: their count (at most cap). */
static size_t name_anchors(const char *svg, double *x, double *y, size_t cap)
{
	size_t n = 0;

	for (const char *p = svg; n < cap && (p = strstr(p, "<text transform=\"translate(")); p++)
		if (strstr(p, ") rotate(-45)") == strchr(p, ')')) {
			ck_assert_int_eq(
				sscanf(p, "<text transform=\"translate(%lf %lf)", &x[n], &y[n]), 2);
			n++;
		}
	return n;
}

START_TEST(lines_named_points)
{
	static char buf[200][32];
	const char *pnames[200];
	double x[200], y[200], label_y;
	const char *p;
	char *svg;
	size_t n;

	for (size_t i = 0; i < 200; i++) {
		snprintf(buf[i], sizeof(buf[i]), "6.1.0-%zu", i + 1);
		pnames[i] = buf[i];
	}
	/* Eight kernels: each named, left to right, under the plot area. */
	svg = named_lines_svg(pnames, 8);
	ck_assert_uint_eq(name_anchors(svg, x, y, 200), 8);
	for (size_t i = 0; i < 8; i++) {
		char want[64];

		snprintf(want, sizeof(want), "<title>6.1.0-%zu</title>6.1.0-%zu</text>", i + 1,
			 i + 1);
		ck_assert_ptr_nonnull(strstr(svg, want));
		ck_assert(i == 0 || x[i] > x[i - 1] + 16);
	}
	ck_assert_uint_eq(count(svg, "class=\"ul-xtick\""), 8); /* a tick per point */
	/* The axis label under the slanted names (7 characters at 45 degrees). */
	p = strstr(svg, ">ms</text>");
	ck_assert_ptr_nonnull(p);
	while (p > svg && strncmp(p, "<text x=", 8))
		p--;
	ck_assert_int_eq(sscanf(p, "<text x=\"%*f\" y=\"%lf\"", &label_y), 1);
	ck_assert(label_y > y[0] + 7 * 6.2 * 0.7071 + 8);
	free(svg);

	/* 200 points on 900 pixels: every point ticked, every k-th named, no
	 * two names closer than a slanted line of text (16 pixels). */
	svg = named_lines_svg(pnames, 200);
	n = name_anchors(svg, x, y, 200);
	ck_assert_uint_eq(count(svg, "class=\"ul-xtick\""), 200);
	ck_assert_uint_lt(n, 200);
	ck_assert_uint_ge(n, 200 / 5);
	for (size_t i = 1; i < n; i++)
		ck_assert(x[i] - x[i - 1] >= 16);
	ck_assert_ptr_nonnull(strstr(svg, "<title>6.1.0-1</title>"));
	free(svg);

	/* A long name is cut, whole in its tooltip; names are escaped. */
	pnames[0] = "6.19.0-rc3-next-20261204-<b>-debug";
	svg = named_lines_svg(pnames, 2);
	ck_assert_ptr_nonnull(strstr(svg, "<title>6.19.0-rc3-next-20261204-&lt;b&gt;-debug</title>"
					  "6.19.0-rc3-next-20261204\xe2\x80\xa6</text>"));
	free(svg);
}
END_TEST

Suite *ul_test_suite_htmlchart(void)
{
	Suite *s = suite_create("htmlchart");
	TCase *tc = tcase_create("htmlchart");

	tcase_add_test(tc, stacks_geometry);
	tcase_add_test(tc, stacks_refusals_and_uncounted);
	tcase_add_test(tc, stacks_all_zero);
	tcase_add_test(tc, strata_geometry);
	tcase_add_test(tc, strata_long_and_refusals);
	tcase_add_test(tc, lines_named_points);
	suite_add_tcase(s, tc);
	return s;
}

/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Unit tests for the report's plot maths (report/plot.h) and the escaping
 * of stored strings (report/svg/svg.h): values worked out by hand.
 */
#include "unit.h"
#include "report/plot.h"
#include "report/svg/svg.h"

#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define EPS 1e-9

START_TEST(scale_linear_and_log)
{
	struct ul_scale s;

	ul_scale_init(&s, 0, 10, 100, 200, false);
	ck_assert_double_eq_tol(ul_scale_map(&s, 0), 100, EPS);
	ck_assert_double_eq_tol(ul_scale_map(&s, 2.5), 125, EPS);
	ck_assert_double_eq_tol(ul_scale_map(&s, 20), 300, EPS); /* no clamping */
	ul_scale_init(&s, 0, 10, 200, 100, false);		 /* y axes run backwards */
	ck_assert_double_eq_tol(ul_scale_map(&s, 10), 100, EPS);
	ul_scale_init(&s, 1, 1000, 0, 300, true);
	ck_assert(s.log);
	ck_assert_double_eq_tol(ul_scale_map(&s, 10), 100, EPS);
	ck_assert_double_eq_tol(ul_scale_map(&s, 100), 200, EPS);
	ck_assert_double_eq_tol(ul_scale_map(&s, -5), 0, EPS); /* <= 0 maps to p0 */
	ul_scale_init(&s, 0, 1000, 0, 300, true);	       /* lo <= 0: linear instead */
	ck_assert(!s.log);
	ul_scale_init(&s, 5, 5, 0, 100, false); /* degenerate: widened, 5 in the middle */
	ck_assert_double_eq_tol(ul_scale_map(&s, 5), 50, EPS);
	ul_scale_init(&s, NAN, 1, 0, 100, false);
	ck_assert(isfinite(ul_scale_map(&s, 0.5)));
}
END_TEST

START_TEST(decades)
{
	ck_assert(ul_plot_spans_decades(1, 100));
	ck_assert(!ul_plot_spans_decades(1, 99));
	ck_assert(!ul_plot_spans_decades(0, 1e6));
	ck_assert(ul_plot_spans_decades(0.05, 34));
}
END_TEST

START_TEST(nice_steps_and_ranges)
{
	double lo = 3, hi = 97;

	ck_assert_double_eq_tol(ul_plot_nice_step(0, 10, 5), 2, EPS);
	ck_assert_double_eq_tol(ul_plot_nice_step(0, 1, 5), 0.2, EPS);
	ck_assert_double_eq_tol(ul_plot_nice_step(0, 7, 6), 2, EPS);	    /* raw 1.17 -> 2 */
	ck_assert_double_eq_tol(ul_plot_nice_step(0, 30, 6), 5, EPS);	    /* raw 5 stays 5 */
	ck_assert_double_eq_tol(ul_plot_nice_step(0, 0.031, 5), 0.01, EPS); /* raw .0062 */
	ck_assert_double_eq_tol(ul_plot_nice_step(4, 4, 5), 1, EPS);
	ul_plot_nice_range(&lo, &hi, 5); /* raw 18.8 -> 20 */
	ck_assert_double_eq_tol(lo, 0, EPS);
	ck_assert_double_eq_tol(hi, 100, EPS);
	lo = 52.9;
	hi = 185.9;
	ul_plot_nice_range(&lo, &hi, 5); /* raw 26.6 -> 50 */
	ck_assert_double_eq_tol(lo, 50, EPS);
	ck_assert_double_eq_tol(hi, 200, EPS);
	lo = hi = 0;
	ul_plot_nice_range(&lo, &hi, 5);
	ck_assert(lo < 0 && hi > 0);
	lo = 7;
	hi = 2; /* swapped */
	ul_plot_nice_range(&lo, &hi, 5);
	ck_assert(lo <= 2 && hi >= 7);
}
END_TEST

START_TEST(linear_ticks)
{
	double t[16], step;
	size_t n = ul_plot_ticks(0, 1, 5, t, 16, &step);

	ck_assert_uint_eq(n, 6);
	ck_assert_double_eq_tol(step, 0.2, EPS);
	ck_assert_double_eq_tol(t[5], 1, EPS); /* the end is included despite rounding */
	n = ul_plot_ticks(-0.3, 0.3, 6, t, 16, &step);
	ck_assert_uint_eq(n, 7);
	ck_assert(t[3] == 0 && !signbit(t[3]));			    /* no -0 */
	ck_assert_uint_eq(ul_plot_ticks(0, 100, 5, t, 3, NULL), 3); /* capped */
	ck_assert_uint_eq(ul_plot_ticks_at(1, 9, 4, t, 16), 2);	    /* 4, 8 */
	ck_assert_double_eq_tol(t[1], 8, EPS);
	ck_assert_uint_eq(ul_plot_ticks_at(1, 0, 1, t, 16), 0);
}
END_TEST

START_TEST(log_ticks)
{
	double t[32];
	size_t n = ul_plot_log_ticks(1, 1000, t, 32);

	ck_assert_uint_eq(n, 4); /* three decades: powers only */
	ck_assert_double_eq_tol(t[3], 1000, 1e-6);
	n = ul_plot_log_ticks(0.5, 20, t, 32); /* under three decades: 1-2-5 */
	ck_assert_uint_eq(n, 6);
	ck_assert_double_eq_tol(t[0], 0.5, EPS);
	ck_assert_double_eq_tol(t[5], 20, EPS);
	ck_assert_uint_eq(ul_plot_log_ticks(0, 10, t, 32), 0);
	{
		double lo = 0.13, hi = 37; /* out to 0.1 and 50 */

		ul_plot_log_range(&lo, &hi);
		ck_assert_double_eq_tol(lo, 0.1, EPS);
		ck_assert_double_eq_tol(hi, 50, 1e-9);
		lo = 2;
		hi = 1000; /* already on 1-2-5 values: unchanged */
		ul_plot_log_range(&lo, &hi);
		ck_assert_double_eq_tol(lo, 2, EPS);
		ck_assert_double_eq_tol(hi, 1000, 1e-9);
		lo = 7;
		hi = 501;
		ul_plot_log_range(&lo, &hi);
		ck_assert_double_eq_tol(lo, 5, EPS);
		ck_assert_double_eq_tol(hi, 1000, 1e-9);
	}
}
END_TEST

START_TEST(tick_labels)
{
	char b[32];

	ck_assert_str_eq(ul_plot_tick_label(0.25, 0.05, b, sizeof(b)), "0.25");
	ck_assert_str_eq(ul_plot_tick_label(1500, 500, b, sizeof(b)), "1500");
	ck_assert_str_eq(ul_plot_tick_label(0.4, 0.2, b, sizeof(b)), "0.4");
	ck_assert_str_eq(ul_plot_tick_label(-1e-17, 0.1, b, sizeof(b)), "0.0");
	ck_assert_str_eq(ul_plot_tick_label(-0.0, 1, b, sizeof(b)), "0");
	ck_assert_str_eq(ul_plot_tick_label(100, 0, b, sizeof(b)), "100"); /* log: %g */
	ck_assert_str_eq(ul_plot_tick_label(0.001, 0, b, sizeof(b)), "0.001");
}
END_TEST

START_TEST(colours)
{
	for (size_t i = 0; i < 7; i++) {
		ck_assert_uint_eq(strlen(ul_plot_colour(i)), 7);
		ck_assert_int_eq(ul_plot_colour(i)[0], '#');
		for (size_t j = 0; j < i; j++)
			ck_assert_str_ne(ul_plot_colour(i), ul_plot_colour(j));
	}
	ck_assert_str_eq(ul_plot_colour(7), ul_plot_colour(0)); /* cycles */
}
END_TEST

START_TEST(units)
{
	double div;

	ck_assert_str_eq(ul_plot_unit("delay_ns", 5e5, &div), "\xc2\xb5s");
	ck_assert_double_eq(div, 1e3);
	ck_assert_str_eq(ul_plot_unit("delay_ns", 5e7, &div), "ms");
	ck_assert_double_eq(div, 1e6);
	ck_assert_str_eq(ul_plot_unit("wall_ns", 2e10, &div), "s");
	ck_assert_double_eq(div, 1e9);
	ck_assert_str_eq(ul_plot_unit("mon_mem_free_kb", 2e6, &div), "MiB");
	ck_assert_double_eq(div, 1024);
	ck_assert_str_eq(ul_plot_unit("mtest_bytes", 5e9, &div), "GiB");
	ck_assert_double_eq(div, 1024.0 * 1024 * 1024);
	ck_assert_str_eq(ul_plot_unit("mtest_majflt", 5e9, &div), "");
	ck_assert_double_eq(div, 1);
	ck_assert_uint_eq(ul_plot_unit_stem("delay_ns"), 5);
	ck_assert_uint_eq(ul_plot_unit_stem("mon_mem_free_kb"), 12);
	ck_assert_uint_eq(ul_plot_unit_stem("mtest_majflt"), 12);
	ck_assert_uint_eq(ul_plot_unit_stem("_ns"), 3);
}
END_TEST

START_TEST(box)
{
	double v[] = { 1, 2, 3, 4, 5, 6, 7, 8, 9 }, w[] = { 1, 2, 3, 4, 5, 6, 7, 8, 100 };
	struct ul_box b;

	ck_assert_int_eq(ul_plot_box(v, 9, &b), 0);
	ck_assert_double_eq_tol(b.q1, 3, EPS);
	ck_assert_double_eq_tol(b.median, 5, EPS);
	ck_assert_double_eq_tol(b.q3, 7, EPS);
	ck_assert_double_eq_tol(b.wlo, 1, EPS);
	ck_assert_double_eq_tol(b.whi, 9, EPS);
	ck_assert_uint_eq(b.n_out, 0);
	ck_assert_int_eq(ul_plot_box(w, 9, &b), 0); /* fence 7 + 1.5 * 4 = 13 */
	ck_assert_double_eq_tol(b.whi, 8, EPS);
	ck_assert_double_eq_tol(b.max, 100, EPS);
	ck_assert_uint_eq(b.n_out, 1);
	ck_assert_int_eq(ul_plot_box(v, 0, &b), -EINVAL);
}
END_TEST

START_TEST(downsample_keeps_extremes)
{
	enum {
		N = 100000,
		B = 100
	};
	double *y = malloc(N * sizeof(*y));
	size_t *keep = malloc(N * sizeof(*keep)), k;
	bool spike = false, dip = false;

	ck_assert(y && keep);
	for (size_t i = 0; i < N; i++)
		y[i] = 50 + (double)(i % 7);
	y[31337] = 1e6; /* one spike and one dip inside a bucket */
	y[77777] = -3;
	k = ul_plot_downsample(y, N, B, keep);
	ck_assert_uint_le(k, 4 * B);
	ck_assert_uint_ge(k, 2 * B);
	ck_assert_uint_eq(keep[0], 0);
	ck_assert_uint_eq(keep[k - 1], N - 1);
	for (size_t i = 0; i < k; i++) {
		if (i)
			ck_assert_uint_gt(keep[i], keep[i - 1]); /* in order, no repeats */
		spike |= keep[i] == 31337;
		dip |= keep[i] == 77777;
	}
	ck_assert(spike && dip);
	k = ul_plot_downsample(y, 10, B, keep); /* short: everything */
	ck_assert_uint_eq(k, 10);
	ck_assert_uint_eq(keep[9], 9);
	y[0] = NAN; /* a NaN is never an extreme */
	k = ul_plot_downsample(y, 401, 100, keep);
	for (size_t i = 0; i < k; i++)
		ck_assert(keep[i] == 0 || !isnan(y[keep[i]]));
	free(y);
	free(keep);
}
END_TEST

START_TEST(cdf_ranks)
{
	size_t keep[1001], k = ul_plot_cdf_ranks(100000, 1000, keep);

	ck_assert_uint_eq(k, 1001);
	ck_assert_uint_eq(keep[0], 0);
	ck_assert_uint_eq(keep[1000], 99999);
	ck_assert_uint_eq(keep[500], 50000); /* round(99999 / 2) */
	k = ul_plot_cdf_ranks(5, 1000, keep);
	ck_assert_uint_eq(k, 5);
	ck_assert_uint_eq(keep[4], 4);
}
END_TEST

static char *escaped(const char *s, size_t cap)
{
	char *buf = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&buf, &len);

	ck_assert_ptr_nonnull(f);
	ul_svg_escape(f, s, cap);
	ck_assert_int_eq(fclose(f), 0);
	return buf;
}

START_TEST(escaping)
{
	static const struct {
		const char *in, *out;
	} cases[] = {
		{ "<script>alert(1)</script>", "&lt;script&gt;alert(1)&lt;/script&gt;" },
		{ "a&b \"q\" 'r'", "a&amp;b &quot;q&quot; &#39;r&#39;" },
		{ "tab\there\nnl\x7f", "tab here nl " },
		{ "caf\xc3\xa9 \xc2\xb5s", "caf\xc3\xa9 \xc2\xb5s" },	    /* valid UTF-8 kept */
		{ "bad\xff\xc3", "bad\xef\xbf\xbd\xef\xbf\xbd" },	    /* invalid -> U+FFFD */
		{ "\xe0\x80\xaf", "\xef\xbf\xbd\xef\xbf\xbd\xef\xbf\xbd" }, /* overlong */
		{ "\xed\xa0\x80", "\xef\xbf\xbd\xef\xbf\xbd\xef\xbf\xbd" }, /* surrogate */
		{ "\xf0\x9f\x98\x80", "\xf0\x9f\x98\x80" },		    /* emoji */
	};

	for (size_t i = 0; i < UL_ARRAY_SIZE(cases); i++) {
		char *got = escaped(cases[i].in, SIZE_MAX);

		ck_assert_msg(!strcmp(got, cases[i].out), "case %zu: got '%s'", i, got);
		free(got);
	}
	{
		char *got = escaped("<<<<", 2); /* cap respected, unterminated arrays too */

		ck_assert_str_eq(got, "&lt;&lt;");
		free(got);
	}
}
END_TEST

Suite *ul_test_suite_plot(void)
{
	Suite *s = suite_create("plot");
	TCase *tc = tcase_create("plot");

	tcase_add_test(tc, scale_linear_and_log);
	tcase_add_test(tc, decades);
	tcase_add_test(tc, nice_steps_and_ranges);
	tcase_add_test(tc, linear_ticks);
	tcase_add_test(tc, log_ticks);
	tcase_add_test(tc, tick_labels);
	tcase_add_test(tc, colours);
	tcase_add_test(tc, units);
	tcase_add_test(tc, box);
	tcase_add_test(tc, downsample_keeps_extremes);
	tcase_add_test(tc, cdf_ranks);
	tcase_add_test(tc, escaping);
	suite_add_tcase(s, tc);
	return s;
}

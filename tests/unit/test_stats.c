/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Unit tests for src/stats: hand-computed medians, S.D., type-7 quantiles,
 * the deviant mean and the binomial CI ranks, checked against brute force.
 */
#include "unit.h"
#include "stats/stats.h"
#include "stats/hist.h"

#include <errno.h>
#include <float.h>
#include <math.h>
#include <stdlib.h>

#define TOL 1e-9

START_TEST(test_median_even_odd)
{
	const double even[] = { 1, 2, 3, 4 };
	const double odd[] = { 1, 2, 3, 4, 100 };
	const double one[] = { 7 };

	ck_assert_double_eq_tol(ul_stats_median_sorted(even, 4), 2.5, TOL);
	ck_assert_double_eq_tol(ul_stats_median_sorted(odd, 5), 3.0, TOL);
	ck_assert_double_eq_tol(ul_stats_median_sorted(one, 1), 7.0, TOL);
	ck_assert(isnan(ul_stats_median_sorted(even, 0)));
}
END_TEST

START_TEST(test_mean_sd)
{
	const double x[] = { 2, 4, 4, 4, 5, 5, 7, 9 };
	/* Large offset: a one-pass sum of squares loses every digit here. */
	const double y[] = { 1e9 + 4, 1e9 + 7, 1e9 + 13, 1e9 + 16 };
	const double z[] = { 42 };

	ck_assert_double_eq_tol(ul_stats_mean(x, 8), 5.0, TOL);
	/* sum of squared deviations 32, n-1 = 7: sqrt(32/7) */
	ck_assert_double_eq_tol(ul_stats_sd(x, 8), 2.138089935299395, 1e-12);
	ck_assert_double_eq_tol(ul_stats_mean(y, 4), 1e9 + 10, 1e-6);
	/* deviations -6 -3 3 6: 90/3 = 30 */
	ck_assert_double_eq_tol(ul_stats_sd(y, 4), sqrt(30.0), 1e-9);
	ck_assert_double_eq(ul_stats_sd(z, 1), 0.0);
	ck_assert_double_eq(ul_stats_sd(x, 0), 0.0);
}
END_TEST

START_TEST(test_quantile_type7)
{
	/* numpy.percentile(..., method="linear") by hand: h = (n-1)p */
	const double a[] = { 15, 20, 35, 40, 50 };
	const double b[] = { 1, 2, 3, 4 };
	const double c[] = { 3 };

	ck_assert_double_eq_tol(ul_stats_quantile_sorted(a, 5, 0.0), 15, TOL);
	ck_assert_double_eq_tol(ul_stats_quantile_sorted(a, 5, 0.10), 17, TOL); /* h=0.4 */
	ck_assert_double_eq_tol(ul_stats_quantile_sorted(a, 5, 0.25), 20, TOL); /* h=1 */
	ck_assert_double_eq_tol(ul_stats_quantile_sorted(a, 5, 0.40), 29, TOL); /* h=1.6 */
	ck_assert_double_eq_tol(ul_stats_quantile_sorted(a, 5, 0.50), 35, TOL);
	ck_assert_double_eq_tol(ul_stats_quantile_sorted(a, 5, 0.90), 46, TOL); /* h=3.6 */
	ck_assert_double_eq_tol(ul_stats_quantile_sorted(a, 5, 1.0), 50, TOL);
	ck_assert_double_eq_tol(ul_stats_quantile_sorted(b, 4, 0.10), 1.3, TOL);  /* h=0.3 */
	ck_assert_double_eq_tol(ul_stats_quantile_sorted(b, 4, 0.90), 3.7, TOL);  /* h=2.7 */
	ck_assert_double_eq_tol(ul_stats_quantile_sorted(b, 4, 0.75), 3.25, TOL); /* h=2.25 */
	ck_assert_double_eq_tol(ul_stats_quantile_sorted(c, 1, 0.37), 3, TOL);
	/* The median is the 0.5 quantile under type 7, for both parities. */
	ck_assert_double_eq_tol(ul_stats_quantile_sorted(b, 4, 0.5), ul_stats_median_sorted(b, 4),
				TOL);
	ck_assert(isnan(ul_stats_quantile_sorted(a, 0, 0.5)));
}
END_TEST

START_TEST(test_summary_basic)
{
	const double x[] = { 4, 1, 3, 2 };
	const double copy[] = { 4, 1, 3, 2 };
	struct ul_summary s;

	ck_assert_int_eq(ul_stats_summarize(x, 4, &s), 0);
	ck_assert_uint_eq(s.n, 4);
	ck_assert_double_eq_tol(s.min, 1, TOL);
	ck_assert_double_eq_tol(s.max, 4, TOL);
	ck_assert_double_eq_tol(s.median, 2.5, TOL);
	ck_assert_double_eq_tol(s.mean, 2.5, TOL);
	ck_assert_double_eq_tol(s.sd, sqrt(5.0 / 3.0), 1e-12);
	ck_assert_double_eq_tol(s.p10, 1.3, TOL);
	ck_assert_double_eq_tol(s.p90, 3.7, TOL);
	ck_assert(!s.has_ci);
	ck_assert(isinf(ul_stats_ci_rel_halfwidth(&s)));
	/* The input is not modified (summaries sort a copy). */
	for (size_t i = 0; i < 4; i++)
		ck_assert_double_eq(x[i], copy[i]);
}
END_TEST

START_TEST(test_summary_errors)
{
	const double x[] = { 1, 2, NAN, 4 };
	const double y[] = { 1, INFINITY };
	const int64_t z[] = { 1 };
	struct ul_summary s;

	ck_assert_int_eq(ul_stats_summarize(x, 0, &s), -EINVAL);
	ck_assert_int_eq(ul_stats_summarize_i64(z, 0, &s), -EINVAL);
	ck_assert_int_eq(ul_stats_summarize(x, 4, &s), -EINVAL);
	ck_assert_int_eq(ul_stats_summarize(y, 2, &s), -EINVAL);
	/* A single sample is a valid summary with no spread. */
	ck_assert_int_eq(ul_stats_summarize_i64(z, 1, &s), 0);
	ck_assert_double_eq(s.median, 1);
	ck_assert_double_eq(s.sd, 0);
	ck_assert_double_eq(s.dev_mean, 1);
}
END_TEST

START_TEST(test_deviant_mean)
{
	/* mean 28, S.D. sqrt(6480/4) = 40.25: the outlier 100 is 72 away. */
	const double outlier[] = { 10, 10, 100, 10, 10 };
	/* mean 10, S.D. exactly 1: the two 11s sit on the boundary and count. */
	const double edge[] = { 11, 11, 8, 10, 10, 10, 10 };
	const double flat[] = { 5, 5, 5 };
	struct ul_summary s;

	ck_assert_int_eq(ul_stats_summarize(outlier, 5, &s), 0);
	ck_assert_double_eq_tol(s.mean, 28, TOL);
	ck_assert_double_eq_tol(s.sd, sqrt(1620.0), 1e-9);
	ck_assert_double_eq_tol(s.dev_mean, 10, TOL);

	ck_assert_int_eq(ul_stats_summarize(edge, 7, &s), 0);
	ck_assert_double_eq_tol(s.mean, 10, TOL);
	ck_assert_double_eq_tol(s.sd, 1, TOL);
	ck_assert_double_eq_tol(s.dev_mean, 62.0 / 6.0, TOL);

	ck_assert_int_eq(ul_stats_summarize(flat, 3, &s), 0);
	ck_assert_double_eq(s.sd, 0);
	ck_assert_double_eq_tol(s.dev_mean, 5, TOL);
}
END_TEST

START_TEST(test_ci_ranks_small)
{
	size_t lo = 0, hi = 0;
	double cov = 0;

	/* P(B(6,1/2) < 1) = 1/64 <= 0.025 < P(B < 2) = 7/64 */
	ck_assert_int_eq(ul_stats_median_ci_ranks(6, 0.95, &lo, &hi, &cov), 0);
	ck_assert_uint_eq(lo, 1);
	ck_assert_uint_eq(hi, 6);
	ck_assert_double_eq_tol(cov, 1.0 - 2.0 / 64.0, 1e-12);
	/* P(B(9) < 2) = 10/512, P(B < 3) = 46/512 */
	ck_assert_int_eq(ul_stats_median_ci_ranks(9, 0.95, &lo, &hi, &cov), 0);
	ck_assert_uint_eq(lo, 2);
	ck_assert_uint_eq(hi, 8);
	ck_assert_double_eq_tol(cov, 1.0 - 20.0 / 512.0, 1e-12);
	/* P(B(20) < 6) = 21700/2^20 = 0.0207, P(B < 7) = 60460/2^20 = 0.0577 */
	ck_assert_int_eq(ul_stats_median_ci_ranks(20, 0.95, &lo, &hi, &cov), 0);
	ck_assert_uint_eq(lo, 6);
	ck_assert_uint_eq(hi, 15);
	ck_assert_double_eq_tol(cov, 1.0 - 2.0 * 21700.0 / 1048576.0, 1e-12);
	/* n = 5: even the full range covers only 1 - 2/32 = 0.9375. */
	for (size_t n = 0; n < 6; n++)
		ck_assert_int_eq(ul_stats_median_ci_ranks(n, 0.95, &lo, &hi, &cov), -EDOM);
	/* A level equal to a tail exactly still admits that interval. */
	ck_assert_int_eq(ul_stats_median_ci_ranks(6, 1.0 - 2.0 / 64.0, &lo, &hi, &cov), 0);
	ck_assert_uint_eq(lo, 1);
	/* A lower level gives a narrower interval; a silly level is refused. */
	ck_assert_int_eq(ul_stats_median_ci_ranks(20, 0.80, &lo, &hi, &cov), 0);
	ck_assert_uint_eq(lo, 7); /* P(B < 7) = 0.0577 <= 0.1 < P(B < 8) = 0.1316 */
	ck_assert_uint_eq(hi, 14);
	ck_assert_int_eq(ul_stats_median_ci_ranks(20, 1.0, &lo, &hi, &cov), -EINVAL);
	ck_assert_int_eq(ul_stats_median_ci_ranks(20, 0.0, &lo, &hi, &cov), -EINVAL);
	ck_assert_int_eq(ul_stats_median_ci_ranks(20, NAN, &lo, &hi, &cov), -EINVAL);
}
END_TEST

/* Independent brute force: largest k with P(B(n,1/2) < k) <= alpha, summed
 * in long double from 2^-n (no log space, no skipped head).  Valid while 2^-n
 * is a normal long double: n < 16381 on x86-64, n < 1021 where it is a double. */
static size_t brute_rank(size_t n, double conf, long double *tail_out)
{
	long double alpha = (1.0L - conf) / 2.0L, pmf = ldexpl(1.0L, -(int)n), tail = 0;
	size_t best = 0;

	for (size_t k = 1; k <= (n + 1) / 2; k++) {
		long double next = tail + pmf;

		if (next > alpha)
			break;
		tail = next;
		best = k;
		pmf = pmf * (long double)(n - k + 1) / (long double)k;
	}
	*tail_out = tail;
	return best;
}

START_TEST(test_ci_ranks_brute)
{
	static const size_t big[] = { 999, 1000, 1001, 1002, 1500, 4096, 16001 };
	static const double confs[] = { 0.90, 0.95, 0.99 };

	for (size_t c = 0; c < UL_ARRAY_SIZE(confs); c++) {
		for (size_t n = 1; n < 320 + UL_ARRAY_SIZE(big); n++) {
			size_t nn = n < 320 ? n : big[n - 320];
			size_t lo = 0, hi = 0, want;
			long double tail;
			double cov = 0;
			int rc = ul_stats_median_ci_ranks(nn, confs[c], &lo, &hi, &cov);

			if ((int)nn >= -LDBL_MIN_EXP)
				continue; /* 2^-n not representable here: no reference */
			want = brute_rank(nn, confs[c], &tail);
			if (!want) {
				ck_assert_msg(rc == -EDOM, "n=%zu conf=%g rc=%d", nn, confs[c], rc);
				continue;
			}
			ck_assert_msg(rc == 0 && lo == want && hi == nn - want + 1,
				      "n=%zu conf=%g: got (%zu,%zu) rc=%d, want (%zu,%zu)", nn,
				      confs[c], lo, hi, rc, want, nn - want + 1);
			ck_assert_double_eq_tol(cov, (double)(1.0L - 2.0L * tail), 1e-9);
			ck_assert(cov >= confs[c]);
		}
	}
}
END_TEST

START_TEST(test_ci_ranks_large)
{
	size_t lo = 0, hi = 0;
	double cov = 0, approx;

	/* n = 100000: within a rank of the normal approximation n/2 - 1.96 sqrt(n)/2. */
	ck_assert_int_eq(ul_stats_median_ci_ranks(100000, 0.95, &lo, &hi, &cov), 0);
	approx = 50000.0 - 1.959964 * sqrt(100000.0) / 2.0;
	ck_assert_msg(fabs((double)lo - approx) < 2.0, "lo=%zu approx=%f", lo, approx);
	ck_assert_uint_eq(hi, 100000 - lo + 1);
	ck_assert(cov >= 0.95 && cov < 0.952);
	/* Huge n stays cheap (the walk starts near the answer) and sane. */
	ck_assert_int_eq(ul_stats_median_ci_ranks((size_t)1 << 40, 0.95, &lo, &hi, &cov), 0);
	ck_assert(cov >= 0.95 && cov < 0.9501);
	approx = (double)((size_t)1 << 39) - 1.959964 * sqrt((double)((size_t)1 << 40)) / 2.0;
	ck_assert_msg(fabs((double)lo - approx) < 3.0, "lo=%zu approx=%f", lo, approx);
	ck_assert(hi == ((size_t)1 << 40) - lo + 1);
}
END_TEST

START_TEST(test_summary_ci)
{
	const double x6[] = { 6, 1, 5, 2, 4, 3 };
	double x20[20];
	struct ul_summary s;

	ck_assert_int_eq(ul_stats_summarize(x6, 6, &s), 0);
	ck_assert(s.has_ci);
	ck_assert_double_eq_tol(s.ci_lo, 1, TOL);
	ck_assert_double_eq_tol(s.ci_hi, 6, TOL);
	ck_assert_double_eq_tol(s.ci_level, 0.96875, 1e-12);
	ck_assert_double_eq_tol(s.median, 3.5, TOL);
	/* (6 - 1) / 2 / 3.5 */
	ck_assert_double_eq_tol(ul_stats_ci_rel_halfwidth(&s), 5.0 / 7.0, 1e-12);

	/* 20 values 10, 20, ..., 200 in reverse: CI is x(6) .. x(15). */
	for (size_t i = 0; i < 20; i++)
		x20[i] = 10.0 * (double)(20 - i);
	ck_assert_int_eq(ul_stats_summarize(x20, 20, &s), 0);
	ck_assert(s.has_ci);
	ck_assert_double_eq_tol(s.ci_lo, 60, TOL);
	ck_assert_double_eq_tol(s.ci_hi, 150, TOL);
	ck_assert_double_eq_tol(s.median, 105, TOL);
	ck_assert(s.ci_level > 0.95 && s.ci_level < 0.96);

	/* Median 0: no relative width. */
	s.median = 0;
	ck_assert(isinf(ul_stats_ci_rel_halfwidth(&s)));
}
END_TEST

START_TEST(test_summary_i64)
{
	const int64_t ns[] = { 3000000000LL, 1000000000LL, 2000000000LL, 4000000000LL };
	/* Around 2^50 ns every value is still exact in a double. */
	const int64_t big[] = { (INT64_C(1) << 50) + 3, (INT64_C(1) << 50) + 1,
				(INT64_C(1) << 50) + 2 };
	struct ul_summary s;

	ck_assert_int_eq(ul_stats_summarize_i64(ns, 4, &s), 0);
	ck_assert_double_eq_tol(s.median, 2.5e9, 1e-3);
	ck_assert_double_eq_tol(s.mean, 2.5e9, 1e-3);
	ck_assert_double_eq_tol(s.sd, 1e9 * sqrt(5.0 / 3.0), 1e-3);
	ck_assert_double_eq(s.min, 1e9);
	ck_assert_double_eq(s.max, 4e9);

	ck_assert_int_eq(ul_stats_summarize_i64(big, 3, &s), 0);
	ck_assert_double_eq(s.median, (double)((INT64_C(1) << 50) + 2));
	ck_assert_double_eq_tol(s.sd, 1.0, 1e-6);
}
END_TEST

/*
 * Davidsen's resp1 row for 2.5.41-mm2 8ctx-mem (seed 000): low 4360.954,
 * high 11087.563, median 6240.896, mean 6575.003, S.D. 2.724 s (ms data).
 * With n = 5 the two unknown points a <= median <= b are fixed by the mean
 * and the n-1 S.D.; solve for them here, then check that the summary
 * reproduces the row to its printed precision.  This tests our definitions
 * on seed-scale numbers; it does not claim the seed had n = 5.
 */
START_TEST(test_seed_resp_row)
{
	const double low = 4360.954, high = 11087.563, med = 6240.896, mean = 6575.003;
	const double sd = 2.724 * 1000.0, n = 5.0;
	double dl = low - mean, dh = high - mean, dm = med - mean;
	double dsum = -(dl + dh + dm);					  /* da + db */
	double dsq = sd * sd * (n - 1.0) - (dl * dl + dh * dh + dm * dm); /* da^2 + db^2 */
	double disc = 2.0 * dsq - dsum * dsum;				  /* (da - db)^2 */
	double x[5];
	struct ul_summary s;

	ck_assert(disc > 0);
	x[0] = high;
	x[1] = mean + (dsum - sqrt(disc)) / 2.0; /* a */
	x[2] = low;
	x[3] = mean + (dsum + sqrt(disc)) / 2.0; /* b */
	x[4] = med;
	ck_assert(x[1] >= low && x[1] <= med && x[3] >= med && x[3] <= high);

	ck_assert_int_eq(ul_stats_summarize(x, 5, &s), 0);
	ck_assert_double_eq_tol(s.min, low, 5e-4);
	ck_assert_double_eq_tol(s.max, high, 5e-4);
	ck_assert_double_eq_tol(s.median, med, 5e-4);
	ck_assert_double_eq_tol(s.mean, mean, 5e-4);
	ck_assert_double_eq_tol(s.sd / 1000.0, 2.724, 5e-4);
	/* The population S.D. (n) would print differently: the n-1 choice matters. */
	ck_assert(fabs(s.sd * sqrt(4.0 / 5.0) / 1000.0 - 2.724) > 5e-4);
	/* Deviant mean: the high point (4512 ms above the mean) is excluded. */
	ck_assert(s.dev_mean < s.mean);
	ck_assert_double_eq_tol(s.dev_mean, (x[1] + x[2] + x[3] + x[4]) / 4.0, 1e-9);
}
END_TEST

START_TEST(test_histogram)
{
	static uint32_t hist[UL_HIST_N];
	uint64_t vals[] = { 0, 1, 63, 64, 65, 1000, 123456, 999999999, UINT64_C(1) << 50 };

	for (size_t i = 0; i < UL_ARRAY_SIZE(vals); i++) {
		unsigned b = ul_hist_bucket(vals[i]);
		double rep = (double)ul_hist_value(b);

		ck_assert_uint_lt(b, UL_HIST_N);
		if (vals[i] < 64)
			ck_assert_uint_eq(b, vals[i]);
		else if (vals[i] < (UINT64_C(1) << 40))
			ck_assert_msg(rep >= vals[i] * 0.969 && rep <= vals[i] * 1.032,
				      "%llu -> %f", (unsigned long long)vals[i], rep);
	}
	/* 1..1000 µs: p50 about 500 µs, p99 about 990 µs, within 3.2%. */
	memset(hist, 0, sizeof(hist));
	for (uint64_t us = 1; us <= 1000; us++)
		hist[ul_hist_bucket(us * 1000)]++;
	ck_assert_double_eq_tol((double)ul_hist_quantile(hist, 1000, 0.5), 500e3, 500e3 * 0.032);
	ck_assert_double_eq_tol((double)ul_hist_quantile(hist, 1000, 0.99), 990e3, 990e3 * 0.032);
	ck_assert_uint_eq(ul_hist_quantile(hist, 0, 0.5), 0);
}
END_TEST

Suite *ul_test_suite_stats(void)
{
	Suite *s = suite_create("stats");
	TCase *tc = tcase_create("stats");

	tcase_add_test(tc, test_median_even_odd);
	tcase_add_test(tc, test_mean_sd);
	tcase_add_test(tc, test_quantile_type7);
	tcase_add_test(tc, test_histogram);
	tcase_add_test(tc, test_summary_basic);
	tcase_add_test(tc, test_summary_errors);
	tcase_add_test(tc, test_deviant_mean);
	tcase_add_test(tc, test_ci_ranks_small);
	tcase_add_test(tc, test_ci_ranks_brute);
	tcase_add_test(tc, test_ci_ranks_large);
	tcase_add_test(tc, test_summary_ci);
	tcase_add_test(tc, test_summary_i64);
	tcase_add_test(tc, test_seed_resp_row);
	suite_add_tcase(s, tc);
	return s;
}

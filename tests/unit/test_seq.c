/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * The confidence sequence of src/stats/seq.c: its closed-form interval
 * against the e-value it inverts, the e-value against a numerical
 * integration of the Bayes factor it stands for, the large-n limit
 * against Robbins's normal-mixture boundary, its coverage under optional
 * stopping by simulation (where a fixed-n t interval re-checked after
 * every value fails), its verdicts and its estimate of the values needed.
 */
#include "unit.h"
#include "stats/compare.h"
#include "stats/seq.h"

#include <errno.h>
#include <math.h>
#include <stdint.h>

#define ALPHA 0.05

/* A reproducible N(0, 1) stream: splitmix64 and Box-Muller. */
struct rng {
	uint64_t s;
};

static double uniform(struct rng *r)
{
	uint64_t z = (r->s += 0x9e3779b97f4a7c15ULL);

	z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
	z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
	z ^= z >> 31;
	return ((double)(z >> 11) + 0.5) / 9007199254740992.0; /* (0, 1) */
}

static double normal(struct rng *r)
{
	return sqrt(-2.0 * log(uniform(r))) * cos(2.0 * M_PI * uniform(r));
}

/* The e-value at mu0 of the data d[0..n-1]. */
static double evalue_at(const double *d, size_t n, double mu0, double rho)
{
	double s1 = 0, s2 = 0;

	for (size_t i = 0; i < n; i++) {
		s1 += d[i] - mu0;
		s2 += (d[i] - mu0) * (d[i] - mu0);
	}
	return ul_seq_evalue(n, s1, s2, rho);
}

/* The interval's ends are where the e-value crosses 1/alpha. */
START_TEST(test_seq_ends_invert_evalue)
{
	const double d[] = { 0.031, 0.052, -0.004, 0.047, 0.029, 0.061, 0.018 };
	const size_t n = sizeof(d) / sizeof(d[0]);
	struct ul_seq_state st;

	for (double rho = 0.25; rho <= 4; rho *= 2) {
		ck_assert_int_eq(ul_seq_update(d, n, ALPHA, rho, 0, &st), 0);
		ck_assert(isfinite(st.half));
		ck_assert_double_eq_tol(evalue_at(d, n, st.lo, rho) * ALPHA, 1.0, 1e-9);
		ck_assert_double_eq_tol(evalue_at(d, n, st.hi, rho) * ALPHA, 1.0, 1e-9);
		ck_assert(evalue_at(d, n, st.mean, rho) < 1.0 / ALPHA);
		ck_assert(evalue_at(d, n, st.lo - 1e-4, rho) > 1.0 / ALPHA);
		ck_assert(evalue_at(d, n, st.hi + 1e-4, rho) > 1.0 / ALPHA);
	}
}
END_TEST

/*
 * The closed form against the Bayes factor it claims to be, integrated
 * numerically: numerator over delta ~ N(0, 1/rho) and log sigma, the
 * denominator over log sigma (the right-Haar prior d sigma / sigma is
 * d log sigma), both on fine grids.
 */
static double log_lik(const double *y, size_t n, double mu, double sigma)
{
	double s = 0;

	for (size_t i = 0; i < n; i++)
		s += (y[i] - mu) * (y[i] - mu);
	return -(double)n * log(sigma) - s / (2 * sigma * sigma);
}

START_TEST(test_seq_evalue_is_the_bayes_factor)
{
	const double y[] = { 0.8, 1.9, -0.3, 1.2, 0.6 };
	const size_t n = 5;
	const double rho = 1.0, du = 0.005, dd = 0.005;
	double num = 0, den = 0, s1 = 0, s2 = 0;

	for (double u = -6; u <= 4; u += du) {
		double sigma = exp(u);

		den += exp(log_lik(y, n, 0, sigma)) * du;
		for (double delta = -8; delta <= 8; delta += dd) {
			double prior = sqrt(rho / (2 * M_PI)) * exp(-rho * delta * delta / 2);

			num += exp(log_lik(y, n, delta * sigma, sigma)) * prior * dd * du;
		}
	}
	for (size_t i = 0; i < n; i++) {
		s1 += y[i];
		s2 += y[i] * y[i];
	}
	ck_assert_double_eq_tol(ul_seq_evalue(n, s1, s2, rho) / (num / den), 1.0, 1e-4);
}
END_TEST

/* For large n, sigma = 1: n * half -> sqrt((n + rho) log((n + rho) / (rho alpha^2))). */
START_TEST(test_seq_robbins_limit)
{
	const double n = 1e6, rho = 1.0;
	double robbins = sqrt((n + rho) * log((n + rho) / (rho * ALPHA * ALPHA)));
	double half = ul_seq_halfwidth((size_t)n, n - 1, ALPHA, rho);

	ck_assert_double_eq_tol(n * half / robbins, 1.0, 1e-3);
	/* And it is wider than the fixed-n 95% interval, as it must be. */
	ck_assert(n * half > 1.96 * sqrt(n));
}
END_TEST

/*
 * Optional stopping: streams of N(0, 1), the interval looked at after every
 * value up to 200.  The share of streams whose interval ever excludes 0
 * stays below alpha (plus three binomial S.E.s of the simulation); the
 * Student t interval of the same data, re-checked after every value as a
 * fixed design would be misused, excludes 0 far more often.
 */
START_TEST(test_seq_coverage_under_optional_stopping)
{
	enum {
		STREAMS = 2000,
		LOOKS = 200
	};
	struct rng r = { 12345 };
	int seq_wrong = 0, t_wrong = 0;

	for (int s = 0; s < STREAMS; s++) {
		double sum = 0, sumsq = 0;
		bool seq_out = false, t_out = false;

		for (size_t n = 1; n <= LOOKS; n++) {
			double x = normal(&r), mean, ss, half, t_half;

			sum += x;
			sumsq += x * x;
			if (n < 2)
				continue;
			mean = sum / (double)n;
			ss = sumsq - (double)n * mean * mean;
			half = ul_seq_halfwidth(n, ss, ALPHA, UL_SEQ_RHO_DEFAULT);
			t_half = ul_stats_t_quantile(1 - ALPHA / 2, (double)n - 1) *
				 sqrt(ss / ((double)n - 1) / (double)n);
			seq_out |= fabs(mean) >= half;
			t_out |= fabs(mean) >= t_half;
		}
		seq_wrong += seq_out;
		t_wrong += t_out;
	}
	ck_assert_msg(seq_wrong <= STREAMS * ALPHA + 3 * sqrt(STREAMS * ALPHA * (1 - ALPHA)),
		      "the sequence excluded the true mean in %d of %d streams", seq_wrong,
		      STREAMS);
	ck_assert_msg(t_wrong > STREAMS * 3 * ALPHA,
		      "a re-checked t interval excluded it in only %d of %d", t_wrong, STREAMS);
}
END_TEST

START_TEST(test_seq_verdicts)
{
	const double up[] = { 0.10, 0.11, 0.09, 0.10, 0.12, 0.08, 0.10, 0.11 };
	const double down[] = { -0.10, -0.11, -0.09, -0.10, -0.12, -0.08, -0.10, -0.11 };
	const double flat[] = { 0.002, -0.003, 0.001, 0.000, -0.002, 0.003, -0.001, 0.001 };
	const double noisy[] = { 0.2, -0.3, 0.25, -0.1, 0.05 };
	const double margin = log(1.05);
	struct ul_seq_state st;

	ck_assert_int_eq(ul_seq_update(up, 8, ALPHA, 1, margin, &st), 0);
	ck_assert_int_eq(st.verdict, UL_SEQ_ABOVE);
	ck_assert(st.lo > 0 && st.hi > st.lo);
	ck_assert_int_eq(ul_seq_update(down, 8, ALPHA, 1, margin, &st), 0);
	ck_assert_int_eq(st.verdict, UL_SEQ_BELOW);
	ck_assert_int_eq(ul_seq_update(flat, 8, ALPHA, 1, margin, &st), 0);
	ck_assert_int_eq(st.verdict, UL_SEQ_WITHIN);
	ck_assert(st.lo > -margin && st.hi < margin);
	/* No margin: equal is never said. */
	ck_assert_int_eq(ul_seq_update(flat, 8, ALPHA, 1, 0, &st), 0);
	ck_assert_int_eq(st.verdict, UL_SEQ_OPEN);
	ck_assert_int_eq(ul_seq_update(noisy, 5, ALPHA, 1, margin, &st), 0);
	ck_assert_int_eq(st.verdict, UL_SEQ_OPEN);
	/* One value bounds nothing. */
	ck_assert_int_eq(ul_seq_update(up, 1, ALPHA, 1, margin, &st), 0);
	ck_assert(isinf(st.half));
	ck_assert_int_eq(st.verdict, UL_SEQ_OPEN);
	ck_assert_str_eq(ul_seq_verdict_name(UL_SEQ_WITHIN), "within");
	ck_assert_int_eq(ul_seq_update(up, 8, 0, 1, margin, &st), -EINVAL);
	ck_assert_int_eq(ul_seq_update(up, 8, ALPHA, 0, margin, &st), -EINVAL);
}
END_TEST

/* The estimate is the first n whose expected half-width reaches the target. */
START_TEST(test_seq_needed)
{
	const double sd = 0.05, margin = log(1.05);
	size_t n = ul_seq_needed(log(1.10), sd, margin, ALPHA, 1, 10000);
	size_t m = ul_seq_needed(0, sd, margin, ALPHA, 1, 10000);

	ck_assert_uint_gt(n, 2);
	ck_assert(ul_seq_halfwidth(n, (double)(n - 1) * sd * sd, ALPHA, 1) < log(1.10));
	ck_assert(ul_seq_halfwidth(n - 1, (double)(n - 2) * sd * sd, ALPHA, 1) >= log(1.10));
	/* Equal within 5% needs a tighter interval than a 10% change. */
	ck_assert_uint_gt(m, n);
	ck_assert(ul_seq_halfwidth(m, (double)(m - 1) * sd * sd, ALPHA, 1) < margin);
	/* Out of reach. */
	ck_assert_uint_eq(ul_seq_needed(0, sd, margin, ALPHA, 1, 3), 0);
	ck_assert_uint_eq(ul_seq_needed(0, sd, 0, ALPHA, 1, 10000), 0);
}
END_TEST

Suite *ul_test_suite_seq(void)
{
	Suite *s = suite_create("seq");
	TCase *tc = tcase_create("seq");

	tcase_set_timeout(tc, 60);
	tcase_add_test(tc, test_seq_ends_invert_evalue);
	tcase_add_test(tc, test_seq_evalue_is_the_bayes_factor);
	tcase_add_test(tc, test_seq_robbins_limit);
	tcase_add_test(tc, test_seq_coverage_under_optional_stopping);
	tcase_add_test(tc, test_seq_verdicts);
	tcase_add_test(tc, test_seq_needed);
	suite_add_tcase(s, tc);
	return s;
}

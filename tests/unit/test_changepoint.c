/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * E-Divisive means (src/stats/changepoint.c): the statistic against a
 * hand-computed value, series with one and two known steps (found at the
 * right position, the change and its interval right), series with none,
 * and the false-alarm rate on pure noise (at most alpha, with binomial
 * slack).  Every series comes from a seeded generator: reproducible.
 */
#include "unit.h"
#include "stats/changepoint.h"

#include <errno.h>
#include <math.h>
#include <stdint.h>

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

/* x[i] = level of i's segment + N(0, sd): steps at pos[] to level[]. */
static void steps(double *x, size_t n, const size_t *pos, const double *level, size_t n_steps,
		  double sd, uint64_t seed)
{
	struct rng r = { seed };

	for (size_t i = 0; i < n; i++) {
		double mu = 100.0;

		for (size_t k = 0; k < n_steps; k++)
			if (i >= pos[k])
				mu = level[k];
		x[i] = mu + sd * normal(&r);
	}
}

/* {0,0,0,1,1,1} at 3: m = k = 3, between sum 9, within 0:
 * Q = 3*3/6 * (2*9/9) = 3, the largest of all splits. */
START_TEST(test_cp_statistic)
{
	const double x[] = { 0, 0, 0, 1, 1, 1 };
	size_t tau;

	ck_assert_double_eq_tol(ul_cp_best_split(x, 6, 2, &tau), 3.0, 1e-12);
	ck_assert_uint_eq(tau, 3);
	/* too short for two sides of 4 */
	ck_assert_double_eq(ul_cp_best_split(x, 6, 4, &tau), 0.0);
	ck_assert_uint_eq(tau, 0);
}
END_TEST

/* Eight "kernels", a 10 % step between the 4th and the 5th (index 4). */
START_TEST(test_cp_one_step_short)
{
	const size_t pos[] = { 4 };
	const double level[] = { 110.0 };
	struct ul_cp_opts o = UL_CP_OPTS_DEFAULT;
	struct ul_changepoint cp[4];
	double x[8];
	size_t n;

	steps(x, 8, pos, level, 1, 1.0, 7);
	ck_assert_int_eq(ul_changepoints(x, 8, &o, cp, 4, &n), 0);
	ck_assert_uint_eq(n, 1);
	ck_assert_uint_eq(cp[0].pos, 4);
	ck_assert(cp[0].p <= o.alpha);
	/* 4 against 4 is the smallest p a permutation can give this split: 2/70 */
	ck_assert(cp[0].p >= 1.0 / 70.0);
	ck_assert_double_eq_tol(cp[0].abs, 10.0, 3.0);
	ck_assert_double_eq_tol(cp[0].rel, 0.10, 0.03);
	ck_assert(cp[0].has_ci);
	ck_assert(cp[0].lo <= cp[0].abs && cp[0].abs <= cp[0].hi);
	ck_assert(cp[0].lo > 0.0);
}
END_TEST

/* A longer series, the step down; the same seed gives the same answer. */
START_TEST(test_cp_one_step)
{
	const size_t pos[] = { 13 };
	const double level[] = { 95.0 };
	struct ul_cp_opts o = UL_CP_OPTS_DEFAULT;
	struct ul_changepoint cp[4], again[4];
	double x[30];
	size_t n, n2;

	steps(x, 30, pos, level, 1, 1.0, 11);
	ck_assert_int_eq(ul_changepoints(x, 30, &o, cp, 4, &n), 0);
	ck_assert_uint_eq(n, 1);
	ck_assert_uint_eq(cp[0].pos, 13);
	ck_assert(cp[0].p <= 0.002); /* 1/1000: no shuffle reached it */
	ck_assert(cp[0].lo <= -5.0 + 1.5 && cp[0].hi >= -5.0 - 1.5);
	ck_assert(cp[0].hi < 0.0);
	ck_assert_int_eq(ul_changepoints(x, 30, &o, again, 4, &n2), 0);
	ck_assert_uint_eq(n2, 1);
	ck_assert_double_eq(again[0].p, cp[0].p);
}
END_TEST

/* Two steps: up at 10, down at 20; each described between its neighbours. */
START_TEST(test_cp_two_steps)
{
	const size_t pos[] = { 10, 20 };
	const double level[] = { 110.0, 104.0 };
	struct ul_cp_opts o = UL_CP_OPTS_DEFAULT;
	struct ul_changepoint cp[4];
	double x[30];
	size_t n;

	steps(x, 30, pos, level, 2, 1.0, 3);
	ck_assert_int_eq(ul_changepoints(x, 30, &o, cp, 4, &n), 0);
	ck_assert_uint_eq(n, 2);
	ck_assert_uint_eq(cp[0].pos, 10);
	ck_assert_uint_eq(cp[1].pos, 20);
	ck_assert_double_eq_tol(cp[0].abs, 10.0, 2.0);
	ck_assert_double_eq_tol(cp[1].abs, -6.0, 2.0);
	ck_assert_double_eq_tol(cp[1].before, cp[0].after, 1e-12);
	ck_assert(cp[0].p <= o.alpha && cp[1].p <= o.alpha);
	/* room for one: the search stops there */
	ck_assert_int_eq(ul_changepoints(x, 30, &o, cp, 1, &n), 0);
	ck_assert_uint_eq(n, 1);
}
END_TEST

/* No change: noise, and a constant series (every split's Q is 0). */
START_TEST(test_cp_none)
{
	struct ul_cp_opts o = UL_CP_OPTS_DEFAULT;
	struct ul_changepoint cp[4];
	double x[24];
	size_t n;

	steps(x, 24, NULL, NULL, 0, 1.0, 5);
	ck_assert_int_eq(ul_changepoints(x, 24, &o, cp, 4, &n), 0);
	ck_assert_uint_eq(n, 0);
	for (size_t i = 0; i < 24; i++)
		x[i] = 42.0;
	ck_assert_int_eq(ul_changepoints(x, 24, &o, cp, 4, &n), 0);
	ck_assert_uint_eq(n, 0);
	/* too short to split: nothing, no error */
	ck_assert_int_eq(ul_changepoints(x, 3, &o, cp, 4, &n), 0);
	ck_assert_uint_eq(n, 0);
}
END_TEST

/*
 * The false-alarm rate: 200 noise series of 20 values, alpha 0.05, 199
 * shuffles each.  A series reports a change only when its first test
 * rejects, which has probability at most alpha; so the count of series
 * with any change point is at most Binomial(200, 0.05): mean 10, and
 * P(X >= 20) = 0.0027.  Allowed: 19.  A broken test (e.g. the observed
 * split not compared with the shuffles' best splits) alarms on most.
 */
START_TEST(test_cp_false_alarms)
{
	struct ul_cp_opts o = { .alpha = 0.05, .permutations = 199, .seed = 17, .min_size = 2 };
	struct ul_changepoint cp[8];
	unsigned alarms = 0;
	double x[20];
	size_t n;

	for (uint64_t s = 0; s < 200; s++) {
		steps(x, 20, NULL, NULL, 0, 1.0, 1000 + s);
		o.seed = s + 1;
		ck_assert_int_eq(ul_changepoints(x, 20, &o, cp, 8, &n), 0);
		alarms += n > 0;
	}
	ck_assert_uint_le(alarms, 19);
	/* and the test has power: a 3-sd step in the same noise is found nearly always */
	{
		const size_t pos[] = { 10 };
		const double level[] = { 103.0 };
		unsigned found = 0;

		for (uint64_t s = 0; s < 50; s++) {
			steps(x, 20, pos, level, 1, 1.0, 5000 + s);
			ck_assert_int_eq(ul_changepoints(x, 20, &o, cp, 8, &n), 0);
			found += n >= 1;
		}
		ck_assert_uint_ge(found, 45);
	}
}
END_TEST

START_TEST(test_cp_bad_options)
{
	const double x[] = { 1, 2, 3, 4 };
	struct ul_cp_opts o = UL_CP_OPTS_DEFAULT;
	struct ul_changepoint cp[2];
	size_t n = 9;

	o.alpha = 0.0;
	ck_assert_int_eq(ul_changepoints(x, 4, &o, cp, 2, &n), -EINVAL);
	ck_assert_uint_eq(n, 0);
	o = UL_CP_OPTS_DEFAULT;
	o.permutations = 0;
	ck_assert_int_eq(ul_changepoints(x, 4, &o, cp, 2, &n), -EINVAL);
	o = UL_CP_OPTS_DEFAULT;
	o.min_size = 0;
	ck_assert_int_eq(ul_changepoints(x, 4, &o, cp, 2, &n), -EINVAL);
}
END_TEST

Suite *ul_test_suite_changepoint(void)
{
	Suite *s = suite_create("changepoint");
	TCase *tc = tcase_create("changepoint");

	tcase_add_test(tc, test_cp_statistic);
	tcase_add_test(tc, test_cp_one_step_short);
	tcase_add_test(tc, test_cp_one_step);
	tcase_add_test(tc, test_cp_two_steps);
	tcase_add_test(tc, test_cp_none);
	tcase_add_test(tc, test_cp_false_alarms);
	tcase_add_test(tc, test_cp_bad_options);
	suite_add_tcase(s, tc);
	return s;
}

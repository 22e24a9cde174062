/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Unit tests of the variance components and the cheapest design
 * (stats/varcomp.c): components recovered from simulated nested normal
 * data, an exactly computed design with a zero component, and the
 * optimal counts against hand-computed values.
 */
#include "unit.h"
#include "stats/varcomp.h"

#include <errno.h>
#include <math.h>
#include <stdint.h>
#include <stdlib.h>

/* splitmix64: a fixed seed gives the same data on every machine. */
static uint64_t rng_state;

static double uniform01(void)
{
	uint64_t z = (rng_state += 0x9e3779b97f4a7c15ULL);

	z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
	z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
	z ^= z >> 31;
	return ((double)(z >> 11) + 0.5) / 9007199254740992.0; /* (0, 1) */
}

/* A standard normal deviate (Box-Muller, one of the pair). */
static double normal01(void)
{
	return sqrt(-2.0 * log(uniform01())) * cos(2.0 * M_PI * uniform01());
}

#define SIM_RUNS 200
#define SIM_MAX_CELLS 5
#define SIM_MAX_POINTS 14

/*
 * x = 100 + a + b + e with S.D.s 2 (runs), 1 (cells), 3 (points): the
 * components 4, 1 and 9.  Unbalanced: run r has 2 + r % 4 cells, its
 * cell j 6 + (3 j + r) % 9 points.  The tolerances are about four
 * standard errors of each estimate (Var(S^2) = 2 E[S^2]^2 / df for
 * normal data): df1 ~ 200 x 3.5 x 9 = 6300, SE(S1^2) = 9 sqrt(2/6300)
 * = 0.16; df2 = 200 x 2.5 = 500, E[S2^2] ~ 1 + 9/10, SE = 0.12 (T2
 * subtracts ~0.1 S1^2, SE 0.02 more); df3 = 199, E[S3^2] ~ 4 + 1.9/3.5,
 * SE = 0.46 (plus the lower levels' share, ~0.1): 0.7, 0.6 and 2.0.
 */
START_TEST(test_varcomp_simulated)
{
	static double pts[SIM_RUNS][SIM_MAX_CELLS][SIM_MAX_POINTS];
	static struct ul_varcomp_cell cells[SIM_RUNS][SIM_MAX_CELLS];
	struct ul_varcomp_run runs[SIM_RUNS];
	struct ul_varcomp v;

	rng_state = 20130620; /* ISMM 2013 */
	for (size_t r = 0; r < SIM_RUNS; r++) {
		double a = 2.0 * normal01();
		size_t k = 2 + r % 4;

		for (size_t j = 0; j < k; j++) {
			double b = 1.0 * normal01();
			size_t n = 6 + (3 * j + r) % 9;

			for (size_t i = 0; i < n; i++)
				pts[r][j][i] = 100.0 + a + b + 3.0 * normal01();
			cells[r][j] = (struct ul_varcomp_cell){ .x = pts[r][j], .n = n };
		}
		runs[r] = (struct ul_varcomp_run){ .cells = cells[r], .n_cells = k };
	}
	ck_assert_int_eq(ul_varcomp_estimate(runs, SIM_RUNS, &v), 0);
	ck_assert_uint_eq(v.runs, SIM_RUNS);
	ck_assert_double_eq_tol(v.comp[UL_VARCOMP_POINTS], 9.0, 0.7);
	ck_assert_double_eq_tol(v.comp[UL_VARCOMP_CELLS], 1.0, 0.6);
	ck_assert_double_eq_tol(v.comp[UL_VARCOMP_RUNS], 4.0, 2.0);
	ck_assert_double_eq_tol(v.mean, 100.0, 0.6); /* SE ~ sqrt(4.5/200) = 0.15 */
	ck_assert_double_eq_tol(v.share[0] + v.share[1] + v.share[2], 1.0, 1e-12);
	ck_assert_double_eq_tol(ul_varcomp_cv(&v, UL_VARCOMP_POINTS),
				sqrt(v.comp[UL_VARCOMP_POINTS]) / v.mean, 1e-15);
	for (int l = 0; l < UL_VARCOMP_LEVELS; l++)
		ck_assert(!v.truncated[l]);
}
END_TEST

/*
 * Exact: run 1 cells {1, 3}, {1, 3}; run 2 cells {5, 7}, {5, 7}.
 * S1^2 = (1 + 1) x 4 cells / 4 df = 2; the cell means 2, 2 | 6, 6 give
 * S2^2 = 0, h2 = 1/2, T2^2 = 0 - 2/2 = -1: truncated to 0.  The run
 * means 2 and 6: S3^2 = 8; T3^2 = 8 - (1/2)(-1) - (1/4)(1/2 + 1/2) 2 = 8,
 * Kalibera and Jones's S3^2 - S2^2 / 2 = 8.  Grand mean 4.
 */
START_TEST(test_varcomp_zero_component)
{
	static const double lo_a[] = { 1, 3 }, hi_a[] = { 5, 7 };
	const struct ul_varcomp_cell c1[] = { { lo_a, 2 }, { lo_a, 2 } };
	const struct ul_varcomp_cell c2[] = { { hi_a, 2 }, { hi_a, 2 } };
	const struct ul_varcomp_run runs[] = { { c1, 2 }, { c2, 2 } };
	struct ul_varcomp v;

	ck_assert_int_eq(ul_varcomp_estimate(runs, 2, &v), 0);
	ck_assert_double_eq_tol(v.s2[UL_VARCOMP_POINTS], 2.0, 1e-12);
	ck_assert_double_eq_tol(v.s2[UL_VARCOMP_CELLS], 0.0, 1e-12);
	ck_assert_double_eq_tol(v.s2[UL_VARCOMP_RUNS], 8.0, 1e-12);
	ck_assert_double_eq_tol(v.comp[UL_VARCOMP_POINTS], 2.0, 1e-12);
	ck_assert(v.truncated[UL_VARCOMP_CELLS]);
	ck_assert(v.comp[UL_VARCOMP_CELLS] == 0.0);
	ck_assert_double_eq_tol(v.comp[UL_VARCOMP_RUNS], 8.0, 1e-12);
	ck_assert_double_eq_tol(v.mean, 4.0, 1e-12);
	ck_assert_uint_eq(v.df[UL_VARCOMP_POINTS], 4);
	ck_assert_uint_eq(v.df[UL_VARCOMP_CELLS], 2);
	ck_assert_uint_eq(v.df[UL_VARCOMP_RUNS], 1);
}
END_TEST

/* One run, one cell each: the upper levels are unknown, never 0. */
START_TEST(test_varcomp_unknown_levels)
{
	static const double x[] = { 1, 2, 4 };
	const struct ul_varcomp_cell c[] = { { x, 3 } };
	const struct ul_varcomp_run runs[] = { { c, 1 }, { NULL, 0 } };
	struct ul_varcomp v;

	ck_assert_int_eq(ul_varcomp_estimate(runs, 2, &v), 0);
	ck_assert_uint_eq(v.runs, 1);
	ck_assert_double_eq_tol(v.comp[UL_VARCOMP_POINTS], 7.0 / 3.0, 1e-12);
	ck_assert(isnan(v.comp[UL_VARCOMP_CELLS]));
	ck_assert(isnan(v.comp[UL_VARCOMP_RUNS]));
	ck_assert_int_eq(ul_varcomp_estimate(runs + 1, 1, &v), -EINVAL);
}
END_TEST

/*
 * By hand, mean 100, precision 2%: V0 = (0.02 x 100 / 1.959964)^2 =
 * 1.041275.
 *  - components 9, 1, 4 (points, cells, runs), costs 1, 4, 100:
 *    r1 = ceil(sqrt(4 x 9 / (1 x 1))) = 6, r2 = ceil(sqrt(100 x 1 /
 *    (4 x 4))) = ceil(2.5) = 3; a run's mean has variance 4 + 1/3 + 9/18 =
 *    4.8333, r3 = ceil(4.8333 / 1.041275) = ceil(4.642) = 5; cost
 *    5 (100 + 3 (4 + 6 x 1)) = 650; half-width 1.959964 sqrt(4.8333 / 5)
 *    / 100 = 0.019271.
 *  - cells 0: 1 cell a run, its cost joins the run's (104): r1 =
 *    ceil(sqrt(104 x 9 / 4)) = ceil(15.30) = 16; 4 + 9/16 = 4.5625,
 *    r3 = ceil(4.382) = 5; cost 5 (100 + 4 + 16) = 600.
 *  - runs 0: 1 run; r1 = 6 as above; a cell's mean 1 + 9/6 = 2.5, r2 =
 *    ceil(2.401) = 3; cost 100 + 3 (4 + 6) = 130.
 *  - all 0: 1 x 1 x 1, cost 105.
 */
START_TEST(test_varcomp_design_by_hand)
{
	const double cost[] = { 1, 4, 100 };
	static const struct {
		double comp[3];
		size_t reps[3];
		double cost;
	} cases[] = {
		{ { 9, 1, 4 }, { 6, 3, 5 }, 650 },
		{ { 9, 0, 4 }, { 16, 1, 5 }, 600 },
		{ { 9, 1, 0 }, { 6, 3, 1 }, 130 },
		{ { 0, 0, 0 }, { 1, 1, 1 }, 105 },
	};
	struct ul_varcomp_design d;

	for (size_t i = 0; i < UL_ARRAY_SIZE(cases); i++) {
		ck_assert_int_eq(ul_varcomp_design(cases[i].comp, cost, 100.0, 0.02, &d), 0);
		for (int l = 0; l < UL_VARCOMP_LEVELS; l++) {
			ck_assert_uint_eq(d.reps[l], cases[i].reps[l]);
			ck_assert(!d.capped[l]);
		}
		ck_assert_double_eq_tol(d.cost, cases[i].cost, 1e-9);
		ck_assert(d.half_width_rel <= 0.02);
	}
	ck_assert_int_eq(ul_varcomp_design(cases[0].comp, cost, 100.0, 0.02, &d), 0);
	ck_assert_double_eq_tol(d.half_width_rel, 0.019271, 1e-6);
	/* a free cell is repeated without end: capped */
	ck_assert_int_eq(ul_varcomp_design(cases[0].comp, (const double[]){ 1, 0, 100 }, 100.0,
					   0.02, &d),
			 0);
	ck_assert(d.capped[UL_VARCOMP_CELLS]);
	ck_assert_int_eq(ul_varcomp_design(cases[0].comp, cost, 0.0, 0.02, &d), -EINVAL);
	ck_assert_int_eq(ul_varcomp_design((const double[]){ NAN, 1, 1 }, cost, 1.0, 0.02, &d),
			 -EINVAL);
	ck_assert_int_eq(ul_varcomp_design(cases[0].comp, cost, 100.0, 0.0, &d), -EINVAL);
}
END_TEST

Suite *ul_test_suite_varcomp(void)
{
	Suite *s = suite_create("varcomp");
	TCase *tc = tcase_create("varcomp");

	tcase_add_test(tc, test_varcomp_simulated);
	tcase_add_test(tc, test_varcomp_zero_component);
	tcase_add_test(tc, test_varcomp_unknown_levels);
	tcase_add_test(tc, test_varcomp_design_by_hand);
	suite_add_tcase(s, tc);
	return s;
}

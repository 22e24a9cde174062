/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Unit tests of equivalence (stats/tost.c, and compare's rows with a
 * margin in stats/runcmp_verdict.c) against hand-computed values:
 *  - Student's t with 2 degrees of freedom has closed forms,
 *    F(t) = 1/2 + t / (2 sqrt(2 + t^2)) and
 *    t_p = (2p - 1) / sqrt(2 p (1 - p)), so its TOST is computed by hand;
 *  - with 10 degrees of freedom, the values of a Student t table
 *    (R: pt(-2, 10) = 0.03669402, pt(-1, 10) = 0.1704466,
 *    qt(0.95, 10) = 1.812461; a printed table gives 0.0367, 0.1704 and
 *    1.812).
 */
#include "unit.h"
#include "stats/runcmp.h"
#include "stats/tost.h"

#include <errno.h>
#include <math.h>
#include <stdio.h>

/* P(T_2 <= t) and the p-quantile of T_2, by their closed forms. */
static double t2_cdf(double t)
{
	return 0.5 + t / (2.0 * sqrt(2.0 + t * t));
}

static double t2_quantile(double p)
{
	return (2.0 * p - 1.0) / sqrt(2.0 * p * (1.0 - p));
}

/* shift 3, se 1, df 10, margin 5: the upper test's t is -2, its p
 * pt(-2, 10); the lower one's t is 8; the 90% interval 3 -+ 1.812461. */
START_TEST(test_tost_df10)
{
	struct ul_tost t;

	ck_assert_int_eq(ul_tost_t(3.0, 1.0, 10.0, 5.0, 0.05, &t), 0);
	ck_assert_double_eq_tol(t.t_upper, -2.0, 1e-12);
	ck_assert_double_eq_tol(t.t_lower, 8.0, 1e-12);
	ck_assert_double_eq_tol(t.p_upper, 0.03669402, 1e-7);
	ck_assert(t.p_lower < 1e-4);
	ck_assert_double_eq_tol(t.p, 0.03669402, 1e-7);
	ck_assert_double_eq_tol(t.lo, 3.0 - 1.812461, 1e-5);
	ck_assert_double_eq_tol(t.hi, 3.0 + 1.812461, 1e-5);
	ck_assert(t.equivalent);
	/* margin 4: t = -1, p = pt(-1, 10) = 0.1704466 > 0.05: not shown */
	ck_assert_int_eq(ul_tost_t(3.0, 1.0, 10.0, 4.0, 0.05, &t), 0);
	ck_assert_double_eq_tol(t.p, 0.1704466, 1e-6);
	ck_assert(!t.equivalent);
	/* mirrored: the lower test decides */
	ck_assert_int_eq(ul_tost_t(-3.0, 1.0, 10.0, 5.0, 0.05, &t), 0);
	ck_assert_double_eq_tol(t.p_lower, 0.03669402, 1e-7);
	ck_assert_double_eq_tol(t.p, 0.03669402, 1e-7);
	ck_assert(t.equivalent);
	/* at alpha 0.03: 0.0367 > 0.03 */
	ck_assert_int_eq(ul_tost_t(3.0, 1.0, 10.0, 5.0, 0.03, &t), 0);
	ck_assert(!t.equivalent);
}
END_TEST

/* df 2 by the closed forms: shift 0.5, se 1.5, margin 4. */
START_TEST(test_tost_df2_closed_form)
{
	struct ul_tost t;
	double q = t2_quantile(0.95); /* 2.919986 */

	ck_assert_double_eq_tol(q, 2.919986, 1e-6);
	ck_assert_int_eq(ul_tost_t(0.5, 1.5, 2.0, 4.0, 0.05, &t), 0);
	/* upper: (0.5 - 4) / 1.5 = -2.3333, F = 0.0724..; lower: 4.5 / 1.5 = 3 */
	ck_assert_double_eq_tol(t.p_upper, t2_cdf(-3.5 / 1.5), 1e-9);
	ck_assert_double_eq_tol(t.p_lower, t2_cdf(-3.0), 1e-9);
	ck_assert_double_eq_tol(t.p, t2_cdf(-3.5 / 1.5), 1e-9);
	ck_assert_double_eq_tol(t.lo, 0.5 - q * 1.5, 1e-6);
	ck_assert_double_eq_tol(t.hi, 0.5 + q * 1.5, 1e-6);
	ck_assert(!t.equivalent); /* p 0.0724 > 0.05; hi 4.88 > 4 */
	/* margin 5: p = F(-3) = 0.0477 <= 0.05, hi 4.88 < 5 */
	ck_assert_int_eq(ul_tost_t(0.5, 1.5, 2.0, 5.0, 0.05, &t), 0);
	ck_assert_double_eq_tol(t.p, t2_cdf(-3.0), 1e-9);
	ck_assert_double_eq_tol(t.p, 0.5 - 3.0 / (2.0 * sqrt(11.0)), 1e-9);
	ck_assert(t.equivalent);
}
END_TEST

/* Both tests reject at alpha exactly when the 1 - 2 alpha interval lies
 * inside the margin (Schuirmann 1987). */
START_TEST(test_tost_interval_duality)
{
	const double df[] = { 1.5, 2.0, 4.0, 10.0, 30.0 };
	const double alpha[] = { 0.01, 0.05, 0.1 };

	for (size_t d = 0; d < UL_ARRAY_SIZE(df); d++)
		for (size_t a = 0; a < UL_ARRAY_SIZE(alpha); a++)
			for (double shift = -6.0; shift <= 6.0; shift += 0.37) {
				struct ul_tost t;
				bool inside;

				ck_assert_int_eq(ul_tost_t(shift, 1.3, df[d], 5.0, alpha[a], &t),
						 0);
				inside = t.lo > -5.0 && t.hi < 5.0;
				ck_assert_msg(t.equivalent == inside,
					      "df %g alpha %g shift %g: p %g, [%g, %g]", df[d],
					      alpha[a], shift, t.p, t.lo, t.hi);
			}
}
END_TEST

START_TEST(test_tost_edges)
{
	struct ul_tost t;

	/* no spread: the shift itself decides */
	ck_assert_int_eq(ul_tost_t(4.9, 0.0, 3.0, 5.0, 0.05, &t), 0);
	ck_assert(t.equivalent && t.p == 0.0 && t.lo == 4.9 && t.hi == 4.9);
	ck_assert_int_eq(ul_tost_t(-5.0, 0.0, 3.0, 5.0, 0.05, &t), 0);
	ck_assert(!t.equivalent && t.p == 1.0);
	ck_assert_int_eq(ul_tost_t(1.0, 1.0, 3.0, 0.0, 0.05, &t), -EDOM);
	ck_assert(!t.equivalent);
	ck_assert_int_eq(ul_tost_t(1.0, 1.0, 3.0, NAN, 0.05, &t), -EDOM);
	ck_assert_int_eq(ul_tost_t(1.0, -1.0, 3.0, 5.0, 0.05, &t), -EDOM);
	ck_assert_int_eq(ul_tost_t(1.0, 1.0, 0.0, 5.0, 0.05, &t), -EDOM);
	ck_assert_int_eq(ul_tost_t(1.0, 1.0, 3.0, 5.0, 0.6, &t), -EDOM);
	ck_assert_int_eq(ul_tost_t(NAN, 1.0, 3.0, 5.0, 0.05, &t), -EDOM);
}
END_TEST

/* A run of one resp noload cell whose points are all x (its median x). */
static void one_value_run(struct ul_run *run, int64_t id, const char *label, int64_t x)
{
	struct ul_cell *c;
	struct ul_series *s;

	ul_run_init(run);
	run->id = id;
	snprintf(run->label, sizeof(run->label), "%s", label);
	c = ul_run_add_cell(run);
	ck_assert_ptr_nonnull(c);
	snprintf(c->suite, sizeof(c->suite), "resp");
	snprintf(c->load, sizeof(c->load), "noload");
	s = ul_cell_series(c, "delay_ns");
	ck_assert_ptr_nonnull(s);
	for (int i = 0; i < 3; i++)
		ck_assert_int_eq(ul_series_push(s, x), 0);
}

static const struct ul_runcmp_metric delay = { "resp", "delay_ns", "delay", "ns", UL_BETTER_LOWER };

/*
 * Six replicates a side, 1000 + {-25, -10, -5, 5, 10, 25} and 30 more:
 * equal S.D.s and n, so Welch's df is 2n - 2 = 10 and se = sqrt(2 x 30 / 6)
 * = 10; shift 30.  The test of a difference: t 3, p = 2 pt(-3, 10) = 0.0133,
 * slower.  Margin 5% of 1000 = 50: t_upper = -2, TOST p = 0.0367: equal.
 * Margin 4%: t_upper = -1, TOST p = 0.1704: slower stays.
 */
START_TEST(test_row_equivalence)
{
	static const int64_t dev[6] = { -25, -10, -5, 5, 10, 25 };
	struct ul_run runs[2][6];
	const struct ul_run *ptr[2][6];
	struct ul_runcmp_group g[2] = { { .label = "b" }, { .label = "c" } };
	struct ul_cmp_opts o = { .alpha = 0.05, .margin_rel = 0.05 };
	struct ul_runcmp c;
	const struct ul_runcmp_row *r;

	for (int side = 0; side < 2; side++) {
		for (int i = 0; i < 6; i++) {
			one_value_run(&runs[side][i], side * 6 + i + 1, g[side].label,
				      1000 + (side ? 30 : 0) + dev[i]);
			ptr[side][i] = &runs[side][i];
		}
		g[side].runs = ptr[side];
		g[side].n_runs = 6;
	}
	ck_assert_int_eq(ul_runcmp_build(g, 2, &delay, 1, &o, &c), 0);
	r = &c.rows[0];
	ck_assert_int_eq(r->basis, UL_BASIS_REPLICATES);
	ck_assert_double_eq_tol(r->rep.se, 10.0, 1e-9);
	ck_assert_double_eq_tol(r->rep.df, 10.0, 1e-9);
	ck_assert_double_eq_tol(r->res.p, 2.0 * 0.006671828, 1e-7); /* 2 pt(-3, 10) */
	ck_assert(r->tost_done);
	ck_assert_double_eq_tol(r->tost.margin, 50.0, 1e-9);
	ck_assert_double_eq_tol(r->tost.p, 0.03669402, 1e-7);
	ck_assert_int_eq(r->res.verdict, UL_VERDICT_EQUAL);
	ck_assert_int_eq(r->verdict_diff, UL_VERDICT_SLOWER);
	ck_assert(r->holm_survives); /* the difference survives Holm; equal is shown */
	ck_assert_str_eq(ul_cmp_verdict_name(r->res.verdict), "equal");
	ul_runcmp_free(&c);

	o.margin_rel = 0.04;
	ck_assert_int_eq(ul_runcmp_build(g, 2, &delay, 1, &o, &c), 0);
	r = &c.rows[0];
	ck_assert(r->tost_done);
	ck_assert_double_eq_tol(r->tost.p, 0.1704466, 1e-6);
	ck_assert_int_eq(r->res.verdict, UL_VERDICT_SLOWER);
	ul_runcmp_free(&c);

	o.margin_rel = 0.0; /* no margin: no TOST, never equal */
	ck_assert_int_eq(ul_runcmp_build(g, 2, &delay, 1, &o, &c), 0);
	ck_assert(!c.rows[0].tost_done);
	ck_assert_int_eq(c.rows[0].res.verdict, UL_VERDICT_SLOWER);
	ul_runcmp_free(&c);

	/* one replicate a side, nothing learned: within-run points alone
	 * never show equivalence (here the points are identical: 1000 v 1000) */
	g[0].n_runs = g[1].n_runs = 1;
	g[1].runs = ptr[0];
	o.margin_rel = 0.05;
	ck_assert_int_eq(ul_runcmp_build(g, 2, &delay, 1, &o, &c), 0);
	ck_assert_int_eq(c.rows[0].basis, UL_BASIS_UNMEASURED);
	ck_assert(!c.rows[0].tost_done);
	ck_assert_int_ne(c.rows[0].res.verdict, UL_VERDICT_EQUAL);
	ul_runcmp_free(&c);
	for (int side = 0; side < 2; side++)
		for (int i = 0; i < 6; i++)
			ul_run_release(&runs[side][i]);
}
END_TEST

/*
 * One replicate a side with a learned variance: history 900, 1000, 1100
 * (cv 0.1, df 2).  1000 v 1000: shift 0, se = 0.1 sqrt(1000^2 + 1000^2)
 * = 141.42, margin 5% = 50: t_upper = -0.35355, p = F_2(-0.35355) =
 * 0.3787 by the closed form: not shown equal (one run a side is too few).
 * Margin 40% = 400: t = -2.8284, p = F_2(-2.8284) = 0.0528: not yet;
 * margin 45% = 450: t = -3.182, p = 0.0431: equal.
 */
START_TEST(test_row_equivalence_learned)
{
	struct ul_run b, k, h[3];
	const struct ul_run *pb[] = { &b }, *pk[] = { &k }, *ph[] = { &h[0], &h[1], &h[2] };
	const struct ul_runcmp_group g[2] = { { .label = "b", .runs = pb, .n_runs = 1 },
					      { .label = "c", .runs = pk, .n_runs = 1 } };
	const struct ul_runcmp_group hist[1] = { { .label = "h", .runs = ph, .n_runs = 3 } };
	const double margin[] = { 0.05, 0.40, 0.45 };
	const bool equal[] = { false, false, true };

	one_value_run(&b, 1, "b", 1000);
	one_value_run(&k, 2, "c", 1000);
	for (int i = 0; i < 3; i++)
		one_value_run(&h[i], 3 + i, "h", 900 + 100 * i);
	for (size_t i = 0; i < UL_ARRAY_SIZE(margin); i++) {
		struct ul_cmp_opts o = { .alpha = 0.05, .margin_rel = margin[i] };
		double se = 0.1 * sqrt(2.0) * 1000.0;
		struct ul_runcmp c;
		const struct ul_runcmp_row *r;

		ck_assert_int_eq(ul_runcmp_build_hist(g, 2, &delay, 1, &o, UL_RUNCMP_POINTS, hist,
						      1, &c),
				 0);
		r = &c.rows[0];
		ck_assert_int_eq(r->basis, UL_BASIS_LEARNED);
		ck_assert_double_eq_tol(r->rep.se, se, 1e-6);
		ck_assert_double_eq_tol(r->rep.df, 2.0, 1e-12);
		ck_assert(r->tost_done);
		ck_assert_double_eq_tol(r->tost.p, t2_cdf(-margin[i] * 1000.0 / se), 1e-9);
		ck_assert_int_eq(r->res.verdict == UL_VERDICT_EQUAL, equal[i]);
		ul_runcmp_free(&c);
	}
	ck_assert_double_eq_tol(t2_cdf(-50.0 / (0.1 * sqrt(2.0) * 1000.0)), 0.3787, 1e-4);
	ul_run_release(&b);
	ul_run_release(&k);
	for (int i = 0; i < 3; i++)
		ul_run_release(&h[i]);
}
END_TEST

Suite *ul_test_suite_tost(void)
{
	Suite *s = suite_create("tost");
	TCase *tc = tcase_create("tost");

	tcase_add_test(tc, test_tost_df10);
	tcase_add_test(tc, test_tost_df2_closed_form);
	tcase_add_test(tc, test_tost_interval_duality);
	tcase_add_test(tc, test_tost_edges);
	tcase_add_test(tc, test_row_equivalence);
	tcase_add_test(tc, test_row_equivalence_learned);
	suite_add_tcase(s, tc);
	return s;
}

/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Unit tests for src/stats/compare.c, dist.c and rank.c against published
 * values: ministat's t table, Mann-Whitney critical values, R's
 * wilcox.test example (Hollander & Wolfe), brute-force enumeration of the
 * exact U law, and verdicts on synthetic samples with and without a shift.
 */
#include "unit.h"
#include "stats/compare.h"
#include "stats/runcmp.h"
#include "ministat_student.h"

#include <errno.h>
#include <stdio.h>
#include <math.h>
#include <stdlib.h>

START_TEST(test_t_quantile_vs_ministat)
{
	int bad = 0;

	for (int row = 0; row <= 100; row++) {
		double df = row ? row : INFINITY;

		for (int c = 0; c < 6; c++) {
			double want = ministat_student[row][c];

			/* ministat's 0.999 column is short by up to 0.003 at df 7-12;
			 * every other table (e.g. Zar B.3) prints these */
			static const double fixed999[] = {
				4.785, 4.501, 4.297, 4.144, 4.025, 3.930
			};

			if (c == 5 && row >= 7 && row <= 12)
				want = fixed999[row - 7];
			double got = ul_stats_t_quantile(ministat_p[c], df);

			/* three decimals; a few entries of the old table are off in the
			 * last digit (318.313 for 318.309), hence the relative slack */
			if (fabs(got - want) > 0.0005 + 2e-5 * want) {
				fprintf(stderr, "df %g p %g: %.5f, table %.3f\n", df, ministat_p[c],
					got, want);
				bad++;
			}
		}
	}
	ck_assert_int_eq(bad, 0);
	/* fractional df (Welch) lies between its neighbours */
	ck_assert(ul_stats_t_quantile(0.975, 7.5) < ul_stats_t_quantile(0.975, 7));
	ck_assert(ul_stats_t_quantile(0.975, 7.5) > ul_stats_t_quantile(0.975, 8));
	ck_assert_double_eq_tol(ul_stats_t_quantile(0.025, 10), -2.228138851986, 1e-9);
	ck_assert_double_eq_tol(ul_stats_t_cdf(2.228138851986, 10), 0.975, 1e-10);
}
END_TEST

START_TEST(test_normal)
{
	ck_assert_double_eq_tol(ul_stats_norm_quantile(0.975), 1.959963984540054, 1e-12);
	ck_assert_double_eq_tol(ul_stats_norm_quantile(0.999), 3.090232306167813, 1e-12);
	ck_assert_double_eq_tol(ul_stats_norm_quantile(0.8), 0.8416212335729143, 1e-12);
	ck_assert_double_eq_tol(ul_stats_norm_quantile(1e-10), -6.361340902404056, 1e-9);
	ck_assert_double_eq_tol(ul_stats_norm_cdf(1.959963984540054), 0.975, 1e-14);
	ck_assert(isnan(ul_stats_norm_quantile(1.5)));
	/* I_x(a, 1) = x^a and I_x(1, b) = 1 - (1-x)^b */
	ck_assert_double_eq_tol(ul_stats_ibeta(0.3, 2.5, 1.0), pow(0.3, 2.5), 1e-13);
	ck_assert_double_eq_tol(ul_stats_ibeta(0.3, 1.0, 4.0), 1.0 - pow(0.7, 4.0), 1e-13);
}
END_TEST

/*
 * Two-sided alpha = 0.05 critical values of U (reject when U <= value),
 * as printed in the standard tables (e.g. Siegel & Castellan, Table J;
 * Zar, Biostatistical Analysis, Table B.11).
 */
START_TEST(test_mwu_critical_values)
{
	static const struct {
		size_t m, n;
		long crit;
	} tab[] = {
		{ 5, 5, 2 },	 { 6, 6, 5 },	 { 7, 7, 8 },	 { 8, 8, 13 },	 { 9, 9, 17 },
		{ 10, 10, 23 },	 { 11, 11, 30 }, { 12, 12, 37 }, { 13, 13, 45 }, { 14, 14, 55 },
		{ 15, 15, 64 },	 { 16, 16, 75 }, { 17, 17, 87 }, { 18, 18, 99 }, { 19, 19, 113 },
		{ 20, 20, 127 }, { 5, 10, 8 },	 { 5, 20, 20 },	 { 10, 20, 55 }, { 10, 15, 39 },
		{ 4, 4, 0 },	 { 3, 3, -1 },	 { 2, 8, 0 },
	};

	for (size_t i = 0; i < sizeof(tab) / sizeof(tab[0]); i++) {
		long got = ul_stats_mwu_critical(tab[i].m, tab[i].n, 0.05);

		if (got != tab[i].crit)
			fprintf(stderr, "m %zu n %zu: %ld, table %ld\n", tab[i].m, tab[i].n, got,
				tab[i].crit);
		ck_assert_int_eq(got, tab[i].crit);
		/* symmetric in m, n */
		ck_assert_int_eq(ul_stats_mwu_critical(tab[i].n, tab[i].m, 0.05), tab[i].crit);
	}
}
END_TEST

/* The exact law against enumeration of every ranking (m = 5, n = 7: 792 subsets). */
START_TEST(test_mwu_exact_law_bruteforce)
{
	enum {
		M = 5,
		N = 7
	};
	unsigned count[M * N + 1] = { 0 }, total = 0;

	for (unsigned mask = 0; mask < (1u << (M + N)); mask++) {
		unsigned u = 0, below = 0;

		if (__builtin_popcount(mask) != M)
			continue;
		/* the M set bits are the first sample; U = pairs (first > second) */
		for (int bit = 0; bit < M + N; bit++) {
			if (mask & (1u << bit))
				u += below;
			else
				below++;
		}
		count[u]++;
		total++;
	}
	ck_assert_uint_eq(total, 792);
	for (unsigned u = 0, acc = 0; u <= M * N; u++) {
		acc += count[u];
		ck_assert_double_eq_tol(ul_stats_mwu_cdf(M, N, u), (double)acc / total, 1e-12);
	}
}
END_TEST

/*
 * R's wilcox.test example (Hollander & Wolfe 1973, p. 69, permeability
 * constants): W = 35, one-sided p = 0.1272 ("greater"), difference in
 * location 0.305.
 */
START_TEST(test_mwu_hl_textbook)
{
	const double x[] = { 0.80, 0.83, 1.89, 1.04, 1.45, 1.38, 1.91, 1.64, 0.73, 1.46 };
	const double y[] = { 1.15, 0.88, 0.90, 0.74, 1.21 };
	const double a[] = { 1, 2, 3 }, b[] = { 4, 5, 6 };
	struct ul_cmp_result r;

	ck_assert_int_eq(ul_stats_compare(y, 5, x, 10, NULL, &r), 0);
	ck_assert(r.exact);
	ck_assert_double_eq(r.statistic, 35);
	ck_assert_double_eq_tol(r.p / 2, 0.1272, 0.00005);
	ck_assert_double_eq_tol(r.shift, 0.305, 1e-12);
	ck_assert_int_eq(r.verdict, UL_VERDICT_NONE);
	ck_assert(r.has_ci && r.shift_lo < 0 && r.shift_hi > 0.305);
	ck_assert(r.need_per_side > 10);
	/* all of b above all of a: U = 9, exact p = 2/20 = 0.1, no 95% verdict possible */
	ck_assert_int_eq(ul_stats_compare(a, 3, b, 3, NULL, &r), 0);
	ck_assert_double_eq(r.statistic, 9);
	ck_assert_double_eq_tol(r.p, 0.1, 1e-12);
	ck_assert(!r.can_decide);
	ck_assert(!r.has_ci);
	ck_assert_int_eq(r.verdict, UL_VERDICT_NONE);
	/* Noether for P(C > B) = 1: (1.96 + 0.84)^2 / (6 * 0.25) = 5.2 -> 6 per side */
	ck_assert_uint_eq(r.need_per_side, 6);
	/* a slight shift needs many, but never fewer than 4 (2/C(8,4) = 0.029 < 0.05) */
	{
		const double c[] = { 1.5, 2.5, 3.5 };

		ck_assert_int_eq(ul_stats_compare(a, 3, c, 3, NULL, &r), 0);
		ck_assert_uint_ge(r.need_per_side, 4);
	}
	ck_assert_str_eq(ul_cmp_verdict_name(r.verdict), "no difference proven");
}
END_TEST

/* The HL interval is the k-th smallest difference, against brute force. */
START_TEST(test_pairdiff_kth_bruteforce)
{
	double b[37], c[23], d[37 * 23];
	unsigned seed = 12345;

	for (size_t i = 0; i < 37; i++)
		b[i] = (double)(rand_r(&seed) % 50);
	for (size_t i = 0; i < 23; i++)
		c[i] = (double)(rand_r(&seed) % 50) - 0.5 * (i % 3);
	for (size_t i = 0; i < 37; i++)
		for (size_t j = 0; j < 23; j++)
			d[i * 23 + j] = c[j] - b[i];
	/* sort everything */
	for (size_t i = 1; i < 37; i++)
		for (size_t j = i; j > 0 && b[j] < b[j - 1]; j--) {
			double t = b[j];
			b[j] = b[j - 1];
			b[j - 1] = t;
		}
	for (size_t i = 1; i < 23; i++)
		for (size_t j = i; j > 0 && c[j] < c[j - 1]; j--) {
			double t = c[j];
			c[j] = c[j - 1];
			c[j - 1] = t;
		}
	for (size_t i = 1; i < 37 * 23; i++)
		for (size_t j = i; j > 0 && d[j] < d[j - 1]; j--) {
			double t = d[j];
			d[j] = d[j - 1];
			d[j - 1] = t;
		}
	for (uint64_t k = 1; k <= 37 * 23; k += 7)
		ck_assert_double_eq(ul_stats_pairdiff_kth(b, 37, c, 23, k), d[k - 1]);
	ck_assert_double_eq(ul_stats_pairdiff_kth(b, 37, c, 23, 37 * 23), d[37 * 23 - 1]);
}
END_TEST

/* Deterministic pseudo-normal noise (sum of 12 uniforms - 6). */
static double noise(unsigned *seed)
{
	double s = 0;

	for (int i = 0; i < 12; i++)
		s += (double)rand_r(seed) / RAND_MAX;
	return s - 6.0;
}

START_TEST(test_verdicts_synthetic)
{
	double base[20], slow[20], same[20], fast[20];
	unsigned seed = 42;
	struct ul_cmp_result r;
	struct ul_cmp_opts welch = { .test = UL_CMP_WELCH, .alpha = 0.05 };
	struct ul_cmp_opts higher = { .test = UL_CMP_MWU, .better = UL_BETTER_HIGHER };

	for (int i = 0; i < 20; i++) {
		base[i] = 100.0 + noise(&seed);
		slow[i] = 110.0 + noise(&seed); /* +10% with S.D. 1: a sure shift */
		same[i] = 100.0 + noise(&seed);
		fast[i] = 90.0 + noise(&seed);
	}
	ck_assert_int_eq(ul_stats_compare(base, 20, slow, 20, NULL, &r), 0);
	ck_assert_int_eq(r.verdict, UL_VERDICT_SLOWER);
	ck_assert(r.exact && r.p < 1e-6);
	ck_assert(r.has_ci && r.shift_lo > 8.5 && r.shift_hi < 11.5);
	ck_assert(r.ci_lo_rel > 0.085 && r.ci_hi_rel < 0.115);
	ck_assert_double_eq_tol(r.change_rel, 0.10, 0.02);
	ck_assert_uint_eq(r.need_per_side, 0);
	ck_assert_int_eq(ul_stats_compare(base, 20, fast, 20, NULL, &r), 0);
	ck_assert_int_eq(r.verdict, UL_VERDICT_FASTER);
	ck_assert_int_eq(ul_stats_compare(base, 20, same, 20, NULL, &r), 0);
	ck_assert_int_eq(r.verdict, UL_VERDICT_NONE);
	ck_assert(r.p > 0.05 && r.shift_lo < 0 && r.shift_hi > 0);
	/* throughput: higher is better, so the +10% sample is "faster" */
	ck_assert_int_eq(ul_stats_compare(base, 20, slow, 20, &higher, &r), 0);
	ck_assert_int_eq(r.verdict, UL_VERDICT_FASTER);
	/* Welch agrees, and its CI holds the true shift */
	ck_assert_int_eq(ul_stats_compare(base, 20, slow, 20, &welch, &r), 0);
	ck_assert_int_eq(r.verdict, UL_VERDICT_SLOWER);
	ck_assert(r.df > 30 && r.df <= 38);
	ck_assert(r.shift_lo < 10.0 && r.shift_hi > 10.0);
	ck_assert_int_eq(ul_stats_compare(base, 20, same, 20, &welch, &r), 0);
	ck_assert_int_eq(r.verdict, UL_VERDICT_NONE);
}
END_TEST

/* The level promised: about alpha of many A/A comparisons call a difference. */
START_TEST(test_aa_false_positive_rate)
{
	unsigned seed = 7, hits = 0, hits_normal = 0;
	double a[10], b[10], la[60], lb[60];
	struct ul_cmp_result r;

	for (int t = 0; t < 2000; t++) {
		for (int i = 0; i < 10; i++) {
			a[i] = exp(noise(&seed) * 0.3); /* skewed, like latencies */
			b[i] = exp(noise(&seed) * 0.3);
		}
		ck_assert_int_eq(ul_stats_compare(a, 10, b, 10, NULL, &r), 0);
		hits += r.verdict != UL_VERDICT_NONE;
	}
	for (int t = 0; t < 500; t++) {
		for (int i = 0; i < 60; i++) {
			la[i] = floor(exp(noise(&seed) * 0.3) * 20); /* ties: the normal branch */
			lb[i] = floor(exp(noise(&seed) * 0.3) * 20);
		}
		ck_assert_int_eq(ul_stats_compare(la, 60, lb, 60, NULL, &r), 0);
		ck_assert(!r.exact);
		hits_normal += r.verdict != UL_VERDICT_NONE;
	}
	/* 5% of 2000 = 100 (binomial S.D. ~10); the exact test is conservative */
	ck_assert_uint_le(hits, 130);
	ck_assert_uint_ge(hits, 50);
	ck_assert_uint_le(hits_normal, 45);
}
END_TEST

START_TEST(test_holm)
{
	/* Holm on (0.01, 0.04, 0.03, 0.005) at 0.05: sorted 0.005*4 = 0.02,
	 * 0.01*3 = 0.03, 0.03*2 = 0.06 > 0.05 -> the last two fail. */
	const double p[] = { 0.01, 0.04, 0.03, 0.005, NAN };
	double adj[5];
	bool keep[5];

	ul_stats_holm(p, 5, 0.05, adj, keep);
	ck_assert(keep[0] && !keep[1] && !keep[2] && keep[3] && !keep[4]);
	ck_assert_double_eq_tol(adj[3], 0.02, 1e-12);
	ck_assert_double_eq_tol(adj[0], 0.03, 1e-12);
	ck_assert_double_eq_tol(adj[2], 0.06, 1e-12);
	ck_assert_double_eq_tol(adj[1], 0.06, 1e-12); /* max(0.06, 0.04) */
	ck_assert(isnan(adj[4]));
}
END_TEST

START_TEST(test_compare_refusals)
{
	const double one[] = { 1 }, two[] = { 1, 2 }, bad[] = { 1, NAN };
	struct ul_cmp_result r;
	struct ul_cmp_opts o = { .alpha = 0.7 };
	enum ul_cmp_test t;

	ck_assert_int_eq(ul_stats_compare(one, 1, two, 2, NULL, &r), -EDOM);
	ck_assert_int_eq(ul_stats_compare(two, 2, bad, 2, NULL, &r), -EINVAL);
	ck_assert_int_eq(ul_stats_compare(two, 2, two, 2, &o, &r), -EINVAL);
	ck_assert_int_eq(ul_cmp_test_parse("welch", &t), 0);
	ck_assert_int_eq(t, UL_CMP_WELCH);
	ck_assert_int_eq(ul_cmp_test_parse("t", &t), -EINVAL);
	/* all values equal: nothing proven either way */
	ck_assert_int_eq(ul_stats_compare(two, 2, two, 2, NULL, &r), 0);
	ck_assert_int_eq(r.verdict, UL_VERDICT_NONE);
}
END_TEST

/* A run with one resp noload cell of the given samples (and fixed_n when > 0). */
static void make_run(struct ul_run *run, int64_t id, const char *label, const int64_t *v, size_t n,
		     double fixed_n)
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
	for (size_t i = 0; i < n; i++)
		ck_assert_int_eq(ul_series_push(s, v[i]), 0);
	if (fixed_n > 0)
		ck_assert_int_eq(ul_cell_set_metric(c, UL_RUNCMP_FIXED_N, fixed_n), 0);
}

/* Pooling, the fixed prefix, untestable rows and Holm over stored-run shapes. */
START_TEST(test_runcmp_pool_prefix)
{
	/* base: two runs; the second was adaptive (fixed_n 3) and its tail is huge */
	const int64_t b1[] = { 100, 101, 102, 103 }, b2[] = { 99, 100, 104, 9000, 9001 };
	const int64_t c1[] = { 200, 201, 202, 203, 204, 205 }, one[] = { 150 };
	struct ul_run r1, r2, r3, r4;
	const struct ul_run *ga[] = { &r1, &r2 }, *gb[] = { &r3 }, *gc[] = { &r4 };
	struct ul_runcmp_group g[3] = {
		{ .label = "A", .runs = ga, .n_runs = 2 },
		{ .label = "B", .runs = gb, .n_runs = 1 },
		{ .label = "C", .runs = gc, .n_runs = 1 },
	};
	const struct ul_runcmp_metric m = { "resp", "delay_ns", "delay", "ns", UL_BETTER_LOWER };
	struct ul_cmp_opts o = { .alpha = 0.05 };
	struct ul_runcmp c;

	make_run(&r1, 1, "A", b1, 4, 4);
	make_run(&r2, 2, "A", b2, 5, 3);
	make_run(&r3, 3, "B", c1, 6, 0);
	make_run(&r4, 4, "C", one, 1, 0);
	r2.cells[0].flags |= UL_CELL_DISTURBED;
	ck_assert_int_eq(ul_runcmp_build(g, 3, &m, 1, &o, &c), 0);
	ck_assert_uint_eq(c.n_rows, 2);
	ck_assert(c.rows[0].tested);
	ck_assert_uint_eq(c.rows[0].runs_base, 2);
	ck_assert_uint_eq(c.rows[0].res.n_base, 4 + 3); /* 9000 and 9001 never enter */
	ck_assert_uint_eq(c.rows[0].prefix_base, 3);
	ck_assert_uint_eq(c.rows[0].cells_base, 2);
	ck_assert_uint_eq(c.rows[0].disturbed_base, 1);
	ck_assert_uint_eq(c.rows[0].disturbed_cand, 0);
	/* the baseline's two runs agree (4 v 3 points, interleaved); B has one run */
	ck_assert(c.rows[0].p_runs_base > 0.5);
	ck_assert(isnan(c.rows[0].p_runs_cand));
	ck_assert_double_eq(c.rows[0].res.median_base, 101);
	/* A's two replicates (medians 101.5 and 100) give the run-to-run
	 * variance that B's one replicate is judged with */
	ck_assert_int_eq(c.rows[0].basis, UL_BASIS_LEARNED);
	ck_assert_uint_eq(c.rows[0].reps_base, 2);
	ck_assert_uint_eq(c.rows[0].reps_cand, 1);
	ck_assert_int_eq(c.rows[0].res.verdict, UL_VERDICT_SLOWER);
	ck_assert(c.rows[0].holm_survives);
	/* C has one point, one replicate: judged the same way */
	ck_assert(c.rows[1].tested);
	ck_assert_int_eq(c.rows[1].basis, UL_BASIS_LEARNED);
	ul_runcmp_free(&c);
	/* per run: one median each (r1: 101.5; r2's prefix 99 100 104: 100) */
	{
		struct ul_runcmp_pooled pr;

		ck_assert_int_eq(ul_runcmp_pool_runs(&g[0], &m, "noload", &pr), 0);
		ck_assert_uint_eq(pr.n, 2);
		ck_assert_double_eq(pr.v[0], 101.5);
		ck_assert_double_eq(pr.v[1], 100);
		ck_assert_uint_eq(pr.runs, 2);
		free(pr.v);
	}
	ck_assert_int_eq(ul_runcmp_build_unit(g, 2, &m, 1, &o, UL_RUNCMP_RUNS, &c), 0);
	/* per run, A's two runs are its replicates; B's one run is judged
	 * with their run-to-run variance */
	ck_assert(c.rows[0].tested);
	ck_assert_int_eq(c.rows[0].basis, UL_BASIS_LEARNED);
	ck_assert_uint_eq(c.rows[0].reps_base, 2);
	ck_assert_uint_eq(c.rows[0].reps_cand, 1);
	ul_runcmp_free(&c);
	ul_run_release(&r1);
	ul_run_release(&r2);
	ul_run_release(&r3);
	ul_run_release(&r4);
}
END_TEST

Suite *ul_test_suite_compare(void)
{
	Suite *s = suite_create("compare");
	TCase *tc = tcase_create("compare");

	tcase_set_timeout(tc, 60);
	tcase_add_test(tc, test_t_quantile_vs_ministat);
	tcase_add_test(tc, test_normal);
	tcase_add_test(tc, test_mwu_critical_values);
	tcase_add_test(tc, test_mwu_exact_law_bruteforce);
	tcase_add_test(tc, test_mwu_hl_textbook);
	tcase_add_test(tc, test_pairdiff_kth_bruteforce);
	tcase_add_test(tc, test_verdicts_synthetic);
	tcase_add_test(tc, test_aa_false_positive_rate);
	tcase_add_test(tc, test_holm);
	tcase_add_test(tc, test_compare_refusals);
	tcase_add_test(tc, test_runcmp_pool_prefix);
	suite_add_tcase(s, tc);
	return s;
}

/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * The sequential A/B of two labels (src/stats/seqab.c) over made-up runs:
 * runs paired oldest first, the sign of "worse" for both kinds of metric,
 * a pair without the test left out, the family's alpha split over the
 * rows, and the verdicts slower, faster and equal.
 */
#include "unit.h"
#include "stats/seqab.h"

#include <errno.h>
#include <math.h>
#include <stdio.h>

#define NRUNS 8

static const struct ul_runcmp_metric delay = { "resp", "delay_ns", "delay", "ns", UL_BETTER_LOWER };
static const struct ul_runcmp_metric ops = { "fsbench", "ops", "throughput", "ops/s",
					     UL_BETTER_HIGHER };

/* A run with one cell of `suite`/`test` whose points are all `v` (none: no cell). */
static void add_cell(struct ul_run *run, const char *suite, const char *series, const char *test,
		     int64_t v)
{
	struct ul_cell *c = ul_run_add_cell(run);
	struct ul_series *s;

	ck_assert_ptr_nonnull(c);
	snprintf(c->suite, sizeof(c->suite), "%s", suite);
	snprintf(c->load, sizeof(c->load), "%s", test);
	s = ul_cell_series(c, series);
	ck_assert_ptr_nonnull(s);
	for (int i = 0; i < 5; i++)
		ck_assert_int_eq(ul_series_push(s, v + (i % 3) - 1), 0);
}

/* A small deterministic wobble of about +-1%. */
static int64_t wobble(int64_t base, int i)
{
	static const int pct10[] = { 3, -7, 5, -2, 9, -4, 1, -8, 6, 0 };

	return base + base * pct10[i % 10] / 1000;
}

/* Side's runs, oldest at index NRUNS-1 of ptr (newest first, as compare's groups). */
struct side {
	struct ul_run run[NRUNS];
	const struct ul_run *ptr[NRUNS];
	struct ul_runcmp_group g;
};

static void side_init(struct side *s, const char *label)
{
	for (int i = 0; i < NRUNS; i++) {
		ul_run_init(&s->run[i]);
		snprintf(s->run[i].label, sizeof(s->run[i].label), "%s", label);
		s->ptr[NRUNS - 1 - i] = &s->run[i]; /* run[0] is the oldest */
	}
	s->g = (struct ul_runcmp_group){ .runs = s->ptr, .n_runs = NRUNS };
	snprintf(s->g.label, sizeof(s->g.label), "%s", label);
}

static void side_free(struct side *s)
{
	for (int i = 0; i < NRUNS; i++)
		ul_run_release(&s->run[i]);
}

START_TEST(test_seqab_verdicts_and_signs)
{
	static struct side a, b;
	const struct ul_runcmp_metric metrics[] = { delay, ops };
	const struct ul_seqab_opts o = { .alpha = 0.05, .margin_pct = 5 };
	struct ul_seqab s;

	side_init(&a, "A");
	side_init(&b, "B");
	for (int i = 0; i < NRUNS; i++) {
		/* spawnload 10% slower in B; noload the same; throughput 10% higher in B */
		add_cell(&a.run[i], "resp", "delay_ns", "spawnload", wobble(100000, i));
		add_cell(&b.run[i], "resp", "delay_ns", "spawnload", wobble(110000, i + 3));
		add_cell(&a.run[i], "resp", "delay_ns", "noload", wobble(50000, i));
		add_cell(&b.run[i], "resp", "delay_ns", "noload", wobble(50000, i + 5));
		add_cell(&a.run[i], "fsbench", "ops", "clients-2", wobble(8000, i));
		add_cell(&b.run[i], "fsbench", "ops", "clients-2", wobble(8800, i + 1));
	}
	ck_assert_int_eq(ul_seqab_build(&a.g, &b.g, metrics, 2, &o, &s), 0);
	ck_assert_uint_eq(s.n_rows, 3);
	ck_assert_uint_eq(s.pairs, NRUNS);
	ck_assert_double_eq_tol(s.row_alpha, 0.05 / 3, 1e-12);
	ck_assert_str_eq(s.rows[0].test, "spawnload");
	ck_assert_str_eq(ul_seqab_verdict_name(s.rows[0].seq.verdict), "slower");
	ck_assert_double_eq_tol(s.rows[0].change_pct, 10.0, 1.0);
	ck_assert(s.rows[0].lo_pct > 0 && s.rows[0].hi_pct > s.rows[0].lo_pct);
	ck_assert_uint_eq(s.rows[0].needed, NRUNS);
	ck_assert_str_eq(s.rows[1].test, "noload");
	ck_assert_str_eq(ul_seqab_verdict_name(s.rows[1].seq.verdict), "equal");
	ck_assert(s.rows[1].lo_pct > -5 && s.rows[1].hi_pct < 5);
	/* More throughput is better: B is faster, and its change is negative (less worse). */
	ck_assert_str_eq(s.rows[2].test, "clients-2");
	ck_assert_str_eq(ul_seqab_verdict_name(s.rows[2].seq.verdict), "faster");
	ck_assert(s.rows[2].change_pct < -8 && s.rows[2].change_pct > -10);
	ck_assert_uint_eq(s.open, 0);
	ck_assert(isfinite(ul_seqab_detectable_pct(&s)));
	ul_seqab_free(&s);
	side_free(&a);
	side_free(&b);
}
END_TEST

/* Runs pair oldest with oldest; a pair without the test is left out. */
START_TEST(test_seqab_pairing)
{
	static struct side a, b;
	const struct ul_seqab_opts o = { .alpha = 0.05, .margin_pct = 0 };
	struct ul_seqab s;
	double want = 0;
	size_t n = 0;

	side_init(&a, "A");
	side_init(&b, "B");
	for (int i = 0; i < NRUNS; i++) {
		/* A drifts upwards over time; B follows it 5.0-5.2% higher, run by run. */
		int64_t va = 1000000 + 100000 * i, vb = va + va * (50 + i % 3) / 1000;

		add_cell(&a.run[i], "resp", "delay_ns", "noload", va);
		if (i != 4) /* B's fifth run lacks the test (crashed there) */
			add_cell(&b.run[i], "resp", "delay_ns", "noload", vb);
		else
			add_cell(&b.run[i], "resp", "delay_ns", "cpuload", vb);
		if (i != 4) {
			want += log((double)vb / (double)va);
			n++;
		}
	}
	ck_assert_int_eq(ul_seqab_build(&a.g, &b.g, &delay, 1, &o, &s), 0);
	ck_assert_uint_eq(s.n_rows, 2);
	ck_assert_str_eq(s.rows[0].test, "noload");
	ck_assert_uint_eq(s.rows[0].pairs, NRUNS - 1);
	ck_assert_double_eq_tol(s.rows[0].seq.mean, want / (double)n, 1e-12);
	/* Paired in time the drift cancels: a steady +5% is called slower. */
	ck_assert_str_eq(ul_seqab_verdict_name(s.rows[0].seq.verdict), "slower");
	/* cpuload: B alone has it, no pair, no bound, no verdict. */
	ck_assert_str_eq(s.rows[1].test, "cpuload");
	ck_assert_uint_eq(s.rows[1].pairs, 0);
	ck_assert_int_eq(s.rows[1].seq.verdict, UL_SEQ_OPEN);
	ck_assert(isinf(ul_seqab_detectable_pct(&s)));
	ck_assert_uint_eq(s.open, 1);
	ul_seqab_free(&s);
	ck_assert_int_eq(ul_seqab_build(&a.g, &b.g, &delay, 1,
					&(struct ul_seqab_opts){ .alpha = 1.5 }, &s),
			 -EINVAL);
	side_free(&a);
	side_free(&b);
}
END_TEST

Suite *ul_test_suite_seqab(void)
{
	Suite *s = suite_create("seqab");
	TCase *tc = tcase_create("seqab");

	tcase_add_test(tc, test_seqab_verdicts_and_signs);
	tcase_add_test(tc, test_seqab_pairing);
	suite_add_tcase(s, tc);
	return s;
}

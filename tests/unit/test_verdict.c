/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Unit tests for compare's verdict over stored-run shapes (stats/runcmp.c):
 * each metric's own direction decides faster or slower.
 */
#include "unit.h"
#include "stats/compare.h"
#include "stats/runcmp.h"

#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>

/* A run of `label` with one cell of (suite, load) holding `series` = v[n]. */
static void make_run(struct ul_run *run, int64_t id, const char *label, const char *suite,
		     const char *load, const char *series, const int64_t *v, size_t n)
{
	struct ul_cell *c;
	struct ul_series *s;

	ul_run_init(run);
	run->id = id;
	snprintf(run->label, sizeof(run->label), "%s", label);
	c = ul_run_add_cell(run);
	ck_assert_ptr_nonnull(c);
	snprintf(c->suite, sizeof(c->suite), "%s", suite);
	snprintf(c->load, sizeof(c->load), "%s", load);
	s = ul_cell_series(c, series);
	ck_assert_ptr_nonnull(s);
	for (size_t i = 0; i < n; i++)
		ck_assert_int_eq(ul_series_push(s, v[i]), 0);
}

/* A bandwidth that grows is "faster": the row takes its metric's direction
 * (micro bw-pipe +6.6% was once called "slower": the run-wide options'
 * default, lower is better, was used for every metric). */
START_TEST(test_direction_per_metric)
{
	const int64_t lo[] = { 3300, 3310, 3290, 3305, 3295 };
	const int64_t hi[] = { 3530, 3540, 3520, 3535, 3525 };
	struct ul_run a, b;
	const struct ul_run *ga[] = { &a }, *gb[] = { &b };
	const struct ul_runcmp_group g[2] = {
		{ .label = "a", .runs = ga, .n_runs = 1 },
		{ .label = "b", .runs = gb, .n_runs = 1 },
	};
	const struct ul_runcmp_metric m[2] = {
		{ "micro", "bw_bytes_s", "bandwidth", "bytes/s", UL_BETTER_HIGHER },
		{ "micro", "op_ps", "time", "ps", UL_BETTER_LOWER },
	};
	struct ul_cmp_opts o = { .alpha = 0.05 };
	struct ul_runcmp c;

	make_run(&a, 1, "a", "micro", "noload", "bw_bytes_s", lo, 5);
	make_run(&b, 2, "b", "micro", "noload", "bw_bytes_s", hi, 5);
	ck_assert_int_eq(ul_runcmp_build(g, 2, &m[0], 1, &o, &c), 0);
	ck_assert_uint_eq(c.n_rows, 1);
	ck_assert(c.rows[0].tested && c.rows[0].res.p < 0.05);
	/* one replicate a side: the call is qualified (see test_one_replicate) */
	ck_assert_int_eq(c.rows[0].res.verdict, UL_VERDICT_FASTER_UNCONFIRMED);
	ul_runcmp_free(&c);
	ul_run_release(&a);
	ul_run_release(&b);
	/* the same numbers as times: higher is worse */
	make_run(&a, 1, "a", "micro", "noload", "op_ps", lo, 5);
	make_run(&b, 2, "b", "micro", "noload", "op_ps", hi, 5);
	ck_assert_int_eq(ul_runcmp_build(g, 2, &m[1], 1, &o, &c), 0);
	ck_assert_int_eq(c.rows[0].res.verdict, UL_VERDICT_SLOWER_UNCONFIRMED);
	ul_runcmp_free(&c);
	ul_run_release(&a);
	ul_run_release(&b);
}
END_TEST

Suite *ul_test_suite_verdict(void)
{
	Suite *s = suite_create("verdict");
	TCase *tc = tcase_create("verdict");

	tcase_set_timeout(tc, 60);
	tcase_add_test(tc, test_direction_per_metric);
	suite_add_tcase(s, tc);
	return s;
}

/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Unit tests for compare's verdict over stored-run shapes (stats/runcmp.c,
 * stats/replicate.c) on synthetic data from a seeded generator: each
 * metric's own direction decides faster or slower; A/A pairs whose runs
 * drift are called at about alpha, where the pooled points would call
 * many; a real shift with replicates is called; one replicate a side is
 * qualified unless earlier repeated runs teach the run-to-run variance;
 * the rate test and the replicates needed against published values.
 */
#include "unit.h"
#include "stats/compare.h"
#include "report/compare.h"
#include "stats/runcmp.h"

#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

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

/* Deterministic pseudo-normal noise (sum of 12 uniforms - 6), S.D. 1. */
static double noise(unsigned *seed)
{
	double s = 0;

	for (int i = 0; i < 12; i++)
		s += (double)rand_r(seed) / RAND_MAX;
	return s - 6.0;
}

#define PTS 10
/* A run of one resp noload cell: PTS points around level x (1 + drift),
 * drift ~ N(0, drift_sd) per run, within-run noise of S.D. 1% of level. */
static void drift_run(struct ul_run *run, int64_t id, const char *label, double level,
		      double drift_sd, unsigned *seed)
{
	int64_t v[PTS];
	double centre = level * (1.0 + drift_sd * noise(seed));

	for (int i = 0; i < PTS; i++)
		v[i] = (int64_t)(centre + 0.01 * level * noise(seed));
	make_run(run, id, label, "resp", "noload", "delay_ns", v, PTS);
}

static const struct ul_runcmp_metric delay = { "resp", "delay_ns", "delay", "ns", UL_BETTER_LOWER };

/* One pair of labels, `reps` runs a side, candidate at level x factor;
 * returns the row's verdict (and its basis). */
static enum ul_cmp_verdict drift_pair(unsigned *seed, size_t reps, double factor, double drift,
				      const struct ul_runcmp_group *hist, size_t n_hist,
				      enum ul_runcmp_basis *basis, bool *pooled_call)
{
	struct ul_run runs[2][8];
	const struct ul_run *ptr[2][8];
	struct ul_runcmp_group g[2] = { { .label = "b" }, { .label = "c" } };
	struct ul_cmp_opts o = { .alpha = 0.05 };
	struct ul_runcmp c;
	enum ul_cmp_verdict v;

	ck_assert_uint_le(reps, 8);
	for (size_t side = 0; side < 2; side++) {
		for (size_t r = 0; r < reps; r++) {
			drift_run(&runs[side][r], (int64_t)(side * 8 + r + 1), g[side].label,
				  side ? 1e6 * factor : 1e6, drift, seed);
			ptr[side][r] = &runs[side][r];
		}
		g[side].runs = ptr[side];
		g[side].n_runs = reps;
	}
	ck_assert_int_eq(
		ul_runcmp_build_hist(g, 2, &delay, 1, &o, UL_RUNCMP_POINTS, hist, n_hist, &c), 0);
	ck_assert(c.rows[0].tested);
	v = c.rows[0].res.verdict;
	*basis = c.rows[0].basis;
	if (pooled_call) { /* what the pooled points alone would say */
		struct ul_runcmp_pooled b, k;
		struct ul_cmp_result r;

		ck_assert_int_eq(ul_runcmp_pool(&g[0], &delay, "noload", &b), 0);
		ck_assert_int_eq(ul_runcmp_pool(&g[1], &delay, "noload", &k), 0);
		ck_assert_int_eq(ul_stats_compare(b.v, b.n, k.v, k.n, &o, &r), 0);
		*pooled_call = r.verdict != UL_VERDICT_NONE;
		free(b.v);
		free(k.v);
	}
	ul_runcmp_free(&c);
	for (size_t side = 0; side < 2; side++)
		for (size_t r = 0; r < reps; r++)
			ul_run_release(&runs[side][r]);
	return v;
}

/* 200 A/A pairs of 3 replicates a side whose runs drift (S.D. 3%, three
 * times the within-run noise): called at about alpha.  The same points
 * pooled, as compare tested them before, call most of them. */
START_TEST(test_aa_with_drift)
{
	unsigned seed = 2026, calls = 0, pooled = 0;
	enum ul_runcmp_basis basis;

	for (int i = 0; i < 200; i++) {
		bool p = false;

		calls += drift_pair(&seed, 3, 1.0, 0.03, NULL, 0, &basis, &p) != UL_VERDICT_NONE;
		ck_assert_int_eq(basis, UL_BASIS_REPLICATES);
		pooled += p;
	}
	/* 5% of 200 = 10 (binomial S.D. 3.1); P(X >= 20) = 0.0024.  Welch on
	 * 3 v 3 is a little conservative for normal data, so no lower bound. */
	ck_assert_uint_le(calls, 19);
	ck_assert_uint_ge(pooled, 100);
}
END_TEST

/* A real shift of 10% with runs drifting 2%: 3 replicates a side call it
 * "slower" nearly always (power for 5 S.D. at 3 v 3 is ~0.97). */
START_TEST(test_shift_with_replicates)
{
	unsigned seed = 11, slower = 0;
	enum ul_runcmp_basis basis;

	for (int i = 0; i < 50; i++) {
		enum ul_cmp_verdict v = drift_pair(&seed, 3, 1.10, 0.02, NULL, 0, &basis, NULL);

		ck_assert_int_ne(v, UL_VERDICT_FASTER);
		slower += v == UL_VERDICT_SLOWER;
	}
	ck_assert_uint_ge(slower, 45);
}
END_TEST

/* One replicate a side: a clear shift is called only "unconfirmed", with
 * at least 3 replicates asked for; earlier repeated runs of the same
 * configuration (history) make it a real call. */
START_TEST(test_one_replicate)
{
	unsigned seed = 5;
	struct ul_run h[4];
	const struct ul_run *hp[4];
	struct ul_runcmp_group hist = { .label = "history", .runs = hp, .n_runs = 4 };
	struct ul_run a, b;
	const struct ul_run *ga[] = { &a }, *gb[] = { &b };
	const struct ul_runcmp_group g[2] = {
		{ .label = "a", .runs = ga, .n_runs = 1 },
		{ .label = "b", .runs = gb, .n_runs = 1 },
	};
	struct ul_cmp_opts o = { .alpha = 0.05 };
	struct ul_runcmp c;
	enum ul_runcmp_basis basis;

	drift_run(&a, 1, "a", 1e6, 0.0, &seed);
	drift_run(&b, 2, "b", 1.2e6, 0.0, &seed);
	ck_assert_int_eq(ul_runcmp_build(g, 2, &delay, 1, &o, &c), 0);
	ck_assert_int_eq(c.rows[0].basis, UL_BASIS_UNMEASURED);
	ck_assert_int_eq(c.rows[0].res.verdict, UL_VERDICT_SLOWER_UNCONFIRMED);
	ck_assert_str_eq(ul_cmp_verdict_name(c.rows[0].res.verdict), "slower (unconfirmed)");
	ck_assert(c.rows[0].need_floor);
	ck_assert_uint_ge(c.rows[0].res.need_per_side, UL_REP_MIN_ADVISED);
	ul_runcmp_free(&c);
	ul_run_release(&a);
	ul_run_release(&b);
	/* the history: 4 runs drifting 2%; +20% is then a call of its own */
	for (int i = 0; i < 4; i++) {
		drift_run(&h[i], 10 + i, "history", 1e6, 0.02, &seed);
		hp[i] = &h[i];
	}
	ck_assert_int_eq(drift_pair(&seed, 1, 1.2, 0.0, &hist, 1, &basis, NULL), UL_VERDICT_SLOWER);
	ck_assert_int_eq(basis, UL_BASIS_LEARNED);
	/* and A/A pairs with the learned variance stay quiet: 60 pairs whose
	 * runs drift as the history's did */
	{
		unsigned calls = 0;

		for (int i = 0; i < 60; i++)
			calls += drift_pair(&seed, 1, 1.0, 0.02, &hist, 1, &basis, NULL) !=
				 UL_VERDICT_NONE;
		ck_assert_uint_le(calls, 9); /* 3 expected; P(X >= 10 | 60, 0.05) = 0.003 */
	}
	for (int i = 0; i < 4; i++)
		ul_run_release(&h[i]);
}
END_TEST

/* The rate test against R's binom.test(10, 30)$p.value = 0.09874 (equal
 * exposures) and, for exposures 1000 and 2000, binom.test(12, 14, 2/3)
 * = 0.16295 (summed here by hand over the binomial law, the same rule);
 * the replicates needed against power.t.test(delta = 2, sd = 1,
 * power = 0.8): n = 5.09, so 6. */
START_TEST(test_rate_and_power)
{
	ck_assert_double_eq_tol(ul_rate_test_p(10, 1000, 20, 1000), 0.09874, 1e-4);
	ck_assert_double_eq_tol(ul_rate_test_p(20, 1000, 10, 1000), 0.09874, 1e-4);
	ck_assert_double_eq_tol(ul_rate_test_p(2, 1000, 12, 2000), 0.16295, 1e-4);
	ck_assert_double_eq(ul_rate_test_p(0, 1000, 0, 1000), 1.0);
	ck_assert(ul_rate_test_p(0, 1000, 15, 1000) < 1e-4);
	ck_assert_uint_eq(ul_rep_needed(1.0, 1.0, 2.0, 0.05), 6);
	ck_assert_uint_eq(ul_rep_needed(1.0, 1.0, 0.0, 0.05), 0);
	ck_assert_uint_eq(ul_rep_needed(1.0, 1.0, 1e-6, 0.05), UL_REP_NEED_MAX);
}
END_TEST

/* A deadline cell with the count and exposure metrics. */
static void count_run(struct ul_run *run, int64_t id, const char *label, double missed,
		      double periods)
{
	const int64_t lat[] = { 100, 110, 120 };

	make_run(run, id, label, "deadline", "noload", "dl_lat_ns", lat, 3);
	ck_assert_int_eq(ul_cell_set_metric(&run->cells[0], "dl_missed", missed), 0);
	ck_assert_int_eq(ul_cell_set_metric(&run->cells[0], "dl_periods", periods), 0);
}

/* Missed periods are compared as counts: one run a side, the rate test's
 * call, unconfirmed; the totals in the row. */
START_TEST(test_count_row)
{
	const struct ul_runcmp_metric m = { .suite = "deadline",
					    .series = "dl_missed",
					    .label = "missed periods",
					    .unit = "%",
					    .better = UL_BETTER_LOWER,
					    .exposure = "dl_periods" };
	struct ul_run a, b;
	const struct ul_run *ga[] = { &a }, *gb[] = { &b };
	const struct ul_runcmp_group g[2] = {
		{ .label = "a", .runs = ga, .n_runs = 1 },
		{ .label = "b", .runs = gb, .n_runs = 1 },
	};
	struct ul_cmp_opts o = { .alpha = 0.05 };
	struct ul_runcmp c;

	count_run(&a, 1, "a", 0, 1000);
	count_run(&b, 2, "b", 15, 1000);
	ck_assert_int_eq(ul_runcmp_build(g, 2, &m, 1, &o, &c), 0);
	ck_assert_uint_eq(c.n_rows, 1);
	ck_assert(c.rows[0].tested);
	ck_assert_double_eq(c.rows[0].count_cand, 15);
	ck_assert_double_eq(c.rows[0].exposure_base, 1000);
	ck_assert(c.rows[0].p_rate < 1e-4);
	ck_assert_double_eq_tol(c.rows[0].res.median_cand, 1.5, 1e-12); /* % of periods */
	ck_assert_int_eq(c.rows[0].res.verdict, UL_VERDICT_SLOWER_UNCONFIRMED);
	ul_runcmp_free(&c);
	ul_run_release(&a);
	ul_run_release(&b);
}
END_TEST

/* compare's summary: one line a row, the verdict coloured only when asked,
 * and the flags that undermine it (disturbed, no-pressure) on its line. */
START_TEST(test_summary_line)
{
	const int64_t lo[] = { 100, 101, 99, 100, 102, 98, 100, 101 };
	const int64_t hi[] = { 200, 201, 199, 200, 202, 198, 200, 201 };
	struct ul_run a, b;
	const struct ul_run *ga[] = { &a }, *gb[] = { &b };
	const struct ul_runcmp_group g[2] = {
		{ .label = "base", .runs = ga, .n_runs = 1 },
		{ .label = "cand", .runs = gb, .n_runs = 1 },
	};
	const struct ul_runcmp_metric m = { "resp", "delay_ns", "delay", "ns", UL_BETTER_LOWER };
	struct ul_cmp_opts o = { .alpha = 0.05 };
	struct ul_runcmp c;
	char flags[256], *text = NULL;
	size_t len = 0;
	FILE *f;

	make_run(&a, 1, "base", "resp", "memload", "delay_ns", lo, 8);
	make_run(&b, 2, "cand", "resp", "memload", "delay_ns", hi, 8);
	a.cells[0].flags = UL_CELL_NO_PRESSURE;
	b.cells[0].flags = UL_CELL_DISTURBED;
	ck_assert_int_eq(ul_runcmp_build(g, 2, &m, 1, &o, &c), 0);
	ck_assert_uint_eq(c.n_rows, 1);
	ck_assert_int_eq(ul_report_compare_tone(&c.rows[0]), UL_TONE_WORSE);
	ul_report_compare_flags(flags, sizeof(flags), &c, &c.rows[0]);
	ck_assert_str_eq(flags, "disturbed (base 0/1, cand 1/1); no-pressure (base 1/1, cand 0/1)");
	for (int colour = 0; colour < 2; colour++) {
		f = open_memstream(&text, &len);
		ck_assert_ptr_nonnull(f);
		ck_assert_int_eq(ul_report_compare_summary(f, &c, colour), 0);
		fclose(f);
		ck_assert_msg(strstr(text, "\n  resp delay       memload      cand "), "%s", text);
		ck_assert_msg(strstr(text, "disturbed (base 0/1, cand 1/1); no-pressure"), "%s",
			      text);
		ck_assert_msg(!strchr(text, '\x1b') == !colour, "colour %d: %s", colour, text);
		if (colour)
			ck_assert_msg(strstr(text, "\x1b[31mslower (unconfirmed)"), "%s", text);
		free(text);
		text = NULL;
	}
	ul_runcmp_free(&c);
	ul_run_release(&a);
	ul_run_release(&b);
}
END_TEST

/* Column of the first occurrence of `what` in the line of `text` starting
 * with `line_start` (-1 when either is missing). */
static long column_of(const char *text, const char *line_start, const char *what)
{
	const char *line = strstr(text, line_start), *at;

	if (!line)
		return -1;
	at = strstr(line, what);
	return at && !memchr(line, '\n', (size_t)(at - line)) ? at - line : -1;
}

/* A candidate label longer than its column widens the column: the change,
 * the verdict and the flags stay under their headings. */
START_TEST(test_summary_aligned)
{
	const int64_t lo[] = { 100, 101, 99, 100, 102, 98, 100, 101 };
	const int64_t hi[] = { 200, 201, 199, 200, 202, 198, 200, 201 };
#define LONG_CAND "resp.cpu-work=68000000-long"
	struct ul_run a, b;
	const struct ul_run *ga[] = { &a }, *gb[] = { &b };
	const struct ul_runcmp_group g[2] = {
		{ .label = "base", .runs = ga, .n_runs = 1 },
		{ .label = LONG_CAND, .runs = gb, .n_runs = 1 },
	};
	const struct ul_runcmp_metric m = { "resp", "delay_ns", "delay", "ns", UL_BETTER_LOWER };
	struct ul_cmp_opts o = { .alpha = 0.05 };
	struct ul_runcmp c;
	char *text = NULL;
	size_t len = 0;
	FILE *f;

	make_run(&a, 1, "base", "resp", "noload", "delay_ns", lo, 8);
	make_run(&b, 2, LONG_CAND, "resp", "noload", "delay_ns", hi, 8);
	b.cells[0].flags = UL_CELL_DISTURBED;
	ck_assert_int_eq(ul_runcmp_build(g, 2, &m, 1, &o, &c), 0);
	f = open_memstream(&text, &len);
	ck_assert_ptr_nonnull(f);
	ck_assert_int_eq(ul_report_compare_summary(f, &c, false), 0);
	fclose(f);
	/* "change" is right-aligned: its last letter over the last digit. */
	ck_assert_int_eq(column_of(text, "  metric", "change") + 5,
			 column_of(text, "  resp delay", "%"));
	ck_assert_int_eq(column_of(text, "  metric", "verdict"),
			 column_of(text, "  resp delay", "slower"));
	ck_assert_int_eq(column_of(text, "  metric", "flags"),
			 column_of(text, "  resp delay", "disturbed"));
	ck_assert_int_gt(column_of(text, "  metric", "flags"), 0);
	free(text);
	ul_runcmp_free(&c);
	ul_run_release(&a);
	ul_run_release(&b);
#undef LONG_CAND
}
END_TEST

Suite *ul_test_suite_verdict(void)
{
	Suite *s = suite_create("verdict");
	TCase *tc = tcase_create("verdict");

	tcase_set_timeout(tc, 60);
	tcase_add_test(tc, test_direction_per_metric);
	tcase_add_test(tc, test_aa_with_drift);
	tcase_add_test(tc, test_shift_with_replicates);
	tcase_add_test(tc, test_one_replicate);
	tcase_add_test(tc, test_rate_and_power);
	tcase_add_test(tc, test_count_row);
	tcase_add_test(tc, test_summary_line);
	tcase_add_test(tc, test_summary_aligned);
	suite_add_tcase(s, tc);
	return s;
}

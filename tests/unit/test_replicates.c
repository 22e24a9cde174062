/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Unit tests for replicates (--runs): a cell's round read back
 * (ul_cell_round), and how the formats show the rounds of a run: resp1
 * with a row per round and each ratio against its own round's noload
 * (the seed's table unchanged without rounds), text and deadline with a
 * test's rounds together and named "TEST #R", lmbench2 with a row per
 * round.  mtest and fsbench, whose blocks summarise across rounds: their
 * replicate cells pooled (report/replicate.h) give the seed's block of a
 * one-cell run byte for byte, dbench's blocks go load by load.  The
 * engine's order (A B A B) is checked end to end by
 * tests/cli/t0008-replicates.sh.
 */
#include "unit.h"
#include "model/model.h"
#include "report/format.h"
#include "report/monitors.h"
#include "report/replicate.h"

#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* A format's output for a run, malloc'd. */
static char *render(const char *format, const struct ul_run *run)
{
	const struct ul_format *f = ul_format_find(format);
	char *buf = NULL;
	size_t len = 0;
	FILE *out = open_memstream(&buf, &len);

	ck_assert_ptr_nonnull(f);
	ck_assert_ptr_nonnull(out);
	ck_assert_int_eq(f->write_run(out, run), 0);
	ck_assert_int_eq(fclose(out), 0);
	return buf;
}

/* A cell of `suite` under `load` with n copies of v in `series`, in
 * `round` (0: no round recorded, as cells stored before rounds). */
static struct ul_cell *add(struct ul_run *run, const char *suite, const char *load,
			   const char *probe, const char *series, int64_t v, int round)
{
	struct ul_cell *c = ul_run_add_cell(run);
	struct ul_series *s;

	ck_assert_ptr_nonnull(c);
	snprintf(c->suite, sizeof(c->suite), "%s", suite);
	snprintf(c->load, sizeof(c->load), "%s", load);
	snprintf(c->probe, sizeof(c->probe), "%s", probe);
	s = ul_cell_series(c, series);
	ck_assert_ptr_nonnull(s);
	for (int i = 0; i < 6; i++)
		ck_assert_int_eq(ul_series_push(s, v), 0);
	if (round)
		ck_assert_int_eq(ul_cell_set_metric(c, UL_CELL_ROUND, round), 0);
	return c;
}

/* The lines of `text` that contain `needle`, in order, joined by '|'. */
static void lines_with(const char *text, const char *needle, char *out, size_t len)
{
	size_t used = 0;

	out[0] = '\0';
	for (const char *line = text; line && *line;) {
		const char *end = strchr(line, '\n');
		size_t n = end ? (size_t)(end - line) : strlen(line);

		if (memmem(line, n, needle, strlen(needle)) && used < len)
			used += (size_t)snprintf(out + used, len - used, "%s%.*s", used ? "|" : "",
						 (int)n, line);
		line = end ? end + 1 : NULL;
	}
}

/* Do `a` and `b` both occur in `text`, a first? */
static bool before(const char *text, const char *a, const char *b)
{
	const char *pa = strstr(text, a), *pb = strstr(text, b);

	return pa && pb && pa < pb;
}

START_TEST(test_cell_round)
{
	struct ul_cell c = { 0 };

	ck_assert_int_eq(ul_cell_round(&c), 1); /* none recorded */
	ck_assert_int_eq(ul_cell_set_metric(&c, UL_CELL_ROUND, 3), 0);
	ck_assert_int_eq(ul_cell_round(&c), 3);
	ck_assert_int_eq(ul_cell_set_metric(&c, UL_CELL_ROUND, 0), 0);
	ck_assert_int_eq(ul_cell_round(&c), 1); /* nonsense read back: round 1 */
	ck_assert_int_eq(ul_cell_set_metric(&c, UL_CELL_ROUND, NAN), 0);
	ck_assert_int_eq(ul_cell_round(&c), 1);
	ul_cell_release(&c);
}
END_TEST

/* Two interleaved rounds of noload (10, then 20 ms) and cpuload (30 ms). */
static void resp_rounds(struct ul_run *run, bool record)
{
	ul_run_init(run);
	run->host.ncpu = 2;
	run->host.mem_total_bytes = 1024 * UL_MiB;
	run->params.min_points = 5;
	run->params.interval_ns = UL_NS_PER_SEC;
	snprintf(run->suites, sizeof(run->suites), "resp");
	add(run, "resp", "noload", "resp", "delay_ns", 10 * UL_NS_PER_MS, record ? 1 : 0);
	add(run, "resp", "cpuload", "resp", "delay_ns", 30 * UL_NS_PER_MS, record ? 1 : 0);
	add(run, "resp", "noload", "resp", "delay_ns", 20 * UL_NS_PER_MS, record ? 2 : 0);
	add(run, "resp", "cpuload", "resp", "delay_ns", 30 * UL_NS_PER_MS, record ? 2 : 0);
}

START_TEST(test_resp1_per_round)
{
	struct ul_run run;
	char got[512], *out;

	resp_rounds(&run, true);
	out = render("resp1", &run);
	lines_with(out, "load ", got, sizeof(got));
	/* a test's rounds together; each ratio against its own round's noload */
	ck_assert_str_eq(
		got,
		"         noload     10.000     10.000     10.000     10.000    0.000    1.000|"
		"         noload     20.000     20.000     20.000     20.000    0.000    1.000|"
		"        cpuload     30.000     30.000     30.000     30.000    0.000    3.000|"
		"        cpuload     30.000     30.000     30.000     30.000    0.000    1.500");
	free(out);
	ul_run_release(&run);

	/* Without rounds (cells stored before them) every ratio divides by
	 * the first noload, as the seed's table did. */
	resp_rounds(&run, false);
	out = render("resp1", &run);
	lines_with(out, "cpuload ", got, sizeof(got));
	ck_assert_str_eq(
		got,
		"        cpuload     30.000     30.000     30.000     30.000    0.000    3.000|"
		"        cpuload     30.000     30.000     30.000     30.000    0.000    3.000");
	free(out);
	ul_run_release(&run);
}
END_TEST

START_TEST(test_text_per_round)
{
	struct ul_run run;
	char got[1024], *out;

	resp_rounds(&run, true);
	out = render("text", &run);
	lines_with(out, " ms ", got, sizeof(got));
	ck_assert_msg(strstr(got, "  noload #1  ") && strstr(got, "  cpuload #2  "), "%s", got);
	ck_assert_msg(before(got, "noload #2", "cpuload #1"), "%s", got);
	lines_with(out, "cpuload #", got, sizeof(got));
	ck_assert_msg(strstr(got, "  3.000  ") && strstr(got, "  1.500  "), "%s", got);
	ck_assert_ptr_nonnull(strstr(out, "ratio = median / noload median of the same round"));
	free(out);
	ul_run_release(&run);

	resp_rounds(&run, false); /* no rounds: rows as measured, no names added */
	out = render("text", &run);
	ck_assert_ptr_null(strstr(out, " #1"));
	ck_assert_ptr_null(strstr(out, "of the same round"));
	free(out);
	ul_run_release(&run);
}
END_TEST

START_TEST(test_deadline_per_round)
{
	struct ul_run run;
	char got[1024], *out;
	static const char *const loads[] = { "noload", "cpuload", "noload", "cpuload" };

	ul_run_init(&run);
	snprintf(run.suites, sizeof(run.suites), "deadline");
	for (int i = 0; i < 4; i++) {
		struct ul_cell *c =
			add(&run, "deadline", loads[i], "deadline", "dl_lat_ns", 1000, i / 2 + 1);

		ck_assert_int_eq(ul_cell_set_metric(c, "dl_periods", 20), 0);
		ck_assert_int_eq(ul_cell_set_metric(c, "dl_lat_mean_ns", 1e6 * (i + 1)), 0);
	}
	out = render("deadline", &run);
	lines_with(out, "load #", got, sizeof(got));
	ck_assert_msg(!strncmp(got, "    noload #1     1.000 ", 24), "%s", got);
	ck_assert_ptr_nonnull(strstr(got, "|    noload #2     3.000 "));
	ck_assert_ptr_nonnull(strstr(got, "|   cpuload #1     2.000 "));
	ck_assert_msg(before(got, "noload #2", "cpuload #1"), "%s", got);
	free(out);
	ul_run_release(&run);
}
END_TEST

START_TEST(test_lmbench2_per_round)
{
	struct ul_run run;
	char got[512], *out;

	ul_run_init(&run);
	snprintf(run.host.arch, sizeof(run.host.arch), "x86_64");
	snprintf(run.suites, sizeof(run.suites), "micro");
	for (int r = 1; r <= 2; r++) {
		struct ul_cell *c = add(&run, "micro", "noload", "lat-null", "op_ps", r * 1000000,
					r); /* 1 us, then 2 us */

		ck_assert_int_eq(ul_cell_set_metric(c, "micro_table", 0), 0);
	}
	out = render("lmbench2", &run);
	lines_with(out, "under noload", got, sizeof(got));
	ck_assert_msg(strstr(got, "x86_64 under noload #1") && strstr(got, "|") &&
			      strstr(strstr(got, "|"), "x86_64 under noload #2"),
		      "%s", got);
	/* the processor table: a row per round, each with its own round's value */
	ck_assert_ptr_nonnull(strstr(out, " 1.00 "));
	ck_assert_ptr_nonnull(strstr(out, " 2.00 "));
	free(out);
	ul_run_release(&run);
}
END_TEST

/* tests/golden/NAME, malloc'd. */
static char *golden(const char *name)
{
	char path[4096], *buf = NULL;
	size_t len = 0;
	FILE *f, *out;
	int ch;

	snprintf(path, sizeof(path), "%s/tests/golden/%s", UL_SOURCE_ROOT, name);
	f = fopen(path, "rb");
	ck_assert_msg(f != NULL, "missing golden file %s", path);
	out = open_memstream(&buf, &len);
	ck_assert_ptr_nonnull(out);
	while ((ch = fgetc(f)) != EOF)
		fputc(ch, out);
	fclose(f);
	ck_assert_int_eq(fclose(out), 0);
	return buf;
}

/* The seed's ten mtest01 runs (test_mtest.c's seed_mtest_cell, the seed's
 * 2.4.12-ac3 block) as ten replicate cells of one run each, rounds 1..10,
 * each with the plan and 150 audio periods; 12 missed in all, the longest
 * stall 340.25 ms in round 3. */
static void mtest_rounds(struct ul_run *run)
{
	static const char *const names[] = { "mtest_elapsed_ns", "mtest_bytes",	    "mtest_user_ns",
					     "mtest_sys_ns",	 "mtest_cpu_centi", "mtest_majflt",
					     "mtest_minflt",	 "mtest_status" };
	static const struct {
		const char *name;
		double v;
	} plan[] = { { "mtest_target_bytes", 134270976 }, { "mtest_target_centi", 8000 },
		     { "mtest_budget_bytes", 268435456 }, { "mtest_swap_free_bytes", 127926272 },
		     { "mtest_in_use_bytes", 182818406 }, { "mtest_chunk_bytes", 1048576 } };

	ul_run_init(run);
	snprintf(run->suites, sizeof(run->suites), "mtest");
	for (int i = 0; i < 10; i++) {
		int64_t v[] = { 4798000000,
				(int64_t)(i < 8 ? 128 : 129) * (int64_t)UL_MiB,
				i % 2 ? 2546000000 - 10000000 : 2546000000 + 10000000,
				1370000000,
				8910,
				i < 8 ? 104 : 103,
				32702 + (i % 2 ? -5 : 5),
				0 };
		struct ul_cell *c = ul_run_add_cell(run);

		ck_assert_ptr_nonnull(c);
		snprintf(c->suite, sizeof(c->suite), "mtest");
		snprintf(c->load, sizeof(c->load), "mtest01");
		snprintf(c->probe, sizeof(c->probe), "mtest01");
		for (size_t k = 0; k < UL_ARRAY_SIZE(names); k++)
			ck_assert_int_eq(ul_series_push(ul_cell_series(c, names[k]), v[k]), 0);
		for (size_t k = 0; k < UL_ARRAY_SIZE(plan); k++)
			ck_assert_int_eq(ul_cell_set_metric(c, plan[k].name, plan[k].v), 0);
		ck_assert_int_eq(ul_cell_set_metric(c, UL_CELL_ROUND, i + 1), 0);
		ck_assert_int_eq(ul_cell_set_metric(c, "mtest_runs", 1), 0);
	}
}

static void mtest_dropouts(struct ul_run *run)
{
	for (size_t i = 0; i < run->n_cells; i++) {
		struct ul_cell *c = &run->cells[i];
		double missed = i == 2 ? 9 : i == 7 ? 3 : 0;

		ck_assert_int_eq(ul_cell_set_metric(c, "dl_profile", 1), 0);
		ck_assert_int_eq(ul_cell_set_metric(c, "dl_periods", 150), 0);
		ck_assert_int_eq(ul_cell_set_metric(c, "dl_met", 150 - missed), 0);
		ck_assert_int_eq(ul_cell_set_metric(c, "dl_missed", missed), 0);
		ck_assert_int_eq(ul_cell_set_metric(c, "dl_met_pct", 100 * (150 - missed) / 150),
				 0);
		ck_assert_int_eq(ul_cell_set_metric(c, "dl_max_stall_ns", i == 2 ? 340.25e6 : 1e6),
				 0);
		ck_assert_int_eq(ul_cell_set_metric(c, "dl_lat_mean_ns", 1e5 * (double)(i + 1)), 0);
	}
}

/* Ten one-run cells print the seed's block of one ten-run cell, byte for byte. */
START_TEST(test_mtest_pooled_rounds)
{
	struct ul_run run;
	struct ul_cell pooled;
	const struct ul_cell *c;
	char *out, *want;
	double v;
	int rc;

	mtest_rounds(&run);
	out = render("mtest", &run);
	want = golden("mtest-seed.txt");
	ck_assert_str_eq(out, want);
	free(out);

	mtest_dropouts(&run); /* the block, then the dropouts of every round */
	out = render("mtest", &run);
	ck_assert_int_eq(strncmp(out, want, strlen(want)), 0);
	ck_assert_str_eq(out + strlen(want),
			 "audio dropouts: 12 of 1500 periods missed (99.2% met), "
			 "longest stall 340.2 ms\n");
	free(out);
	free(want);

	c = ul_report_test_cell(&run, 0, &pooled, &rc);
	ck_assert_ptr_eq(c, &pooled);
	ck_assert(ul_cell_metric(c, "mtest_runs", &v) && v == 10);
	ck_assert(ul_cell_metric(c, "mtest_target_bytes", &v) && v == 134270976);
	ck_assert(!ul_cell_metric(c, "dl_lat_mean_ns", &v)); /* a round's own: no pooled value */
	out = NULL;
	{
		size_t len = 0;
		FILE *f = open_memstream(&out, &len);

		ck_assert_int_eq(ul_report_mtest_native(f, c), 0);
		ck_assert_int_eq(fclose(f), 0);
	}
	want = golden("mtest-native.txt");
	ck_assert_int_eq(strncmp(out, want, strlen(want)), 0); /* then the dropouts */
	free(out);
	free(want);
	ul_cell_release(&pooled);
	ul_run_release(&run);
}
END_TEST

/* Pooling rules: counts add, extremes keep the worst, the share met is the
 * pooled one, a round's own statistics go; the plan stays. */
START_TEST(test_pool_metrics)
{
	struct ul_cell a = { 0 }, b = { 0 };
	double v;

	ck_assert_int_eq(ul_cell_set_metric(&a, "dl_periods", 100), 0);
	ck_assert_int_eq(ul_cell_set_metric(&a, "dl_met", 90), 0);
	ck_assert_int_eq(ul_cell_set_metric(&a, "dl_met_pct", 90), 0);
	ck_assert_int_eq(ul_cell_set_metric(&a, "dl_max_stall_ns", 5e6), 0);
	ck_assert_int_eq(ul_cell_set_metric(&a, "dl_lat_mean_ns", 1e5), 0);
	ck_assert_int_eq(ul_cell_set_metric(&a, "fsbench_clients", 4), 0);
	ck_assert_int_eq(ul_cell_set_metric(&b, "dl_periods", 300), 0);
	ck_assert_int_eq(ul_cell_set_metric(&b, "dl_met", 300), 0);
	ck_assert_int_eq(ul_cell_set_metric(&b, "dl_max_stall_ns", 2e6), 0);
	ck_assert_int_eq(ul_cell_set_metric(&b, "mtest_passes", 1), 0);
	ck_assert_int_eq(ul_cell_set_metric(&b, "fsbench_clients", 4), 0);
	b.outcome = UL_CELL_PROBE_FAILED;
	snprintf(b.note, sizeof(b.note), "run 2: timed out");
	b.flags = UL_CELL_NO_PRESSURE;
	b.load_units = 7;
	a.load_units = 5;
	ck_assert_int_eq(ul_report_pool_cell(&a, &b), 0);
	ck_assert(ul_cell_metric(&a, "dl_periods", &v) && v == 400);
	ck_assert(ul_cell_metric(&a, "dl_met_pct", &v) && v == 97.5);
	ck_assert(ul_cell_metric(&a, "dl_max_stall_ns", &v) && v == 5e6);
	ck_assert(ul_cell_metric(&a, "mtest_passes", &v) && v == 1);
	ck_assert(ul_cell_metric(&a, "fsbench_clients", &v) && v == 4);
	ck_assert(!ul_cell_metric(&a, "dl_lat_mean_ns", &v));
	ck_assert_int_eq(a.outcome, UL_CELL_PROBE_FAILED);
	ck_assert_str_eq(a.note, "run 2: timed out");
	ck_assert_uint_eq(a.flags, UL_CELL_NO_PRESSURE);
	ck_assert_uint_eq(a.load_units, 12);
	ul_cell_release(&a);
	ul_cell_release(&b);
}
END_TEST

/* An fsbench cell under `load` in `round` with one round's values. */
static void fsb_cell(struct ul_run *run, const char *load, int round, int64_t bps)
{
	struct ul_cell *c = ul_run_add_cell(run);

	ck_assert_ptr_nonnull(c);
	snprintf(c->suite, sizeof(c->suite), "fsbench");
	snprintf(c->load, sizeof(c->load), "%s", load);
	snprintf(c->probe, sizeof(c->probe), "fsbench");
	if (round)
		ck_assert_int_eq(ul_cell_set_metric(c, UL_CELL_ROUND, round), 0);
	ck_assert_int_eq(ul_series_push(ul_cell_series(c, "fsbench_throughput_bps"), bps), 0);
	ck_assert_int_eq(ul_series_push(ul_cell_series(c, "fsbench_elapsed_ns"), UL_NS_PER_SEC), 0);
	ck_assert_int_eq(ul_series_push(ul_cell_series(c, "fsbench_ops"), 1000), 0);
	ck_assert_int_eq(ul_cell_set_metric(c, "fsbench_clients", 2), 0);
	ck_assert_int_eq(ul_cell_set_metric(c, "fsbench_duration_ns", 1e9), 0);
}

/* dbench: a load's rounds together, counted over its cells; one round of
 * one load has no heading, as dbench prints it. */
START_TEST(test_dbench_per_round)
{
	struct ul_run run;
	char got[1024], *out;

	ul_run_init(&run);
	snprintf(run.suites, sizeof(run.suites), "fsbench");
	fsb_cell(&run, "noload", 1, 1000000);
	fsb_cell(&run, "cpuload", 1, 2000000);
	fsb_cell(&run, "noload", 2, 3000000);
	fsb_cell(&run, "cpuload", 2, 4000000);
	out = render("dbench", &run);
	lines_with(out, "fsbench under", got, sizeof(got));
	ck_assert_str_eq(got,
			 "fsbench under noload, run 1 of 2:|fsbench under noload, run 2 of 2:|"
			 "fsbench under cpuload, run 1 of 2:|fsbench under cpuload, run 2 of 2:");
	lines_with(out, "Throughput", got, sizeof(got));
	ck_assert_msg(!strncmp(got, "Throughput 1 MB/sec", 19) &&
			      strstr(got, "|Throughput 3 MB/sec") &&
			      before(got, "Throughput 3 ", "Throughput 2 "),
		      "%s", got);
	ck_assert_int_eq(out[0], 'f'); /* no blank line first */
	free(out);

	out = render("text", &run); /* the native block: once a load, its rounds pooled */
	lines_with(out, "fsbench under", got, sizeof(got));
	ck_assert_str_eq(got,
			 "fsbench under noload: 2 clients, 2 runs of 1 s after a 0 s warm-up; "
			 "loadfile trace of 0 ops a pass (0.0 MB read, 0.0 MB written)|"
			 "fsbench under cpuload: 2 clients, 2 runs of 1 s after a 0 s warm-up; "
			 "loadfile trace of 0 ops a pass (0.0 MB read, 0.0 MB written)");
	lines_with(out, "MB/s (read+written)", got, sizeof(got));
	ck_assert_str_eq(got, "  MB/s (read+written)           2.000      1.000      3.000|"
			      "  MB/s (read+written)           3.000      2.000      4.000");
	free(out);
	ul_run_release(&run);

	ul_run_init(&run);
	fsb_cell(&run, "noload", 0, 1000000);
	out = render("dbench", &run);
	ck_assert_ptr_null(strstr(out, "fsbench under"));
	ck_assert_int_eq(strncmp(out, " Operation      Count    AvgLat    MaxLat\n", 42), 0);
	free(out);
	ul_run_release(&run);
}
END_TEST

Suite *ul_test_suite_replicates(void)
{
	Suite *s = suite_create("replicates");
	TCase *tc = tcase_create("core");

	tcase_add_test(tc, test_cell_round);
	tcase_add_test(tc, test_resp1_per_round);
	tcase_add_test(tc, test_text_per_round);
	tcase_add_test(tc, test_deadline_per_round);
	tcase_add_test(tc, test_lmbench2_per_round);
	tcase_add_test(tc, test_mtest_pooled_rounds);
	tcase_add_test(tc, test_pool_metrics);
	tcase_add_test(tc, test_dbench_per_round);
	suite_add_tcase(s, tc);
	return s;
}

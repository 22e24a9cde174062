/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Unit tests for replicates (--runs): a cell's round read back
 * (ul_cell_round), and how the formats show the rounds of a run: resp1
 * with a row per round and each ratio against its own round's noload
 * (the seed's table unchanged without rounds), text and deadline with a
 * test's rounds together and named "TEST #R", lmbench2 with a row per
 * round.  The engine's order (A B A B) is checked end to end by
 * tests/cli/t0008-replicates.sh.
 */
#include "unit.h"
#include "model/model.h"
#include "report/format.h"

#include <math.h>
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

Suite *ul_test_suite_replicates(void)
{
	Suite *s = suite_create("replicates");
	TCase *tc = tcase_create("core");

	tcase_add_test(tc, test_cell_round);
	tcase_add_test(tc, test_resp1_per_round);
	tcase_add_test(tc, test_text_per_round);
	tcase_add_test(tc, test_deadline_per_round);
	tcase_add_test(tc, test_lmbench2_per_round);
	suite_add_tcase(s, tc);
	return s;
}

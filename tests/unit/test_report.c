/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Unit tests for src/report: the resp1 seed table byte for byte, the native
 * text table against its golden file, and the JSON document parsed back.
 *
 * Golden files live in tests/golden/.  UPDATE_GOLDEN=1 rewrites the text
 * golden from the current output (review the diff before committing); the
 * resp1 golden is the seed's own table and is never rewritten.
 */
#include "unit.h"
#include "model/model.h"
#include "report/breakdown.h"
#include "report/format.h"
#include "report/quantity.h"
#include "report/table.h"
#include "stats/stats.h"

#include <errno.h>
#include <jansson.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#ifndef UL_SOURCE_ROOT
#error "the test build must define UL_SOURCE_ROOT"
#endif
#define GOLDEN_DIR UL_SOURCE_ROOT "/tests/golden/"

/* ---- helpers ---------------------------------------------------------- */

static const struct ul_format *fmt(const char *name)
{
	const struct ul_format *f = ul_format_find(name);

	ck_assert_msg(f != NULL, "format '%s' is not registered", name);
	return f;
}

/* Renders a run with a format into a malloc'd NUL-terminated buffer. */
static char *render(const char *format, const struct ul_run *run)
{
	char *buf = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&buf, &len);
	int err;

	ck_assert_ptr_nonnull(f);
	err = fmt(format)->write_run(f, run);
	ck_assert_int_eq(fclose(f), 0);
	ck_assert_msg(err == 0, "format '%s' returned %d", format, err);
	ck_assert_uint_eq(strlen(buf), len); /* no NUL bytes in the output */
	return buf;
}

static char *slurp(const char *path, size_t *len)
{
	FILE *f = fopen(path, "rb");
	char *buf;
	long size;

	if (!f)
		return NULL;
	ck_assert_int_eq(fseek(f, 0, SEEK_END), 0);
	size = ftell(f);
	ck_assert_int_ge(size, 0);
	rewind(f);
	buf = malloc((size_t)size + 1);
	ck_assert_ptr_nonnull(buf);
	*len = fread(buf, 1, (size_t)size, f);
	buf[*len] = '\0';
	fclose(f);
	return buf;
}

/*
 * Compares output with tests/golden/NAME.  With UPDATE_GOLDEN=1 and an
 * updatable golden, writes the output there instead.  A mismatch names the
 * first differing line, with both versions.
 */
static void check_golden(const char *name, const char *got, bool updatable)
{
	char path[4096];
	const char *update = getenv("UPDATE_GOLDEN");
	char *want;
	size_t len, line = 1;
	const char *a, *b, *la, *lb;

	snprintf(path, sizeof(path), "%s%s", GOLDEN_DIR, name);
	if (updatable && update && !strcmp(update, "1")) {
		FILE *f = fopen(path, "wb");

		ck_assert_msg(f != NULL, "cannot write %s", path);
		ck_assert_int_eq(fputs(got, f) >= 0, 1);
		ck_assert_int_eq(fclose(f), 0);
		return;
	}
	want = slurp(path, &len);
	ck_assert_msg(want != NULL, "missing golden file %s", path);
	for (a = want, b = got, la = want, lb = got; *a && *a == *b; a++, b++) {
		if (*a == '\n') {
			line++;
			la = a + 1;
			lb = b + 1;
		}
	}
	if (*a || *b) {
		int wa = (int)strcspn(la, "\n"), wb = (int)strcspn(lb, "\n");

		ck_abort_msg("%s differs at line %zu:\n want: '%.*s'\n  got: '%.*s'", name, line,
			     wa, la, wb, lb);
	}
	free(want);
}

static struct ul_cell *add_cell(struct ul_run *run, const char *suite, const char *load,
				const char *probe, const char *series, const int64_t *v, size_t n)
{
	struct ul_cell *c = ul_run_add_cell(run);

	ck_assert_ptr_nonnull(c);
	snprintf(c->suite, sizeof(c->suite), "%s", suite);
	snprintf(c->load, sizeof(c->load), "%s", load);
	snprintf(c->probe, sizeof(c->probe), "%s", probe);
	if (series) {
		struct ul_series *s = ul_cell_series(c, series);

		ck_assert_ptr_nonnull(s);
		for (size_t i = 0; i < n; i++)
			ck_assert_int_eq(ul_series_push(s, v[i]), 0);
	}
	return c;
}

/* Whether `needle` occurs on the line that starts at `line` (after its leading newline). */
static bool on_line(const char *line, const char *needle)
{
	const char *end = strchr(line + 1, '\n');
	const char *hit = strstr(line, needle);

	return hit && (!end || hit < end);
}

/* The number of times `needle` occurs in `hay`. */
static int count(const char *hay, const char *needle)
{
	int k = 0;

	for (const char *p = hay; (p = strstr(p, needle)); p++)
		k++;
	return k;
}

/* ---- the seed model --------------------------------------------------- */

/*
 * Raw delays (ns) for the "2.4.18-5.out" table of seed 000.  The seed only
 * printed summaries, so these were solved for offline: each row's points
 * have exactly the printed low, high and median, a mean equal to the
 * printed average to the ns, and a sample S.D. (n-1) that rounds to the
 * printed seconds.  n differs per row as it did in resp1 (minimum 5;
 * smallwrite, largewrite and 2ctx-mem cannot be reproduced with 5 points).
 * Points are listed unsorted, as sampled.
 */
static const int64_t seed_noload[] = {
	238819369, 247882000, 239419000, 238745000, 239654631,
};
static const int64_t seed_smallwrite[] = {
	278644165, 412260000, 345788000, 259114000, 366451670, 278644165, 345788000,
};
static const int64_t seed_largewrite[] = {
	1802466750, 279599000, 507911250, 2018226000, 282236593, 1949566407,
};
static const int64_t seed_cpuload[] = {
	239397480, 326137000, 238958000, 241069520, 239678000,
};
static const int64_t seed_spawnload[] = {
	227706824, 294703000, 229801000, 227693000, 252516176,
};
static const int64_t seed_8ctx[] = {
	3798391415, 914206000, 13174630585, 4402521000, 26547601000,
};
static const int64_t seed_2ctx[] = {
	2530056868, 9228024000, 296088000, 5005911220, 3445643000, 2530056869, 5901485043,
};

#define SEED_CELL(run, load, arr)                                                                  \
	add_cell(run, "resp", load, "resp", "delay_ns", arr, UL_ARRAY_SIZE(arr))

static void seed_run(struct ul_run *run)
{
	ul_run_init(run);
	run->host.ncpu = 1;
	run->host.mem_total_bytes = 96 * UL_MiB;
	/* 92 MiB and a bit: the header truncates to whole MiB */
	run->params.mem_budget_bytes = 92 * UL_MiB + 700 * UL_KiB;
	run->params.min_points = 5;
	run->params.max_points = 10;
	run->params.interval_ns = 20 * UL_NS_PER_SEC;
	/* Deliberately not in table order, with a cell of another suite: the
	 * format, not the engine, owns the seed's row order. */
	SEED_CELL(run, "2ctx-mem", seed_2ctx);
	SEED_CELL(run, "cpuload", seed_cpuload);
	add_cell(run, "contest", "noload", "whole", "elapsed_ns", seed_noload, 2);
	SEED_CELL(run, "noload", seed_noload);
	SEED_CELL(run, "8ctx-mem", seed_8ctx);
	SEED_CELL(run, "smallwrite", seed_smallwrite);
	SEED_CELL(run, "spawnload", seed_spawnload);
	SEED_CELL(run, "largewrite", seed_largewrite);
}

/* ---- resp1 ------------------------------------------------------------ */

START_TEST(test_resp1_seed_table)
{
	struct ul_run run;
	char *out;

	seed_run(&run);
	out = render("resp1", &run);
	check_golden("resp1-2.4.18.txt", out, false);
	free(out);
	ul_run_release(&run);
}
END_TEST

/* The solved samples really have the seed's summary (guards the fixture itself). */
START_TEST(test_resp1_seed_fixture)
{
	struct ul_summary s;

	ck_assert_int_eq(ul_stats_summarize_i64(seed_largewrite, 6, &s), 0);
	ck_assert_double_eq_tol(s.min, 279599000, 0.5);
	ck_assert_double_eq_tol(s.max, 2018226000, 0.5);
	ck_assert_double_eq_tol(s.median, 1155189000, 0.5);
	ck_assert_double_eq_tol(s.mean, 1140001000, 0.5);
	ck_assert_double_eq_tol(s.sd / 1e9, 0.865, 0.0005);
	ck_assert_int_eq(ul_stats_summarize_i64(seed_8ctx, 5, &s), 0);
	ck_assert_double_eq_tol(s.sd / 1e9, 10.440, 0.0005);
}
END_TEST

START_TEST(test_resp1_header_variants)
{
	struct ul_run run;
	char *out;

	ul_run_init(&run);
	run.host.ncpu = 8;
	run.host.mem_total_bytes = 16 * UL_GiB - 1; /* no budget: MemTotal, truncated */
	run.params.min_points = 3;
	run.params.interval_ns = 1500 * UL_NS_PER_MS;
	out = render("resp1", &run);
	ck_assert_str_eq(out, "  Starting 8 CPU run with 16383 MB RAM, minimum 3 data points "
			      "at 1.5 sec intervals\n"
			      " \n"
			      "                       _____________ delay ms. ____________"
			      "                  \n"
			      "           Test        low       high    median     average     S.D."
			      "    ratio\n");
	free(out);
	ul_run_release(&run);
}
END_TEST

START_TEST(test_resp1_odd_rows)
{
	static const int64_t pts[] = { 100000000, 300000000, 200000000 };
	struct ul_run run;
	struct ul_cell *c;
	char *out;

	ul_run_init(&run);
	run.host.ncpu = 2;
	run.params.mem_budget_bytes = 256 * UL_MiB;
	run.params.min_points = 5;
	run.params.interval_ns = 5 * UL_NS_PER_SEC;
	/* an unknown load first in run order: it still comes after the seed rows */
	add_cell(&run, "resp", "tarx", "resp", "delay_ns", pts, 3);
	c = add_cell(&run, "resp", "smallwrite", "resp", "delay_ns", pts, 3);
	c->outcome = UL_CELL_LOAD_DIED;
	snprintf(c->note, sizeof(c->note), "writer exited\nwith status 1");
	c = add_cell(&run, "resp", "cpuload", "resp", NULL, NULL, 0);
	c = add_cell(&run, "resp", "spawnload", "resp", NULL, NULL, 0);
	c->outcome = UL_CELL_PROBE_FAILED;
	add_cell(&run, "resp", "a-very-long-load-name", "resp", "delay_ns", pts, 3);
	out = render("resp1", &run);
	ck_assert_ptr_nonnull(strstr(out, " 5 sec intervals\n"));
	/* no noload: numbers but ratio "-" */
	/* the note's newline is shown escaped: one row stays one line */
	ck_assert_ptr_nonnull(strstr(out, "\n     smallwrite   (load-died: writer exited\\nwith "
					  "status 1)\n"
					  "        cpuload   (no data)\n"
					  "      spawnload   (probe-failed)\n"
					  "           tarx    100.000    300.000    200.000"
					  "    200.000    0.100        -\n"
					  " a-very-long-load-name    100.000"));
	free(out);

	/* a noload that failed is no baseline either */
	c = add_cell(&run, "resp", "noload", "resp", "delay_ns", pts, 3);
	c->outcome = UL_CELL_LOAD_FAILED;
	out = render("resp1", &run);
	ck_assert_ptr_nonnull(strstr(out, "         noload   (load-failed)\n     smallwrite"));
	ck_assert_int_eq(count(out, "        -\n"), 2);
	free(out);

	/* a good noload gives ratios of means */
	c->outcome = UL_CELL_OK;
	out = render("resp1", &run);
	ck_assert_int_eq(count(out, "        -\n"), 0);
	ck_assert_int_eq(count(out, "    0.100    1.000\n"), 3);
	free(out);
	ul_run_release(&run);
}
END_TEST

/* ---- the synthetic model for text and json ------------------------------- */

static const int64_t syn_noload[] = {
	2000000, 2100000, 1900000, 2050000, 1950000, 2000000, 2200000
};
static const int64_t syn_cpuload[] = { 3000000, 3500000, 2900000, 4100000, 3300000 };
static const int64_t syn_small[] = { 5000000, 90000000, 7000000 };
static const int64_t syn_ctx[] = { 2500000, 150000000, 3000000,	  98000000,
				   2600000, 2700000,   120000000, 3100000 };
static const int64_t syn_c_noload[] = { 61000000000, 60500000000, 60800000000 };
static const int64_t syn_c_proc[] = { 95000000000, 99000000000, 97000000000 };
static const int64_t syn_c_rss[] = { 1024, 2048, 4096 };
static const int64_t syn_iter[] = { 1000, 1010, 990, 1005, 995, 1000 };

static void synthetic_run(struct ul_run *run)
{
	struct ul_cell *c;

	ul_run_init(run);
	run->id = 42;
	snprintf(run->uuid, sizeof(run->uuid), "0f8e2a53-5b7c-4d1e-9a6f-2c3b4d5e6f70");
	snprintf(run->label, sizeof(run->label), "6.1.0-synthetic \"quoted\"");
	snprintf(run->tool_version, sizeof(run->tool_version), "0.1.0");
	snprintf(run->argv, sizeof(run->argv), "underload run --suite resp,contest");
	snprintf(run->suites, sizeof(run->suites), "resp,contest,micro");
	run->status = UL_RUN_COMPLETE;
	run->started_wall_ns = INT64_C(1704164645) * UL_NS_PER_SEC + 123456789;
	run->finished_wall_ns = INT64_C(1704165245) * UL_NS_PER_SEC;
	snprintf(run->host.hostname, sizeof(run->host.hostname), "testbox");
	snprintf(run->host.kernel_release, sizeof(run->host.kernel_release), "6.1.0-synthetic");
	snprintf(run->host.kernel_version, sizeof(run->host.kernel_version),
		 "#1 SMP PREEMPT_DYNAMIC");
	snprintf(run->host.arch, sizeof(run->host.arch), "x86_64");
	snprintf(run->host.cpu_model, sizeof(run->host.cpu_model), "Synthetic CPU @ 2.00GHz");
	run->host.ncpu = 4;
	run->host.mem_total_bytes = 8 * UL_GiB;
	run->host.swap_total_bytes = 2 * UL_GiB;
	run->params.interval_ns = 500 * UL_NS_PER_MS;
	run->params.min_points = 5;
	run->params.max_points = 20;
	run->params.ci_target_centi = 500;
	run->params.mem_budget_bytes = UL_GiB;
	run->params.mem_limit_bytes = 2 * UL_GiB;

	c = add_cell(run, "resp", "noload", "resp", "delay_ns", syn_noload, 7);
	snprintf(c->load_unit, sizeof(c->load_unit), "units");
	c->started_wall_ns = run->started_wall_ns + UL_NS_PER_SEC;
	c->finished_wall_ns = run->started_wall_ns + 5 * UL_NS_PER_SEC;
	c = add_cell(run, "resp", "cpuload", "resp", "delay_ns", syn_cpuload, 5);
	snprintf(c->load_unit, sizeof(c->load_unit), "spins");
	c->load_units = 123456;
	ck_assert_int_eq(ul_cell_set_metric(c, "probe_majflt", 3), 0);
	ck_assert_int_eq(ul_cell_set_metric(c, "load_cpu_pct", 97.25), 0);
	ck_assert_int_eq(ul_cell_set_metric(c, "load_units_per_s", 30864.0), 0);
	c = add_cell(run, "resp", "smallwrite", "resp", "delay_ns", syn_small, 3);
	snprintf(c->load_unit, sizeof(c->load_unit), "writes");
	c->load_units = 77;
	c->outcome = UL_CELL_LOAD_DIED;
	snprintf(c->note, sizeof(c->note), "writer exited with status 1");
	c = add_cell(run, "resp", "8ctx-mem", "resp", "delay_ns", syn_ctx, 8);
	snprintf(c->load_unit, sizeof(c->load_unit), "switches");
	c->load_units = 9000000;
	c->flags = UL_CELL_NOISY | UL_CELL_LOAD_KILLED;
	c = add_cell(run, "resp", "spawnload", "resp", NULL, NULL, 0);
	snprintf(c->load_unit, sizeof(c->load_unit), "forks");
	c->outcome = UL_CELL_PROBE_FAILED;
	snprintf(c->note, sizeof(c->note), "probe missed its deadline");
	add_cell(run, "contest", "noload", "whole", "elapsed_ns", syn_c_noload, 3);
	c = add_cell(run, "contest", "process_load", "whole", "elapsed_ns", syn_c_proc, 3);
	snprintf(c->load_unit, sizeof(c->load_unit), "loops");
	c->load_units = 12;
	{
		struct ul_series *s = ul_cell_series(c, "maxrss_kib");

		ck_assert_ptr_nonnull(s);
		for (size_t i = 0; i < UL_ARRAY_SIZE(syn_c_rss); i++)
			ck_assert_int_eq(ul_series_push(s, syn_c_rss[i]), 0);
	}
	add_cell(run, "micro", "noload", "getppid", "iterations", syn_iter, 6);
}

/* ---- text ------------------------------------------------------------- */

/* The header names only what the run's suites use, and the run's own swap
 * file (the host's swap was read before it existed). */
START_TEST(test_text_header_per_suite)
{
	struct ul_run run;
	char *out;

	synthetic_run(&run);
	snprintf(run.suites, sizeof(run.suites), "mtest");
	run.host.swap_total_bytes = 0;
	run.params.swap_bytes = UL_GiB;
	out = render("text", &run);
	ck_assert_ptr_nonnull(strstr(out, "0 MiB swap + the run's 1024 MiB swap file, "));
	ck_assert_ptr_null(strstr(out, "interval"));
	ck_assert_ptr_nonnull(strstr(out, "\nparams:  memory budget 1024 MiB"));
	free(out);
	snprintf(run.suites, sizeof(run.suites), "contest,resp");
	out = render("text", &run);
	ck_assert_ptr_nonnull(strstr(out, "\nparams:  interval 0.5 s, 5..20 points"));
	free(out);
	ul_run_release(&run);
}
END_TEST

/* A disturbed baseline warns in every format; disturbed cells are listed
 * under resp1's table in lines grep '^ ' skips. */
START_TEST(test_disturbed_notes)
{
	struct ul_run run;
	char *out;

	synthetic_run(&run);
	run.cells[0].flags |= UL_CELL_DISTURBED; /* resp noload */
	ck_assert_int_eq(ul_cell_set_metric(&run.cells[0], "foreign_cpu_pct", 53.25), 0);
	run.cells[1].flags |= UL_CELL_DISTURBED; /* resp cpuload */
	ck_assert_int_eq(ul_cell_set_metric(&run.cells[1], "foreign_cpu_pct", 7.5), 0);
	out = render("resp1", &run);
	ck_assert_ptr_nonnull(strstr(out,
				     "\nwarning: the noload baseline was disturbed: 53.2% of a "
				     "CPU was used outside the run while it was measured; "
				     "every ratio divides by it\n"
				     "disturbed: noload (53.2% of a CPU used outside the run)\n"
				     "disturbed: cpuload (7.5% of a CPU used outside the run)\n"));
	free(out);
	out = render("text", &run);
	ck_assert_ptr_nonnull(strstr(out,
				     "median / noload median\nwarning: the noload baseline was "
				     "disturbed: 53.2%"));
	ck_assert_ptr_nonnull(strstr(out, "\n! noload "));
	ck_assert_ptr_nonnull(strstr(out, "  ok+disturbed\n"));
	free(out);
	out = render("json", &run);
	ck_assert_ptr_nonnull(strstr(out, "\"disturbed\""));
	free(out);
	ul_run_release(&run);
}
END_TEST

START_TEST(test_text_golden)
{
	struct ul_run run;
	char *out;

	synthetic_run(&run);
	out = render("text", &run);
	check_golden("text-synthetic.txt", out, true);
	free(out);
	ul_run_release(&run);
}
END_TEST

/* Facts the golden file must show, checked independently of it. */
START_TEST(test_text_content)
{
	struct ul_run run;
	char *out, *line;

	synthetic_run(&run);
	out = render("text", &run);
	ck_assert_ptr_nonnull(strstr(out, "label:   6.1.0-synthetic \"quoted\"\n"));
	ck_assert_ptr_nonnull(strstr(out, "run:     0f8e2a53-5b7c-4d1e-9a6f-2c3b4d5e6f70 "
					  "(complete)\n"));
	ck_assert_ptr_nonnull(strstr(out, "started: 2024-01-02T03:04:05Z, "
					  "finished 2024-01-02T03:14:05Z\n"));
	ck_assert_int_eq(count(out, "\nsuite "), 3);
	ck_assert_ptr_nonnull(
		strstr(out, "\nsuite resp, probe resp: delay_ns in ns, \xc2\xb5s, ms or s;"));
	ck_assert_ptr_nonnull(strstr(out, "\nsuite micro, probe getppid: iterations as recorded;"));

	/* noload: n=7 has a CI: order statistics 1 and 7 -> [1.900, 2.200] ms */
	line = strstr(out, "\n  noload ");
	ck_assert_ptr_nonnull(line);
	ck_assert(on_line(line, "[1.900 ms, 2.200 ms]"));
	/* cpuload: n=5, no CI; median 3.3 / noload median 2.0 */
	line = strstr(out, "\n  cpuload ");
	ck_assert_ptr_nonnull(line);
	ck_assert(on_line(line, "n<6"));
	ck_assert(on_line(line, " 1.650 "));
	ck_assert(on_line(line, "123456 spins"));
	ck_assert(!on_line(line, "["));
	/* marked rows: noisy, load-died, probe-failed; not the clean ones */
	ck_assert_ptr_nonnull(strstr(out, "\n! smallwrite "));
	ck_assert_ptr_nonnull(strstr(out, "\n! 8ctx-mem "));
	ck_assert_ptr_nonnull(strstr(out, "\n! spawnload "));
	ck_assert_int_eq(count(out, "\n! "), 3);
	ck_assert_ptr_nonnull(strstr(out, "ok+noisy+load-killed\n"));
	ck_assert_ptr_nonnull(strstr(out, "    smallwrite: load-died: writer exited with "
					  "status 1\n"));
	ck_assert_int_eq(count(out, "  ! = noisy"), 1);
	/* no trailing blanks anywhere */
	ck_assert_ptr_null(strstr(out, " \n"));
	free(out);
	ul_run_release(&run);
}
END_TEST

/* ---- json ------------------------------------------------------------- */

static json_t *render_json(const struct ul_run *run, char **text)
{
	FILE *f = tmpfile();
	json_error_t jerr;
	json_t *root;
	size_t len;

	ck_assert_ptr_nonnull(f);
	ck_assert_int_eq(fmt("json")->write_run(f, run), 0);
	rewind(f);
	root = json_loadf(f, JSON_REJECT_DUPLICATES, &jerr);
	ck_assert_msg(root != NULL, "json does not parse: line %d: %s", jerr.line, jerr.text);
	rewind(f);
	fseek(f, 0, SEEK_END);
	len = (size_t)ftell(f);
	rewind(f);
	*text = malloc(len + 1);
	ck_assert_ptr_nonnull(*text);
	ck_assert_uint_eq(fread(*text, 1, len, f), len);
	(*text)[len] = '\0';
	fclose(f);
	return root;
}

static json_t *get(const json_t *obj, const char *key, json_type type)
{
	json_t *v = json_object_get(obj, key);

	ck_assert_msg(v != NULL, "key '%s' missing", key);
	ck_assert_msg(json_typeof(v) == type, "key '%s' has type %d, want %d", key,
		      (int)json_typeof(v), (int)type);
	return v;
}

static const char *jstr(const json_t *obj, const char *key)
{
	return json_string_value(get(obj, key, JSON_STRING));
}

static json_int_t jint(const json_t *obj, const char *key)
{
	return json_integer_value(get(obj, key, JSON_INTEGER));
}

static double jreal(const json_t *obj, const char *key)
{
	return json_real_value(get(obj, key, JSON_REAL));
}

static void check_keys(const json_t *obj, const char *const *keys)
{
	const char *key;
	json_t *v;
	size_t i = 0;

	/* the document's order is the documented order */
	json_object_foreach ((json_t *)obj, key, v) {
		(void)v;
		ck_assert_ptr_nonnull(keys[i]);
		ck_assert_str_eq(key, keys[i]);
		i++;
	}
	ck_assert_ptr_null(keys[i]);
}

START_TEST(test_json_document)
{
	static const char *const top_keys[] = { "format", "format_version", "run", "crashed_in",
						"cells",  "breakdown",	    NULL };
	static const char *const run_keys[] = {
		"id",	    "uuid",   "label",	    "status",  "tool_version",
		"argv",	    "suites", "started_ns", "started", "finished_ns",
		"finished", "host",   "params",	    NULL,
	};
	static const char *const cell_keys[] = {
		"suite",       "load",	 "probe",     "seq",	    "outcome",
		"flags",       "note",	 "load_unit", "load_units", "started_ns",
		"finished_ns", "series", "metrics",   "summary",    NULL,
	};
	static const char *const summary_keys[] = {
		"series", "n",	 "min",	     "max",   "median", "mean",
		"sd",	  "p90", "dev_mean", "ci_lo", "ci_hi",	NULL,
	};
	struct ul_run run;
	char *text;
	json_t *root, *jrun, *host, *params, *cells, *suites;

	synthetic_run(&run);
	root = render_json(&run, &text);
	ck_assert_str_eq(text + strlen(text) - 2, "}\n");
	ck_assert_ptr_nonnull(strstr(text, "{\n  \"format\": \"underload-results\",\n"));
	check_keys(root, top_keys);
	ck_assert_str_eq(jstr(root, "format"), "underload-results");
	ck_assert_int_eq(jint(root, "format_version"), 1);

	jrun = get(root, "run", JSON_OBJECT);
	check_keys(jrun, run_keys);
	ck_assert_int_eq(jint(jrun, "id"), 42);
	ck_assert_str_eq(jstr(jrun, "uuid"), run.uuid);
	ck_assert_str_eq(jstr(jrun, "label"), run.label);
	ck_assert_str_eq(jstr(jrun, "status"), "complete");
	ck_assert_str_eq(jstr(jrun, "tool_version"), "0.1.0");
	ck_assert_str_eq(jstr(jrun, "argv"), run.argv);
	suites = get(jrun, "suites", JSON_ARRAY);
	ck_assert_uint_eq(json_array_size(suites), 3);
	ck_assert_str_eq(json_string_value(json_array_get(suites, 0)), "resp");
	ck_assert_str_eq(json_string_value(json_array_get(suites, 2)), "micro");
	ck_assert_int_eq(jint(jrun, "started_ns"), run.started_wall_ns);
	ck_assert_str_eq(jstr(jrun, "started"), "2024-01-02T03:04:05Z");
	ck_assert_int_eq(jint(jrun, "finished_ns"), run.finished_wall_ns);
	ck_assert_str_eq(jstr(jrun, "finished"), "2024-01-02T03:14:05Z");
	host = get(jrun, "host", JSON_OBJECT);
	ck_assert_str_eq(jstr(host, "hostname"), "testbox");
	ck_assert_str_eq(jstr(host, "kernel_release"), "6.1.0-synthetic");
	ck_assert_str_eq(jstr(host, "kernel_version"), "#1 SMP PREEMPT_DYNAMIC");
	ck_assert_str_eq(jstr(host, "arch"), "x86_64");
	ck_assert_str_eq(jstr(host, "cpu_model"), "Synthetic CPU @ 2.00GHz");
	ck_assert_int_eq(jint(host, "ncpu"), 4);
	ck_assert_int_eq(jint(host, "mem_total_bytes"), (json_int_t)(8 * UL_GiB));
	ck_assert_int_eq(jint(host, "swap_total_bytes"), (json_int_t)(2 * UL_GiB));
	params = get(jrun, "params", JSON_OBJECT);
	ck_assert_int_eq(jint(params, "interval_ns"), 500000000);
	ck_assert_int_eq(jint(params, "min_points"), 5);
	ck_assert_int_eq(jint(params, "max_points"), 20);
	ck_assert_int_eq(jint(params, "ci_target_centi"), 500);
	ck_assert_int_eq(jint(params, "mem_budget_bytes"), (json_int_t)UL_GiB);
	ck_assert_int_eq(jint(params, "mem_limit_bytes"), (json_int_t)(2 * UL_GiB));
	ck_assert_int_eq(jint(params, "swap_bytes"), 0);

	cells = get(root, "cells", JSON_ARRAY);
	ck_assert_uint_eq(json_array_size(cells), run.n_cells);
	for (size_t i = 0; i < run.n_cells; i++) {
		const struct ul_cell *c = &run.cells[i];
		json_t *jc = json_array_get(cells, i);
		json_t *series, *metrics, *summary, *flags;

		ck_assert_ptr_nonnull(jc);
		check_keys(jc, cell_keys);
		ck_assert_str_eq(jstr(jc, "suite"), c->suite);
		ck_assert_str_eq(jstr(jc, "load"), c->load);
		ck_assert_str_eq(jstr(jc, "probe"), c->probe);
		ck_assert_int_eq(jint(jc, "seq"), c->seq);
		ck_assert_str_eq(jstr(jc, "outcome"), ul_cell_outcome_name(c->outcome));
		ck_assert_str_eq(jstr(jc, "note"), c->note);
		ck_assert_str_eq(jstr(jc, "load_unit"), c->load_unit);
		ck_assert_int_eq(jint(jc, "load_units"), (json_int_t)c->load_units);
		if (c->started_wall_ns)
			ck_assert_int_eq(jint(jc, "started_ns"), c->started_wall_ns);
		else
			get(jc, "started_ns", JSON_NULL);
		flags = get(jc, "flags", JSON_ARRAY);
		if (c->flags) {
			ck_assert_uint_eq(json_array_size(flags), 2);
			ck_assert_str_eq(json_string_value(json_array_get(flags, 0)), "noisy");
			ck_assert_str_eq(json_string_value(json_array_get(flags, 1)),
					 "load-killed");
		} else {
			ck_assert_uint_eq(json_array_size(flags), 0);
		}

		/* every raw sample, in order, exact */
		series = get(jc, "series", JSON_OBJECT);
		ck_assert_uint_eq(json_object_size(series), c->n_series);
		for (size_t k = 0; k < c->n_series; k++) {
			const struct ul_series *s = &c->series[k];
			json_t *arr = get(series, s->name, JSON_ARRAY);

			ck_assert_uint_eq(json_array_size(arr), s->n);
			for (size_t j = 0; j < s->n; j++) {
				json_t *v = json_array_get(arr, j);

				ck_assert(json_is_integer(v));
				ck_assert_int_eq(json_integer_value(v), s->v[j]);
			}
		}
		metrics = get(jc, "metrics", JSON_OBJECT);
		ck_assert_uint_eq(json_object_size(metrics), c->n_metrics);
		for (size_t k = 0; k < c->n_metrics; k++)
			ck_assert_double_eq(
				json_number_value(get(metrics, c->metrics[k].name, JSON_REAL)),
				c->metrics[k].value);

		if (!c->n_series || !c->series[0].n) {
			get(jc, "summary", JSON_NULL);
		} else {
			struct ul_summary want;

			summary = get(jc, "summary", JSON_OBJECT);
			check_keys(summary, summary_keys);
			ck_assert_int_eq(
				ul_stats_summarize_i64(c->series[0].v, c->series[0].n, &want), 0);
			ck_assert_str_eq(jstr(summary, "series"), c->series[0].name);
			ck_assert_int_eq(jint(summary, "n"), (json_int_t)want.n);
			ck_assert_double_eq(jreal(summary, "min"), want.min);
			ck_assert_double_eq(jreal(summary, "max"), want.max);
			ck_assert_double_eq(jreal(summary, "median"), want.median);
			ck_assert_double_eq(jreal(summary, "mean"), want.mean);
			ck_assert_double_eq(jreal(summary, "sd"), want.sd);
			ck_assert_double_eq(jreal(summary, "p90"), want.p90);
			ck_assert_double_eq(jreal(summary, "dev_mean"), want.dev_mean);
			if (want.has_ci) {
				ck_assert_double_eq(jreal(summary, "ci_lo"), want.ci_lo);
				ck_assert_double_eq(jreal(summary, "ci_hi"), want.ci_hi);
			} else {
				get(summary, "ci_lo", JSON_NULL);
				get(summary, "ci_hi", JSON_NULL);
			}
		}
	}
	/* spot values, not just self-consistency */
	ck_assert_int_eq(json_integer_value(json_array_get(
				 get(get(json_array_get(cells, 6), "series", JSON_OBJECT),
				     "maxrss_kib", JSON_ARRAY),
				 2)),
			 4096);
	ck_assert_str_eq(jstr(json_array_get(cells, 2), "outcome"), "load-died");
	ck_assert_double_eq(
		json_real_value(get(get(json_array_get(cells, 0), "summary", JSON_OBJECT), "median",
				    JSON_REAL)),
		2000000.0);
	json_decref(root);
	free(text);
	ul_run_release(&run);
}
END_TEST

START_TEST(test_json_edge_values)
{
	static const int64_t big[] = { INT64_MAX, INT64_MIN, 0 };
	struct ul_run run;
	struct ul_cell *c;
	char *text;
	json_t *root, *jrun, *jc;

	ul_run_init(&run);
	/* not UTF-8: must still be valid JSON, with the bad bytes replaced */
	snprintf(run.label, sizeof(run.label), "caf\xe9-\x01");
	c = add_cell(&run, "resp", "noload", "resp", "delay_ns", big, 3);
	c->load_units = UINT64_MAX;
	c->flags = 1u << 7;
	ck_assert_int_eq(ul_cell_set_metric(c, "ratio", NAN), 0);
	root = render_json(&run, &text);
	jrun = get(root, "run", JSON_OBJECT);
	ck_assert_str_eq(jstr(jrun, "label"), "caf?-\x01");
	get(jrun, "started_ns", JSON_NULL);
	get(jrun, "started", JSON_NULL);
	ck_assert_uint_eq(json_array_size(get(jrun, "suites", JSON_ARRAY)), 0);
	jc = json_array_get(get(root, "cells", JSON_ARRAY), 0);
	ck_assert_int_eq(json_integer_value(json_array_get(
				 get(get(jc, "series", JSON_OBJECT), "delay_ns", JSON_ARRAY), 0)),
			 INT64_MAX);
	ck_assert_int_eq(json_integer_value(json_array_get(
				 get(get(jc, "series", JSON_OBJECT), "delay_ns", JSON_ARRAY), 1)),
			 INT64_MIN);
	ck_assert_double_eq_tol(jreal(jc, "load_units"), (double)UINT64_MAX, 1e4);
	ck_assert_str_eq(json_string_value(json_array_get(get(jc, "flags", JSON_ARRAY), 0)),
			 "bit7");
	get(get(jc, "metrics", JSON_OBJECT), "ratio", JSON_NULL);
	json_decref(root);
	free(text);
	ul_run_release(&run);
}
END_TEST

/* ---- breakdown --------------------------------------------------------- */

/* A cell of 5 samples whose parts are on-CPU i, run queue 10 i, other 1
 * (ns), the delay their sum; with delayacct, I/O 2 i too. */
static void breakdown_cell(struct ul_cell *c, bool delayacct)
{
	struct ul_series *d = ul_cell_series(c, "delay_ns");

	ck_assert_ptr_nonnull(d);
	for (int64_t i = 1; i <= 5; i++) {
		struct {
			enum ul_breakdown_part p;
			int64_t v;
		} parts[] = { { UL_PART_ONCPU, i },
			      { UL_PART_RUNQ, 10 * i },
			      { UL_PART_OTHER, 1 },
			      { UL_PART_BLKIO, 2 * i } };
		int64_t sum = 0;

		for (size_t k = 0; k < UL_ARRAY_SIZE(parts) - !delayacct; k++) {
			struct ul_series *s =
				ul_cell_series(c, ul_breakdown_parts[parts[k].p].series);

			ck_assert_int_eq(ul_series_push(s, parts[k].v), 0);
			sum += parts[k].v;
		}
		d = ul_cell_series(c, "delay_ns");
		ck_assert_int_eq(ul_series_push(d, sum), 0);
	}
}

START_TEST(test_breakdown_medians)
{
	struct ul_breakdown_medians m;
	struct ul_cell c = { 0 }, off = { 0 }, none = { 0 };

	breakdown_cell(&c, true);
	ck_assert(ul_breakdown_has(&c));
	ck_assert_int_eq(ul_breakdown_medians(&c, &m), 0);
	ck_assert_uint_eq(m.n, 5);
	ck_assert_double_eq(m.delay, 3 + 30 + 1 + 6);
	ck_assert(m.counted[UL_PART_ONCPU] && m.counted[UL_PART_BLKIO]);
	ck_assert_double_eq(m.part[UL_PART_ONCPU], 3);
	ck_assert_double_eq(m.part[UL_PART_RUNQ], 30);
	ck_assert_double_eq(m.part[UL_PART_BLKIO], 6);
	ck_assert_double_eq(m.part[UL_PART_OTHER], 1);
	ck_assert(!m.counted[UL_PART_SWAPIN] && isnan(m.part[UL_PART_SWAPIN]));

	/* Without delay accounting: its parts not counted, the rest there. */
	breakdown_cell(&off, false);
	ck_assert_int_eq(ul_breakdown_medians(&off, &m), 0);
	ck_assert(!m.counted[UL_PART_BLKIO] && isnan(m.part[UL_PART_BLKIO]));
	ck_assert_double_eq(m.part[UL_PART_RUNQ], 30);

	/* A part shorter than the samples is not aligned: no breakdown. */
	ck_assert_int_eq(ul_series_push(ul_cell_series(&off, "delay_ns"), 7), 0);
	ck_assert(!ul_breakdown_has(&off));
	ck_assert_int_eq(ul_breakdown_medians(&off, &m), 1);

	/* The delay alone: no breakdown, no error. */
	ck_assert_int_eq(ul_series_push(ul_cell_series(&none, "delay_ns"), 5), 0);
	ck_assert(!ul_breakdown_has(&none));
	ck_assert_int_eq(ul_breakdown_medians(&none, &m), 1);
	ul_cell_release(&c);
	ul_cell_release(&off);
	ul_cell_release(&none);
}
END_TEST

/* ---- every format ----------------------------------------------------- */

static ssize_t failing_write(void *cookie, const char *buf, size_t len)
{
	(void)cookie;
	(void)buf;
	(void)len;
	errno = ENOSPC;
	return -1;
}

/* A stream whose every write fails, like a full disk. */
START_TEST(test_formats_report_eio)
{
	static const cookie_io_functions_t io = { .write = failing_write };
	struct ul_run run;

	synthetic_run(&run);
	for (size_t i = 0; i < ul_format_count(); i++) {
		const struct ul_format *f = ul_format_at(i);
		FILE *out = fopencookie(NULL, "w", io);

		if (strcmp(f->name, "resp1") && strcmp(f->name, "text") && strcmp(f->name, "json"))
			continue; /* other helpers' formats are tested by their own suites */
		ck_assert_ptr_nonnull(out);
		ck_assert_msg(f->write_run(out, &run) == -EIO, "format '%s' hid a write error",
			      f->name);
		fclose(out);
	}
	ul_run_release(&run);
}
END_TEST

START_TEST(test_formats_registered)
{
	static const char *const names[] = { "resp1", "text", "json" };

	for (size_t i = 0; i < UL_ARRAY_SIZE(names); i++) {
		const struct ul_format *f = fmt(names[i]);

		ck_assert_str_eq(f->name, names[i]);
		ck_assert_int_eq(f->version, 1);
		ck_assert_ptr_nonnull(f->summary);
		ck_assert(f->write_run != NULL);
	}
	ck_assert_ptr_null(ul_format_find("no-such-format"));
}
END_TEST

/* An empty run renders in every format (nothing to divide by, nothing to sort). */
START_TEST(test_formats_empty_run)
{
	static const char *const names[] = { "resp1", "text", "json" };
	struct ul_run run;

	ul_run_init(&run);
	for (size_t i = 0; i < UL_ARRAY_SIZE(names); i++)
		free(render(names[i], &run));
}
END_TEST

/* ---- the aligner (report/table.c) --------------------------------------- */

static char *print_table(const struct ul_table *t)
{
	char *buf = NULL;
	size_t len = 0;
	FILE *out = open_memstream(&buf, &len);

	ck_assert_ptr_nonnull(out);
	ck_assert_int_eq(ul_table_print(out, t), 0);
	ck_assert_int_eq(fclose(out), 0);
	return buf;
}

START_TEST(test_table_aligns)
{
	static const bool left[3] = { true, false, true };
	static const char *const titles[3] = { "name", "n", "note" };
	struct ul_table t;
	size_t row;
	char *text;

	ul_table_init(&t, 3, left, true);
	ul_table_add_titles(&t, titles);
	row = ul_table_add_row(&t, '!');
	ul_table_set(&t, row, 0, "%s", "long-name");
	ul_table_set(&t, row, 1, "%d", 12345);
	ul_table_set(&t, row, 2, "%s", "x");
	row = ul_table_add_row(&t, ' ');
	ul_table_set_clean(&t, row, 0,
			   "a\tb\x7f"
			   "cdef",
			   4); /* capped, controls blanked */
	ul_table_set(&t, row, 1, "%d", 7);
	text = print_table(&t);
	ck_assert_str_eq(text, "  name           n  note\n"
			       "! long-name  12345  x\n"
			       "  a b            7\n"); /* no blanks for the empty last cell */
	free(text);
	ul_table_free(&t);

	ul_table_init(&t, 3, left, false);
	ul_table_add_titles(&t, titles);
	text = print_table(&t);
	ck_assert_str_eq(text, "name  n  note\n");
	free(text);
	ul_table_free(&t);
}
END_TEST

/* One value through ul_fmt_quantity. */
static void want_quantity(double v, const char *unit, const char *want)
{
	char buf[32];

	ck_assert_str_eq(ul_fmt_quantity(buf, sizeof(buf), v, unit), want);
}

/* Prefix boundaries: the prefix is chosen after rounding to 4 digits. */
START_TEST(test_quantity_time)
{
	want_quantity(999.5, "ns", "999.5 ns");
	want_quantity(999.94, "ns", "999.9 ns");
	want_quantity(999.96, "ns", "1.000 \xc2\xb5s");
	want_quantity(1000, "ns", "1.000 \xc2\xb5s");
	want_quantity(48508000, "ns", "48.51 ms");
	want_quantity(59.99e9, "ns", "59.99 s");
	want_quantity(3600e9, "ns", "3600 s");
	want_quantity(7, "ns", "7.000 ns");
	want_quantity(0, "ns", "0 ns");
	want_quantity(-2500000, "ns", "-2.500 ms");
	want_quantity(-999.96, "ns", "-1.000 \xc2\xb5s");
	want_quantity(485400, "ps", "485.4 ns");
	want_quantity(250, "ps", "250.0 ps");
	want_quantity(2.5e9, "ps", "2.500 ms");
}
END_TEST

START_TEST(test_quantity_rate_count)
{
	want_quantity(1038122951, "B/s", "1038 MB/s");
	want_quantity(12.5e6, "bytes/s", "12.50 MB/s");
	want_quantity(0, "B/s", "0 MB/s");
	want_quantity(12345678, "forks", "12345678 forks");
	want_quantity(3.5, "ops/s", "3.5 ops/s");
	want_quantity(42, NULL, "42");
	want_quantity(NAN, "ns", "-");
	want_quantity(INFINITY, "B/s", "-");
	want_quantity(-INFINITY, "forks", "-");
	ck_assert_str_eq(ul_series_unit("delay_ns"), "ns");
	ck_assert_str_eq(ul_series_unit("op_ps"), "ps");
	ck_assert_str_eq(ul_series_unit("fsbench_throughput_bps"), "B/s");
	ck_assert_ptr_null(ul_series_unit("iterations"));
	ck_assert_int_eq(ul_fmt_width("1.000 \xc2\xb5s", 12), 13);
	ck_assert_uint_eq(ul_fmt_columns("1.000 \xc2\xb5s"), 8);
}
END_TEST

Suite *ul_test_suite_report(void)
{
	Suite *s = suite_create("report");
	TCase *tc = tcase_create("report");

	tcase_add_test(tc, test_resp1_seed_table);
	tcase_add_test(tc, test_resp1_seed_fixture);
	tcase_add_test(tc, test_resp1_header_variants);
	tcase_add_test(tc, test_resp1_odd_rows);
	tcase_add_test(tc, test_text_golden);
	tcase_add_test(tc, test_quantity_time);
	tcase_add_test(tc, test_quantity_rate_count);
	tcase_add_test(tc, test_disturbed_notes);
	tcase_add_test(tc, test_text_header_per_suite);
	tcase_add_test(tc, test_text_content);
	tcase_add_test(tc, test_json_document);
	tcase_add_test(tc, test_breakdown_medians);
	tcase_add_test(tc, test_json_edge_values);
	tcase_add_test(tc, test_formats_report_eio);
	tcase_add_test(tc, test_formats_registered);
	tcase_add_test(tc, test_formats_empty_run);
	tcase_add_test(tc, test_table_aligns);
	suite_add_tcase(s, tc);
	return s;
}

/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * What a suite is, described once: its tests (load + probe + per-test
 * options) in the seed's order, its seed-layout format, its own options of
 * `underload run`, its preflight, how it runs, and what `compare` and
 * `report` need to know of it.  The descriptor's type lives here, below
 * engine/, so report/ and stats/ can read its data (test order, metric
 * directions) without seeing the engine; the hooks take engine types by
 * pointer only.  The suites themselves and their registry are the
 * engine's (engine/suites/); the lookups by name below are defined there
 * (engine/suites/registry.c) and only declared here.
 *
 * How to add a suite: make the folder engine/suites/NAME/ with its driver
 * NAME.c defining `const struct ul_suite ul_suite_NAME` (tests, probe,
 * options, the shared options of run it reads, hooks, the size of its
 * state), its private helpers and a meson.build adding its files
 * to suite_sources; add `UL_SUITE(NAME, NAME)` to engine/suites/suites.def
 * and give it a CLI test under tests/cli/.  Only when report shows more of
 * it than the generic tables and plots: a format for its seed table
 * (report/format.h) and its report block (`report`, report/suites.h).
 * Nothing outside engine/suites/ names a suite: code that treats one
 * suite differently reads a field of its descriptor (tests/check-source
 * enforces it).
 */
#ifndef UL_MODEL_SUITE_H
#define UL_MODEL_SUITE_H

#include "core/compat.h"
#include "core/opt.h"
#include "model/model.h"

struct ul_engine;
struct ul_cell;
struct ul_suite_report;

/* One test of a suite: a load measured by a probe. */
struct ul_suite_test {
	const char *load;  /* load registry name: "cpuload" */
	const char *probe; /* probe registry name; NULL = the suite's probe */
	/* Its name in --tests, reports and compare when that is not the load
	 * (micro's tests are its probes: "lat-pipe"); NULL = the load's.  A
	 * suite names all its tests or none. */
	const char *name;
	/* Further names that select it in --tests, comma-separated (micro:
	 * its table "proc", an alias "null"); NULL = none. */
	const char *groups;
	/* Settings of this test's load only, "NAME=VALUE" of the load's
	 * option table, applied over the run's -o when its cell's load starts
	 * and in the preflight (NULL-terminated; NULL = none).  A probe lives
	 * across tests, so it has none. */
	const char *const *opts;
	/* Its place in its suite's seed-layout format (`format`), in that
	 * format's own type, so that adding a test is one row: micro's is
	 * the lmbench2 columns it fills (struct ul_lm2_source[],
	 * report/lmbench2.h).  NULL = that format does not show it. */
	const void *format_row;
};

/* A measurement compare puts side by side, per test. */
struct ul_suite_metric {
	const char *series; /* the cells' series holding its samples: "delay_ns" */
	const char *label;  /* column title: "delay" */
	const char *unit;   /* of the series' values: "ns" */
	enum ul_direction direction;
	/* A count when set: `series` then names the cell metric holding the
	 * count ("dl_missed") and this one the metric holding its exposure
	 * ("dl_periods"); compare tests the rate (count per exposure, in %).
	 * NULL = `series` is a series of samples. */
	const char *exposure;
};

struct ul_suite {
	const char *name;    /* "resp" */
	const char *summary; /* one line for `underload list suites` */
	const char *probe;   /* the probe its tests measure (registry name) */
	/* Its tests in the seed's order, ending with { NULL }; `--tests`
	 * picks among them.  Report formats order their rows by it. */
	const struct ul_suite_test *tests;
	/* --tests may also name any registered load besides `tests` (run
	 * under it with the suite's probe): resp, deadline and contest
	 * accept the fsbench load this way.  See ul_suite_accepts_test(). */
	bool tests_any_load;
	const char *format; /* its seed-layout format, printed by default before "text" */

	/* Its own options of `underload run`, shown under its name in --help
	 * and the man page.  cmd/run allocates opts_size zeroed bytes per
	 * suite, applies the table's defaults and parses into them; the suite
	 * reads them with ul_engine_suite_opts().  Given for an unselected
	 * suite they are a usage error. */
	const struct ul_opt *opts;
	size_t opts_size;
	/* After parsing, when the suite is selected: checks across options
	 * (--job-dir needs --job).  0, or -EINVAL with one line in err. */
	int (*check_opts)(const void *opts, char *err, size_t errlen);
	/* The options of `underload run` that only some suites read and this
	 * one does, comma-separated ("interval,min-points"): run's table
	 * (cmd/run_opts.c) marks them and says "only ..." from these lists.
	 * NULL = none. */
	const char *run_opts;

	/* Before any suite of the run starts (every selected suite's, in
	 * order): refuse what cannot run with one line each.  Returns an enum
	 * ul_engine_result; anything but OK ends the run with nothing
	 * measured.  NULL = the loads of its tests are checked
	 * (ul_engine_preflight). */
	int (*preflight)(struct ul_engine *eng, const struct ul_suite *suite);
	/* Run the suite's cells into eng->run; return an enum ul_engine_result. */
	int (*run)(struct ul_engine *eng, const struct ul_suite *suite);
	/* Its state from its preflight to the end of the run, never a static:
	 * the engine allocates state_size zeroed bytes per selected suite
	 * before any preflight, the hooks read them with
	 * ul_engine_suite_state(), and after the run (measured, refused or
	 * failed) the engine calls release (NULL = nothing to undo) and
	 * frees them.  0 = no state. */
	size_t state_size;
	void (*release)(void *state);

	/* --- compare (underload compare) --- */
	/* What compare tests per test, { NULL }-terminated; the first is the
	 * suite's primary measurement.  NULL = nothing to compare. */
	const struct ul_suite_metric *metrics;
	/* The format printing its cross-label seed table (several runs);
	 * NULL = `format` when it has write_runs. */
	const char *compare_format;
	/* Optional: the values of metric m in a stored cell when they are not
	 * simply the cell's series m->series (derived values).  Writes at most
	 * `room` of them to out (NULL when room is 0) and returns how many the
	 * cell has, as snprintf does: call with 0 to size a buffer.  A value
	 * that cannot be derived (a round of no measured time) is left out,
	 * never made up.  NULL = that series. */
	size_t (*metric_values)(const struct ul_cell *cell, const struct ul_suite_metric *m,
				int64_t *out, size_t room);

	/* --- report (underload report) --- */
	/* What report shows of it beyond the generic tables and plots: its
	 * blocks, its flags, its own formats (report/suites.h defines the
	 * type).  NULL = nothing more. */
	const struct ul_suite_report *report;
};

/*
 * The registry.  The suites are the engine's (engine/suites/suites.def);
 * the program that links the engine installs their NULL-terminated list
 * once at start, before any lookup: main(), the unit-test runner and the
 * fuzzers call ul_suites_install(ul_engine_suites).  model/ keeps only the
 * pointer, so report/ and stats/ look suites up without depending on the
 * engine.  A lookup before the install is a bug and aborts, saying so.
 */
void ul_suites_install(const struct ul_suite *const *list);
const struct ul_suite *ul_suite_find(const char *name);
/* Every suite's name, ", "-separated, cut to fit len. */
void ul_suite_names(char *buf, size_t len);
size_t ul_suite_count(void);
const struct ul_suite *ul_suite_at(size_t i);

/* Position of the suite in the registry (for per-suite arrays). */
size_t ul_suite_index(const struct ul_suite *suite);
/* A test's name: its own, else its load's. */
const char *ul_suite_test_name(const struct ul_suite_test *t);
/* Whether `name` selects test t: its name or one of its groups; '_' and
 * '-' count as the same character ("lat_pipe" selects "lat-pipe"). */
bool ul_suite_test_matches(const struct ul_suite_test *t, const char *name);
/* The test a stored cell belongs to: its probe in a suite whose tests are
 * named (micro), else its load. */
const char *ul_suite_cell_test(const struct ul_cell *cell);

/* Number of tests of a suite. */
size_t ul_suite_n_tests(const struct ul_suite *suite);
/* The first test `name` selects (ul_suite_test_matches), or NULL. */
const struct ul_suite_test *ul_suite_test(const struct ul_suite *suite, const char *name);
/* True if `name` selects one of the suite's tests. */
bool ul_suite_has_test(const struct ul_suite *suite, const char *name);
/* Position of the first test `name` selects in the suite's order, or -1. */
int ul_suite_test_index(const struct ul_suite *suite, const char *name);
/* The probe of a test: its own or the suite's. */
const char *ul_suite_test_probe(const struct ul_suite *suite, const struct ul_suite_test *t);
/* The suite's metric for `series`, or NULL. */
const struct ul_suite_metric *ul_suite_metric(const struct ul_suite *suite, const char *series);

#endif

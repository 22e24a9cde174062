/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Unit tests for src/store: URI choice, schema creation and migration, a
 * field-by-field round trip of a run, run references and refusals.
 */
#include "unit.h"
#include "store/store.h"
#include "ul_config.h"

#include <errno.h>
#include <fcntl.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

/* One private directory per test case, made and removed by the parent. */
static void tmpdir_setup(void)
{
	ul_unit_dir_make("store");
}

static void fill_run(struct ul_run *run, const char *label, int64_t started_ns)
{
	ul_run_init(run);
	ck_assert_int_eq(ul_run_new_uuid(run), 0);
	snprintf(run->label, sizeof(run->label), "%s", label);
	snprintf(run->tool_version, sizeof(run->tool_version), "0.1.0-test");
	snprintf(run->argv, sizeof(run->argv), "underload run --suite resp,micro -o 'x y'");
	snprintf(run->suites, sizeof(run->suites), "resp,micro");
	run->status = UL_RUN_RUNNING;
	run->started_wall_ns = started_ns;
	run->finished_wall_ns = 0;
	snprintf(run->host.hostname, sizeof(run->host.hostname), "box-%s", label);
	snprintf(run->host.kernel_release, sizeof(run->host.kernel_release), "6.1.0-test");
	snprintf(run->host.kernel_version, sizeof(run->host.kernel_version),
		 "#1 SMP PREEMPT_DYNAMIC Debian 6.1.0-1");
	snprintf(run->host.arch, sizeof(run->host.arch), "x86_64");
	snprintf(run->host.cpu_model, sizeof(run->host.cpu_model), "Test CPU @ 3.00GHz");
	run->host.ncpu = 8;
	run->host.mem_total_bytes = 16 * UL_GiB + 12345;
	run->host.swap_total_bytes = 2 * UL_GiB;
	run->params.interval_ns = 200 * UL_NS_PER_MS;
	run->params.min_points = 6;
	run->params.max_points = 50;
	run->params.ci_target_centi = 250;
	run->params.mem_budget_bytes = 12 * UL_GiB;
	run->params.mem_limit_bytes = 0;
	run->params.swap_bytes = UINT64_MAX - 1; /* above INT64_MAX: must keep its bits */
}

static void push(struct ul_series *s, int64_t v)
{
	ck_assert_int_eq(ul_series_push(s, v), 0);
}

static void add_two_cells(struct ul_run *run)
{
	struct ul_cell *c = ul_run_add_cell(run);
	struct ul_series *s;

	ck_assert_ptr_nonnull(c);
	snprintf(c->suite, sizeof(c->suite), "resp");
	snprintf(c->load, sizeof(c->load), "noload");
	snprintf(c->probe, sizeof(c->probe), "resp");
	c->outcome = UL_CELL_OK;
	c->started_wall_ns = run->started_wall_ns + 1;
	c->finished_wall_ns = run->started_wall_ns + 2 * UL_NS_PER_SEC;
	s = ul_cell_series(c, "delay_ns");
	ck_assert_ptr_nonnull(s);
	push(s, 1000);
	push(s, -5);
	push(s, INT64_MAX);
	push(s, INT64_MIN);
	push(s, 0);
	ck_assert_ptr_nonnull(ul_cell_series(c, "empty"));
	s = ul_cell_series(c, "cpu_ns");
	ck_assert_ptr_nonnull(s);
	for (int i = 1; i <= 10; i++)
		push(s, i * 1111);
	ck_assert_int_eq(ul_cell_set_metric(c, "probe_majflt", 3), 0);
	ck_assert_int_eq(ul_cell_set_metric(c, "ratio", 1.0 / 3.0), 0);
	ck_assert_int_eq(ul_cell_set_metric(c, "undefined", NAN), 0);
	ck_assert_int_eq(ul_cell_set_metric(c, "unbounded", INFINITY), 0);
	ck_assert_int_eq(ul_cell_set_metric(c, "huge_negative", -2.5e300), 0);

	c = ul_run_add_cell(run);
	ck_assert_ptr_nonnull(c);
	snprintf(c->suite, sizeof(c->suite), "micro");
	snprintf(c->load, sizeof(c->load), "cpuload");
	snprintf(c->probe, sizeof(c->probe), "lat-syscall");
	c->outcome = UL_CELL_LOAD_DIED;
	c->flags = UL_CELL_NOISY | UL_CELL_LOAD_KILLED;
	snprintf(c->note, sizeof(c->note), "load 'cpuload' exited with \"status\" 1; -- ok?");
	snprintf(c->load_unit, sizeof(c->load_unit), "spins");
	c->load_units = UINT64_MAX;
	c->started_wall_ns = run->started_wall_ns + 3 * UL_NS_PER_SEC;
	c->finished_wall_ns = run->started_wall_ns + 4 * UL_NS_PER_SEC;
	s = ul_cell_series(c, "lat_ns");
	ck_assert_ptr_nonnull(s);
	for (int i = 0; i < 300; i++)
		push(s, (int64_t)i * i - 500);
	ck_assert_int_eq(ul_cell_set_metric(c, "load_units", 1e6), 0);
}

static void assert_double_same(double a, double b, const char *what)
{
	if (isnan(a) || isnan(b))
		ck_assert_msg(isnan(a) && isnan(b), "%s: %g vs %g", what, a, b);
	else
		ck_assert_msg(!memcmp(&a, &b, sizeof(a)), "%s: %.17g vs %.17g", what, a, b);
}

static void assert_cell_equal(const struct ul_cell *a, const struct ul_cell *b)
{
	ck_assert_str_eq(a->suite, b->suite);
	ck_assert_str_eq(a->load, b->load);
	ck_assert_str_eq(a->probe, b->probe);
	ck_assert_int_eq(a->seq, b->seq);
	ck_assert_int_eq(a->outcome, b->outcome);
	ck_assert_uint_eq(a->flags, b->flags);
	ck_assert_str_eq(a->note, b->note);
	ck_assert_str_eq(a->load_unit, b->load_unit);
	ck_assert_uint_eq(a->load_units, b->load_units);
	ck_assert_int_eq(a->started_wall_ns, b->started_wall_ns);
	ck_assert_int_eq(a->finished_wall_ns, b->finished_wall_ns);
	ck_assert_uint_eq(a->n_series, b->n_series);
	for (size_t i = 0; i < a->n_series; i++) {
		ck_assert_str_eq(a->series[i].name, b->series[i].name);
		ck_assert_uint_eq(a->series[i].n, b->series[i].n);
		for (size_t j = 0; j < a->series[i].n; j++)
			ck_assert_int_eq(a->series[i].v[j], b->series[i].v[j]);
	}
	ck_assert_uint_eq(a->n_metrics, b->n_metrics);
	for (size_t i = 0; i < a->n_metrics; i++) {
		ck_assert_str_eq(a->metrics[i].name, b->metrics[i].name);
		assert_double_same(a->metrics[i].value, b->metrics[i].value, a->metrics[i].name);
	}
}

static void assert_run_equal(const struct ul_run *a, const struct ul_run *b)
{
	ck_assert_int_eq(a->id, b->id);
	ck_assert_str_eq(a->uuid, b->uuid);
	ck_assert_str_eq(a->label, b->label);
	ck_assert_str_eq(a->tool_version, b->tool_version);
	ck_assert_str_eq(a->argv, b->argv);
	ck_assert_str_eq(a->suites, b->suites);
	ck_assert_int_eq(a->status, b->status);
	ck_assert_int_eq(a->started_wall_ns, b->started_wall_ns);
	ck_assert_int_eq(a->finished_wall_ns, b->finished_wall_ns);
	ck_assert_str_eq(a->host.hostname, b->host.hostname);
	ck_assert_str_eq(a->host.kernel_release, b->host.kernel_release);
	ck_assert_str_eq(a->host.kernel_version, b->host.kernel_version);
	ck_assert_str_eq(a->host.arch, b->host.arch);
	ck_assert_str_eq(a->host.cpu_model, b->host.cpu_model);
	ck_assert_int_eq(a->host.ncpu, b->host.ncpu);
	ck_assert_uint_eq(a->host.mem_total_bytes, b->host.mem_total_bytes);
	ck_assert_uint_eq(a->host.swap_total_bytes, b->host.swap_total_bytes);
	ck_assert_int_eq(a->params.interval_ns, b->params.interval_ns);
	ck_assert_int_eq(a->params.min_points, b->params.min_points);
	ck_assert_int_eq(a->params.max_points, b->params.max_points);
	ck_assert_int_eq(a->params.ci_target_centi, b->params.ci_target_centi);
	ck_assert_uint_eq(a->params.mem_budget_bytes, b->params.mem_budget_bytes);
	ck_assert_uint_eq(a->params.mem_limit_bytes, b->params.mem_limit_bytes);
	ck_assert_uint_eq(a->params.swap_bytes, b->params.swap_bytes);
	ck_assert_uint_eq(a->n_cells, b->n_cells);
	for (size_t i = 0; i < a->n_cells; i++)
		assert_cell_equal(&a->cells[i], &b->cells[i]);
}

/* A run with no cells, stored as is. */
static int64_t store_run(struct ul_store *st, const char *label, int64_t started_ns,
			 const char *uuid)
{
	struct ul_run run;
	int64_t id;

	fill_run(&run, label, started_ns);
	if (uuid)
		snprintf(run.uuid, sizeof(run.uuid), "%s", uuid);
	ck_assert_msg(st->ops->begin_run(st, &run) == 0, "%s", st->err);
	id = run.id;
	ck_assert_int_gt(id, 0);
	ul_run_release(&run);
	return id;
}

START_TEST(test_round_trip)
{
	char path[256], ref[64];
	struct ul_store *st;
	struct ul_run run, back;

	ul_unit_db(path, sizeof(path), "round.db");
	st = ul_unit_store_open(path);
	fill_run(&run, "rt", 1700000000 * UL_NS_PER_SEC + 123);
	add_two_cells(&run);
	ck_assert_msg(st->ops->begin_run(st, &run) == 0, "%s", st->err);
	ck_assert_int_gt(run.id, 0);
	for (size_t i = 0; i < run.n_cells; i++)
		ck_assert_msg(st->ops->add_cell(st, &run, &run.cells[i]) == 0, "%s", st->err);
	run.status = UL_RUN_COMPLETE;
	run.finished_wall_ns = run.started_wall_ns + 5 * UL_NS_PER_SEC;
	ck_assert_msg(st->ops->finish_run(st, &run) == 0, "%s", st->err);
	ul_store_close(st);

	st = ul_unit_store_open(path);
	snprintf(ref, sizeof(ref), "%lld", (long long)run.id);
	ck_assert_msg(st->ops->load_run(st, ref, &back) == 0, "%s", st->err);
	assert_run_equal(&run, &back);
	ul_run_release(&back);

	/* The full UUID, in either case, finds the same run. */
	ck_assert_msg(st->ops->load_run(st, run.uuid, &back) == 0, "%s", st->err);
	assert_run_equal(&run, &back);
	ul_run_release(&back);
	snprintf(ref, sizeof(ref), "%s", run.uuid);
	for (size_t i = 0; ref[i]; i++)
		if (ref[i] >= 'a' && ref[i] <= 'f')
			ref[i] = (char)(ref[i] - 'a' + 'A');
	ck_assert_msg(st->ops->load_run(st, ref, &back) == 0, "%s", st->err);
	ck_assert_int_eq(back.id, run.id);
	ul_run_release(&back);

	/* Raw samples are queryable with plain SQL through the view. */
	ck_assert_int_eq(ul_unit_sql_int(path, "SELECT count(*) FROM cell_samples"), 5 + 10 + 300);
	ul_store_close(st);
	ul_run_release(&run);
}
END_TEST

START_TEST(test_list_order)
{
	char uri[256];
	struct ul_store *st = ul_unit_store_open(ul_unit_db(uri, sizeof(uri), ":memory:"));
	struct ul_run_summary *rs;
	struct ul_run run;
	int64_t a, b, c, d;
	size_t n = 99;

	ck_assert_int_eq(st->ops->list_runs(st, &rs, &n), 0);
	ck_assert_uint_eq(n, 0);
	free(rs);

	a = store_run(st, "a", 100, NULL);
	/* b gets a cell so n_cells is checked; d ties b on time and is newer by id. */
	fill_run(&run, "b", 300);
	add_two_cells(&run);
	ck_assert_int_eq(st->ops->begin_run(st, &run), 0);
	ck_assert_int_eq(st->ops->add_cell(st, &run, &run.cells[1]), 0);
	b = run.id;
	c = store_run(st, "c", 200, NULL);
	d = store_run(st, "d", 300, NULL);

	ck_assert_msg(st->ops->list_runs(st, &rs, &n) == 0, "%s", st->err);
	ck_assert_uint_eq(n, 4);
	ck_assert_int_eq(rs[0].id, d);
	ck_assert_int_eq(rs[1].id, b);
	ck_assert_int_eq(rs[2].id, c);
	ck_assert_int_eq(rs[3].id, a);
	ck_assert_str_eq(rs[1].uuid, run.uuid);
	ck_assert_str_eq(rs[1].label, "b");
	ck_assert_str_eq(rs[1].hostname, "box-b");
	ck_assert_str_eq(rs[1].suites, "resp,micro");
	ck_assert_int_eq(rs[1].status, UL_RUN_RUNNING);
	ck_assert_int_eq(rs[1].started_wall_ns, 300);
	ck_assert_int_eq(rs[1].n_cells, 1);
	ck_assert_int_eq(rs[0].n_cells, 0);
	ck_assert_str_eq(rs[3].label, "a");
	free(rs);
	ul_run_release(&run);
	ul_store_close(st);
}
END_TEST

START_TEST(test_last)
{
	char uri[256];
	struct ul_store *st = ul_unit_store_open(ul_unit_db(uri, sizeof(uri), ":memory:"));
	struct ul_run back;
	int64_t newest;

	ck_assert_int_eq(st->ops->load_run(st, "last", &back), -ENOENT);
	ck_assert_ptr_nonnull(strstr(st->err, "no runs"));
	/* "last" is the newest by start time, not the last inserted. */
	newest = store_run(st, "late", 5000, NULL);
	store_run(st, "early", 1000, NULL);
	ck_assert_msg(st->ops->load_run(st, "last", &back) == 0, "%s", st->err);
	ck_assert_int_eq(back.id, newest);
	ck_assert_str_eq(back.label, "late");
	ck_assert_uint_eq(back.n_cells, 0);
	ul_run_release(&back);
	ul_store_close(st);
}
END_TEST

START_TEST(test_refs)
{
	char uri[256];
	struct ul_store *st = ul_unit_store_open(ul_unit_db(uri, sizeof(uri), "sqlite::memory:"));
	struct ul_run back;
	int64_t r1, r2, r3;

	r1 = store_run(st, "one", 1, "abcd1234-0000-4000-8000-000000000001");
	r2 = store_run(st, "two", 2, "abcd5678-0000-4000-8000-000000000002");
	r3 = store_run(st, "three", 3, "12345678-0000-4000-8000-000000000003");

	ck_assert_int_eq(st->ops->load_run(st, "abcd", &back), -EINVAL);
	ck_assert_msg(strstr(st->err, "ambiguous") && strstr(st->err, "abcd1234") &&
			      strstr(st->err, "abcd5678"),
		      "%s", st->err);
	ck_assert_int_eq(back.id, 0);
	ck_assert_uint_eq(back.n_cells, 0);

	ck_assert_int_eq(st->ops->load_run(st, "abcd1", &back), 0);
	ck_assert_int_eq(back.id, r1);
	ul_run_release(&back);
	ck_assert_int_eq(st->ops->load_run(st, "ABCD5678", &back), 0);
	ck_assert_int_eq(back.id, r2);
	ul_run_release(&back);
	ck_assert_int_eq(st->ops->load_run(st, "abcd5678-0000-4000-8000-000000000002", &back), 0);
	ck_assert_int_eq(back.id, r2);
	ul_run_release(&back);

	/* Digits: an id when such a run exists, else a UUID prefix. */
	ck_assert_int_eq(st->ops->load_run(st, "2", &back), 0);
	ck_assert_int_eq(back.id, r2);
	ck_assert_str_eq(back.label, "two");
	ul_run_release(&back);
	ck_assert_int_eq(st->ops->load_run(st, "1234", &back), 0);
	ck_assert_int_eq(back.id, r3);
	ul_run_release(&back);

	ck_assert_int_eq(st->ops->load_run(st, "abc", &back), -EINVAL);
	ck_assert_ptr_nonnull(strstr(st->err, "too short"));
	ck_assert_int_eq(st->ops->load_run(st, "ffff", &back), -ENOENT);
	ck_assert_ptr_nonnull(strstr(st->err, "ffff"));
	ck_assert_int_eq(st->ops->load_run(st, "99", &back), -ENOENT);
	ck_assert_int_eq(st->ops->load_run(st, "run-one!", &back), -EINVAL);
	ck_assert_int_eq(st->ops->load_run(st, "", &back), -EINVAL);
	ck_assert_int_eq(st->ops->load_run(st, "abcd1234-0000-4000-8000-0000000000011", &back),
			 -ENOENT);
	ul_store_close(st);
}
END_TEST

START_TEST(test_interrupted_keeps_cells)
{
	char path[256];
	struct ul_store *st;
	struct ul_run run, back;
	struct ul_run_summary *rs;
	size_t n;

	ul_unit_db(path, sizeof(path), "interrupted.db");
	st = ul_unit_store_open(path);
	fill_run(&run, "int", 42);
	add_two_cells(&run);
	ck_assert_int_eq(st->ops->begin_run(st, &run), 0);
	ck_assert_int_eq(st->ops->add_cell(st, &run, &run.cells[0]), 0);
	ul_store_close(st); /* killed before the second cell and finish_run */

	st = ul_unit_store_open(path);
	ck_assert_msg(st->ops->load_run(st, "last", &back) == 0, "%s", st->err);
	ck_assert_int_eq(back.status, UL_RUN_RUNNING);
	ck_assert_uint_eq(back.n_cells, 1);
	assert_cell_equal(&run.cells[0], &back.cells[0]);
	ul_run_release(&back);

	run.status = UL_RUN_INTERRUPTED;
	run.finished_wall_ns = 99;
	ck_assert_int_eq(st->ops->finish_run(st, &run), 0);
	ul_store_close(st);

	st = ul_unit_store_open(path);
	ck_assert_int_eq(st->ops->load_run(st, run.uuid, &back), 0);
	ck_assert_int_eq(back.status, UL_RUN_INTERRUPTED);
	ck_assert_int_eq(back.finished_wall_ns, 99);
	ck_assert_uint_eq(back.n_cells, 1);
	ul_run_release(&back);
	ck_assert_int_eq(st->ops->list_runs(st, &rs, &n), 0);
	ck_assert_uint_eq(n, 1);
	ck_assert_int_eq(rs[0].status, UL_RUN_INTERRUPTED);
	ck_assert_int_eq(rs[0].n_cells, 1);
	free(rs);
	ul_store_close(st);
	ul_run_release(&run);
}
END_TEST

/* cleanup's repair of a killed run: interrupted, ended at its last cell. */
START_TEST(test_mark_interrupted)
{
	char path[256];
	struct ul_store *st;
	struct ul_run run, empty, back;
	int64_t end = 0;

	ul_unit_db(path, sizeof(path), "mark.db");
	st = ul_unit_store_open(path);
	fill_run(&run, "killed", 1000);
	add_two_cells(&run);
	ck_assert_int_eq(st->ops->begin_run(st, &run), 0);
	ck_assert_int_eq(st->ops->add_cell(st, &run, &run.cells[0]), 0);
	ck_assert_int_eq(st->ops->add_cell(st, &run, &run.cells[1]), 0);
	fill_run(&empty, "killed-early", 5000);
	ck_assert_int_eq(st->ops->begin_run(st, &empty), 0);
	ul_store_close(st);

	st = ul_unit_store_open(path);
	ck_assert_msg(st->ops->mark_interrupted(st, run.uuid, &end) == 0, "%s", st->err);
	ck_assert_int_eq(end, run.cells[1].finished_wall_ns);
	ck_assert_int_eq(st->ops->load_run(st, run.uuid, &back), 0);
	ck_assert_int_eq(back.status, UL_RUN_INTERRUPTED);
	ck_assert_int_eq(back.finished_wall_ns, run.cells[1].finished_wall_ns);
	ck_assert_uint_eq(back.n_cells, 2);
	ul_run_release(&back);
	/* Twice: nothing to repair, nothing changed. */
	end = 7;
	ck_assert_int_eq(st->ops->mark_interrupted(st, run.uuid, &end), -EALREADY);
	ck_assert_int_eq(end, 7);
	/* No cell: the run ends when it started. */
	ck_assert_int_eq(st->ops->mark_interrupted(st, empty.uuid, NULL), 0);
	ck_assert_int_eq(st->ops->load_run(st, empty.uuid, &back), 0);
	ck_assert_int_eq(back.status, UL_RUN_INTERRUPTED);
	ck_assert_int_eq(back.finished_wall_ns, 5000);
	ul_run_release(&back);
	ck_assert_int_eq(st->ops->mark_interrupted(st, "0000aaaa-0000-4000-8000-000000000000",
						   NULL),
			 -ENOENT);
	/* A finished run is never rewritten. */
	run.status = UL_RUN_COMPLETE;
	run.finished_wall_ns = 1;
	ck_assert_int_eq(st->ops->finish_run(st, &run), 0);
	ck_assert_int_eq(st->ops->mark_interrupted(st, run.uuid, NULL), -EALREADY);
	ck_assert_int_eq(ul_unit_sql_int(path, "SELECT count(*) FROM runs WHERE status = 'complete'"
					       " AND finished_wall_ns = 1"),
			 1);
	ul_store_close(st);
	ul_run_release(&run);
	ul_run_release(&empty);
}
END_TEST

/* A failing cell leaves no rows behind and no transaction open. */
START_TEST(test_add_cell_atomic)
{
	char path[256];
	struct ul_store *st;
	struct ul_run run, ghost;
	struct ul_cell *c;

	ul_unit_db(path, sizeof(path), "atomic.db");
	st = ul_unit_store_open(path);
	fill_run(&run, "atomic", 7);
	add_two_cells(&run);
	ck_assert_int_eq(st->ops->begin_run(st, &run), 0);
	/* A second series named like the first fails after rows were written. */
	c = &run.cells[0];
	snprintf(c->series[2].name, sizeof(c->series[2].name), "%s", c->series[0].name);
	ck_assert_int_eq(st->ops->add_cell(st, &run, c), -EEXIST);
	/* The error names the store: the file, or PostgreSQL's database. */
	ck_assert_ptr_nonnull(strstr(st->err, ul_unit_pg() ? "database 'underload" : path));
	ck_assert_int_eq(ul_unit_sql_int(path, "SELECT count(*) FROM cells"), 0);
	ck_assert_int_eq(ul_unit_sql_int(path, "SELECT count(*) FROM series"), 0);
	ck_assert_int_eq(ul_unit_sql_int(path, "SELECT count(*) FROM cell_samples"), 0);

	ck_assert_msg(st->ops->add_cell(st, &run, &run.cells[1]) == 0, "%s", st->err);
	ck_assert_int_eq(st->ops->add_cell(st, &run, &run.cells[1]), -EEXIST);
	ck_assert_int_eq(ul_unit_sql_int(path, "SELECT count(*) FROM cells"), 1);
	ck_assert_int_eq(ul_unit_sql_int(path, "SELECT count(*) FROM cell_samples"), 300);

	ghost = run;
	ghost.id = 9999;
	ck_assert_int_eq(st->ops->add_cell(st, &ghost, &run.cells[1]), -ENOENT);
	ck_assert_int_eq(st->ops->finish_run(st, &ghost), -ENOENT);
	ghost.id = 0;
	ck_assert_int_eq(st->ops->add_cell(st, &ghost, &run.cells[1]), -EINVAL);
	ck_assert_int_eq(ul_unit_sql_int(path, "SELECT count(*) FROM cells"), 1);
	/* Same UUID twice is refused: runs merge across machines by UUID. */
	ghost.id = 0;
	ck_assert_int_eq(st->ops->begin_run(st, &ghost), -EEXIST);
	ck_assert_ptr_nonnull(strstr(st->err, run.uuid));
	ul_store_close(st);
	ul_run_release(&run);
}
END_TEST

START_TEST(test_not_sqlite)
{
	char path[128], small[128], err[512] = "";
	struct ul_store *st = (struct ul_store *)1;
	unsigned char junk[4096];
	struct stat sb;
	FILE *f;

	for (size_t i = 0; i < sizeof(junk); i++)
		junk[i] = (unsigned char)(i * 131 + 7);
	ul_unit_path(path, sizeof(path), "junk.db");
	f = fopen(path, "w");
	ck_assert_ptr_nonnull(f);
	ck_assert_uint_eq(fwrite(junk, 1, sizeof(junk), f), sizeof(junk));
	ck_assert_int_eq(fclose(f), 0);
	ck_assert_int_eq(ul_store_open(path, &st, err, sizeof(err)), -EPROTO);
	ck_assert_ptr_null(st);
	ck_assert_ptr_nonnull(strstr(err, path));
	ck_assert_ptr_nonnull(strstr(err, "is not an underload database (not SQLite)"));
	ck_assert_int_eq(stat(path, &sb), 0);
	ck_assert_int_eq(sb.st_size, (off_t)sizeof(junk));

	ul_unit_path(small, sizeof(small), "short.db");
	f = fopen(small, "w");
	ck_assert_ptr_nonnull(f);
	fputs("#!/bin/sh\necho hello\n", f);
	ck_assert_int_eq(fclose(f), 0);
	ck_assert_int_eq(ul_store_open(small, &st, err, sizeof(err)), -EPROTO);
	ck_assert_ptr_null(st);
}
END_TEST

START_TEST(test_foreign_sqlite)
{
	char path[128], err[512] = "";
	struct ul_store *st;

	ul_unit_path(path, sizeof(path), "other.db");
	ul_unit_sql(path, "CREATE TABLE notes (x TEXT); INSERT INTO notes VALUES ('mine');");
	ck_assert_int_eq(ul_store_open(path, &st, err, sizeof(err)), -EPROTO);
	ck_assert_ptr_null(st);
	ck_assert_ptr_nonnull(strstr(err, "not an underload database"));
	ck_assert_ptr_nonnull(strstr(err, path));
	/* Untouched: still the other program's file. */
	ck_assert_int_eq(ul_unit_sql_int(path, "PRAGMA user_version"), 0);
	ck_assert_int_eq(ul_unit_sql_int(path, "PRAGMA application_id"), 0);

	ul_unit_path(path, sizeof(path), "otherapp.db");
	ul_unit_sql(path, "PRAGMA application_id = 42; PRAGMA user_version = 1;");
	ck_assert_int_eq(ul_store_open(path, &st, err, sizeof(err)), -EPROTO);
	ck_assert_ptr_nonnull(strstr(err, "application_id"));
}
END_TEST

START_TEST(test_newer_schema)
{
	char path[128], err[512] = "", want[512];
	struct ul_store *st;

	ul_unit_path(path, sizeof(path), "future.db");
	st = ul_unit_store_open(path);
	store_run(st, "old", 1, NULL);
	ul_store_close(st);
	ul_unit_sql(path, "PRAGMA user_version = 99");
	ck_assert_int_eq(ul_store_open(path, &st, err, sizeof(err)), -EPROTONOSUPPORT);
	ck_assert_ptr_null(st);
	snprintf(want, sizeof(want),
		 "database '%s' has schema version 99, newer than this underload understands (%d)",
		 path, UL_STORE_SCHEMA_VERSION);
	ck_assert_str_eq(err, want);
	ck_assert_int_eq(ul_unit_sql_int(path, "PRAGMA user_version"), 99);
}
END_TEST

START_TEST(test_migrate_from_zero)
{
	char path[128], empty[128];
	struct ul_store *st;
	int fd;

	/* A valid SQLite file at user_version 0 with no tables left in it. */
	ul_unit_path(path, sizeof(path), "v0.db");
	ul_unit_sql(path, "CREATE TABLE t (x); DROP TABLE t;");
	ck_assert_int_eq(ul_unit_sql_int(path, "PRAGMA user_version"), 0);
	st = ul_unit_store_open(path);
	ck_assert_int_eq(ul_unit_sql_int(path, "PRAGMA user_version"), UL_STORE_SCHEMA_VERSION);
	ck_assert_int_eq(ul_unit_sql_int(path, "PRAGMA application_id"), 0x756c6472);
	ck_assert_int_eq(ul_unit_sql_int(path,
					 "SELECT count(*) FROM sqlite_master WHERE type = 'table'"
					 " AND name IN ('runs', 'cells', 'series', 'metrics')"),
			 4);
	/* Version 4 packs the samples into series.packed: no table of rows left. */
	ck_assert_int_eq(ul_unit_sql_int(path, "SELECT count(*) FROM sqlite_master"
					       " WHERE name = 'samples'"),
			 0);
	store_run(st, "migrated", 1, NULL);
	ul_store_close(st);
	/* Opening again is a no-op for the schema and keeps the data. */
	st = ul_unit_store_open(path);
	ck_assert_int_eq(ul_unit_sql_int(path, "SELECT count(*) FROM runs"), 1);
	ul_store_close(st);

	/* An empty file is an empty database too. */
	ul_unit_path(empty, sizeof(empty), "zero.db");
	fd = open(empty, O_CREAT | O_WRONLY | O_EXCL, 0644);
	ck_assert_int_ge(fd, 0);
	close(fd);
	st = ul_unit_store_open(empty);
	ul_store_close(st);
	ck_assert_int_eq(ul_unit_sql_int(empty, "PRAGMA user_version"), UL_STORE_SCHEMA_VERSION);
}
END_TEST

START_TEST(test_paths)
{
	char file[128], path[160], err[512] = "";
	struct ul_store *st = (struct ul_store *)1;
	struct stat sb;
	FILE *f;
	int r;

	/* Parents are created (mkdir -p, 0755). */
	umask(022);
	ul_unit_path(path, sizeof(path), "a/b/c/results.db");
	st = ul_unit_store_open(path);
	ul_store_close(st);
	ul_unit_path(path, sizeof(path), "a/b/c");
	ck_assert_int_eq(stat(path, &sb), 0);
	ck_assert(S_ISDIR(sb.st_mode));
	ck_assert_int_eq(sb.st_mode & 07777, 0755);

	/* A path under a regular file cannot be created. */
	ul_unit_path(file, sizeof(file), "plain");
	f = fopen(file, "w");
	ck_assert_ptr_nonnull(f);
	ck_assert_int_eq(fclose(f), 0);
	snprintf(path, sizeof(path), "%s/sub/results.db", file);
	r = ul_store_open(path, &st, err, sizeof(err));
	ck_assert_int_lt(r, 0);
	ck_assert_ptr_null(st);
	ck_assert_msg(strstr(err, file) != NULL, "%s", err);
	ck_assert_int_eq(stat(file, &sb), 0);
	ck_assert(S_ISREG(sb.st_mode));

	/* A directory is not a database file. */
	r = ul_store_open(ul_unit_dir, &st, err, sizeof(err));
	ck_assert_int_eq(r, -EISDIR);
	ck_assert_ptr_nonnull(strstr(err, ul_unit_dir));
}
END_TEST

START_TEST(test_uri)
{
	char path[128], uri[160], err[512] = "";
	struct ul_store *st = (struct ul_store *)1;
	struct ul_run_summary *rs;
	size_t n;

	ul_unit_path(path, sizeof(path), "uri.db");
	snprintf(uri, sizeof(uri), "sqlite:%s", path);
	st = ul_unit_store_open(uri);
	ck_assert_str_eq(st->ops->scheme, "sqlite");
	store_run(st, "uri", 1, NULL);
	ul_store_close(st);
	ck_assert_int_eq(ul_unit_sql_int(path, "SELECT count(*) FROM runs"), 1);

#if UL_HAVE_POSTGRESQL
	/* Refused before any connection is tried (no network needed). */
	ck_assert_int_eq(ul_store_open("postgresql://ul:secret@db.example/results", &st, err,
				       sizeof(err)),
			 -EPERM);
	ck_assert_ptr_null(st);
	ck_assert_msg(strstr(err, "refusing a password") && !strstr(err, "secret"), "%s", err);
	ck_assert_int_eq(ul_store_open("postgres://db.example/results?password=secret", &st, err,
				       sizeof(err)),
			 -EPERM);
	ck_assert_int_eq(ul_store_open("postgresql://db.example/results?nosuchoption=1", &st, err,
				       sizeof(err)),
			 -EINVAL);
	ck_assert_msg(strstr(err, "bad PostgreSQL connection string") && !strchr(err, '\n'), "%s",
		      err);
#else
	ck_assert_int_eq(ul_store_open("postgresql://ul@db.example/results", &st, err, sizeof(err)),
			 -EPROTONOSUPPORT);
	ck_assert_ptr_null(st);
	ck_assert_str_eq(err, "PostgreSQL store not built in this version");
	err[0] = '\0';
	ck_assert_int_eq(ul_store_open("postgres://db.example/results", &st, err, sizeof(err)),
			 -EPROTONOSUPPORT);
	ck_assert_str_eq(err, "PostgreSQL store not built in this version");
#endif
	ck_assert_int_eq(ul_store_open("mysql://db.example/x", &st, err, sizeof(err)),
			 -EPROTONOSUPPORT);
	ck_assert_ptr_nonnull(strstr(err, "mysql"));
	ck_assert_int_eq(ul_store_open("", &st, err, sizeof(err)), -EINVAL);
	ck_assert_int_eq(ul_store_open("sqlite:", &st, err, sizeof(err)), -EINVAL);
	ck_assert_ptr_null(st);

	st = ul_unit_store_open(":memory:");
	store_run(st, "mem", 1, NULL);
	ck_assert_int_eq(st->ops->list_runs(st, &rs, &n), 0);
	ck_assert_uint_eq(n, 1);
	free(rs);
	ul_store_close(st);
	ul_store_close(NULL);
}
END_TEST

static void setenv_or_unset(const char *name, const char *value)
{
	if (value)
		ck_assert_int_eq(setenv(name, value, 1), 0);
	else
		ck_assert_int_eq(unsetenv(name), 0);
}

START_TEST(test_default_path)
{
	char *old_xdg = getenv("XDG_DATA_HOME") ? strdup(getenv("XDG_DATA_HOME")) : NULL;
	char *old_home = getenv("HOME") ? strdup(getenv("HOME")) : NULL;
	char buf[128];

	setenv_or_unset("XDG_DATA_HOME", "/xdg/data");
	setenv_or_unset("HOME", "/home/tester");
	ck_assert_int_eq(ul_store_default_path(buf, sizeof(buf)), 0);
	ck_assert_str_eq(buf, "/xdg/data/underload/results.db");
	ck_assert_int_eq(ul_store_default_path(buf, 10), -ENAMETOOLONG);

	setenv_or_unset("XDG_DATA_HOME", NULL);
	ck_assert_int_eq(ul_store_default_path(buf, sizeof(buf)), 0);
	ck_assert_str_eq(buf, "/home/tester/.local/share/underload/results.db");
	/* The XDG spec says a relative XDG_DATA_HOME is to be ignored. */
	setenv_or_unset("XDG_DATA_HOME", "relative");
	ck_assert_int_eq(ul_store_default_path(buf, sizeof(buf)), 0);
	ck_assert_str_eq(buf, "/home/tester/.local/share/underload/results.db");

	setenv_or_unset("XDG_DATA_HOME", NULL);
	setenv_or_unset("HOME", NULL);
	ck_assert_int_eq(ul_store_default_path(buf, sizeof(buf)), -ENOENT);

	setenv_or_unset("XDG_DATA_HOME", old_xdg);
	setenv_or_unset("HOME", old_home);
	free(old_xdg);
	free(old_home);
}
END_TEST

static void sqlite_setup(void)
{
	tmpdir_setup();
	ul_unit_pg_mode(false);
}

#if UL_HAVE_POSTGRESQL
static void pg_setup(void)
{
	tmpdir_setup();
	ul_unit_pg_mode(true);
}

static void pg_teardown(void)
{
	ul_unit_pg_mode(false);
	ul_unit_dir_remove();
}

/* PostgreSQL's own refusals: reading an empty database, a newer schema, another's tables. */
START_TEST(test_pg_refusals)
{
	static const struct ul_store_config rd = { .flags = UL_STORE_READ };
	static const char tables[] =
		"SELECT count(*) FROM pg_tables WHERE schemaname = current_schema()";
	char uri[256], err[512] = "", want[200];
	struct ul_store *st = (struct ul_store *)1;

	/* Reading never creates. */
	ul_unit_db(uri, sizeof(uri), "empty");
	ck_assert_int_eq(ul_store_open_cfg(uri, &rd, &st, err, sizeof(err)), -ENOENT);
	ck_assert_ptr_null(st);
	ck_assert_msg(strstr(err, "no underload results"), "%s", err);
	ck_assert_int_eq(ul_unit_sql_int(uri, tables), 0);

	st = ul_unit_store_open(uri);
	store_run(st, "old", 1, NULL);
	ul_store_close(st);
	ck_assert_int_eq(ul_unit_sql_int(uri, "SELECT version FROM underload_schema"),
			 UL_STORE_SCHEMA_VERSION);
	ul_unit_sql(uri, "UPDATE underload_schema SET version = 99");
	ck_assert_int_eq(ul_store_open(uri, &st, err, sizeof(err)), -EPROTONOSUPPORT);
	ck_assert_ptr_null(st);
	snprintf(want, sizeof(want),
		 "has schema version 99, newer than this underload understands (%d)",
		 UL_STORE_SCHEMA_VERSION);
	ck_assert_msg(strstr(err, want) && !strchr(err, '\n'), "%s", err);
	ck_assert_int_eq(ul_store_open_cfg(uri, &rd, &st, err, sizeof(err)), -EPROTONOSUPPORT);
	ck_assert_int_eq(ul_unit_sql_int(uri, "SELECT count(*) FROM runs"), 1);

	/* Someone else's `runs` is left alone. */
	ul_unit_db(uri, sizeof(uri), "foreign");
	ul_unit_sql(uri, "CREATE TABLE runs (x text)");
	ck_assert_int_eq(ul_store_open(uri, &st, err, sizeof(err)), -EPROTO);
	ck_assert_msg(strstr(err, "not an underload store"), "%s", err);
	ck_assert_int_eq(ul_unit_sql_int(uri, tables), 1);
}
END_TEST
#endif

/* The backend-neutral cases once more on PostgreSQL, when a database is given. */
static void add_pg_cases(Suite *s)
{
#if UL_HAVE_POSTGRESQL
	TCase *tc;

	if (!ul_unit_pg_uri()) {
		fprintf(stderr, "store: PostgreSQL cases skipped: UL_TEST_PG_URI is unset"
				" (tests/pg-cluster start prints one)\n");
		return;
	}
	tc = tcase_create("postgresql");
	tcase_add_unchecked_fixture(tc, pg_setup, pg_teardown);
	tcase_add_test(tc, test_round_trip);
	tcase_add_test(tc, test_list_order);
	tcase_add_test(tc, test_last);
	tcase_add_test(tc, test_refs);
	tcase_add_test(tc, test_interrupted_keeps_cells);
	tcase_add_test(tc, test_mark_interrupted);
	tcase_add_test(tc, test_add_cell_atomic);
	tcase_add_test(tc, test_pg_refusals);
	suite_add_tcase(s, tc);
#else
	(void)s;
	fprintf(stderr, "store: PostgreSQL cases skipped: built without PostgreSQL\n");
#endif
}

Suite *ul_test_suite_store(void)
{
	Suite *s = suite_create("store");
	TCase *tc = tcase_create("store");

	tcase_add_unchecked_fixture(tc, sqlite_setup, ul_unit_dir_remove);
	tcase_add_test(tc, test_round_trip);
	tcase_add_test(tc, test_list_order);
	tcase_add_test(tc, test_last);
	tcase_add_test(tc, test_refs);
	tcase_add_test(tc, test_interrupted_keeps_cells);
	tcase_add_test(tc, test_mark_interrupted);
	tcase_add_test(tc, test_add_cell_atomic);
	tcase_add_test(tc, test_not_sqlite);
	tcase_add_test(tc, test_foreign_sqlite);
	tcase_add_test(tc, test_newer_schema);
	tcase_add_test(tc, test_migrate_from_zero);
	tcase_add_test(tc, test_paths);
	tcase_add_test(tc, test_uri);
	tcase_add_test(tc, test_default_path);
	suite_add_tcase(s, tc);
	add_pg_cases(s);
	return s;
}

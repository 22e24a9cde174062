/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Unit tests for series stored as packed BLOBs (schema version 4,
 * store/sqlite_v4.h): the view that decodes them in plain SQL, the
 * migration from the one-row-per-sample layout of version 3 (nothing lost
 * or reordered, read the same before and after), and its refusal of a
 * series it cannot pack, which leaves the store as it was.
 */
#include "unit.h"
#include "store/store.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static void setup(void)
{
	ul_unit_dir_make("storeblob");
}

/* Values that test every byte and the sign of the packed form. */
static const int64_t edge[] = { 0, -1, 1, INT64_MIN, INT64_MAX, 255, 256, -256, 0x0102030405060708 };

static void push(struct ul_series *s, int64_t v)
{
	ck_assert_int_eq(ul_series_push(s, v), 0);
}

/* A run of two cells: the edge values, an empty series, 70000 values, one value. */
static void make_run(struct ul_run *run)
{
	struct ul_cell *c;
	struct ul_series *s;

	ul_run_init(run);
	ck_assert_int_eq(ul_run_new_uuid(run), 0);
	snprintf(run->label, sizeof(run->label), "blob");
	snprintf(run->suites, sizeof(run->suites), "resp");
	run->status = UL_RUN_COMPLETE;
	run->started_wall_ns = 1000;
	for (int k = 0; k < 2; k++) {
		c = ul_run_add_cell(run);
		ck_assert_ptr_nonnull(c);
		c->seq = k;
		snprintf(c->suite, sizeof(c->suite), "resp");
		snprintf(c->load, sizeof(c->load), k ? "cpuload" : "noload");
		snprintf(c->probe, sizeof(c->probe), "resp");
		c->finished_wall_ns = 2000;
	}
	s = ul_cell_series(&run->cells[0], "edge");
	for (size_t i = 0; i < UL_ARRAY_SIZE(edge); i++)
		push(s, edge[i]);
	ck_assert_ptr_nonnull(ul_cell_series(&run->cells[0], "empty"));
	s = ul_cell_series(&run->cells[1], "long");
	for (int64_t i = 0; i < 70000; i++)
		push(s, i * 7919 - 3000000);
	push(ul_cell_series(&run->cells[1], "one"), -42);
	ck_assert_int_eq(ul_cell_set_metric(&run->cells[1], "m", 2.5), 0);
}

static void store(const char *path, struct ul_run *run)
{
	struct ul_store *st = ul_unit_store_open(path);

	ck_assert_msg(st->ops->begin_run(st, run) == 0, "%s", st->err);
	for (size_t i = 0; i < run->n_cells; i++)
		ck_assert_msg(st->ops->add_cell(st, run, &run->cells[i]) == 0, "%s", st->err);
	ul_store_close(st);
}

/* The series as stored equal the run's, value for value. */
static void assert_same_series(const struct ul_run *a, const struct ul_run *b)
{
	ck_assert_uint_eq(a->n_cells, b->n_cells);
	for (size_t i = 0; i < a->n_cells; i++) {
		const struct ul_cell *x = &a->cells[i], *y = &b->cells[i];

		ck_assert_uint_eq(x->n_series, y->n_series);
		for (size_t j = 0; j < x->n_series; j++) {
			ck_assert_str_eq(x->series[j].name, y->series[j].name);
			ck_assert_uint_eq(x->series[j].n, y->series[j].n);
			for (size_t k = 0; k < x->series[j].n; k++)
				ck_assert_int_eq(x->series[j].v[k], y->series[j].v[k]);
		}
		ck_assert_uint_eq(x->n_metrics, y->n_metrics);
	}
}

static void load_and_compare(const char *path, unsigned flags, const struct ul_run *want)
{
	struct ul_store_config cfg = { .flags = flags };
	struct ul_store *st = NULL;
	struct ul_run back;
	char err[512] = "";

	ck_assert_msg(ul_store_open_cfg(path, &cfg, &st, err, sizeof(err)) == 0, "%s", err);
	ck_assert_msg(st->ops->load_run(st, want->uuid, &back) == 0, "%s", st->err);
	assert_same_series(want, &back);
	ul_run_release(&back);
	ul_store_close(st);
}

/* Every sample through the view, in order: "series:idx:value;" ... */
static void view_text(const char *path, char *out, size_t len)
{
	ul_unit_sql_text(path,
			 "SELECT group_concat(series || ':' || idx || ':' || value, ';') FROM"
			 " (SELECT * FROM cell_samples ORDER BY seq, series, idx)",
			 out, len);
}

/* The store at path put back in the layout of version 3 (tests/cli/store-v3.sql). */
static void to_v3(const char *path)
{
	char sql[4096];
	FILE *f = fopen(UL_SOURCE_ROOT "/tests/cli/store-v3.sql", "r");
	size_t n;

	ck_assert_ptr_nonnull(f);
	n = fread(sql, 1, sizeof(sql) - 1, f);
	fclose(f);
	ck_assert_uint_lt(n, sizeof(sql) - 1);
	sql[n] = '\0';
	ul_unit_sql(path, sql);
	ck_assert_int_eq(ul_unit_sql_int(path, "PRAGMA user_version"), 3);
}

START_TEST(test_view)
{
	char path[128], got[256], want[256];
	struct ul_run run;
	size_t o = 0;

	ul_unit_path(path, sizeof(path), "view.db");
	make_run(&run);
	store(path, &run);
	ck_assert_int_eq(ul_unit_sql_int(path, "SELECT count(*) FROM cell_samples"),
			 (int64_t)UL_ARRAY_SIZE(edge) + 70000 + 1);
	for (size_t i = 0; i < UL_ARRAY_SIZE(edge); i++)
		o += (size_t)snprintf(want + o, sizeof(want) - o, "%s%lld", i ? "," : "",
				      (long long)edge[i]);
	ul_unit_sql_text(path,
			 "SELECT group_concat(value) FROM (SELECT value FROM cell_samples"
			 " WHERE series = 'edge' ORDER BY idx)",
			 got, sizeof(got));
	ck_assert_str_eq(got, want);
	/* The columns of the view before version 4, one row per sample with its index. */
	ul_unit_sql_text(
		path,
		"SELECT run_id || ' ' || seq || ' ' || suite || ' ' || load || ' ' || probe"
		" || ' ' || series || ' ' || idx || ' ' || value FROM cell_samples"
		" WHERE series = 'long' AND idx = 69999",
		got, sizeof(got));
	ck_assert_str_eq(got, "1 1 resp cpuload resp long 69999 551322081");
	ck_assert_int_eq(ul_unit_sql_int(path, "SELECT count(*) FROM cell_samples"
					       " WHERE series = 'empty'"),
			 0);
	ck_assert_int_eq(ul_unit_sql_int(path, "SELECT sum(length(packed)) FROM series"),
			 8 * ((int64_t)UL_ARRAY_SIZE(edge) + 70000 + 1));
	ul_run_release(&run);
}
END_TEST

START_TEST(test_migrate_v3)
{
	static char before[2 << 20], after[2 << 20];
	char path[128];
	struct ul_run run;

	ul_unit_path(path, sizeof(path), "v3.db");
	make_run(&run);
	store(path, &run);
	view_text(path, before, sizeof(before));
	to_v3(path);
	ck_assert_int_eq(ul_unit_sql_int(path, "SELECT count(*) FROM samples"),
			 (int64_t)UL_ARRAY_SIZE(edge) + 70000 + 1);
	/* Read as the previous release stored it, without migrating. */
	load_and_compare(path, UL_STORE_READ, &run);
	ck_assert_int_eq(ul_unit_sql_int(path, "PRAGMA user_version"), 3);
	/* Opened to write: migrated, and the same run. */
	load_and_compare(path, 0, &run);
	ck_assert_int_eq(ul_unit_sql_int(path, "PRAGMA user_version"), UL_STORE_SCHEMA_VERSION);
	ck_assert_int_eq(ul_unit_sql_int(path, "SELECT count(*) FROM sqlite_master"
					       " WHERE name = 'samples'"),
			 0);
	ck_assert_int_eq(ul_unit_sql_int(path, "SELECT count(*) FROM series WHERE name = 'empty'"
					       " AND packed = x'' AND n = 0"),
			 1);
	view_text(path, after, sizeof(after));
	ck_assert_str_eq(after, before);
	ck_assert_int_eq(ul_unit_sql_int(path, "SELECT count(*) FROM pragma_integrity_check"
					       " WHERE integrity_check <> 'ok'"),
			 0);
	ul_run_release(&run);
}
END_TEST

/* Opening to write must fail saying `why`, leaving the version-3 store as it was. */
static void assert_refused(const char *path, const char *why)
{
	struct ul_store *st = NULL;
	int64_t rows = ul_unit_sql_int(path, "SELECT count(*) FROM samples");
	char err[512] = "";

	ck_assert_int_lt(ul_store_open(path, &st, err, sizeof(err)), 0);
	ck_assert_ptr_null(st);
	ck_assert_msg(strstr(err, "cannot upgrade") && strstr(err, why), "%s", err);
	ck_assert_int_eq(ul_unit_sql_int(path, "PRAGMA user_version"), 3);
	ck_assert_int_eq(ul_unit_sql_int(path, "SELECT count(*) FROM samples"), rows);
	ck_assert_int_eq(ul_unit_sql_int(path, "SELECT count(*) FROM pragma_table_info('series')"
					       " WHERE name = 'packed'"),
			 0);
}

START_TEST(test_migrate_refuses)
{
	char path[128];
	struct ul_run run;

	ul_unit_path(path, sizeof(path), "gap.db");
	make_run(&run);
	store(path, &run);
	to_v3(path);
	ul_unit_sql(path, "UPDATE samples SET idx = 70000 WHERE idx = 5 AND series_id ="
			  " (SELECT id FROM series WHERE name = 'long')");
	assert_refused(path, "a gap in its sample indices");
	ul_unit_sql(path, "UPDATE samples SET idx = 5 WHERE idx = 70000;"
			  "UPDATE samples SET value = 1.5 WHERE idx = 3 AND series_id ="
			  " (SELECT id FROM series WHERE name = 'edge')");
	assert_refused(path, "not an integer");
	ul_unit_sql(path, "UPDATE samples SET value = -9223372036854775807 - 1 WHERE idx = 3"
			  " AND series_id = (SELECT id FROM series WHERE name = 'edge')");
	load_and_compare(path, 0, &run);
	ck_assert_int_eq(ul_unit_sql_int(path, "PRAGMA user_version"), UL_STORE_SCHEMA_VERSION);
	ul_run_release(&run);
}
END_TEST

Suite *ul_test_suite_storeblob(void)
{
	Suite *s = suite_create("storeblob");
	TCase *tc = tcase_create("storeblob");

	tcase_add_checked_fixture(tc, setup, ul_unit_dir_remove);
	tcase_set_timeout(tc, 60);
	tcase_add_test(tc, test_view);
	tcase_add_test(tc, test_migrate_v3);
	tcase_add_test(tc, test_migrate_refuses);
	suite_add_tcase(s, tc);
	return s;
}

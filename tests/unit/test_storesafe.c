/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Unit tests for the store under hostile or failing conditions: crafted
 * database rows, damaged files never modified, read-only opens that create
 * nothing, a database deleted or locked while in use, WAL with a reader in
 * a transaction, the fault seam, and import's all-or-nothing merge.
 */
#include "unit.h"
#include "core/clock.h"
#include "core/sysmon.h"
#include "report/monitors.h"
#include "store/fault.h"
#include "store/store.h"
#include "ul_config.h"

#include <ctype.h>
#include <errno.h>
#include <sqlite3.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

static void setup(void)
{
	ul_unit_dir_make("storesafe");
}

static struct ul_store *open_cfg(const char *path, unsigned flags, int64_t wait_ms, int *rc,
				 char *err, size_t errlen)
{
	struct ul_store_config cfg = { .flags = flags, .busy_wait_ms = wait_ms };
	struct ul_store *st = NULL;

	*rc = ul_store_open_cfg(path, &cfg, &st, err, errlen);
	return st;
}

static void one_cell_run(struct ul_run *run, const char *label)
{
	struct ul_cell *c;
	struct ul_series *s;

	ul_run_init(run);
	ck_assert_int_eq(ul_run_new_uuid(run), 0);
	snprintf(run->label, sizeof(run->label), "%s", label);
	snprintf(run->suites, sizeof(run->suites), "resp");
	run->started_wall_ns = 1000;
	c = ul_run_add_cell(run);
	snprintf(c->suite, sizeof(c->suite), "resp");
	snprintf(c->load, sizeof(c->load), "noload");
	snprintf(c->probe, sizeof(c->probe), "resp");
	c->finished_wall_ns = 2000;
	s = ul_cell_series(c, "delay_ns");
	for (int i = 0; i < 5; i++)
		ck_assert_int_eq(ul_series_push(s, 100 + i), 0);
}

/* A store at `path` holding one run with one cell; returns nothing open. */
static void make_store(const char *path, struct ul_run *run)
{
	struct ul_store *st = ul_unit_store_open(path);

	one_cell_run(run, "base");
	ck_assert_int_eq(st->ops->begin_run(st, run), 0);
	ck_assert_int_eq(st->ops->add_cell(st, run, &run->cells[0]), 0);
	ul_store_close(st);
}

START_TEST(test_crafted_rows)
{
	char path[128], err[512];
	struct ul_run run, back;
	struct ul_run_summary *rs;
	struct ul_store *st;
	size_t n;
	int rc;

	ul_unit_path(path, sizeof(path), "crafted.db");
	make_store(path, &run);
	/* n = 10^12 must not allocate 8 TB (ASan aborts on such a request). */
	ul_unit_sql(path, "UPDATE series SET n = 1000000000000");
	ul_unit_sql(path, "UPDATE runs SET status = 'exploded'");
	st = open_cfg(path, UL_STORE_READ, 0, &rc, err, sizeof(err));
	ck_assert_int_eq(rc, 0);
	ck_assert_int_eq(st->ops->list_runs(st, &rs, &n), 0);
	ck_assert_uint_eq(n, 1);
	ck_assert_int_eq(rs[0].status, UL_RUN_UNKNOWN);
	free(rs);
	ck_assert_int_eq(st->ops->load_run(st, "last", &back), -EIO);
	ck_assert_ptr_nonnull(strstr(st->err, "another number of values than its count"));
	ul_store_close(st);

	/* The packed values: cut, not a BLOB, then as they were. */
	ul_unit_sql(path, "CREATE TABLE keep AS SELECT id, packed FROM series;"
			  "UPDATE series SET n = 5, packed = substr(packed, 1, 39);"
			  "UPDATE series SET name = CAST(X'ff41' AS TEXT)");
	st = open_cfg(path, UL_STORE_READ, 0, &rc, err, sizeof(err));
	ck_assert_int_eq(st->ops->load_run(st, "last", &back), -EIO);
	ck_assert_ptr_nonnull(strstr(st->err, "not a whole number of values"));
	ul_store_close(st);
	ul_unit_sql(path, "UPDATE series SET packed = 'text of forty bytes, not a blob........'");
	st = open_cfg(path, UL_STORE_READ, 0, &rc, err, sizeof(err));
	ck_assert_int_eq(st->ops->load_run(st, "last", &back), -EIO);
	ck_assert_ptr_nonnull(strstr(st->err, "its values are not a BLOB"));
	ul_store_close(st);

	ul_unit_sql(path, "UPDATE series SET packed = (SELECT packed FROM keep k"
			  " WHERE k.id = series.id)");
	st = open_cfg(path, UL_STORE_READ, 0, &rc, err, sizeof(err));
	ck_assert_msg(st->ops->load_run(st, "last", &back) == 0, "%s", st->err);
	ck_assert_int_eq(back.status, UL_RUN_UNKNOWN);
	ck_assert_str_eq(back.cells[0].series[0].name, "?A"); /* not UTF-8: made printable */
	ck_assert_uint_eq(back.cells[0].series[0].n, 5);
	for (size_t i = 0; i < 5; i++)
		ck_assert_int_eq(back.cells[0].series[0].v[i], 100 + (int64_t)i);
	ul_run_release(&back);
	ul_store_close(st);

	ul_unit_sql(path, "UPDATE cells SET load = 'no load'");
	st = open_cfg(path, UL_STORE_READ, 0, &rc, err, sizeof(err));
	ck_assert_int_eq(st->ops->load_run(st, "last", &back), -EIO);
	ck_assert_ptr_nonnull(strstr(st->err, "not a valid name"));
	ul_store_close(st);
	ul_run_release(&run);
}
END_TEST

START_TEST(test_read_creates_nothing)
{
	char path[128], err[512] = "";
	struct stat sb;
	int rc;

	ul_unit_path(path, sizeof(path), "no/such/dir/results.db");
	ck_assert_ptr_null(open_cfg(path, UL_STORE_READ, 0, &rc, err, sizeof(err)));
	ck_assert_int_eq(rc, -ENOENT);
	ck_assert_ptr_nonnull(strstr(err, "no results database"));
	ul_unit_path(path, sizeof(path), "no");
	ck_assert_int_eq(stat(path, &sb), -1);

	ul_unit_path(path, sizeof(path), "fifo");
	ck_assert_int_eq(mkfifo(path, 0600), 0);
	ck_assert_ptr_null(open_cfg(path, 0, 0, &rc, err, sizeof(err)));
	ck_assert_ptr_nonnull(strstr(err, "not a regular file"));
	ck_assert_ptr_null(open_cfg("/dev/null", 0, 0, &rc, err, sizeof(err)));
	ck_assert_ptr_nonnull(strstr(err, "not a regular file"));
	ck_assert_int_eq(stat("/dev/null-journal", &sb), -1);
}
END_TEST

static uint32_t file_sum(const char *path, off_t *size)
{
	FILE *f = fopen(path, "rb");
	uint32_t h = 2166136261u;
	int c;

	ck_assert_ptr_nonnull(f);
	*size = 0;
	while ((c = fgetc(f)) != EOF) {
		h = (h ^ (uint32_t)c) * 16777619u;
		(*size)++;
	}
	fclose(f);
	return h;
}

/* A damaged store is refused for writing and left byte for byte as it was. */
START_TEST(test_damaged_not_modified)
{
	char path[128], err[512] = "";
	struct ul_run run;
	off_t size, size2;
	uint32_t sum;
	FILE *f;
	int rc;

	ul_unit_path(path, sizeof(path), "damaged.db");
	make_store(path, &run);
	ul_unit_sql(path, "PRAGMA journal_mode = DELETE"); /* one file to damage and checksum */
	f = fopen(path, "r+b");
	ck_assert_ptr_nonnull(f);
	/* Garbage over the header and cell pointers of page 2 (a b-tree page). */
	ck_assert_int_eq(fseek(f, 4096, SEEK_SET), 0);
	for (int i = 0; i < 64; i++)
		fputc(0xa5, f);
	fclose(f);
	sum = file_sum(path, &size);
	ck_assert_ptr_null(open_cfg(path, 0, 0, &rc, err, sizeof(err)));
	ck_assert_int_eq(rc, -EPROTO);
	ck_assert_msg(strstr(err, "is damaged") && strstr(err, "not modified"), "%s", err);
	ck_assert_uint_eq(file_sum(path, &size2), sum);
	ck_assert_int_eq(size2, size);
	ul_run_release(&run);
}
END_TEST

START_TEST(test_wal_and_deleted)
{
	char path[128], mode[32];
	struct ul_store *st;
	struct ul_run run;

	ul_unit_path(path, sizeof(path), "wal.db");
	st = ul_unit_store_open(path);
	ul_unit_sql_text(path, "PRAGMA journal_mode", mode, sizeof(mode));
	ck_assert_str_eq(mode, "wal");
	ck_assert_str_eq(st->note, "");
	one_cell_run(&run, "gone");
	ck_assert_int_eq(st->ops->begin_run(st, &run), 0);
	ck_assert_int_eq(unlink(path), 0);
	/* SQLite would write into the unlinked inode and lose the cell silently. */
	ck_assert_int_eq(st->ops->add_cell(st, &run, &run.cells[0]), -ESTALE);
	ck_assert_ptr_nonnull(strstr(st->err, "deleted or replaced"));
	ul_store_close(st);
	ul_run_release(&run);
}
END_TEST

/* A reader in a transaction does not block a commit; a writer's lock waits, then -EBUSY. */
START_TEST(test_locked)
{
	char path[128];
	struct ul_store *st;
	struct ul_run run;
	sqlite3 *other;
	int64_t t0;

	ul_unit_path(path, sizeof(path), "locked.db");
	st = ul_unit_store_open(path);
	one_cell_run(&run, "busy");
	ck_assert_int_eq(st->ops->begin_run(st, &run), 0);
	ck_assert_int_eq(sqlite3_open(path, &other), SQLITE_OK);
	ck_assert_int_eq(sqlite3_exec(other, "BEGIN; SELECT count(*) FROM series;", NULL, NULL,
				      NULL),
			 SQLITE_OK);
	ck_assert_msg(st->ops->add_cell(st, &run, &run.cells[0]) == 0, "%s", st->err);
	ck_assert_int_eq(sqlite3_exec(other, "COMMIT; BEGIN IMMEDIATE;", NULL, NULL, NULL),
			 SQLITE_OK);
	ul_store_close(st);
	{
		char err[512];
		int rc;

		st = open_cfg(path, 0, 300, &rc, err, sizeof(err));
		ck_assert_msg(rc == 0, "%s", err);
	}
	run.cells[0].seq = 1;
	t0 = ul_now_ns();
	ck_assert_int_eq(st->ops->add_cell(st, &run, &run.cells[0]), -EBUSY);
	ck_assert_int_ge(ul_now_ns() - t0, 250 * UL_NS_PER_MS); /* it did wait */
	ck_assert_int_eq(sqlite3_exec(other, "ROLLBACK", NULL, NULL, NULL), SQLITE_OK);
	ck_assert_msg(st->ops->add_cell(st, &run, &run.cells[0]) == 0, "%s", st->err);
	sqlite3_close(other);
	ul_store_close(st);
	ul_run_release(&run);
}
END_TEST

START_TEST(test_fault_seam)
{
	char path[256];
	struct ul_store *st;
	struct ul_run run;

	ul_unit_db(path, sizeof(path), "fault.db");
	st = ul_unit_store_open(path);
	one_cell_run(&run, "fault");
	ck_assert_int_eq(ul_store_fault_set(st, "add_cell", 2, 1, ENOSPC), 0);
	ck_assert_int_eq(ul_store_fault_set(st, "nonsense", 1, 1, ENOSPC), -EINVAL);
	ck_assert_int_eq(ul_store_fault_set(st, "add_cell", 2, 1, ENOSPC), 0);
	ck_assert_int_eq(st->ops->begin_run(st, &run), 0);
	ck_assert_int_eq(st->ops->add_cell(st, &run, &run.cells[0]), 0);
	run.cells[0].seq = 1;
	ck_assert_int_eq(st->ops->add_cell(st, &run, &run.cells[0]), -ENOSPC);
	ck_assert_ptr_nonnull(strstr(st->err, "injected"));
	ck_assert_int_eq(st->ops->add_cell(st, &run, &run.cells[0]), 0);
	ul_store_close(st);
	ul_run_release(&run);
}
END_TEST

START_TEST(test_import_merge)
{
	char path[256];
	struct ul_store *st;
	struct ul_run runs[2], back;
	size_t added = 9;

	ul_unit_db(path, sizeof(path), "import.db");
	st = ul_unit_store_open(path);
	one_cell_run(&runs[0], "a");
	one_cell_run(&runs[1], "b");
	runs[1].status = UL_RUN_UNKNOWN; /* never written: the whole file is refused */
	ck_assert_int_eq(st->ops->import_runs(st, runs, 2, &added), -EINVAL);
	runs[1].status = UL_RUN_COMPLETE;
	/* The first run exists with no cell and still running: import completes it. */
	ck_assert_int_eq(st->ops->begin_run(st, &runs[0]), 0);
	runs[0].status = UL_RUN_COMPLETE;
	runs[0].finished_wall_ns = 5000;
	ck_assert_msg(st->ops->import_runs(st, runs, 2, &added) == 0, "%s", st->err);
	ck_assert_uint_eq(added, 2);
	ck_assert_int_eq(st->ops->load_run(st, runs[0].uuid, &back), 0);
	ck_assert_int_eq(back.status, UL_RUN_COMPLETE);
	ck_assert_int_eq(back.finished_wall_ns, 5000);
	ck_assert_uint_eq(back.n_cells, 1);
	ul_run_release(&back);
	ck_assert_int_eq(st->ops->import_runs(st, runs, 2, &added), 0);
	ck_assert_uint_eq(added, 0); /* twice: nothing changes */
	/* One UUID form: the same run in uppercase is the same run. */
	for (char *p = runs[1].uuid; *p; p++)
		*p = (char)toupper((unsigned char)*p);
	ck_assert_int_eq(st->ops->import_runs(st, &runs[1], 1, &added), 0);
	ck_assert_uint_eq(added, 0);
	ck_assert_int_eq(ul_unit_sql_int(path, "SELECT count(*) FROM runs"), 2);
	ck_assert_int_eq(st->ops->was_deleted(st, runs[1].uuid), 0);
	ck_assert_int_eq(st->ops->delete_run(st, runs[1].uuid), 0);
	ck_assert_int_eq(st->ops->delete_run(st, runs[1].uuid), -ENOENT);
	/* Recorded as deleted (in any case) until imported again by hand. */
	ck_assert_int_eq(st->ops->was_deleted(st, runs[1].uuid), 1);
	ck_assert_int_eq(st->ops->was_deleted(st, ul_uuid_canon(runs[1].uuid)), 1);
	ck_assert_int_eq(st->ops->import_runs(st, &runs[1], 1, &added), 0);
	ck_assert_uint_eq(added, 1);
	ck_assert_int_eq(st->ops->was_deleted(st, runs[1].uuid), 0);
	ck_assert_int_eq(st->ops->relabel_run(st, runs[0].uuid, "renamed"), 0);
	ck_assert_int_eq(st->ops->load_run(st, runs[0].uuid, &back), 0);
	ck_assert_str_eq(back.label, "renamed");
	ul_run_release(&back);
	ul_store_close(st);
	ul_run_release(&runs[0]);
	ul_run_release(&runs[1]);
}
END_TEST

/* Crafted monitor timestamps: no signed overflow in vmstat (UBSan aborts the test on one). */
START_TEST(test_vmstat_crafted_times)
{
	static const int64_t t[] = { INT64_MIN, INT64_MAX, -1, INT64_MAX, 0, INT64_MIN };
	struct ul_cell cell = { .suite = "resp", .load = "noload", .probe = "resp" };
	struct ul_series *s = ul_cell_series(&cell, UL_SYSMON_SERIES_T);
	char *buf = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&buf, &len);

	ck_assert_ptr_nonnull(s);
	for (size_t i = 0; i < UL_ARRAY_SIZE(t); i++)
		ck_assert_int_eq(ul_series_push(s, t[i]), 0);
	ck_assert_int_eq(ul_report_vmstat(f, &cell), 0);
	fclose(f);
	ck_assert_ptr_nonnull(strstr(buf, "6 samples, 2 intervals"));
	free(buf);
	ul_cell_release(&cell);
}
END_TEST

#if UL_HAVE_POSTGRESQL
/* Crafted rows in PostgreSQL: a packed series that is not its count, odd names and status. */
START_TEST(test_pg_crafted_rows)
{
	char path[256], err[512];
	struct ul_run run, back;
	struct ul_run_summary *rs;
	struct ul_store *st;
	size_t n;
	int rc;

	ul_unit_db(path, sizeof(path), "crafted");
	make_store(path, &run);
	/* n = 10^12 must not allocate 8 TB (ASan aborts on such a request). */
	ul_unit_sql(path, "UPDATE series SET n = 1000000000000");
	ul_unit_sql(path, "UPDATE runs SET status = 'exploded'");
	st = open_cfg(path, UL_STORE_READ, 0, &rc, err, sizeof(err));
	ck_assert_msg(rc == 0, "%s", err);
	ck_assert_int_eq(st->ops->list_runs(st, &rs, &n), 0);
	ck_assert_uint_eq(n, 1);
	ck_assert_int_eq(rs[0].status, UL_RUN_UNKNOWN);
	free(rs);
	ck_assert_int_eq(st->ops->load_run(st, "last", &back), -EIO);
	ck_assert_msg(strstr(st->err, "length is not its count"), "%s", st->err);
	/* Reading refuses to write. */
	ck_assert_int_eq(st->ops->relabel_run(st, run.uuid, "x"), -EROFS);
	ul_store_close(st);

	ul_unit_sql(path, "UPDATE series SET n = 5, packed = substring(packed from 1 for 32)");
	st = open_cfg(path, UL_STORE_READ, 0, &rc, err, sizeof(err));
	ck_assert_int_eq(st->ops->load_run(st, "last", &back), -EIO);
	ul_store_close(st);

	ul_unit_sql(path, "UPDATE series SET packed = packed || '\\x0102030405060708'::bytea");
	st = open_cfg(path, UL_STORE_READ, 0, &rc, err, sizeof(err));
	ck_assert_msg(st->ops->load_run(st, "last", &back) == 0, "%s", st->err);
	ck_assert_int_eq(back.status, UL_RUN_UNKNOWN);
	ck_assert_uint_eq(back.cells[0].series[0].n, 5);
	ck_assert_int_eq(back.cells[0].series[0].v[4], 0x0807060504030201);
	ul_run_release(&back);
	ul_store_close(st);

	ul_unit_sql(path, "UPDATE cells SET load = 'no load'");
	st = open_cfg(path, UL_STORE_READ, 0, &rc, err, sizeof(err));
	ck_assert_int_eq(st->ops->load_run(st, "last", &back), -EIO);
	ck_assert_ptr_nonnull(strstr(st->err, "not a valid name"));
	ul_store_close(st);
	ul_run_release(&run);
}
END_TEST

static void pg_setup(void)
{
	setup();
	ul_unit_pg_mode(true);
}

static void pg_teardown(void)
{
	ul_unit_pg_mode(false);
	ul_unit_dir_remove();
}
#endif

/* The cases that apply to PostgreSQL once more there, when a database is given. */
static void add_pg_cases(Suite *s)
{
#if UL_HAVE_POSTGRESQL
	TCase *tc;

	if (!ul_unit_pg_uri()) {
		fprintf(stderr, "storesafe: PostgreSQL cases skipped: UL_TEST_PG_URI is unset"
				" (tests/pg-cluster start prints one)\n");
		return;
	}
	tc = tcase_create("postgresql");
	tcase_add_unchecked_fixture(tc, pg_setup, pg_teardown);
	tcase_set_timeout(tc, 30);
	tcase_add_test(tc, test_pg_crafted_rows);
	tcase_add_test(tc, test_fault_seam);
	tcase_add_test(tc, test_import_merge);
	suite_add_tcase(s, tc);
#else
	(void)s;
	fprintf(stderr, "storesafe: PostgreSQL cases skipped: built without PostgreSQL\n");
#endif
}

Suite *ul_test_suite_storesafe(void)
{
	Suite *s = suite_create("storesafe");
	TCase *tc = tcase_create("storesafe");

	tcase_add_unchecked_fixture(tc, setup, ul_unit_dir_remove);
	tcase_set_timeout(tc, 30);
	tcase_add_test(tc, test_crafted_rows);
	tcase_add_test(tc, test_read_creates_nothing);
	tcase_add_test(tc, test_damaged_not_modified);
	tcase_add_test(tc, test_wal_and_deleted);
	tcase_add_test(tc, test_locked);
	tcase_add_test(tc, test_fault_seam);
	tcase_add_test(tc, test_import_merge);
	tcase_add_test(tc, test_vmstat_crafted_times);
	suite_add_tcase(s, tc);
	add_pg_cases(s);
	return s;
}

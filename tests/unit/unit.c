/* SPDX-License-Identifier: GPL-2.0-or-later */
/* Fixtures several unit suites share (unit.h says what each does). */
#include "unit.h"
#include "store/store.h"

#include <ftw.h>
#include <sqlite3.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/stat.h>

char ul_unit_dir[64];

void ul_unit_dir_make(const char *name)
{
	snprintf(ul_unit_dir, sizeof(ul_unit_dir), "/tmp/ul-test-%s-XXXXXX", name);
	if (!mkdtemp(ul_unit_dir))
		abort();
}

static int rm_entry(const char *path, const struct stat *sb, int type, struct FTW *ftw)
{
	(void)sb;
	(void)type;
	(void)ftw;
	return remove(path);
}

void ul_unit_dir_remove(void)
{
	nftw(ul_unit_dir, rm_entry, 16, FTW_DEPTH | FTW_PHYS);
}

const char *ul_unit_path(char *buf, size_t len, const char *name)
{
	snprintf(buf, len, "%s/%s", ul_unit_dir, name);
	return buf;
}

void ul_unit_sql(const char *path, const char *sql)
{
	sqlite3 *db;

	ck_assert_int_eq(sqlite3_open(path, &db), SQLITE_OK);
	ck_assert_msg(sqlite3_exec(db, sql, NULL, NULL, NULL) == SQLITE_OK, "%s: %s", sql,
		      sqlite3_errmsg(db));
	sqlite3_close(db);
}

/* The statement stepped to its first row; finalize it and close *db after. */
static sqlite3_stmt *first_row(const char *path, int flags, const char *sql, sqlite3 **db)
{
	sqlite3_stmt *s;

	ck_assert_int_eq(sqlite3_open_v2(path, db, flags, NULL), SQLITE_OK);
	ck_assert_int_eq(sqlite3_prepare_v2(*db, sql, -1, &s, NULL), SQLITE_OK);
	ck_assert_int_eq(sqlite3_step(s), SQLITE_ROW);
	return s;
}

int64_t ul_unit_sql_int(const char *path, const char *sql)
{
	sqlite3 *db;
	sqlite3_stmt *s = first_row(path, SQLITE_OPEN_READONLY, sql, &db);
	int64_t v = sqlite3_column_int64(s, 0);

	sqlite3_finalize(s);
	sqlite3_close(db);
	return v;
}

void ul_unit_sql_text(const char *path, const char *sql, char *out, size_t len)
{
	sqlite3 *db;
	sqlite3_stmt *s = first_row(path, SQLITE_OPEN_READWRITE | SQLITE_OPEN_CREATE, sql, &db);

	snprintf(out, len, "%s", (const char *)sqlite3_column_text(s, 0));
	sqlite3_finalize(s);
	sqlite3_close(db);
}

struct ul_store *ul_unit_store_open(const char *uri)
{
	struct ul_store *st = NULL;
	char err[512] = "";
	int r = ul_store_open(uri, &st, err, sizeof(err));

	ck_assert_msg(r == 0, "open '%s': %d %s", uri, r, err);
	ck_assert_ptr_nonnull(st);
	return st;
}

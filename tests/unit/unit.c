/* SPDX-License-Identifier: GPL-2.0-or-later */
/* Fixtures several unit suites share (unit.h says what each does). */
#include "unit.h"
#include "store/store.h"
#include "ul_config.h"

#include <ftw.h>
#include <sqlite3.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
#if UL_HAVE_POSTGRESQL
#include <libpq-fe.h>
#endif

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

static bool pg_mode;

const char *ul_unit_pg_uri(void)
{
	const char *uri = getenv("UL_TEST_PG_URI");

	return uri && *uri ? uri : NULL;
}

bool ul_unit_pg(void)
{
	return pg_mode;
}

#if UL_HAVE_POSTGRESQL
static pid_t pg_parent; /* schemas are named ul_u<pg_parent>_<test pid>_<name> */

static bool is_pg(const char *uri)
{
	return !strncmp(uri, "postgresql:", 11);
}

static void quiet(void *arg, const char *message)
{
	(void)arg;
	(void)message;
}

/* The PGresult of sql on uri, which must succeed (PQclear it). */
static PGresult *pg_sql(const char *uri, const char *sql)
{
	PGconn *c = PQconnectdb(uri);
	PGresult *r;

	ck_assert_msg(PQstatus(c) == CONNECTION_OK, "%s: %s", uri, PQerrorMessage(c));
	PQsetNoticeProcessor(c, quiet, NULL); /* "schema ... does not exist, skipping" */
	r = PQexec(c, sql);
	ck_assert_msg(PQresultStatus(r) == PGRES_COMMAND_OK || PQresultStatus(r) == PGRES_TUPLES_OK,
		      "%s: %s", sql, PQresultErrorMessage(r));
	PQfinish(c);
	return r;
}

/* Drop the schemas this TCase made. */
static void pg_drop_schemas(void)
{
	char sql[200];
	PGresult *r;

	snprintf(sql, sizeof(sql),
		 "SELECT string_agg(format('DROP SCHEMA %%I CASCADE', nspname), ';')"
		 " FROM pg_namespace WHERE nspname LIKE 'ul\\_u%d\\_%%'",
		 (int)pg_parent);
	r = pg_sql(ul_unit_pg_uri(), sql);
	if (!PQgetisnull(r, 0, 0))
		PQclear(pg_sql(ul_unit_pg_uri(), PQgetvalue(r, 0, 0)));
	PQclear(r);
}

static const char *pg_db(char *buf, size_t len, const char *name)
{
	const char *base = ul_unit_pg_uri();
	char schema[64], sql[200];
	size_t n;

	n = (size_t)snprintf(schema, sizeof(schema), "ul_u%d_%d_", (int)pg_parent, (int)getpid());
	for (const char *p = name; *p && n + 1 < sizeof(schema); p++)
		schema[n++] = (*p >= 'a' && *p <= 'z') || (*p >= '0' && *p <= '9') ? *p : '_';
	schema[n] = '\0';
	snprintf(sql, sizeof(sql), "DROP SCHEMA IF EXISTS %s CASCADE; CREATE SCHEMA %s", schema,
		 schema);
	PQclear(pg_sql(base, sql));
	ck_assert_int_lt(snprintf(buf, len, "%s%coptions=-csearch_path%%3D%s", base,
				  strchr(base, '?') ? '&' : '?', schema),
			 (int)len);
	return buf;
}
#endif

void ul_unit_pg_mode(bool on)
{
#if UL_HAVE_POSTGRESQL
	if (!on && pg_mode)
		pg_drop_schemas();
	pg_parent = getpid();
#endif
	pg_mode = on;
}

const char *ul_unit_db(char *buf, size_t len, const char *name)
{
#if UL_HAVE_POSTGRESQL
	if (pg_mode)
		return pg_db(buf, len, name);
#endif
	if (strchr(name, ':')) {
		snprintf(buf, len, "%s", name);
		return buf;
	}
	return ul_unit_path(buf, len, name);
}

void ul_unit_sql(const char *path, const char *sql)
{
	sqlite3 *db;

#if UL_HAVE_POSTGRESQL
	if (is_pg(path)) {
		PQclear(pg_sql(path, sql));
		return;
	}
#endif

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
	sqlite3_stmt *s;
	int64_t v;

#if UL_HAVE_POSTGRESQL
	if (is_pg(path)) {
		PGresult *r = pg_sql(path, sql);

		ck_assert_int_ge(PQntuples(r), 1);
		v = strtoll(PQgetvalue(r, 0, 0), NULL, 10);
		PQclear(r);
		return v;
	}
#endif
	s = first_row(path, SQLITE_OPEN_READONLY, sql, &db);
	v = sqlite3_column_int64(s, 0);

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

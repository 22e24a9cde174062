/* SPDX-License-Identifier: GPL-2.0-or-later */
/* The Check suites of the one unit-test runner (see suites.def), and the
 * fixtures several suites share (unit.c). */
#ifndef UL_UNIT_H
#define UL_UNIT_H

#include "core/compat.h"
#include <check.h>

#define UL_TEST_SUITE(name) Suite *ul_test_suite_##name(void);
#include "suites.def"
#undef UL_TEST_SUITE

struct ul_store;

/*
 * A private directory: ul_unit_dir_make("store") in a fixture's setup
 * makes /tmp/ul-test-store-XXXXXX, ul_unit_dir_remove() in its teardown
 * removes it with everything below (symlinks removed, never followed).
 */
extern char ul_unit_dir[64];
void ul_unit_dir_make(const char *name);
void ul_unit_dir_remove(void);
/* buf = "ul_unit_dir/name"; returns buf. */
const char *ul_unit_path(char *buf, size_t len, const char *name);

/* SQL on a database file with plain sqlite3, behind the store's back. */
void ul_unit_sql(const char *path, const char *sql);
/* The first column of the first row `sql` gives (file opened read-only). */
int64_t ul_unit_sql_int(const char *path, const char *sql);
/* The same as text, into out (file opened read-write). */
void ul_unit_sql_text(const char *path, const char *sql, char *out, size_t len);

/*
 * The backend-neutral store tests run once on SQLite and, when
 * UL_TEST_PG_URI names a database (tests/pg-cluster), once on PostgreSQL:
 * ul_unit_pg_mode(true) in a TCase's unchecked setup chooses it, and
 * ul_unit_db() gives each test's store: SQLite, `name` in ul_unit_dir (a
 * name holding ':' as it is, e.g. ":memory:"); PostgreSQL, the test
 * database with an empty schema of its own (search_path in the URI).
 * ul_unit_sql*() take either.  ul_unit_pg_mode(false) in the TCase's
 * teardown drops every schema the TCase made, also those of failed tests.
 * ul_unit_pg_uri() is the URI, NULL when unset.
 */
void ul_unit_pg_mode(bool on);
bool ul_unit_pg(void);
const char *ul_unit_pg_uri(void);
const char *ul_unit_db(char *buf, size_t len, const char *name);

/* ul_store_open(uri), which must succeed. */
struct ul_store *ul_unit_store_open(const char *uri);

#endif

/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * The PostgreSQL results store: `--db postgresql://HOST/DB`,
 * `postgresql:///DB?host=/socket/dir` or `postgresql:///?service=NAME`,
 * for many machines writing into one database.
 *
 * Schema: the SQLite store's logical schema (sqlite.c: runs, cells,
 * series, metrics, deleted_runs, run_fingerprints, the cell_samples view)
 * in PostgreSQL's dialect, with integers as bigint and each series one
 * bytea in store/series_pack.h's packed form (there never was a table of
 * single samples here).  The table underload_schema holds the version
 * stamp (one row) and marks the database as ours; a database holding a
 * `runs` table without it is refused.  Migrations run in a list, one
 * transaction a step, under an advisory lock so that two processes opening
 * a new database at once do not both create it; a newer schema is refused.
 */
#include "core/compat.h"
#include "core/log.h"
#include "store/pg_int.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

extern const struct ul_store_ops ul_store_postgresql;

/* The advisory lock of migrations: "uldr" in ASCII. */
#define PG_MIGRATION_LOCK "1970037874"

/* Version 1: the tables (series packed), the view, the version stamp. */
#define SCHEMA_V1                                                                                  \
	"CREATE TABLE underload_schema (version integer NOT NULL);"                                \
	"INSERT INTO underload_schema (version) VALUES (0);"                                       \
	"CREATE TABLE runs ("                                                                      \
	" id bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY,"                                     \
	" uuid text NOT NULL UNIQUE, label text NOT NULL, tool_version text NOT NULL,"             \
	" argv text NOT NULL, suites text NOT NULL, status text NOT NULL,"                         \
	" started_wall_ns bigint NOT NULL, finished_wall_ns bigint NOT NULL,"                      \
	" host_name text NOT NULL, host_kernel_release text NOT NULL,"                             \
	" host_kernel_version text NOT NULL, host_arch text NOT NULL,"                             \
	" host_cpu_model text NOT NULL, host_ncpu bigint NOT NULL,"                                \
	" host_mem_total_bytes bigint NOT NULL, host_swap_total_bytes bigint NOT NULL,"            \
	" interval_ns bigint NOT NULL, min_points bigint NOT NULL, max_points bigint NOT NULL,"    \
	" ci_target_centi bigint NOT NULL, mem_budget_bytes bigint NOT NULL,"                      \
	" mem_limit_bytes bigint NOT NULL, swap_bytes bigint NOT NULL);"                           \
	"CREATE INDEX runs_by_start ON runs (started_wall_ns DESC, id DESC);"                      \
	"CREATE TABLE cells ("                                                                     \
	" id bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY,"                                     \
	" run_id bigint NOT NULL REFERENCES runs (id) ON DELETE CASCADE,"                          \
	" seq bigint NOT NULL, suite text NOT NULL, load text NOT NULL, probe text NOT NULL,"      \
	" outcome text NOT NULL, flags bigint NOT NULL, note text NOT NULL,"                       \
	" load_unit text NOT NULL, load_units bigint NOT NULL,"                                    \
	" started_wall_ns bigint NOT NULL, finished_wall_ns bigint NOT NULL,"                      \
	" UNIQUE (run_id, seq));"                                                                  \
	"CREATE TABLE series ("                                                                    \
	" id bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY,"                                     \
	" cell_id bigint NOT NULL REFERENCES cells (id) ON DELETE CASCADE,"                        \
	" pos bigint NOT NULL, name text NOT NULL, n bigint NOT NULL, packed bytea NOT NULL,"      \
	" UNIQUE (cell_id, pos), UNIQUE (cell_id, name));"                                         \
	"CREATE TABLE metrics ("                                                                   \
	" cell_id bigint NOT NULL REFERENCES cells (id) ON DELETE CASCADE,"                        \
	" pos bigint NOT NULL, name text NOT NULL, value double precision,"                        \
	" PRIMARY KEY (cell_id, pos), UNIQUE (cell_id, name));"                                    \
	"CREATE VIEW cell_samples AS"                                                              \
	" SELECT c.run_id, c.seq, c.suite, c.load, c.probe, s.name AS series, g.idx,"              \
	" " LE_INT64 " AS value"                                                                   \
	" FROM cells c JOIN series s ON s.cell_id = c.id"                                          \
	" CROSS JOIN LATERAL generate_series(0, length(s.packed) / 8 - 1) AS g (idx);"
/* Sample g.idx from its 8 bytes, little-endian: the view reads the packing. */
#define LE_BYTE(k) "get_byte(s.packed, 8 * g.idx + " #k ")::bit(8)"
/* clang-format off */
#define LE_INT64 "(" LE_BYTE(7) " || " LE_BYTE(6) " || " LE_BYTE(5) " || " LE_BYTE(4) \
	" || " LE_BYTE(3) " || " LE_BYTE(2) " || " LE_BYTE(1) " || " LE_BYTE(0) \
	")::bit(64)::bigint"
/* clang-format on */

/* Version 2: runs `rm` deleted (SQLite's version 2 also merged UUID case twins: none here). */
#define SCHEMA_V2                                                                                  \
	"CREATE TABLE deleted_runs (uuid text PRIMARY KEY, deleted_wall_ns bigint NOT NULL);"

/* Version 3: each run's fingerprint, a JSON object. */
#define SCHEMA_V3                                                                                  \
	"CREATE TABLE run_fingerprints ("                                                          \
	" run_id bigint PRIMARY KEY REFERENCES runs (id) ON DELETE CASCADE,"                       \
	" json text NOT NULL);"

/* Version 4: SQLite packs its series into one BLOB each; here they were
 * packed from version 1, so the step only stamps the version. */
#define SCHEMA_V4 ""

#define MIGRATION(n, sql) [(n)-1] = sql "UPDATE underload_schema SET version = " #n ";"
static const char *const migrations[] = {
	MIGRATION(1, SCHEMA_V1),
	MIGRATION(2, SCHEMA_V2),
	MIGRATION(3, SCHEMA_V3),
	MIGRATION(4, SCHEMA_V4),
};
_Static_assert(UL_ARRAY_SIZE(migrations) == UL_STORE_SCHEMA_VERSION,
	       "one PostgreSQL migration per schema version");

/*
 * The version stamp: 0 with *version, or a negative errno.  No stamp: 0
 * (version 0) for a database without our tables, -EPROTO for one holding
 * a `runs` table of someone else.
 */
static int read_version(struct ul_store_pg *st, int64_t *version)
{
	PGresult *r;
	int rc = ul_pg_run(st,
			   "SELECT to_regclass('underload_schema') IS NOT NULL,"
			   " to_regclass('runs') IS NOT NULL",
			   NULL, false, &r, "cannot read the schema of the PostgreSQL store");

	if (rc < 0)
		return rc;
	bool ours = !strcmp(PQgetvalue(r, 0, 0), "t"), runs = !strcmp(PQgetvalue(r, 0, 1), "t");

	PQclear(r);
	*version = 0;
	if (!ours)
		return runs ? ul_pg_err(st, -EPROTO,
					"%s is not an underload store (it holds another 'runs' "
					"table)",
					st->name)
			    : 0;
	rc = ul_pg_run(st, "SELECT version FROM underload_schema", NULL, false, &r,
		       "cannot read the schema version of the PostgreSQL store");
	if (rc < 0)
		return rc;
	if (PQntuples(r) != 1)
		rc = ul_pg_err(st, -EPROTO, "%s has a damaged version stamp (%d rows)", st->name,
			       PQntuples(r));
	else
		*version = ul_pg_i64_at(r, 0, 0);
	PQclear(r);
	return rc;
}

static int newer(struct ul_store_pg *st, int64_t version)
{
	return ul_pg_err(st, -EPROTONOSUPPORT,
			 "%s has schema version %lld, newer than this underload understands (%d)",
			 st->name, (long long)version, UL_STORE_SCHEMA_VERSION);
}

/*
 * One migration step in its transaction, under the lock (taken before the
 * transaction began, so it sees the catalog another process committed);
 * *version is what it leaves.
 */
static int migrate_step(struct ul_store_pg *st, int64_t *version)
{
	const char *what = "cannot upgrade the PostgreSQL store";
	int r = ul_pg_begin(st, NULL, what);

	if (!r)
		r = read_version(st, version);
	if (!r && *version >= 0 && *version < UL_STORE_SCHEMA_VERSION) {
		/* Several statements: the simple protocol (no parameters, a literal). */
		PGresult *res = PQexec(st->conn, migrations[*version]);

		if (PQresultStatus(res) != PGRES_COMMAND_OK) {
			char reason[300];

			const char *msg = PQresultErrorMessage(res);

			/* libpq's "ERROR:  " prefix: the line says it is one. */
			if (!strncmp(msg, "ERROR:  ", 8))
				msg += 8;
			snprintf(reason, sizeof(reason), "%s", msg);
			reason[strcspn(reason, "\n")] = '\0';
			r = ul_pg_err(st, -EIO, "%s to schema version %lld: %s", what,
				      (long long)*version + 1, reason);
		}
		PQclear(res);
		if (!r)
			++*version;
	}
	return ul_pg_end(st, r, what);
}

/* Bring the schema to UL_STORE_SCHEMA_VERSION (writing) or check it (reading). */
static int check_and_migrate(struct ul_store_pg *st)
{
	const char *what = "cannot upgrade the PostgreSQL store";
	int64_t version = 0;
	int r = read_version(st, &version);

	if (!r && version < UL_STORE_SCHEMA_VERSION && !st->read_only) {
		/* Two processes opening a new database at once: one creates it. */
		r = ul_pg_run(st, "SELECT pg_advisory_lock(" PG_MIGRATION_LOCK ")", NULL, false,
			      NULL, what);
		while (!r && version < UL_STORE_SCHEMA_VERSION)
			r = migrate_step(st, &version);
		PQclear(PQexec(st->conn, "SELECT pg_advisory_unlock(" PG_MIGRATION_LOCK ")"));
	}
	if (r < 0)
		return r;
	if (version > UL_STORE_SCHEMA_VERSION)
		return newer(st, version);
	if (version < 0)
		return ul_pg_err(st, -EPROTO, "%s is not an underload store (schema version %lld)",
				 st->name, (long long)version);
	if (version == 0)
		return ul_pg_err(st, -ENOENT, "no underload results in %s", st->name);
	st->version = version;
	return 0;
}

/*
 * The packed series are stored as they are, never compressed (STORAGE
 * EXTERNAL: out of line, like SQLite's BLOBs).  pglz, the default, spent
 * three quarters of a 1M-sample write compressing them (1.6 s against
 * 0.4 s; bench/store-scale.sh) for a database half the size.  Physical
 * tuning, not schema: set on the first write by a program that wants it,
 * in any database, and only new rows change.  Best effort: a writer that
 * does not own the table, or meets it locked (waiting a second at most,
 * not the busy wait), leaves it for the next one.
 */
static void store_series_plain(struct ul_store_pg *st)
{
	PGresult *r;
	bool done;

	if (ul_pg_run(st,
		      "SELECT attstorage = 'e' FROM pg_attribute"
		      " WHERE attrelid = to_regclass('series') AND attname = 'packed'",
		      NULL, false, &r, "cannot read the storage of series"))
		return;
	done = PQntuples(r) != 1 || !strcmp(PQgetvalue(r, 0, 0), "t");
	PQclear(r);
	if (done) /* already, or no such table */
		return;
	r = PQexec(st->conn,
		   "BEGIN; SET LOCAL lock_timeout = '1s';"
		   " ALTER TABLE series ALTER COLUMN packed SET STORAGE EXTERNAL; COMMIT");
	PQclear(r);
	ul_pg_rollback(st); /* when it failed half-way */
}

static void pg_close(struct ul_store *base)
{
	struct ul_store_pg *st = pg(base);

	if (!st)
		return;
	PQfinish(st->conn);
	free(st);
}

/* Quiet notices; a row lock (the same run written twice at once) is waited
 * for as long as SQLite's busy wait, then the write fails with -EBUSY. */
static int configure(struct ul_store_pg *st, const struct ul_store_config *cfg)
{
	const char *what = "cannot configure the PostgreSQL store";
	struct ul_pg_params p = { 0 };
	int r = ul_pg_run(st, "SET client_min_messages = warning", NULL, false, NULL, what);

	if (r < 0)
		return r;
	ul_pg_i64(&p, cfg->busy_wait_ms > 0 ? cfg->busy_wait_ms : UL_STORE_BUSY_WAIT_DEFAULT_MS);
	return ul_pg_run(st, "SELECT set_config('lock_timeout', $1, false)", &p, false, NULL, what);
}

static int pg_open(const char *location, const struct ul_store_config *cfg, struct ul_store **out,
		   char *err, size_t errlen)
{
	struct ul_store_pg *st = calloc(1, sizeof(*st));
	char *uri = NULL;
	int r;

	*out = NULL;
	if (!st || asprintf(&uri, "postgresql:%s", location) < 0) {
		free(st);
		ul_whyf(err, errlen, "cannot open the PostgreSQL store: %s", strerror(ENOMEM));
		return -ENOMEM;
	}
	st->base.ops = &ul_store_postgresql;
	st->read_only = cfg->flags & UL_STORE_READ;
	r = ul_pg_connect(uri, &st->conn, err, errlen);
	free(uri);
	if (r < 0) {
		free(st);
		return r;
	}
	snprintf(st->name, sizeof(st->name), "database '%s' on %s", PQdb(st->conn),
		 PQhost(st->conn) ? PQhost(st->conn) : "the local server");
	if (st->read_only)
		r = ul_pg_run(st, "SET default_transaction_read_only = on", NULL, false, NULL,
			      "cannot configure the PostgreSQL store");
	if (!r)
		r = configure(st, cfg);
	if (!r)
		r = check_and_migrate(st);
	if (!r && !st->read_only)
		store_series_plain(st);
	if (r < 0) {
		ul_whyf(err, errlen, "%s", st->base.err);
		pg_close(&st->base);
		return r;
	}
	st->base.err[0] = '\0';
	*out = &st->base;
	return 0;
}

const struct ul_store_ops ul_store_postgresql = {
	.scheme = "postgresql",
	.open = pg_open,
	.close = pg_close,
	.begin_run = ul_pg_begin_run,
	.add_cell = ul_pg_add_cell,
	.finish_run = ul_pg_finish_run,
	.mark_interrupted = ul_pg_mark_interrupted,
	.mark_crashed = ul_pg_mark_crashed,
	.list_runs = ul_pg_list_runs,
	.load_run = ul_pg_load_run,
	.find_run = ul_pg_find_run,
	.delete_run = ul_pg_delete_run,
	.was_deleted = ul_pg_was_deleted,
	.relabel_run = ul_pg_relabel_run,
	.import_runs = ul_pg_import_runs,
};

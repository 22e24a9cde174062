/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * The SQLite results store: one file holds every run, cell, raw sample and
 * metric, with a versioned schema migrated on open.
 *
 * Schema (version 1).  uint64 model fields are stored as the int64 with the
 * same bits (SQLite integers are signed), so they round-trip exactly.
 *
 *   runs     id INTEGER PK, uuid TEXT UNIQUE, label, tool_version, argv,
 *            suites, status TEXT (ul_run_status_name), started_wall_ns,
 *            finished_wall_ns, host_* (struct ul_host, one column a field),
 *            interval_ns, min_points, max_points, ci_target_centi,
 *            mem_budget_bytes, mem_limit_bytes, swap_bytes (ul_run_params)
 *   cells    id INTEGER PK, run_id -> runs, seq (UNIQUE per run), suite,
 *            load, probe, outcome TEXT (ul_cell_outcome_name), flags, note,
 *            load_unit, load_units, started_wall_ns, finished_wall_ns
 *   series   id INTEGER PK, cell_id -> cells, pos (order in the cell, 0 is
 *            the primary measurement), name, n (number of samples); a
 *            table of its own so empty series and their order survive
 *   samples  series_id -> series, idx, value INTEGER; PK (series_id, idx)
 *   metrics  cell_id -> cells, pos (insertion order), name, value REAL;
 *            NULL stands for NaN, which SQLite cannot store as a REAL
 *   cell_samples  view: run_id, seq, suite, load, probe, series, idx, value
 *
 * Every foreign key cascades on delete.  PRAGMA application_id marks the
 * file as ours (UL_SQLITE_APP_ID, "uldr"); PRAGMA user_version is the
 * schema version.  The journal stays in the default rollback mode with
 * synchronous=FULL: a commit per cell is short, busy_timeout covers readers
 * that meet it, a kernel under test that hangs loses no committed cell, and
 * a read-only file in a read-only directory can still be listed (WAL would
 * need a writable -shm file next to it).
 */
#include "core/compat.h"
#include "store/store.h"

#include <errno.h>
#include <limits.h>
#include <math.h>
#include <sqlite3.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

/* PRAGMA application_id of an underload database: "uldr" in ASCII. */
#define UL_SQLITE_APP_ID 1970037874
_Static_assert(UL_SQLITE_APP_ID == 0x756c6472, "application_id must spell 'uldr'");

#define STR_(x) #x
#define STR(x) STR_(x)

#define BUSY_TIMEOUT_MS 5000

extern const struct ul_store_ops ul_store_sqlite;

/* Version 1: the tables, and the mark that makes the file ours. */
#define SCHEMA_V1                                                                                  \
	"CREATE TABLE runs ("                                                                      \
	" id INTEGER PRIMARY KEY,"                                                                 \
	" uuid TEXT NOT NULL UNIQUE,"                                                              \
	" label TEXT NOT NULL,"                                                                    \
	" tool_version TEXT NOT NULL,"                                                             \
	" argv TEXT NOT NULL,"                                                                     \
	" suites TEXT NOT NULL,"                                                                   \
	" status TEXT NOT NULL,"                                                                   \
	" started_wall_ns INTEGER NOT NULL,"                                                       \
	" finished_wall_ns INTEGER NOT NULL,"                                                      \
	" host_name TEXT NOT NULL,"                                                                \
	" host_kernel_release TEXT NOT NULL,"                                                      \
	" host_kernel_version TEXT NOT NULL,"                                                      \
	" host_arch TEXT NOT NULL,"                                                                \
	" host_cpu_model TEXT NOT NULL,"                                                           \
	" host_ncpu INTEGER NOT NULL,"                                                             \
	" host_mem_total_bytes INTEGER NOT NULL,"                                                  \
	" host_swap_total_bytes INTEGER NOT NULL,"                                                 \
	" interval_ns INTEGER NOT NULL,"                                                           \
	" min_points INTEGER NOT NULL,"                                                            \
	" max_points INTEGER NOT NULL,"                                                            \
	" ci_target_centi INTEGER NOT NULL,"                                                       \
	" mem_budget_bytes INTEGER NOT NULL,"                                                      \
	" mem_limit_bytes INTEGER NOT NULL,"                                                       \
	" swap_bytes INTEGER NOT NULL);"                                                           \
	"CREATE INDEX runs_by_start ON runs (started_wall_ns DESC, id DESC);"                      \
	"CREATE TABLE cells ("                                                                     \
	" id INTEGER PRIMARY KEY,"                                                                 \
	" run_id INTEGER NOT NULL REFERENCES runs (id) ON DELETE CASCADE,"                         \
	" seq INTEGER NOT NULL,"                                                                   \
	" suite TEXT NOT NULL,"                                                                    \
	" load TEXT NOT NULL,"                                                                     \
	" probe TEXT NOT NULL,"                                                                    \
	" outcome TEXT NOT NULL,"                                                                  \
	" flags INTEGER NOT NULL,"                                                                 \
	" note TEXT NOT NULL,"                                                                     \
	" load_unit TEXT NOT NULL,"                                                                \
	" load_units INTEGER NOT NULL,"                                                            \
	" started_wall_ns INTEGER NOT NULL,"                                                       \
	" finished_wall_ns INTEGER NOT NULL,"                                                      \
	" UNIQUE (run_id, seq));"                                                                  \
	"CREATE TABLE series ("                                                                    \
	" id INTEGER PRIMARY KEY,"                                                                 \
	" cell_id INTEGER NOT NULL REFERENCES cells (id) ON DELETE CASCADE,"                       \
	" pos INTEGER NOT NULL,"                                                                   \
	" name TEXT NOT NULL,"                                                                     \
	" n INTEGER NOT NULL,"                                                                     \
	" UNIQUE (cell_id, pos),"                                                                  \
	" UNIQUE (cell_id, name));"                                                                \
	"CREATE TABLE samples ("                                                                   \
	" series_id INTEGER NOT NULL REFERENCES series (id) ON DELETE CASCADE,"                    \
	" idx INTEGER NOT NULL,"                                                                   \
	" value INTEGER NOT NULL,"                                                                 \
	" PRIMARY KEY (series_id, idx)) WITHOUT ROWID;"                                            \
	"CREATE TABLE metrics ("                                                                   \
	" cell_id INTEGER NOT NULL REFERENCES cells (id) ON DELETE CASCADE,"                       \
	" pos INTEGER NOT NULL,"                                                                   \
	" name TEXT NOT NULL,"                                                                     \
	" value REAL,"                                                                             \
	" PRIMARY KEY (cell_id, pos),"                                                             \
	" UNIQUE (cell_id, name)) WITHOUT ROWID;"                                                  \
	"CREATE VIEW cell_samples AS"                                                              \
	" SELECT c.run_id, c.seq, c.suite, c.load, c.probe, s.name AS series, x.idx, x.value"      \
	" FROM cells c JOIN series s ON s.cell_id = c.id JOIN samples x ON x.series_id = s.id;"    \
	"PRAGMA application_id = " STR(UL_SQLITE_APP_ID) ";"

/*
 * The migrations, in order: MIGRATION(N, sql) takes a database from version
 * N-1 to N in one transaction and stamps user_version = N.  Adding version
 * 2 is one more line here (ALTER TABLE ... / UPDATE ...) and bumping
 * UL_STORE_SCHEMA_VERSION in store.h; the version stamp stays a literal so
 * no SQL is ever built from values.
 */
#define MIGRATION(n, sql) [(n) - 1] = sql "PRAGMA user_version = " #n ";"
static const char *const migrations[] = {
	MIGRATION(1, SCHEMA_V1),
};
_Static_assert(UL_ARRAY_SIZE(migrations) == UL_STORE_SCHEMA_VERSION,
	       "one migration per schema version");

/* Prepared once per store, on first use, finalised by close. */
enum stmt_id {
	S_BEGIN_READ,
	S_BEGIN_WRITE,
	S_COMMIT,
	S_ROLLBACK,
	S_INSERT_RUN,
	S_FINISH_RUN,
	S_RUN_BY_UUID,
	S_LAST_CELL_END,
	S_MARK_INTERRUPTED,
	S_INSERT_CELL,
	S_INSERT_SERIES,
	S_INSERT_SAMPLE,
	S_INSERT_METRIC,
	S_LIST_RUNS,
	S_LAST_RUN,
	S_RUN_EXISTS,
	S_RUN_BY_PREFIX,
	S_LOAD_RUN,
	S_LOAD_CELLS,
	S_LOAD_SERIES,
	S_LOAD_SAMPLES,
	S_LOAD_METRICS,
	S_COUNT
};

#define RUN_COLUMNS                                                                                \
	"uuid, label, tool_version, argv, suites, status, started_wall_ns, finished_wall_ns,"      \
	" host_name, host_kernel_release, host_kernel_version, host_arch, host_cpu_model,"         \
	" host_ncpu, host_mem_total_bytes, host_swap_total_bytes, interval_ns, min_points,"        \
	" max_points, ci_target_centi, mem_budget_bytes, mem_limit_bytes, swap_bytes"

static const char *const stmt_sql[S_COUNT] = {
	[S_BEGIN_READ] = "BEGIN",
	[S_BEGIN_WRITE] = "BEGIN IMMEDIATE",
	[S_COMMIT] = "COMMIT",
	[S_ROLLBACK] = "ROLLBACK",
	[S_INSERT_RUN] = "INSERT INTO runs (" RUN_COLUMNS ") VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7,"
			 " ?8, ?9, ?10, ?11, ?12, ?13, ?14, ?15, ?16, ?17, ?18, ?19, ?20, ?21, ?22,"
			 " ?23)",
	[S_FINISH_RUN] = "UPDATE runs SET status = ?1, finished_wall_ns = ?2 WHERE id = ?3",
	[S_RUN_BY_UUID] = "SELECT id, status, started_wall_ns FROM runs WHERE uuid = ?1",
	[S_LAST_CELL_END] = "SELECT max(finished_wall_ns) FROM cells WHERE run_id = ?1",
	[S_MARK_INTERRUPTED] = "UPDATE runs SET status = 'interrupted', finished_wall_ns = ?1"
			       " WHERE id = ?2 AND status = 'running'",
	[S_INSERT_CELL] = "INSERT INTO cells (run_id, seq, suite, load, probe, outcome, flags,"
			  " note, load_unit, load_units, started_wall_ns, finished_wall_ns)"
			  " VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9, ?10, ?11, ?12)",
	[S_INSERT_SERIES] = "INSERT INTO series (cell_id, pos, name, n) VALUES (?1, ?2, ?3, ?4)",
	[S_INSERT_SAMPLE] = "INSERT INTO samples (series_id, idx, value) VALUES (?1, ?2, ?3)",
	[S_INSERT_METRIC] = "INSERT INTO metrics (cell_id, pos, name, value)"
			    " VALUES (?1, ?2, ?3, ?4)",
	[S_LIST_RUNS] = "SELECT r.id, r.uuid, r.label, r.host_name, r.suites, r.status,"
			" r.started_wall_ns, (SELECT count(*) FROM cells c WHERE c.run_id = r.id)"
			" FROM runs r ORDER BY r.started_wall_ns DESC, r.id DESC",
	[S_LAST_RUN] = "SELECT id FROM runs ORDER BY started_wall_ns DESC, id DESC LIMIT 1",
	[S_RUN_EXISTS] = "SELECT 1 FROM runs WHERE id = ?1",
	[S_RUN_BY_PREFIX] = "SELECT id, uuid FROM runs WHERE lower(substr(uuid, 1, ?1)) = lower(?2)"
			    " ORDER BY id LIMIT 3",
	[S_LOAD_RUN] = "SELECT " RUN_COLUMNS " FROM runs WHERE id = ?1",
	[S_LOAD_CELLS] = "SELECT id, seq, suite, load, probe, outcome, flags, note, load_unit,"
			 " load_units, started_wall_ns, finished_wall_ns"
			 " FROM cells WHERE run_id = ?1 ORDER BY seq",
	[S_LOAD_SERIES] = "SELECT id, name, n FROM series WHERE cell_id = ?1 ORDER BY pos",
	[S_LOAD_SAMPLES] = "SELECT value FROM samples WHERE series_id = ?1 ORDER BY idx",
	[S_LOAD_METRICS] = "SELECT name, value FROM metrics WHERE cell_id = ?1 ORDER BY pos",
};

struct ul_store_sqlite {
	struct ul_store base; /* first: the ops see a struct ul_store * */
	sqlite3 *db;
	sqlite3_stmt *stmt[S_COUNT];
	int ro_errno; /* EACCES or EROFS when the file could only be opened read-only */
	char path[];  /* as given, for messages */
};

static struct ul_store_sqlite *sq(struct ul_store *st)
{
	return (struct ul_store_sqlite *)st;
}

static void vset_err(char *err, size_t errlen, const char *fmt, va_list ap) UL_PRINTF(3, 0);
static void vset_err(char *err, size_t errlen, const char *fmt, va_list ap)
{
	if (err && errlen)
		vsnprintf(err, errlen, fmt, ap);
}

static int set_err(char *err, size_t errlen, int code, const char *fmt, ...) UL_PRINTF(4, 5);
static int set_err(char *err, size_t errlen, int code, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vset_err(err, errlen, fmt, ap);
	va_end(ap);
	return code;
}

/* The negative errno for SQLite result `rc` (store.h lists the codes). */
static int sqlite_errno(sqlite3 *db, int rc, int ro_errno)
{
	int sys = db ? sqlite3_system_errno(db) : 0;

	switch (rc & 0xff) {
	case SQLITE_NOMEM:
		return -ENOMEM;
	case SQLITE_BUSY:
	case SQLITE_LOCKED:
		return -EBUSY;
	case SQLITE_READONLY:
		return ro_errno == EROFS ? -EROFS : -EACCES;
	case SQLITE_PERM:
	case SQLITE_AUTH:
		return -EACCES;
	case SQLITE_CANTOPEN:
		return sys > 0 ? -sys : -EACCES;
	case SQLITE_FULL:
		return -ENOSPC;
	case SQLITE_NOTADB:
		return -EPROTO;
	case SQLITE_CONSTRAINT:
		if (rc == SQLITE_CONSTRAINT_FOREIGNKEY)
			return -ENOENT;
		if (rc == SQLITE_CONSTRAINT_UNIQUE || rc == SQLITE_CONSTRAINT_PRIMARYKEY)
			return -EEXIST;
		return -EINVAL;
	default:
		return -EIO;
	}
}

/*
 * Fill the store's err with "WHAT: sqlite's reason" and return the errno
 * for rc.  Call before anything else touches the connection (a ROLLBACK
 * would replace the message).
 */
static int fail(struct ul_store_sqlite *st, int rc, const char *fmt, ...) UL_PRINTF(3, 4);
static int fail(struct ul_store_sqlite *st, int rc, const char *fmt, ...)
{
	char what[384];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(what, sizeof(what), fmt, ap);
	va_end(ap);
	if ((rc & 0xff) == SQLITE_READONLY && st->ro_errno)
		snprintf(st->base.err, sizeof(st->base.err), "%s: %s", what,
			 strerror(st->ro_errno));
	else
		snprintf(st->base.err, sizeof(st->base.err), "%s: %s", what,
			 st->db ? sqlite3_errmsg(st->db) : sqlite3_errstr(rc));
	return sqlite_errno(st->db, rc, st->ro_errno);
}

/* The cached statement `id`, reset and unbound; NULL with *rc set on failure. */
static sqlite3_stmt *stmt(struct ul_store_sqlite *st, enum stmt_id id, int *rc)
{
	sqlite3_stmt *s = st->stmt[id];

	if (!s) {
		*rc = sqlite3_prepare_v3(st->db, stmt_sql[id], -1, SQLITE_PREPARE_PERSISTENT,
					 &st->stmt[id], NULL);
		if (*rc != SQLITE_OK) {
			st->stmt[id] = NULL;
			return NULL;
		}
		return st->stmt[id];
	}
	sqlite3_reset(s);
	sqlite3_clear_bindings(s);
	return s;
}

/* Run a statement that returns no rows. */
static int exec_stmt(struct ul_store_sqlite *st, enum stmt_id id)
{
	int rc;
	sqlite3_stmt *s = stmt(st, id, &rc);

	if (!s)
		return rc;
	rc = sqlite3_step(s);
	sqlite3_reset(s);
	return rc == SQLITE_DONE ? SQLITE_OK : rc;
}

static void rollback(struct ul_store_sqlite *st)
{
	if (!sqlite3_get_autocommit(st->db))
		(void)exec_stmt(st, S_ROLLBACK);
}

/* Bind a fixed-size model string; tolerates a field without its NUL. */
#define BIND_FIELD(s, i, field)                                                                    \
	sqlite3_bind_text((s), (i), (field), (int)strnlen((field), sizeof(field)), SQLITE_STATIC)

/* Copy a text column into a fixed-size model string, truncating. */
#define COLUMN_FIELD(s, i, field) column_text((s), (i), (field), sizeof(field))

static void column_text(sqlite3_stmt *s, int i, char *buf, size_t size)
{
	const unsigned char *t = sqlite3_column_text(s, i);

	snprintf(buf, size, "%s", t ? (const char *)t : "");
}

static int64_t column_i64(sqlite3_stmt *s, int i)
{
	return (int64_t)sqlite3_column_int64(s, i);
}

static uint64_t column_u64(sqlite3_stmt *s, int i)
{
	return (uint64_t)sqlite3_column_int64(s, i);
}

/* ---- opening ---- */

/* One integer from a statement without parameters (a PRAGMA or a count). */
static int query_int(sqlite3 *db, const char *sql, int64_t *out)
{
	sqlite3_stmt *s;
	int rc = sqlite3_prepare_v2(db, sql, -1, &s, NULL);

	if (rc != SQLITE_OK)
		return rc;
	rc = sqlite3_step(s);
	if (rc == SQLITE_ROW) {
		*out = sqlite3_column_int64(s, 0);
		rc = SQLITE_OK;
	}
	sqlite3_finalize(s);
	return rc;
}

/*
 * mkdir -p of the directory part of `path` with mode 0755 (less the umask).
 * A component that already exists must be a directory.
 */
static int make_parents(const char *path, char *err, size_t errlen)
{
	char dir[PATH_MAX];
	char *slash;
	size_t len = strlen(path);

	if (len >= sizeof(dir))
		return set_err(err, errlen, -ENAMETOOLONG, "cannot open '%s': %s", path,
			       strerror(ENAMETOOLONG));
	memcpy(dir, path, len + 1);
	slash = strrchr(dir, '/');
	if (!slash)
		return 0;
	*slash = '\0';
	for (char *p = dir + 1; p <= slash; p++) {
		struct stat sb;
		int e;

		if (*p != '/' && *p != '\0')
			continue;
		if (*p == '/' && p[-1] == '/')
			continue;
		*p = '\0';
		e = mkdir(dir, 0755) ? errno : 0;
		if (e && !stat(dir, &sb)) {
			if (S_ISDIR(sb.st_mode))
				e = 0;
			else
				e = ENOTDIR;
		}
		if (e)
			return set_err(err, errlen, -e, "cannot create directory '%s' for '%s': %s",
				       dir, path, strerror(e));
		if (p != slash)
			*p = '/';
	}
	return 0;
}

/*
 * A file that does not exist yet needs a writable directory; SQLite would
 * otherwise report "unable to open database file" without saying why.
 */
static int check_creatable(const char *path, char *err, size_t errlen)
{
	char dir[PATH_MAX];
	const char *slash = strrchr(path, '/');
	struct stat sb;
	int e;

	if (!stat(path, &sb)) {
		if (S_ISDIR(sb.st_mode))
			return set_err(err, errlen, -EISDIR, "cannot open '%s': %s", path,
				       strerror(EISDIR));
		return 0;
	}
	e = errno;
	if (e != ENOENT)
		return set_err(err, errlen, -e, "cannot open '%s': %s", path, strerror(e));
	if (!slash)
		snprintf(dir, sizeof(dir), ".");
	else if (slash == path)
		snprintf(dir, sizeof(dir), "/");
	else
		snprintf(dir, sizeof(dir), "%.*s", (int)(slash - path), path);
	if (access(dir, W_OK | X_OK)) {
		e = errno;
		return set_err(err, errlen, -e, "cannot create '%s': %s", path, strerror(e));
	}
	return 0;
}

/*
 * One migration step under the write lock: read the version (another
 * process may have migrated meanwhile) and, when it is older than ours, run
 * the next migration.  *before and *after are the versions found and left.
 */
static int migrate_step(struct ul_store_sqlite *st, int64_t *before, int64_t *after)
{
	int rc = sqlite3_exec(st->db, "BEGIN IMMEDIATE", NULL, NULL, NULL);

	if (rc != SQLITE_OK)
		return rc;
	rc = query_int(st->db, "PRAGMA user_version", before);
	*after = *before;
	if (rc == SQLITE_OK && *before >= 0 && *before < UL_STORE_SCHEMA_VERSION) {
		rc = sqlite3_exec(st->db, migrations[*before], NULL, NULL, NULL);
		if (rc == SQLITE_OK)
			rc = query_int(st->db, "PRAGMA user_version", after);
	}
	if (rc == SQLITE_OK)
		rc = sqlite3_exec(st->db, "COMMIT", NULL, NULL, NULL);
	return rc;
}

/* Bring the schema up to UL_STORE_SCHEMA_VERSION, one transaction per step. */
static int migrate(struct ul_store_sqlite *st, char *err, size_t errlen)
{
	for (;;) {
		int64_t before = 0, after = 0;
		int rc = migrate_step(st, &before, &after);

		if (rc != SQLITE_OK) {
			int r = set_err(err, errlen, sqlite_errno(st->db, rc, st->ro_errno),
					"cannot upgrade '%s' to schema version %d: %s", st->path,
					UL_STORE_SCHEMA_VERSION,
					(rc & 0xff) == SQLITE_READONLY && st->ro_errno
						? strerror(st->ro_errno)
						: sqlite3_errmsg(st->db));

			rollback(st);
			return r;
		}
		if (after == UL_STORE_SCHEMA_VERSION)
			return 0;
		if (after > UL_STORE_SCHEMA_VERSION)
			return set_err(err, errlen, -EPROTONOSUPPORT,
				       "database '%s' has schema version %lld, newer than this "
				       "underload understands (%d)",
				       st->path, (long long)after, UL_STORE_SCHEMA_VERSION);
		if (after < 0)
			return set_err(err, errlen, -EPROTO,
				       "'%s' is not an underload database (schema version %lld)",
				       st->path, (long long)after);
		/* A migration that does not stamp its version would loop forever. */
		if (after != before + 1)
			return set_err(err, errlen, -EIO,
				       "schema migration %lld of '%s' left version %lld",
				       (long long)before + 1, st->path, (long long)after);
	}
}

/*
 * Decide whether the open file is ours: application_id "uldr" with a known
 * user_version, or a database with no tables at all (new or empty) that
 * migration 1 will claim.
 */
static int check_identity(struct ul_store_sqlite *st, char *err, size_t errlen)
{
	int64_t app = 0, ver = 0, tables = 0;
	int rc = query_int(st->db, "PRAGMA application_id", &app);

	if (rc == SQLITE_OK)
		rc = query_int(st->db, "PRAGMA user_version", &ver);
	if (rc == SQLITE_OK)
		rc = query_int(st->db,
			       "SELECT count(*) FROM sqlite_master WHERE name NOT LIKE 'sqlite\\_%'"
			       " ESCAPE '\\'",
			       &tables);
	if ((rc & 0xff) == SQLITE_NOTADB)
		return set_err(err, errlen, -EPROTO,
			       "'%s' is not an underload database (not SQLite)", st->path);
	if (rc != SQLITE_OK)
		return set_err(err, errlen, sqlite_errno(st->db, rc, st->ro_errno),
			       "cannot read '%s': %s", st->path, sqlite3_errmsg(st->db));
	if (app != UL_SQLITE_APP_ID && app != 0)
		return set_err(err, errlen, -EPROTO,
			       "'%s' is not an underload database (application_id 0x%08llx)",
			       st->path, (unsigned long long)(uint32_t)app);
	if (app == 0 && (tables || ver))
		return set_err(err, errlen, -EPROTO,
			       "'%s' is not an underload database (it holds other tables)",
			       st->path);
	if (ver > UL_STORE_SCHEMA_VERSION)
		return set_err(err, errlen, -EPROTONOSUPPORT,
			       "database '%s' has schema version %lld, newer than this underload "
			       "understands (%d)",
			       st->path, (long long)ver, UL_STORE_SCHEMA_VERSION);
	if (ver < UL_STORE_SCHEMA_VERSION && st->ro_errno)
		return set_err(err, errlen, st->ro_errno == EROFS ? -EROFS : -EACCES,
			       "cannot upgrade '%s' from schema version %lld to %d: %s", st->path,
			       (long long)ver, UL_STORE_SCHEMA_VERSION, strerror(st->ro_errno));
	return 0;
}

static void sqlite_close(struct ul_store *base)
{
	struct ul_store_sqlite *st = sq(base);

	if (!st)
		return;
	for (size_t i = 0; i < S_COUNT; i++)
		sqlite3_finalize(st->stmt[i]);
	/* Every statement is finalised, so this cannot fail with SQLITE_BUSY. */
	sqlite3_close(st->db);
	free(st);
}

static int sqlite_open(const char *location, struct ul_store **out, char *err, size_t errlen)
{
	struct ul_store_sqlite *st;
	bool memory = !strcmp(location, ":memory:");
	int rc, r;

	*out = NULL;
	if (!*location)
		return set_err(err, errlen, -EINVAL, "empty SQLite store path");
	if (!memory) {
		r = make_parents(location, err, errlen);
		if (r < 0)
			return r;
		r = check_creatable(location, err, errlen);
		if (r < 0)
			return r;
	}
	st = calloc(1, sizeof(*st) + strlen(location) + 1);
	if (!st)
		return set_err(err, errlen, -ENOMEM, "cannot open '%s': %s", location,
			       strerror(ENOMEM));
	st->base.ops = &ul_store_sqlite;
	strcpy(st->path, location);
	/* No SQLITE_OPEN_URI: a path is a path, even one starting "file:". */
	rc = sqlite3_open_v2(location, &st->db, SQLITE_OPEN_READWRITE | SQLITE_OPEN_CREATE, NULL);
	if (rc != SQLITE_OK) {
		r = set_err(err, errlen, sqlite_errno(st->db, rc, 0), "cannot open '%s': %s",
			    location, st->db ? sqlite3_errmsg(st->db) : sqlite3_errstr(rc));
		goto fail;
	}
	sqlite3_extended_result_codes(st->db, 1);
	sqlite3_busy_timeout(st->db, BUSY_TIMEOUT_MS);
	if (sqlite3_db_readonly(st->db, "main") == 1) {
		/* SQLite fell back to read-only; remember why for later messages. */
		st->ro_errno = access(location, W_OK) && errno == EROFS ? EROFS : EACCES;
	}
	r = check_identity(st, err, errlen);
	if (r < 0)
		goto fail;
	rc = sqlite3_exec(st->db, "PRAGMA foreign_keys = ON", NULL, NULL, NULL);
	if (rc != SQLITE_OK) {
		r = set_err(err, errlen, sqlite_errno(st->db, rc, st->ro_errno),
			    "cannot configure '%s': %s", location, sqlite3_errmsg(st->db));
		goto fail;
	}
	r = migrate(st, err, errlen);
	if (r < 0)
		goto fail;
	*out = &st->base;
	return 0;
fail:
	sqlite_close(&st->base);
	return r;
}

/* ---- writing ---- */

static int sqlite_begin_run(struct ul_store *base, struct ul_run *run)
{
	struct ul_store_sqlite *st = sq(base);
	const char *status = ul_run_status_name(run->status);
	const struct ul_host *h = &run->host;
	const struct ul_run_params *p = &run->params;
	sqlite3_stmt *s;
	int rc, r;

	st->base.err[0] = '\0';
	if (!strcmp(status, "unknown"))
		return set_err(st->base.err, sizeof(st->base.err), -EINVAL,
			       "cannot store run: invalid status %d", (int)run->status);
	if (!run->uuid[0]) {
		r = ul_run_new_uuid(run);
		if (r < 0)
			return set_err(st->base.err, sizeof(st->base.err), r,
				       "cannot make a run UUID: %s", strerror(-r));
	}
	s = stmt(st, S_INSERT_RUN, &rc);
	if (!s)
		return fail(st, rc, "cannot store run %s in '%s'", run->uuid, st->path);
	BIND_FIELD(s, 1, run->uuid);
	BIND_FIELD(s, 2, run->label);
	BIND_FIELD(s, 3, run->tool_version);
	BIND_FIELD(s, 4, run->argv);
	BIND_FIELD(s, 5, run->suites);
	sqlite3_bind_text(s, 6, status, -1, SQLITE_STATIC);
	sqlite3_bind_int64(s, 7, run->started_wall_ns);
	sqlite3_bind_int64(s, 8, run->finished_wall_ns);
	BIND_FIELD(s, 9, h->hostname);
	BIND_FIELD(s, 10, h->kernel_release);
	BIND_FIELD(s, 11, h->kernel_version);
	BIND_FIELD(s, 12, h->arch);
	BIND_FIELD(s, 13, h->cpu_model);
	sqlite3_bind_int(s, 14, h->ncpu);
	sqlite3_bind_int64(s, 15, (sqlite3_int64)h->mem_total_bytes);
	sqlite3_bind_int64(s, 16, (sqlite3_int64)h->swap_total_bytes);
	sqlite3_bind_int64(s, 17, p->interval_ns);
	sqlite3_bind_int(s, 18, p->min_points);
	sqlite3_bind_int(s, 19, p->max_points);
	sqlite3_bind_int64(s, 20, p->ci_target_centi);
	sqlite3_bind_int64(s, 21, (sqlite3_int64)p->mem_budget_bytes);
	sqlite3_bind_int64(s, 22, (sqlite3_int64)p->mem_limit_bytes);
	sqlite3_bind_int64(s, 23, (sqlite3_int64)p->swap_bytes);
	rc = sqlite3_step(s);
	if (rc != SQLITE_DONE) {
		r = fail(st, rc, "cannot store run %s in '%s'", run->uuid, st->path);
		sqlite3_reset(s);
		if (r == -EEXIST)
			snprintf(st->base.err, sizeof(st->base.err), "run %s is already in '%s'",
				 run->uuid, st->path);
		return r;
	}
	sqlite3_reset(s);
	run->id = sqlite3_last_insert_rowid(st->db);
	return 0;
}

/* The body of add_cell, inside its transaction. */
static int insert_cell(struct ul_store_sqlite *st, const struct ul_run *run,
		       const struct ul_cell *cell)
{
	const char *outcome = ul_cell_outcome_name(cell->outcome);
	sqlite3_int64 cell_id;
	sqlite3_stmt *s;
	int rc;

	s = stmt(st, S_INSERT_CELL, &rc);
	if (!s)
		return rc;
	sqlite3_bind_int64(s, 1, run->id);
	sqlite3_bind_int(s, 2, cell->seq);
	BIND_FIELD(s, 3, cell->suite);
	BIND_FIELD(s, 4, cell->load);
	BIND_FIELD(s, 5, cell->probe);
	sqlite3_bind_text(s, 6, outcome, -1, SQLITE_STATIC);
	sqlite3_bind_int64(s, 7, cell->flags);
	BIND_FIELD(s, 8, cell->note);
	BIND_FIELD(s, 9, cell->load_unit);
	sqlite3_bind_int64(s, 10, (sqlite3_int64)cell->load_units);
	sqlite3_bind_int64(s, 11, cell->started_wall_ns);
	sqlite3_bind_int64(s, 12, cell->finished_wall_ns);
	rc = sqlite3_step(s);
	sqlite3_reset(s);
	if (rc != SQLITE_DONE)
		return rc;
	cell_id = sqlite3_last_insert_rowid(st->db);

	for (size_t i = 0; i < cell->n_series; i++) {
		const struct ul_series *ser = &cell->series[i];
		sqlite3_int64 series_id;
		sqlite3_stmt *vs;

		s = stmt(st, S_INSERT_SERIES, &rc);
		if (!s)
			return rc;
		sqlite3_bind_int64(s, 1, cell_id);
		sqlite3_bind_int64(s, 2, (sqlite3_int64)i);
		BIND_FIELD(s, 3, ser->name);
		sqlite3_bind_int64(s, 4, (sqlite3_int64)ser->n);
		rc = sqlite3_step(s);
		sqlite3_reset(s);
		if (rc != SQLITE_DONE)
			return rc;
		series_id = sqlite3_last_insert_rowid(st->db);

		vs = stmt(st, S_INSERT_SAMPLE, &rc);
		if (!vs)
			return rc;
		sqlite3_bind_int64(vs, 1, series_id);
		for (size_t j = 0; j < ser->n; j++) {
			sqlite3_bind_int64(vs, 2, (sqlite3_int64)j);
			sqlite3_bind_int64(vs, 3, ser->v[j]);
			rc = sqlite3_step(vs);
			sqlite3_reset(vs);
			if (rc != SQLITE_DONE)
				return rc;
		}
	}

	for (size_t i = 0; i < cell->n_metrics; i++) {
		const struct ul_metric *m = &cell->metrics[i];

		s = stmt(st, S_INSERT_METRIC, &rc);
		if (!s)
			return rc;
		sqlite3_bind_int64(s, 1, cell_id);
		sqlite3_bind_int64(s, 2, (sqlite3_int64)i);
		BIND_FIELD(s, 3, m->name);
		if (isnan(m->value))
			sqlite3_bind_null(s, 4);
		else
			sqlite3_bind_double(s, 4, m->value);
		rc = sqlite3_step(s);
		sqlite3_reset(s);
		if (rc != SQLITE_DONE)
			return rc;
	}
	return SQLITE_OK;
}

static int sqlite_add_cell(struct ul_store *base, const struct ul_run *run,
			   const struct ul_cell *cell)
{
	struct ul_store_sqlite *st = sq(base);
	int rc, r;

	st->base.err[0] = '\0';
	if (run->id <= 0)
		return set_err(st->base.err, sizeof(st->base.err), -EINVAL,
			       "cannot add cell %d: run %s was not stored first", cell->seq,
			       run->uuid);
	if (!strcmp(ul_cell_outcome_name(cell->outcome), "unknown"))
		return set_err(st->base.err, sizeof(st->base.err), -EINVAL,
			       "cannot add cell %d: invalid outcome %d", cell->seq,
			       (int)cell->outcome);
	rc = exec_stmt(st, S_BEGIN_WRITE);
	if (rc == SQLITE_OK)
		rc = insert_cell(st, run, cell);
	if (rc == SQLITE_OK)
		rc = exec_stmt(st, S_COMMIT);
	if (rc == SQLITE_OK)
		return 0;
	r = fail(st, rc, "cannot add cell %d of run %lld to '%s'", cell->seq, (long long)run->id,
		 st->path);
	if (rc == SQLITE_CONSTRAINT_FOREIGNKEY)
		snprintf(st->base.err, sizeof(st->base.err),
			 "cannot add cell %d: run %lld is not in '%s'", cell->seq,
			 (long long)run->id, st->path);
	rollback(st);
	return r;
}

static int sqlite_finish_run(struct ul_store *base, const struct ul_run *run)
{
	struct ul_store_sqlite *st = sq(base);
	const char *status = ul_run_status_name(run->status);
	sqlite3_stmt *s;
	int rc;

	st->base.err[0] = '\0';
	if (!strcmp(status, "unknown"))
		return set_err(st->base.err, sizeof(st->base.err), -EINVAL,
			       "cannot finish run %lld: invalid status %d", (long long)run->id,
			       (int)run->status);
	s = stmt(st, S_FINISH_RUN, &rc);
	if (!s)
		return fail(st, rc, "cannot finish run %lld in '%s'", (long long)run->id, st->path);
	sqlite3_bind_text(s, 1, status, -1, SQLITE_STATIC);
	sqlite3_bind_int64(s, 2, run->finished_wall_ns);
	sqlite3_bind_int64(s, 3, run->id);
	rc = sqlite3_step(s);
	if (rc != SQLITE_DONE) {
		int r = fail(st, rc, "cannot finish run %lld in '%s'", (long long)run->id,
			     st->path);

		sqlite3_reset(s);
		return r;
	}
	sqlite3_reset(s);
	if (sqlite3_changes(st->db) == 0)
		return set_err(st->base.err, sizeof(st->base.err), -ENOENT,
			       "cannot finish run %lld: it is not in '%s'", (long long)run->id,
			       st->path);
	return 0;
}

/* Inside mark_interrupted's transaction: find the run, its end, update it. */
static int mark_interrupted_tx(struct ul_store_sqlite *st, const char *uuid, int64_t *end_ns)
{
	const unsigned char *status;
	int64_t id, started;
	sqlite3_stmt *s;
	int rc;

	s = stmt(st, S_RUN_BY_UUID, &rc);
	if (!s)
		return fail(st, rc, "cannot look up run %s in '%s'", uuid, st->path);
	sqlite3_bind_text(s, 1, uuid, -1, SQLITE_STATIC);
	rc = sqlite3_step(s);
	if (rc != SQLITE_ROW) {
		int r = rc == SQLITE_DONE ? set_err(st->base.err, sizeof(st->base.err), -ENOENT,
						    "no run %s in '%s'", uuid, st->path)
					  : fail(st, rc, "cannot look up run %s in '%s'", uuid,
						 st->path);

		sqlite3_reset(s);
		return r;
	}
	id = column_i64(s, 0);
	status = sqlite3_column_text(s, 1);
	started = column_i64(s, 2);
	if (!status || strcmp((const char *)status, "running")) {
		rc = set_err(st->base.err, sizeof(st->base.err), -EALREADY,
			     "run %s in '%s' is not running", uuid, st->path);
		sqlite3_reset(s);
		return rc;
	}
	sqlite3_reset(s);
	s = stmt(st, S_LAST_CELL_END, &rc);
	if (!s)
		return fail(st, rc, "cannot read the cells of run %s in '%s'", uuid, st->path);
	sqlite3_bind_int64(s, 1, id);
	rc = sqlite3_step(s);
	*end_ns = rc == SQLITE_ROW && sqlite3_column_type(s, 0) != SQLITE_NULL ? column_i64(s, 0)
										: started;
	sqlite3_reset(s);
	if (rc != SQLITE_ROW)
		return fail(st, rc, "cannot read the cells of run %s in '%s'", uuid, st->path);
	s = stmt(st, S_MARK_INTERRUPTED, &rc);
	if (!s)
		return fail(st, rc, "cannot mark run %s interrupted in '%s'", uuid, st->path);
	sqlite3_bind_int64(s, 1, *end_ns);
	sqlite3_bind_int64(s, 2, id);
	rc = sqlite3_step(s);
	sqlite3_reset(s);
	if (rc != SQLITE_DONE)
		return fail(st, rc, "cannot mark run %s interrupted in '%s'", uuid, st->path);
	return 0;
}

static int sqlite_mark_interrupted(struct ul_store *base, const char *uuid,
				   int64_t *finished_wall_ns)
{
	struct ul_store_sqlite *st = sq(base);
	int64_t end_ns = 0;
	int rc, r;

	st->base.err[0] = '\0';
	if (!uuid || !*uuid)
		return set_err(st->base.err, sizeof(st->base.err), -EINVAL, "empty run UUID");
	rc = exec_stmt(st, S_BEGIN_WRITE);
	if (rc != SQLITE_OK)
		return fail(st, rc, "cannot write '%s'", st->path);
	r = mark_interrupted_tx(st, uuid, &end_ns);
	if (!r) {
		rc = exec_stmt(st, S_COMMIT);
		if (rc != SQLITE_OK)
			r = fail(st, rc, "cannot mark run %s interrupted in '%s'", uuid, st->path);
	}
	if (r < 0) {
		rollback(st);
		return r;
	}
	if (finished_wall_ns)
		*finished_wall_ns = end_ns;
	return 0;
}

/* ---- reading ---- */

static int parse_status(struct ul_store_sqlite *st, sqlite3_stmt *s, int col, int64_t id,
			enum ul_run_status *out)
{
	const unsigned char *t = sqlite3_column_text(s, col);

	if (t && !ul_run_status_parse((const char *)t, out))
		return 0;
	return set_err(st->base.err, sizeof(st->base.err), -EIO,
		       "run %lld in '%s' has an unknown status '%s'", (long long)id, st->path,
		       t ? (const char *)t : "");
}

static int sqlite_list_runs(struct ul_store *base, struct ul_run_summary **out, size_t *n)
{
	struct ul_store_sqlite *st = sq(base);
	struct ul_run_summary *v = NULL;
	size_t len = 0, cap = 0;
	sqlite3_stmt *s;
	int rc, r = 0;

	st->base.err[0] = '\0';
	*out = NULL;
	*n = 0;
	s = stmt(st, S_LIST_RUNS, &rc);
	if (!s)
		return fail(st, rc, "cannot list runs in '%s'", st->path);
	while ((rc = sqlite3_step(s)) == SQLITE_ROW) {
		struct ul_run_summary *rs;

		if (len == cap) {
			size_t ncap = cap ? cap * 2 : 16;
			struct ul_run_summary *nv = realloc(v, ncap * sizeof(*nv));

			if (!nv) {
				r = set_err(st->base.err, sizeof(st->base.err), -ENOMEM,
					    "cannot list runs in '%s': %s", st->path,
					    strerror(ENOMEM));
				goto out;
			}
			v = nv;
			cap = ncap;
		}
		rs = &v[len];
		memset(rs, 0, sizeof(*rs));
		rs->id = column_i64(s, 0);
		COLUMN_FIELD(s, 1, rs->uuid);
		COLUMN_FIELD(s, 2, rs->label);
		COLUMN_FIELD(s, 3, rs->hostname);
		COLUMN_FIELD(s, 4, rs->suites);
		r = parse_status(st, s, 5, rs->id, &rs->status);
		if (r < 0)
			goto out;
		rs->started_wall_ns = column_i64(s, 6);
		rs->n_cells = sqlite3_column_int(s, 7);
		len++;
	}
	if (rc != SQLITE_DONE)
		r = fail(st, rc, "cannot list runs in '%s'", st->path);
out:
	sqlite3_reset(s);
	if (r < 0) {
		free(v);
		return r;
	}
	*out = v;
	*n = len;
	return 0;
}

static bool is_digits(const char *p)
{
	if (!*p)
		return false;
	for (; *p; p++)
		if (*p < '0' || *p > '9')
			return false;
	return true;
}

static bool is_uuid_chars(const char *p)
{
	for (; *p; p++)
		if (!((*p >= '0' && *p <= '9') || (*p >= 'a' && *p <= 'f') ||
		      (*p >= 'A' && *p <= 'F') || *p == '-'))
			return false;
	return true;
}

/*
 * Resolve `ref` to a run id (inside the caller's read transaction).  Order:
 * "last"; all digits = a numeric id if such a run exists; otherwise a UUID
 * prefix of at least 4 characters, matched case-insensitively, which must be
 * unique.  Returns 0 or a negative errno with err filled.
 */
static int resolve_ref(struct ul_store_sqlite *st, const char *ref, int64_t *id)
{
	char *err = st->base.err;
	size_t errlen = sizeof(st->base.err);
	size_t len = strlen(ref);
	int64_t ids[3];
	char uuids[3][37];
	int rc, found = 0;
	sqlite3_stmt *s;

	if (!strcmp(ref, "last")) {
		s = stmt(st, S_LAST_RUN, &rc);
		if (!s)
			return fail(st, rc, "cannot find the last run in '%s'", st->path);
		rc = sqlite3_step(s);
		if (rc == SQLITE_ROW)
			*id = column_i64(s, 0);
		else if (rc != SQLITE_DONE)
			rc = fail(st, rc, "cannot find the last run in '%s'", st->path);
		sqlite3_reset(s);
		if (rc == SQLITE_ROW)
			return 0;
		if (rc != SQLITE_DONE)
			return rc;
		return set_err(err, errlen, -ENOENT, "no runs in '%s'", st->path);
	}
	if (is_digits(ref)) {
		char *end;
		long long v;

		errno = 0;
		v = strtoll(ref, &end, 10);
		if (!errno && !*end) {
			s = stmt(st, S_RUN_EXISTS, &rc);
			if (!s)
				return fail(st, rc, "cannot look up run %s in '%s'", ref, st->path);
			sqlite3_bind_int64(s, 1, v);
			rc = sqlite3_step(s);
			if (rc != SQLITE_ROW && rc != SQLITE_DONE)
				rc = fail(st, rc, "cannot look up run %s in '%s'", ref, st->path);
			sqlite3_reset(s);
			if (rc == SQLITE_ROW) {
				*id = v;
				return 0;
			}
			if (rc != SQLITE_DONE)
				return rc;
		}
		if (len < 4)
			return set_err(err, errlen, -ENOENT, "no run %s in '%s'", ref, st->path);
	} else if (!is_uuid_chars(ref)) {
		return set_err(err, errlen, -EINVAL,
			       "'%s' is not a run id, a UUID (prefix) or 'last'", ref);
	} else if (len < 4) {
		return set_err(err, errlen, -EINVAL,
			       "UUID prefix '%s' is too short (at least 4 characters)", ref);
	}
	if (len > 36)
		return set_err(err, errlen, -ENOENT, "no run matches '%s' in '%s'", ref, st->path);

	s = stmt(st, S_RUN_BY_PREFIX, &rc);
	if (!s)
		return fail(st, rc, "cannot look up run '%s' in '%s'", ref, st->path);
	sqlite3_bind_int(s, 1, (int)len);
	sqlite3_bind_text(s, 2, ref, (int)len, SQLITE_STATIC);
	while ((rc = sqlite3_step(s)) == SQLITE_ROW && found < 3) {
		ids[found] = column_i64(s, 0);
		COLUMN_FIELD(s, 1, uuids[found]);
		found++;
	}
	if (rc != SQLITE_ROW && rc != SQLITE_DONE) {
		rc = fail(st, rc, "cannot look up run '%s' in '%s'", ref, st->path);
		sqlite3_reset(s);
		return rc;
	}
	sqlite3_reset(s);
	if (found == 0)
		return set_err(err, errlen, -ENOENT, "no run matches '%s' in '%s'", ref, st->path);
	if (found > 1)
		return set_err(err, errlen, -EINVAL,
			       "run prefix '%s' is ambiguous: it matches %s (run %lld), %s (run "
			       "%lld)%s",
			       ref, uuids[0], (long long)ids[0], uuids[1], (long long)ids[1],
			       found > 2 ? " and more" : "");
	*id = ids[0];
	return 0;
}

static int load_samples(struct ul_store_sqlite *st, int64_t series_id, struct ul_series *ser,
			size_t expect)
{
	bool too_many = false;
	sqlite3_stmt *s;
	int rc;

	if (expect) {
		ser->v = malloc(expect * sizeof(*ser->v));
		if (!ser->v)
			return set_err(st->base.err, sizeof(st->base.err), -ENOMEM,
				       "cannot load series '%s': %s", ser->name, strerror(ENOMEM));
		ser->cap = expect;
	}
	s = stmt(st, S_LOAD_SAMPLES, &rc);
	if (!s)
		return fail(st, rc, "cannot load series '%s' from '%s'", ser->name, st->path);
	sqlite3_bind_int64(s, 1, series_id);
	while ((rc = sqlite3_step(s)) == SQLITE_ROW) {
		if (ser->n == expect) {
			too_many = true;
			break;
		}
		ser->v[ser->n++] = column_i64(s, 0);
	}
	sqlite3_reset(s);
	if (!too_many && rc == SQLITE_DONE && ser->n == expect)
		return 0;
	if (!too_many && rc != SQLITE_DONE)
		return fail(st, rc, "cannot load series '%s' from '%s'", ser->name, st->path);
	return set_err(st->base.err, sizeof(st->base.err), -EIO,
		       "series '%s' in '%s' should have %zu samples but has %s%zu", ser->name,
		       st->path, expect, too_many ? "more than " : "", ser->n);
}

/* Series (with their samples) and metrics of the stored cell `cell_id`. */
static int load_cell_data(struct ul_store_sqlite *st, int64_t cell_id, struct ul_cell *cell)
{
	sqlite3_stmt *s;
	int rc, r = 0;

	s = stmt(st, S_LOAD_SERIES, &rc);
	if (!s)
		return fail(st, rc, "cannot load cell %d from '%s'", cell->seq, st->path);
	sqlite3_bind_int64(s, 1, cell_id);
	while ((rc = sqlite3_step(s)) == SQLITE_ROW) {
		struct ul_series *ns = realloc(cell->series, (cell->n_series + 1) * sizeof(*ns));
		int64_t n = column_i64(s, 2);

		if (!ns) {
			r = set_err(st->base.err, sizeof(st->base.err), -ENOMEM,
				    "cannot load cell %d: %s", cell->seq, strerror(ENOMEM));
			break;
		}
		cell->series = ns;
		ns = &cell->series[cell->n_series++];
		memset(ns, 0, sizeof(*ns));
		COLUMN_FIELD(s, 1, ns->name);
		if (n < 0) {
			r = set_err(st->base.err, sizeof(st->base.err), -EIO,
				    "series '%s' in '%s' has a negative length", ns->name,
				    st->path);
			break;
		}
		r = load_samples(st, column_i64(s, 0), ns, (size_t)n);
		if (r < 0)
			break;
	}
	if (!r && rc != SQLITE_DONE)
		r = fail(st, rc, "cannot load cell %d from '%s'", cell->seq, st->path);
	sqlite3_reset(s);
	if (r < 0)
		return r;

	s = stmt(st, S_LOAD_METRICS, &rc);
	if (!s)
		return fail(st, rc, "cannot load cell %d from '%s'", cell->seq, st->path);
	sqlite3_bind_int64(s, 1, cell_id);
	while ((rc = sqlite3_step(s)) == SQLITE_ROW) {
		struct ul_metric *nm = realloc(cell->metrics, (cell->n_metrics + 1) * sizeof(*nm));

		if (!nm) {
			r = set_err(st->base.err, sizeof(st->base.err), -ENOMEM,
				    "cannot load cell %d: %s", cell->seq, strerror(ENOMEM));
			break;
		}
		cell->metrics = nm;
		nm = &cell->metrics[cell->n_metrics++];
		memset(nm, 0, sizeof(*nm));
		COLUMN_FIELD(s, 0, nm->name);
		/* NULL is how a NaN was stored (see the schema). */
		if (sqlite3_column_type(s, 1) == SQLITE_NULL)
			nm->value = NAN;
		else
			nm->value = sqlite3_column_double(s, 1);
	}
	if (!r && rc != SQLITE_DONE)
		r = fail(st, rc, "cannot load cell %d from '%s'", cell->seq, st->path);
	sqlite3_reset(s);
	return r;
}

static int load_cells(struct ul_store_sqlite *st, struct ul_run *run)
{
	sqlite3_stmt *s;
	int rc, r = 0;

	s = stmt(st, S_LOAD_CELLS, &rc);
	if (!s)
		return fail(st, rc, "cannot load the cells of run %lld from '%s'",
			    (long long)run->id, st->path);
	sqlite3_bind_int64(s, 1, run->id);
	while ((rc = sqlite3_step(s)) == SQLITE_ROW) {
		struct ul_cell *c = ul_run_add_cell(run);
		const unsigned char *outcome;

		if (!c) {
			r = set_err(st->base.err, sizeof(st->base.err), -ENOMEM,
				    "cannot load run %lld: %s", (long long)run->id,
				    strerror(ENOMEM));
			break;
		}
		c->seq = sqlite3_column_int(s, 1);
		COLUMN_FIELD(s, 2, c->suite);
		COLUMN_FIELD(s, 3, c->load);
		COLUMN_FIELD(s, 4, c->probe);
		outcome = sqlite3_column_text(s, 5);
		if (!outcome || ul_cell_outcome_parse((const char *)outcome, &c->outcome)) {
			r = set_err(st->base.err, sizeof(st->base.err), -EIO,
				    "cell %d of run %lld in '%s' has an unknown outcome '%s'",
				    c->seq, (long long)run->id, st->path,
				    outcome ? (const char *)outcome : "");
			break;
		}
		c->flags = (unsigned)sqlite3_column_int64(s, 6);
		COLUMN_FIELD(s, 7, c->note);
		COLUMN_FIELD(s, 8, c->load_unit);
		c->load_units = column_u64(s, 9);
		c->started_wall_ns = column_i64(s, 10);
		c->finished_wall_ns = column_i64(s, 11);
		r = load_cell_data(st, column_i64(s, 0), c);
		if (r < 0)
			break;
	}
	if (!r && rc != SQLITE_DONE)
		r = fail(st, rc, "cannot load the cells of run %lld from '%s'", (long long)run->id,
			 st->path);
	sqlite3_reset(s);
	return r;
}

static int load_run_row(struct ul_store_sqlite *st, int64_t id, struct ul_run *run)
{
	struct ul_host *h = &run->host;
	struct ul_run_params *p = &run->params;
	sqlite3_stmt *s;
	int rc, r = 0;

	s = stmt(st, S_LOAD_RUN, &rc);
	if (!s)
		return fail(st, rc, "cannot load run %lld from '%s'", (long long)id, st->path);
	sqlite3_bind_int64(s, 1, id);
	rc = sqlite3_step(s);
	if (rc == SQLITE_ROW) {
		run->id = id;
		COLUMN_FIELD(s, 0, run->uuid);
		COLUMN_FIELD(s, 1, run->label);
		COLUMN_FIELD(s, 2, run->tool_version);
		COLUMN_FIELD(s, 3, run->argv);
		COLUMN_FIELD(s, 4, run->suites);
		r = parse_status(st, s, 5, id, &run->status);
		run->started_wall_ns = column_i64(s, 6);
		run->finished_wall_ns = column_i64(s, 7);
		COLUMN_FIELD(s, 8, h->hostname);
		COLUMN_FIELD(s, 9, h->kernel_release);
		COLUMN_FIELD(s, 10, h->kernel_version);
		COLUMN_FIELD(s, 11, h->arch);
		COLUMN_FIELD(s, 12, h->cpu_model);
		h->ncpu = sqlite3_column_int(s, 13);
		h->mem_total_bytes = column_u64(s, 14);
		h->swap_total_bytes = column_u64(s, 15);
		p->interval_ns = column_i64(s, 16);
		p->min_points = sqlite3_column_int(s, 17);
		p->max_points = sqlite3_column_int(s, 18);
		p->ci_target_centi = column_i64(s, 19);
		p->mem_budget_bytes = column_u64(s, 20);
		p->mem_limit_bytes = column_u64(s, 21);
		p->swap_bytes = column_u64(s, 22);
	} else if (rc == SQLITE_DONE) {
		r = set_err(st->base.err, sizeof(st->base.err), -ENOENT, "no run %lld in '%s'",
			    (long long)id, st->path);
	} else {
		r = fail(st, rc, "cannot load run %lld from '%s'", (long long)id, st->path);
	}
	sqlite3_reset(s);
	return r;
}

/*
 * `out` is overwritten (initialised here, not released: pass a run that
 * owns nothing).  On failure it is left released and empty.  One read
 * transaction makes the run a consistent snapshot while another process
 * may be adding cells.
 */
static int sqlite_load_run(struct ul_store *base, const char *ref, struct ul_run *out)
{
	struct ul_store_sqlite *st = sq(base);
	int64_t id = 0;
	int rc, r;

	st->base.err[0] = '\0';
	ul_run_init(out);
	if (!ref || !*ref)
		return set_err(st->base.err, sizeof(st->base.err), -EINVAL, "empty run reference");
	rc = exec_stmt(st, S_BEGIN_READ);
	if (rc != SQLITE_OK)
		return fail(st, rc, "cannot read '%s'", st->path);
	r = resolve_ref(st, ref, &id);
	if (!r)
		r = load_run_row(st, id, out);
	if (!r)
		r = load_cells(st, out);
	if (!r) {
		rc = exec_stmt(st, S_COMMIT);
		if (rc != SQLITE_OK)
			r = fail(st, rc, "cannot read '%s'", st->path);
	}
	if (r < 0) {
		rollback(st);
		ul_run_release(out);
	}
	return r;
}

const struct ul_store_ops ul_store_sqlite = {
	.scheme = "sqlite",
	.open = sqlite_open,
	.close = sqlite_close,
	.begin_run = sqlite_begin_run,
	.add_cell = sqlite_add_cell,
	.finish_run = sqlite_finish_run,
	.mark_interrupted = sqlite_mark_interrupted,
	.list_runs = sqlite_list_runs,
	.load_run = sqlite_load_run,
};

/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * The SQLite results store: one file holds every run, cell, raw sample and
 * metric, with a versioned schema migrated on open.
 *
 * Schema (version 4).  uint64 model fields are stored as the int64 with the
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
 *            the primary measurement), name, n (number of samples), packed
 *            (version 4: the samples, one BLOB, sqlite_v4.h); a table of
 *            its own so empty series and their order survive
 *   samples  (before version 4) series_id -> series, idx, value INTEGER
 *   metrics  cell_id -> cells, pos (insertion order), name, value REAL;
 *            NULL stands for NaN, which SQLite cannot store as a REAL
 *   cell_samples  view: run_id, seq, suite, load, probe, series, idx, value
 *   deleted_runs  uuid PK, deleted_wall_ns: runs `rm` deleted (version 2)
 *
 * Version 2 keeps every UUID lowercase (the one form the ops store and
 * look up: store.h).
 *
 * Every foreign key cascades on delete.  PRAGMA application_id marks the
 * file as ours (UL_SQLITE_APP_ID, "uldr"); PRAGMA user_version is the
 * schema version.  Opened for writing, the journal is WAL where the
 * filesystem allows it (configure_journal: readers never block a cell's
 * commit), with synchronous=FULL so a kernel under test that hangs loses
 * no committed cell; elsewhere the rollback journal stays, with a note.
 * Reading a WAL store needs a -shm file beside it; on a read-only
 * filesystem it is read as immutable instead (sqlite_connect.c).
 */
#include "core/compat.h"
#include "store/sqlite_int.h"
#include "store/sqlite_v4.h"

#include <errno.h>
#include <limits.h>
#include <sqlite3.h>
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
/*
 * Version 2: one UUID form, lowercase (version 1 stored UUIDs as imported,
 * so a copy of a run with its UUID in uppercase became a second run).
 * Such copies are merged into the run first stored with that UUID: it gains
 * the cells (by seq) it lacks, then the copy goes.  And the table of
 * deleted runs, so a run deleted while still measuring stays deleted.
 */
#define SAME_RUN_KEEPER "(SELECT min(k.id) FROM runs k WHERE lower(k.uuid) = lower(d.uuid))"
#define SCHEMA_V2                                                                                  \
	"UPDATE OR IGNORE cells SET run_id = (SELECT " SAME_RUN_KEEPER " FROM runs d"              \
	"  WHERE d.id = cells.run_id)"                                                             \
	" WHERE run_id IN (SELECT d.id FROM runs d WHERE d.id <> " SAME_RUN_KEEPER ");"            \
	"DELETE FROM runs WHERE id IN (SELECT d.id FROM runs d WHERE d.id <> " SAME_RUN_KEEPER     \
	");"                                                                                       \
	"UPDATE runs SET uuid = lower(uuid) WHERE uuid <> lower(uuid);"                            \
	"CREATE TABLE IF NOT EXISTS deleted_runs ("                                                \
	" uuid TEXT PRIMARY KEY,"                                                                  \
	" deleted_wall_ns INTEGER NOT NULL) WITHOUT ROWID;"

/*
 * Version 3: the run's fingerprint (fingerprint/fingerprint.h), one JSON
 * object a run, in a table of its own so runs stored before it simply
 * have none.
 */
#define SCHEMA_V3                                                                                  \
	"CREATE TABLE IF NOT EXISTS run_fingerprints ("                                            \
	" run_id INTEGER PRIMARY KEY REFERENCES runs (id) ON DELETE CASCADE,"                      \
	" json TEXT NOT NULL);"

#define MIGRATION(n, sql) [(n)-1] = sql "PRAGMA user_version = " #n ";"
static const char *const migrations[] = {
	MIGRATION(1, SCHEMA_V1),
	MIGRATION(2, SCHEMA_V2),
	MIGRATION(3, SCHEMA_V3),
	MIGRATION(4, SCHEMA_V4),
};
_Static_assert(UL_ARRAY_SIZE(migrations) == UL_STORE_SCHEMA_VERSION,
	       "one migration per schema version");

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
		return ul_sq_set_err(err, errlen, -ENAMETOOLONG, "cannot open '%s': %s", path,
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
			return ul_sq_set_err(err, errlen, -e,
					     "cannot create directory '%s' for '%s': %s", dir, path,
					     strerror(e));
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
			return ul_sq_set_err(err, errlen, -EISDIR, "cannot open '%s': %s", path,
					     strerror(EISDIR));
		return 0;
	}
	e = errno;
	if (e != ENOENT)
		return ul_sq_set_err(err, errlen, -e, "cannot open '%s': %s", path, strerror(e));
	if (!slash)
		snprintf(dir, sizeof(dir), ".");
	else if (slash == path)
		snprintf(dir, sizeof(dir), "/");
	else
		snprintf(dir, sizeof(dir), "%.*s", (int)(slash - path), path);
	if (access(dir, W_OK | X_OK)) {
		e = errno;
		return ul_sq_set_err(err, errlen, -e, "cannot create '%s': %s", path, strerror(e));
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
	int64_t now = -1;

	/* Up to date: no write lock needed (another process may hold it). */
	if (query_int(st->db, "PRAGMA user_version", &now) == SQLITE_OK &&
	    now == UL_STORE_SCHEMA_VERSION)
		return 0;
	if (ul_sq_add_pack_function(st->db) != SQLITE_OK)
		return ul_sq_set_err(err, errlen, -ENOMEM, "cannot upgrade '%s': %s", st->path,
				     sqlite3_errmsg(st->db));
	for (;;) {
		int64_t before = 0, after = 0;
		int rc = migrate_step(st, &before, &after);

		if (rc != SQLITE_OK) {
			int r = ul_sq_set_err(err, errlen, ul_sq_errno(st->db, rc, st->ro_errno),
					      "cannot upgrade '%s' to schema version %d: %s",
					      st->path, UL_STORE_SCHEMA_VERSION,
					      (rc & 0xff) == SQLITE_READONLY && st->ro_errno
						      ? strerror(st->ro_errno)
						      : ul_sq_errmsg(st->db, rc));

			ul_sq_rollback(st);
			return r;
		}
		if (after == UL_STORE_SCHEMA_VERSION)
			return 0;
		if (after > UL_STORE_SCHEMA_VERSION)
			return ul_sq_set_err(
				err, errlen, -EPROTONOSUPPORT,
				"database '%s' has schema version %lld, newer than this "
				"underload understands (%d)",
				st->path, (long long)after, UL_STORE_SCHEMA_VERSION);
		if (after < 0)
			return ul_sq_set_err(
				err, errlen, -EPROTO,
				"'%s' is not an underload database (schema version %lld)", st->path,
				(long long)after);
		/* A migration that does not stamp its version would loop forever. */
		if (after != before + 1)
			return ul_sq_set_err(err, errlen, -EIO,
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
		return ul_sq_set_err(err, errlen, -EPROTO,
				     "'%s' is not an underload database (not SQLite)", st->path);
	/* To write, SQLite fell back to reading, and a WAL file cannot even be read so. */
	if ((rc & 0xff) == SQLITE_CANTOPEN && st->ro_errno)
		return ul_sq_set_err(err, errlen, st->ro_errno == EROFS ? -EROFS : -EACCES,
				     "cannot write '%s': %s", st->path, strerror(st->ro_errno));
	if (rc != SQLITE_OK)
		return ul_sq_set_err(err, errlen, ul_sq_errno(st->db, rc, st->ro_errno),
				     "cannot read '%s': %s", st->path, ul_sq_errmsg(st->db, rc));
	if (app != UL_SQLITE_APP_ID && app != 0)
		return ul_sq_set_err(err, errlen, -EPROTO,
				     "'%s' is not an underload database (application_id 0x%08llx)",
				     st->path, (unsigned long long)(uint32_t)app);
	if (app == 0 && (tables || ver))
		return ul_sq_set_err(err, errlen, -EPROTO,
				     "'%s' is not an underload database (it holds other tables)",
				     st->path);
	if (ver > UL_STORE_SCHEMA_VERSION)
		return ul_sq_set_err(
			err, errlen, -EPROTONOSUPPORT,
			"database '%s' has schema version %lld, newer than this underload "
			"understands (%d)",
			st->path, (long long)ver, UL_STORE_SCHEMA_VERSION);
	if (ver < UL_STORE_SCHEMA_VERSION && st->ro_errno)
		return ul_sq_set_err(err, errlen, st->ro_errno == EROFS ? -EROFS : -EACCES,
				     "cannot upgrade '%s' from schema version %lld to %d: %s",
				     st->path, (long long)ver, UL_STORE_SCHEMA_VERSION,
				     strerror(st->ro_errno));
	st->version = ver;
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

/*
 * Before anything is written to an existing database: SQLite's quick_check
 * must pass.  A damaged file is refused and left as it is (a migration or
 * an insert into a broken b-tree could make it worse).
 */
static int check_health(struct ul_store_sqlite *st, char *err, size_t errlen)
{
	sqlite3_stmt *s;
	const unsigned char *t;
	int rc = sqlite3_prepare_v2(st->db, "PRAGMA quick_check(1)", -1, &s, NULL);

	if (rc != SQLITE_OK)
		return ul_sq_set_err(err, errlen, ul_sq_errno(st->db, rc, st->ro_errno),
				     "cannot check '%s': %s", st->path, ul_sq_errmsg(st->db, rc));
	rc = sqlite3_step(s);
	t = rc == SQLITE_ROW ? sqlite3_column_text(s, 0) : NULL;
	if (t && !strcmp((const char *)t, "ok")) {
		sqlite3_finalize(s);
		return 0;
	}
	rc = ul_sq_set_err(err, errlen, -EPROTO,
			   "'%s' is damaged (integrity check: %.120s); it was not modified",
			   st->path, t ? (const char *)t : ul_sq_errmsg(st->db, rc));
	sqlite3_finalize(s);
	return rc;
}

/*
 * Write mode: WAL where the filesystem allows it (readers, backups and a
 * sqlite3 shell left in a transaction then never block a cell's commit),
 * with synchronous=FULL so a committed cell survives a power cut or a hung
 * kernel.  Where WAL is refused (no shared memory, e.g. some network
 * filesystems) the rollback journal stays, with a note.
 */
static int configure_journal(struct ul_store_sqlite *st, char *err, size_t errlen)
{
	sqlite3_stmt *s;
	const unsigned char *mode;
	int rc = sqlite3_prepare_v2(st->db, "PRAGMA journal_mode = WAL", -1, &s, NULL);

	if (rc == SQLITE_OK && (rc = sqlite3_step(s)) == SQLITE_ROW) {
		mode = sqlite3_column_text(s, 0);
		if (st->on_disk && (!mode || strcmp((const char *)mode, "wal")))
			snprintf(st->base.note, sizeof(st->base.note),
				 "'%s' stays in journal mode '%s' (WAL is not possible there): "
				 "a long reader can delay a commit",
				 st->path, mode ? (const char *)mode : "?");
		rc = SQLITE_OK;
	}
	sqlite3_finalize(s);
	if (rc == SQLITE_OK)
		rc = sqlite3_exec(st->db, "PRAGMA synchronous = FULL", NULL, NULL, NULL);
	if (rc != SQLITE_OK)
		return ul_sq_set_err(err, errlen, ul_sq_errno(st->db, rc, st->ro_errno),
				     "cannot configure '%s': %s", st->path,
				     ul_sq_errmsg(st->db, rc));
	return 0;
}

/*
 * What the path names must be a regular file (or, to write, nothing yet):
 * a FIFO, a device or a directory is refused before SQLite opens it.
 * Fills st->dev/ino when the file exists.
 */
static int check_path(const char *location, bool read_only, char *err, size_t errlen)
{
	struct stat sb;
	int r;

	if (!stat(location, &sb)) {
		if (S_ISREG(sb.st_mode))
			return 0;
		return ul_sq_set_err(err, errlen, S_ISDIR(sb.st_mode) ? -EISDIR : -EINVAL,
				     "cannot open '%s': %s", location,
				     S_ISDIR(sb.st_mode) ? strerror(EISDIR) : "not a regular file");
	}
	if (errno != ENOENT)
		return ul_sq_set_err(err, errlen, -errno, "cannot open '%s': %s", location,
				     strerror(errno));
	if (read_only)
		return ul_sq_set_err(err, errlen, -ENOENT, "no results database '%s'", location);
	r = make_parents(location, err, errlen);
	if (r < 0)
		return r;
	return check_creatable(location, err, errlen);
}

static int open_checked(struct ul_store_sqlite *st, const struct ul_store_config *cfg, char *err,
			size_t errlen)
{
	int64_t tables = 0;
	int rc, r = ul_sq_connect(st, cfg->busy_wait_ms, err, errlen);

	if (r < 0)
		return r;
	if (!st->read_only && sqlite3_db_readonly(st->db, "main") == 1) {
		/* SQLite fell back to read-only; remember why for later messages. */
		st->ro_errno = access(st->path, W_OK) && errno == EROFS ? EROFS : EACCES;
	}
	r = check_identity(st, err, errlen);
	if (r < 0)
		return r;
	rc = sqlite3_exec(st->db, "PRAGMA foreign_keys = ON", NULL, NULL, NULL);
	if (rc != SQLITE_OK)
		return ul_sq_set_err(err, errlen, ul_sq_errno(st->db, rc, st->ro_errno),
				     "cannot configure '%s': %s", st->path,
				     ul_sq_errmsg(st->db, rc));
	if (st->read_only)
		return 0;
	rc = query_int(st->db, "SELECT count(*) FROM sqlite_master", &tables);
	if (rc == SQLITE_OK && tables)
		r = check_health(st, err, errlen);
	if (r < 0)
		return r;
	if (!st->ro_errno) {
		r = configure_journal(st, err, errlen);
		if (r < 0)
			return r;
	}
	r = migrate(st, err, errlen);
	if (!r)
		st->version = UL_STORE_SCHEMA_VERSION;
	return r;
}

static int sqlite_open(const char *location, const struct ul_store_config *cfg,
		       struct ul_store **out, char *err, size_t errlen)
{
	struct ul_store_sqlite *st;
	bool memory = !strcmp(location, ":memory:");
	bool read_only = cfg->flags & UL_STORE_READ;
	int r;

	*out = NULL;
	if (!*location)
		return ul_sq_set_err(err, errlen, -EINVAL, "empty SQLite store path");
	if (!memory) {
		r = check_path(location, read_only, err, errlen);
		if (r < 0)
			return r;
	}
	st = calloc(1, sizeof(*st) + strlen(location) + 1);
	if (!st)
		return ul_sq_set_err(err, errlen, -ENOMEM, "cannot open '%s': %s", location,
				     strerror(ENOMEM));
	st->base.ops = &ul_store_sqlite;
	st->read_only = read_only && !memory;
	st->on_disk = !memory;
	strcpy(st->path, location);
	st->base.where = memory ? NULL : st->path;
	r = open_checked(st, cfg, err, errlen);
	if (r < 0) {
		sqlite_close(&st->base);
		return r;
	}
	*out = &st->base;
	return 0;
}

int ul_sq_check_writable(struct ul_store_sqlite *st)
{
	struct stat sb;

	if (st->read_only)
		return ul_sq_set_err(st->base.err, sizeof(st->base.err), -EROFS,
				     "'%s' was opened for reading only", st->path);
	if (!st->on_disk)
		return 0;
	if (stat(st->path, &sb) || sb.st_dev != st->dev || sb.st_ino != st->ino)
		return ul_sq_set_err(st->base.err, sizeof(st->base.err), -ESTALE,
				     "database '%s' was deleted or replaced while in use",
				     st->path);
	return 0;
}

const struct ul_store_ops ul_store_sqlite = {
	.scheme = "sqlite",
	.open = sqlite_open,
	.close = sqlite_close,
	.begin_run = ul_sq_begin_run,
	.add_cell = ul_sq_add_cell,
	.finish_run = ul_sq_finish_run,
	.mark_interrupted = ul_sq_mark_interrupted,
	.mark_crashed = ul_sq_mark_crashed,
	.list_runs = ul_sq_list_runs,
	.load_run = ul_sq_load_run,
	.find_run = ul_sq_find_run,
	.delete_run = ul_sq_delete_run,
	.was_deleted = ul_sq_was_deleted,
	.relabel_run = ul_sq_relabel_run,
	.import_runs = ul_sq_import_runs,
};

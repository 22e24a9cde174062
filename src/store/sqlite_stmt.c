/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * The SQLite store's statements (every SQL text the ops run, prepared once)
 * and the helpers sqlite_write.c and sqlite_read.c share: errors, stepping,
 * rows, text columns.
 */
#include "core/compat.h"
#include "core/log.h"
#include "core/escape.h"
#include "store/sqlite_int.h"

#include <errno.h>
#include <sqlite3.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

/* What `list` shows of a run (fill_summary() reads the columns in this order). */
#define SUMMARY_SELECT                                                                             \
	"SELECT r.id, r.uuid, r.label, r.host_name, r.suites, r.status, r.started_wall_ns,"        \
	" (SELECT count(*) FROM cells c WHERE c.run_id = r.id) FROM runs r"

const char *const ul_sq_sql[S_COUNT] = {
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
	[S_MARK_ENDED] = "UPDATE runs SET status = ?3, finished_wall_ns = ?1"
			 " WHERE id = ?2 AND status = 'running'",
	[S_SUMMARY] = SUMMARY_SELECT " WHERE r.id = ?1",
	[S_CELL_EXISTS] = "SELECT 1 FROM cells WHERE run_id = ?1 AND seq = ?2",
	[S_DELETE_RUN] = "DELETE FROM runs WHERE uuid = ?1",
	[S_RELABEL_RUN] = "UPDATE runs SET label = ?2 WHERE uuid = ?1",
	[S_INSERT_CELL] = "INSERT INTO cells (run_id, " CELL_COLUMNS ")"
			  " VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9, ?10, ?11, ?12)",
	[S_INSERT_SERIES] = "INSERT INTO series (cell_id, pos, name, n, packed)"
			    " VALUES (?1, ?2, ?3, ?4, ?5)",
	[S_INSERT_METRIC] = "INSERT INTO metrics (cell_id, pos, name, value)"
			    " VALUES (?1, ?2, ?3, ?4)",
	[S_LIST_RUNS] = SUMMARY_SELECT " ORDER BY r.started_wall_ns DESC, r.id DESC",
	[S_LAST_RUN] = "SELECT id FROM runs ORDER BY started_wall_ns DESC, id DESC LIMIT 1",
	[S_RUN_EXISTS] = "SELECT 1 FROM runs WHERE id = ?1",
	/* lower(): a store at schema 1 opened for reading may hold uppercase UUIDs */
	[S_RUN_BY_PREFIX] = "SELECT id, uuid FROM runs WHERE lower(substr(uuid, 1, ?1)) = ?2"
			    " ORDER BY id LIMIT 3",
	[S_LOAD_RUN] = "SELECT " RUN_COLUMNS " FROM runs WHERE id = ?1",
	[S_LOAD_CELLS] = "SELECT id, " CELL_COLUMNS " FROM cells WHERE run_id = ?1 ORDER BY seq",
	[S_LOAD_PACKED] = "SELECT name, n, packed FROM series WHERE cell_id = ?1 ORDER BY pos",
	[S_LOAD_SERIES] = "SELECT id, name, n FROM series WHERE cell_id = ?1 ORDER BY pos",
	[S_LOAD_SAMPLES] = "SELECT idx, value FROM samples WHERE series_id = ?1 ORDER BY idx",
	[S_LOAD_METRICS] = "SELECT name, value FROM metrics WHERE cell_id = ?1 ORDER BY pos",
	[S_RECORD_DELETED] = "INSERT OR REPLACE INTO deleted_runs (uuid, deleted_wall_ns)"
			     " VALUES (?1, ?2)",
	[S_FORGET_DELETED] = "DELETE FROM deleted_runs WHERE uuid = ?1",
	[S_WAS_DELETED] = "SELECT 1 FROM deleted_runs WHERE uuid = ?1",
	/* OR IGNORE: an import that only adds cells keeps the fingerprint stored */
	[S_INSERT_FINGERPRINT] = "INSERT OR IGNORE INTO run_fingerprints (run_id, json)"
				 " VALUES (?1, ?2)",
	[S_LOAD_FINGERPRINT] = "SELECT json FROM run_fingerprints WHERE run_id = ?1",
};

int ul_sq_set_err(char *err, size_t errlen, int code, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	ul_vwhyf(err, errlen, fmt, ap);
	va_end(ap);
	return code;
}

/* The last errno a file of db's main database saw: the database file's
 * or, with journal set, its WAL or rollback journal's; 0 when unknown. */
static int file_errno(sqlite3 *db, bool journal)
{
	sqlite3_file *f = NULL;
	int e = 0;

	if (!journal)
		return sqlite3_file_control(db, "main", SQLITE_FCNTL_LAST_ERRNO, &e) == SQLITE_OK
			       ? e
			       : 0;
	if (sqlite3_file_control(db, "main", SQLITE_FCNTL_JOURNAL_POINTER, &f) != SQLITE_OK || !f ||
	    !f->pMethods || f->pMethods->xFileControl(f, SQLITE_FCNTL_LAST_ERRNO, &e))
		return 0;
	return e;
}

int ul_sq_resource_errno(sqlite3 *db, int rc)
{
	int seen[3] = { 0 };

	if ((rc & 0xff) != SQLITE_IOERR && (rc & 0xff) != SQLITE_FULL)
		return 0;
	/* sqlite3_system_errno() is errno when SQLite noted the error, often
	 * cleared by then: the unix VFS keeps each file's failed call. */
	if (db) {
		seen[0] = sqlite3_system_errno(db);
		seen[1] = file_errno(db, true);
		seen[2] = file_errno(db, false);
	}
	for (size_t i = 0; i < UL_ARRAY_SIZE(seen); i++)
		if (seen[i] == EFBIG || seen[i] == ENOSPC || seen[i] == EDQUOT)
			return seen[i];
	/* The unix VFS says SQLITE_FULL for a write that ENOSPC cut short
	 * (and forgets the errno); the store sets no max_page_count. */
	return (rc & 0xff) == SQLITE_FULL ? ENOSPC : 0;
}

const char *ul_sq_errmsg(sqlite3 *db, int rc)
{
	int res = ul_sq_resource_errno(db, rc);

	if (res)
		return strerror(res);
	return db ? sqlite3_errmsg(db) : sqlite3_errstr(rc);
}

/* The negative errno for SQLite result `rc` (store.h lists the codes). */
int ul_sq_errno(sqlite3 *db, int rc, int ro_errno)
{
	int sys = db ? sqlite3_system_errno(db) : 0;

	if (ul_sq_resource_errno(db, rc))
		return -ul_sq_resource_errno(db, rc);
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

int ul_sq_vfail(struct ul_store_sqlite *st, int rc, const char *fmt, va_list ap)
{
	char what[384];

	vsnprintf(what, sizeof(what), fmt, ap);
	if ((rc & 0xff) == SQLITE_READONLY && st->ro_errno)
		snprintf(st->base.err, sizeof(st->base.err), "%s: %s", what,
			 strerror(st->ro_errno));
	else
		snprintf(st->base.err, sizeof(st->base.err), "%s: %s", what,
			 ul_sq_errmsg(st->db, rc));
	return ul_sq_errno(st->db, rc, st->ro_errno);
}

int ul_sq_fail(struct ul_store_sqlite *st, int rc, const char *fmt, ...)
{
	va_list ap;
	int r;

	va_start(ap, fmt);
	r = ul_sq_vfail(st, rc, fmt, ap);
	va_end(ap);
	return r;
}

/* The cached statement `id`, reset and unbound; NULL with *rc set on failure. */
sqlite3_stmt *ul_sq_stmt(struct ul_store_sqlite *st, enum stmt_id id, int *rc)
{
	sqlite3_stmt *s = st->stmt[id];

	if (!s) {
		*rc = sqlite3_prepare_v3(st->db, ul_sq_sql[id], -1, SQLITE_PREPARE_PERSISTENT,
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
int ul_sq_exec(struct ul_store_sqlite *st, enum stmt_id id)
{
	int rc;
	sqlite3_stmt *s = ul_sq_stmt(st, id, &rc);

	return s ? ul_sq_step_done(s) : rc;
}

int ul_sq_step_done(sqlite3_stmt *s)
{
	int rc = sqlite3_step(s);

	sqlite3_reset(s);
	return rc == SQLITE_DONE ? SQLITE_OK : rc;
}

sqlite3_stmt *ul_sq_stmt_key(struct ul_store_sqlite *st, enum stmt_id id, int64_t key, int *rc)
{
	sqlite3_stmt *s = ul_sq_stmt(st, id, rc);

	if (s)
		sqlite3_bind_int64(s, 1, key);
	return s;
}

int ul_sq_rows(struct ul_store_sqlite *st, sqlite3_stmt *s, int rc, ul_sq_row_fn *row, void *ctx,
	       const char *fmt, ...)
{
	va_list ap;
	int r = 0;

	while (s && !r && (rc = sqlite3_step(s)) == SQLITE_ROW)
		r = row(st, s, ctx);
	if (!r && rc != SQLITE_DONE) {
		va_start(ap, fmt);
		r = ul_sq_vfail(st, rc, fmt, ap); /* before the reset touches the connection */
		va_end(ap);
	}
	if (s)
		sqlite3_reset(s);
	return r;
}

const char *ul_sq_uuid(const char *uuid, char buf[37])
{
	/* Longer than a UUID: "", which names no run (a cut one could name another). */
	if (snprintf(buf, 37, "%s", uuid) >= 37)
		buf[0] = '\0';
	return ul_uuid_canon(buf);
}

void ul_sq_rollback(struct ul_store_sqlite *st)
{
	if (!sqlite3_get_autocommit(st->db))
		(void)ul_sq_exec(st, S_ROLLBACK);
}

/* Text from the file is untrusted: see ul_utf8_copy(). */
void ul_sq_column_text(sqlite3_stmt *s, int i, char *buf, size_t size)
{
	const char *t = (const char *)sqlite3_column_text(s, i);

	ul_utf8_copy(buf, size, t, t ? (size_t)sqlite3_column_bytes(s, i) : 0);
}

/* The fields a stored record holds: the exchange format's. */
static bool stored(const struct ul_json_field *f)
{
	return f->in & UL_JSON_EXCHANGE;
}

static void bind_fields(sqlite3_stmt *s, int *col, const void *base, const struct ul_json_table *t)
{
	for (size_t i = 0; i < t->n; i++) {
		const struct ul_json_field *f = &t->fields[i];
		const char *p = (const char *)base + f->off;

		if (!stored(f))
			continue;
		if (f->kind == UL_JSON_OBJECT) {
			bind_fields(s, col, p, f->sub);
			continue;
		}
		++*col;
		switch (f->kind) {
		case UL_JSON_STR:
		case UL_JSON_LIST:
			sqlite3_bind_text(s, *col, p, (int)strnlen(p, f->size), SQLITE_STATIC);
			break;
		case UL_JSON_INT:
		case UL_JSON_I64:
		case UL_JSON_WALL_NS:
		case UL_JSON_U64: /* the int64 with the same bits */
		case UL_JSON_FLAGS:
			sqlite3_bind_int64(s, *col, ul_json_get_int(f, base));
			break;
		case UL_JSON_RUN_STATUS:
			sqlite3_bind_text(s, *col,
					  ul_run_status_name(*(const enum ul_run_status *)p), -1,
					  SQLITE_STATIC);
			break;
		case UL_JSON_OUTCOME:
			sqlite3_bind_text(s, *col,
					  ul_cell_outcome_name(*(const enum ul_cell_outcome *)p),
					  -1, SQLITE_STATIC);
			break;
		case UL_JSON_OBJECT:
			break;
		}
	}
}

int ul_sq_bind_fields(sqlite3_stmt *s, int *col, const void *base, const struct ul_json_table *t)
{
	bind_fields(s, col, base, t);
	return *col == sqlite3_bind_parameter_count(s) ? SQLITE_OK : SQLITE_RANGE;
}

/*
 * A status written by a newer version (or by hand) is shown as such; it
 * does not make the rest of the store unreadable.
 */
enum ul_run_status ul_sq_column_status(sqlite3_stmt *s, int col)
{
	const unsigned char *t = sqlite3_column_text(s, col);
	enum ul_run_status status;

	if (!t || ul_run_status_parse((const char *)t, &status))
		return UL_RUN_UNKNOWN;
	return status;
}

int ul_sq_column_fields(sqlite3_stmt *s, int *col, void *base, const struct ul_json_table *t)
{
	const unsigned char *text;
	int bad = 0, sub;

	for (size_t i = 0; i < t->n; i++) {
		const struct ul_json_field *f = &t->fields[i];
		char *p = (char *)base + f->off;
		int c = *col;

		if (!stored(f))
			continue;
		if (f->kind == UL_JSON_OBJECT) {
			sub = ul_sq_column_fields(s, col, p, f->sub);
			bad = bad ? bad : sub;
			continue;
		}
		++*col;
		switch (f->kind) {
		case UL_JSON_STR:
		case UL_JSON_LIST:
			ul_sq_column_text(s, c, p, f->size);
			break;
		case UL_JSON_INT:
		case UL_JSON_I64:
		case UL_JSON_WALL_NS:
		case UL_JSON_U64:
		case UL_JSON_FLAGS:
			ul_json_set_int(f, base, column_i64(s, c));
			break;
		case UL_JSON_RUN_STATUS:
			*(enum ul_run_status *)p = ul_sq_column_status(s, c);
			break;
		case UL_JSON_OUTCOME:
			text = sqlite3_column_text(s, c);
			if ((!text || ul_cell_outcome_parse((const char *)text,
							    (enum ul_cell_outcome *)p)) &&
			    !bad)
				bad = c;
			break;
		case UL_JSON_OBJECT:
			break;
		}
	}
	return bad;
}

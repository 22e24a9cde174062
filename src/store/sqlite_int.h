/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Inside the SQLite store (sqlite.c opens and checks, sqlite_stmt.c holds
 * the SQL and the helpers below, sqlite_write.c and sqlite_read.c the
 * ops): the connection struct, the prepared statements and the helpers
 * they share.  Not for use outside src/store.
 */
#ifndef UL_STORE_SQLITE_INT_H
#define UL_STORE_SQLITE_INT_H

#include "core/compat.h"
#include "model/model_json.h"
#include "store/store.h"

#include <sqlite3.h>
#include <stdarg.h>
#include <string.h>
#include <sys/types.h>

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
	S_MARK_ENDED,
	S_DELETE_RUN,
	S_CELL_EXISTS,
	S_SUMMARY,
	S_RELABEL_RUN,
	S_INSERT_CELL,
	S_INSERT_SERIES,
	S_INSERT_METRIC,
	S_LIST_RUNS,
	S_LAST_RUN,
	S_RUN_EXISTS,
	S_RUN_BY_PREFIX,
	S_LOAD_RUN,
	S_LOAD_CELLS,
	S_LOAD_PACKED,
	S_LOAD_SERIES, /* S_LOAD_SERIES and S_LOAD_SAMPLES: a store before version 4 */
	S_LOAD_SAMPLES,
	S_LOAD_METRICS,
	S_RECORD_DELETED,
	S_FORGET_DELETED,
	S_WAS_DELETED,
	S_INSERT_FINGERPRINT,
	S_LOAD_FINGERPRINT,
	S_COUNT
};

/* The SQL of each statement, indexed by enum stmt_id. */
extern const char *const ul_sq_sql[S_COUNT];

/*
 * A run's columns after its id, and a cell's after its id and run_id: the
 * fields of model/model_json.c's tables (what the exchange format holds, the
 * whole record) in the tables' order, host and params flattened.
 * ul_sq_bind_fields() and ul_sq_column_fields() walk the tables.
 */
#define RUN_COLUMNS                                                                                \
	"uuid, label, status, tool_version, argv, suites, started_wall_ns, finished_wall_ns,"      \
	" host_name, host_kernel_release, host_kernel_version, host_arch, host_cpu_model,"         \
	" host_ncpu, host_mem_total_bytes, host_swap_total_bytes, interval_ns, min_points,"        \
	" max_points, ci_target_centi, mem_budget_bytes, mem_limit_bytes, swap_bytes"
#define CELL_COLUMNS                                                                               \
	"seq, suite, load, probe, outcome, flags, note, load_unit, load_units, started_wall_ns,"   \
	" finished_wall_ns"

struct ul_store_sqlite {
	struct ul_store base; /* first: the ops see a struct ul_store * */
	sqlite3 *db;
	sqlite3_stmt *stmt[S_COUNT];
	int ro_errno;	 /* EACCES or EROFS when the file could only be opened read-only */
	bool read_only;	 /* opened with UL_STORE_READ */
	int64_t version; /* the file's schema version: older only when opened for reading */
	bool on_disk;	 /* a file (not ":memory:"): dev/ino say which */
	dev_t dev;
	ino_t ino;
	int64_t busy_wait_ns; /* how long a write waits for a lock (sqlite_connect.c) */
	int64_t busy_since;   /* CLOCK_MONOTONIC ns when the current wait began */
	char path[];	      /* as given, for messages */
};

static inline struct ul_store_sqlite *sq(struct ul_store *st)
{
	return (struct ul_store_sqlite *)st;
}

/*
 * Open st->db on st->path (sqlite_connect.c): read-only or read-write as
 * st->read_only says, a WAL store on a read-only filesystem as immutable;
 * extended result codes, the busy wait (0: the default), st->dev/ino.
 * 0 or a negative errno with err filled.
 */
int ul_sq_connect(struct ul_store_sqlite *st, int64_t busy_wait_ms, char *err, size_t errlen);
/* Format into err (may be NULL) and return `code`. */
int ul_sq_set_err(char *err, size_t errlen, int code, const char *fmt, ...) UL_PRINTF(4, 5);
/* The negative errno for SQLite result `rc` (store.h lists the codes). */
int ul_sq_errno(sqlite3 *db, int rc, int ro_errno);
/* EFBIG, ENOSPC or EDQUOT when that is what SQLite's I/O error or "disk
 * full" `rc` came from (it says "disk I/O error"), else 0. */
int ul_sq_resource_errno(sqlite3 *db, int rc);
/* The reason for failed `rc` on db (may be NULL), in words: the resource
 * error's (ul_sq_resource_errno) when there is one, else SQLite's. */
const char *ul_sq_errmsg(sqlite3 *db, int rc);
/*
 * Fill the store's err with "WHAT: sqlite's reason" and return the errno
 * for rc.  Call before anything else touches the connection (a ROLLBACK
 * would replace the message).
 */
int ul_sq_fail(struct ul_store_sqlite *st, int rc, const char *fmt, ...) UL_PRINTF(3, 4);
int ul_sq_vfail(struct ul_store_sqlite *st, int rc, const char *fmt, va_list ap) UL_PRINTF(3, 0);
/* The cached statement `id`, reset and unbound; NULL with *rc set on failure. */
sqlite3_stmt *ul_sq_stmt(struct ul_store_sqlite *st, enum stmt_id id, int *rc);
/* Run a statement that returns no rows; SQLITE_OK or the error. */
int ul_sq_exec(struct ul_store_sqlite *st, enum stmt_id id);
/* Step a bound statement that returns no rows and reset it; SQLITE_OK or the error. */
int ul_sq_step_done(sqlite3_stmt *s);
/* The cached statement `id` with ?1 bound to key; NULL with *rc set on failure. */
sqlite3_stmt *ul_sq_stmt_key(struct ul_store_sqlite *st, enum stmt_id id, int64_t key, int *rc);
/* Called for each row by ul_sq_rows(); 0 to go on, a negative errno to
 * stop (err filled by the row, or by its caller for a -EIO it explains). */
typedef int ul_sq_row_fn(struct ul_store_sqlite *st, sqlite3_stmt *s, void *ctx);
/*
 * Steps the bound statement s and calls row() for each row until one
 * fails, then resets s.  s NULL: rc is why ul_sq_stmt() failed.  Returns 0,
 * row()'s error, or a SQLite error as ul_sq_fail(st, rc, fmt, ...) says it.
 */
int ul_sq_rows(struct ul_store_sqlite *st, sqlite3_stmt *s, int rc, ul_sq_row_fn *row, void *ctx,
	       const char *fmt, ...) UL_PRINTF(6, 7);
/* Roll back the open transaction, if any. */
void ul_sq_rollback(struct ul_store_sqlite *st);
/*
 * Before a write: the file at st->path must still be the one opened.  A
 * database deleted (or replaced) under a running run would otherwise take
 * every later cell into an unlinked inode and lose it silently.  Returns 0
 * or -ESTALE with err filled; -EROFS for a store opened for reading.
 */
int ul_sq_check_writable(struct ul_store_sqlite *st);
/* uuid (a UUID or a prefix) in its one stored form (ul_uuid_canon) in buf[37]; one longer
 * than 36 characters becomes "", which names no run. */
const char *ul_sq_uuid(const char *uuid, char buf[37]);
/* Copy a text column into buf, truncating; NULL reads as "". */
void ul_sq_column_text(sqlite3_stmt *s, int i, char *buf, size_t size);

/*
 * Bind the table's fields of `base` to parameters *col + 1, *col + 2 ...
 * (advancing *col); SQLITE_OK, or SQLITE_RANGE when the statement has
 * another number of parameters than the table fields.
 */
int ul_sq_bind_fields(sqlite3_stmt *s, int *col, const void *base, const struct ul_json_table *t);
/*
 * Read the table's fields of `base` from columns *col, *col + 1 ...
 * (advancing *col).  Text is made UTF-8 and truncated to the field; an
 * unknown status reads as UL_RUN_UNKNOWN.  Returns 0, or the column (> 0:
 * a cell's id comes first) of an outcome that names no outcome; the rest
 * is read all the same.
 */
int ul_sq_column_fields(sqlite3_stmt *s, int *col, void *base, const struct ul_json_table *t);

/* A status column; one this program does not know reads as UL_RUN_UNKNOWN. */
enum ul_run_status ul_sq_column_status(sqlite3_stmt *s, int col);

/* Bind a fixed-size model string; tolerates a field without its NUL. */
#define BIND_FIELD(s, i, field)                                                                    \
	sqlite3_bind_text((s), (i), (field), (int)strnlen((field), sizeof(field)), SQLITE_STATIC)

/* Copy a text column into a fixed-size model string, truncating. */
#define COLUMN_FIELD(s, i, field) ul_sq_column_text((s), (i), (field), sizeof(field))

static inline int64_t column_i64(sqlite3_stmt *s, int i)
{
	return (int64_t)sqlite3_column_int64(s, i);
}

static inline uint64_t column_u64(sqlite3_stmt *s, int i)
{
	return (uint64_t)sqlite3_column_int64(s, i);
}

/* The first schema version with run fingerprints (sqlite.c). */
#define UL_SQ_FINGERPRINT_SINCE 3

/* The first schema version with each series one packed BLOB (sqlite_v4.h). */
#define UL_SQ_PACKED_SINCE 4

/*
 * Bind the series' values, packed (store/series_pack.h), to parameter col
 * of s: SQLite's rc.  An empty series is an empty BLOB, never NULL.
 * sqlite_series.c.
 */
int ul_sq_bind_series(sqlite3_stmt *s, int col, const struct ul_series *ser);
/*
 * Append the values of the packed BLOB in column col of s to ser, which is
 * checked to hold exactly `expect` values (the stored count, never trusted
 * for an allocation).  0; -EIO with *bad saying what is wrong with it; or
 * -ENOMEM when the values do not fit in memory (nothing is wrong with
 * them).  ser is left as it was on error.
 */
int ul_sq_column_series(sqlite3_stmt *s, int col, int64_t expect, struct ul_series *ser,
			const char **bad);
/* Register ul_pack_samples(), the aggregate migration 4 packs series with. */
int ul_sq_add_pack_function(sqlite3 *db);

/*
 * The run's fingerprint (a JSON object or NULL) into the store's row for
 * run `id`, inside the caller's transaction: SQLITE_OK or the error
 * (SQLITE_NOMEM when it cannot be encoded).  sqlite_write.c.
 */
int ul_sq_put_fingerprint(struct ul_store_sqlite *st, int64_t id, const struct json_t *fp);

/* The ops (sqlite_write.c, sqlite_read.c). */
int ul_sq_begin_run(struct ul_store *base, struct ul_run *run);
int ul_sq_add_cell(struct ul_store *base, const struct ul_run *run, const struct ul_cell *cell);
int ul_sq_finish_run(struct ul_store *base, const struct ul_run *run);
int ul_sq_mark_interrupted(struct ul_store *base, const char *uuid, int64_t *finished_wall_ns);
int ul_sq_mark_crashed(struct ul_store *base, const char *uuid, const struct ul_cell *at,
		       int64_t *finished_wall_ns);
int ul_sq_list_runs(struct ul_store *base, struct ul_run_summary **out, size_t *n);
int ul_sq_load_run(struct ul_store *base, const char *ref, struct ul_run *out);
int ul_sq_find_run(struct ul_store *base, const char *ref, struct ul_run_summary *out);
int ul_sq_delete_run(struct ul_store *base, const char *uuid);
int ul_sq_was_deleted(struct ul_store *base, const char *uuid);
int ul_sq_relabel_run(struct ul_store *base, const char *uuid, const char *label);
int ul_sq_import_runs(struct ul_store *base, const struct ul_run *runs, size_t n, size_t *inserted);

#endif

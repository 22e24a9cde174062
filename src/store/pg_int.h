/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Inside the PostgreSQL store (pg.c opens, checks and migrates, pg_conn.c
 * connects and holds the helpers below, pg_write.c and pg_read.c the ops).
 * Not for use outside src/store.
 *
 * Every statement goes through PQexecParams with its values as parameters
 * (text, a bytea in binary), never built into the SQL.  Each op that
 * writes is one transaction; concurrent writers never lock a table: UUIDs
 * and unique constraints decide, with ON CONFLICT where a second writer of
 * the same run must simply find it there.
 */
#ifndef UL_STORE_PG_INT_H
#define UL_STORE_PG_INT_H

#include "core/compat.h"
#include "model/model_json.h"
#include "store/store.h"

#include <libpq-fe.h>

/* A run's columns after its id, and a cell's after its id and run_id, in
 * model/model_json.c's table order (the SQLite store's, sqlite_int.h). */
#define PG_RUN_COLUMNS                                                                             \
	"uuid, label, status, tool_version, argv, suites, started_wall_ns, finished_wall_ns,"      \
	" host_name, host_kernel_release, host_kernel_version, host_arch, host_cpu_model,"         \
	" host_ncpu, host_mem_total_bytes, host_swap_total_bytes, interval_ns, min_points,"        \
	" max_points, ci_target_centi, mem_budget_bytes, mem_limit_bytes, swap_bytes"
#define PG_CELL_COLUMNS                                                                            \
	"seq, suite, load, probe, outcome, flags, note, load_unit, load_units, started_wall_ns,"   \
	" finished_wall_ns"

struct ul_store_pg {
	struct ul_store base; /* first: the ops see a struct ul_store * */
	PGconn *conn;
	bool read_only;	 /* opened with UL_STORE_READ */
	int64_t version; /* the database's schema version */
	char name[200];	 /* "database D on H" for messages: never a password */
};

/* Room for an op's "cannot ... in <name>" (the reason is added after it in err). */
#define UL_PG_WHAT (sizeof(((struct ul_store_pg *)0)->name) + 120)

static inline struct ul_store_pg *pg(struct ul_store *st)
{
	return (struct ul_store_pg *)st;
}

/* The parameters of one statement: text (copied), or a bytea in binary. */
#define UL_PG_MAX_PARAMS 32
struct ul_pg_params {
	int n;
	bool nomem; /* a copy failed: ul_pg_run refuses to run the statement */
	const char *v[UL_PG_MAX_PARAMS];
	int len[UL_PG_MAX_PARAMS];
	int fmt[UL_PG_MAX_PARAMS];
	char *owned[UL_PG_MAX_PARAMS];
};

/* Append a parameter (ul_pg_text copies at most max bytes of s). */
void ul_pg_text(struct ul_pg_params *p, const char *s, size_t max);
void ul_pg_i64(struct ul_pg_params *p, int64_t v);
/* NaN as NULL (the SQLite store's convention), infinities as PostgreSQL spells them. */
void ul_pg_real(struct ul_pg_params *p, double v);
/* A bytea in binary, not copied: b must outlive the statement. */
void ul_pg_bytes(struct ul_pg_params *p, const void *b, size_t len);
/* The table's stored fields of base, as SQLite's ul_sq_bind_fields binds them. */
void ul_pg_fields(struct ul_pg_params *p, const void *base, const struct ul_json_table *t);
/* Free the copies; p is empty again. */
void ul_pg_clear(struct ul_pg_params *p);

/*
 * Run sql with p (may be NULL; cleared here either way).  0 with *res
 * (PQclear it; may be NULL when the caller wants no rows), or a negative
 * errno with st->base.err "WHAT: the server's reason" (what is the
 * caller's words).  Results in binary when `binary`.
 */
int ul_pg_run(struct ul_store_pg *st, const char *sql, struct ul_pg_params *p, bool binary,
	      PGresult **res, const char *what);
/* BEGIN (with an optional mode, e.g. "ISOLATION LEVEL REPEATABLE READ READ ONLY"), COMMIT. */
int ul_pg_begin(struct ul_store_pg *st, const char *mode, const char *what);
int ul_pg_commit(struct ul_store_pg *st, const char *what);
/* Roll back the open transaction, if any; st->base.err is kept. */
void ul_pg_rollback(struct ul_store_pg *st);
/* The end of a transaction whose work returned r: COMMIT when r is 0,
 * then ROLLBACK when r (or the COMMIT) failed.  Returns 0 or that error. */
int ul_pg_end(struct ul_store_pg *st, int r, const char *what);
/*
 * Before an op: a connection the server dropped is opened again once (a
 * restarted server takes the engine's kept cells on their next retry).
 * 0 or -EIO with err filled.
 */
int ul_pg_ready(struct ul_store_pg *st);
/* Format into st->base.err and return code. */
int ul_pg_err(struct ul_store_pg *st, int code, const char *fmt, ...) UL_PRINTF(3, 4);
/* The first line of libpq's message for the connection, trimmed. */
void ul_pg_conn_reason(PGconn *conn, char *buf, size_t len);

/*
 * Connect to the "postgresql:" URI `uri` (pg_conn.c): a URI with a password
 * in it is refused (it would show in ps and shell history), a bad one
 * named; a server that does not answer, a refused login or a wrong
 * password each give one line.  0 with *conn or a negative errno.
 */
int ul_pg_connect(const char *uri, PGconn **conn, char *err, size_t errlen);

/* Text from the server, untrusted: made UTF-8 and cut to the field. */
void ul_pg_copy_text(const char *src, char *buf, size_t size);
/* A column as int64 (0 for NULL or text that is not one). */
int64_t ul_pg_i64_at(const PGresult *r, int row, int col);
/* Read the table's stored fields of base from columns *col ... (advancing
 * it); 0, or the column of an outcome that names none (> 0). */
int ul_pg_get_fields(const PGresult *r, int row, int *col, void *base,
		     const struct ul_json_table *t);

/* The first schema version with run fingerprints. */
#define UL_PG_FINGERPRINT_SINCE 3

/* The ops (pg_write.c, pg_read.c). */
int ul_pg_begin_run(struct ul_store *base, struct ul_run *run);
int ul_pg_add_cell(struct ul_store *base, const struct ul_run *run, const struct ul_cell *cell);
int ul_pg_finish_run(struct ul_store *base, const struct ul_run *run);
int ul_pg_mark_interrupted(struct ul_store *base, const char *uuid, int64_t *finished_wall_ns);
int ul_pg_mark_crashed(struct ul_store *base, const char *uuid, const struct ul_cell *at,
		       int64_t *finished_wall_ns);
int ul_pg_list_runs(struct ul_store *base, struct ul_run_summary **out, size_t *n);
int ul_pg_load_run(struct ul_store *base, const char *ref, struct ul_run *out);
int ul_pg_find_run(struct ul_store *base, const char *ref, struct ul_run_summary *out);
int ul_pg_delete_run(struct ul_store *base, const char *uuid);
int ul_pg_was_deleted(struct ul_store *base, const char *uuid);
int ul_pg_relabel_run(struct ul_store *base, const char *uuid, const char *label);
int ul_pg_import_runs(struct ul_store *base, const struct ul_run *runs, size_t n, size_t *inserted);

#endif

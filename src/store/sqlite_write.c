/* SPDX-License-Identifier: GPL-2.0-or-later */
/* The SQLite store's writing ops: runs, cells, status changes. */
#include "core/compat.h"
#include "store/sqlite_int.h"

#include <errno.h>
#include <jansson.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

/* Insert the run row (no cells); SQLite's rc, *id set on success. */
static int insert_run_row(struct ul_store_sqlite *st, const struct ul_run *run, int64_t *id)
{
	int col = 0, rc;
	sqlite3_stmt *s = ul_sq_stmt(st, S_INSERT_RUN, &rc);

	if (!s)
		return rc;
	rc = ul_sq_bind_fields(s, &col, run, &ul_json_run_table);
	if (rc == SQLITE_OK)
		rc = ul_sq_step_done(s);
	if (rc == SQLITE_OK)
		*id = sqlite3_last_insert_rowid(st->db);
	return rc;
}

int ul_sq_begin_run(struct ul_store *base, struct ul_run *run)
{
	struct ul_store_sqlite *st = sq(base);
	int64_t id = 0;
	int rc, r;

	st->base.err[0] = '\0';
	if (!strcmp(ul_run_status_name(run->status), "unknown"))
		return ul_sq_set_err(st->base.err, sizeof(st->base.err), -EINVAL,
				     "cannot store run: invalid status %d", (int)run->status);
	r = ul_sq_check_writable(st);
	if (r < 0)
		return r;
	if (!run->uuid[0]) {
		r = ul_run_new_uuid(run);
		if (r < 0)
			return ul_sq_set_err(st->base.err, sizeof(st->base.err), r,
					     "cannot make a run UUID: %s", strerror(-r));
	}
	ul_uuid_canon(run->uuid);
	rc = ul_sq_exec(st, S_BEGIN_WRITE);
	if (rc == SQLITE_OK)
		rc = insert_run_row(st, run, &id);
	if (rc == SQLITE_OK)
		rc = ul_sq_put_fingerprint(st, id, run->fingerprint);
	if (rc == SQLITE_OK)
		rc = ul_sq_exec(st, S_COMMIT);
	if (rc != SQLITE_OK) {
		r = ul_sq_fail(st, rc, "cannot store run %s in '%s'", run->uuid, st->path);
		if (r == -EEXIST)
			snprintf(st->base.err, sizeof(st->base.err), "run %s is already in '%s'",
				 run->uuid, st->path);
		ul_sq_rollback(st);
		return r;
	}
	run->id = id;
	return 0;
}

int ul_sq_put_fingerprint(struct ul_store_sqlite *st, int64_t id, const struct json_t *fp)
{
	sqlite3_stmt *s;
	char *text;
	int rc;

	if (!fp)
		return SQLITE_OK;
	text = json_dumps(fp, JSON_COMPACT | JSON_PRESERVE_ORDER);
	if (!text)
		return SQLITE_NOMEM;
	s = ul_sq_stmt_key(st, S_INSERT_FINGERPRINT, id, &rc);
	if (s) {
		sqlite3_bind_text(s, 2, text, -1, SQLITE_TRANSIENT);
		rc = ul_sq_step_done(s);
	}
	free(text);
	return rc;
}

/* One series of the stored cell `cell_id`, at position pos: one row, its values packed. */
static int insert_series(struct ul_store_sqlite *st, int64_t cell_id, size_t pos,
			 const struct ul_series *ser)
{
	int rc;
	sqlite3_stmt *s = ul_sq_stmt_key(st, S_INSERT_SERIES, cell_id, &rc);

	if (!s)
		return rc;
	sqlite3_bind_int64(s, 2, (sqlite3_int64)pos);
	BIND_FIELD(s, 3, ser->name);
	sqlite3_bind_int64(s, 4, (sqlite3_int64)ser->n);
	rc = ul_sq_bind_series(s, 5, ser);
	if (rc == SQLITE_OK)
		rc = ul_sq_step_done(s);
	/* The BLOB (up to 8 bytes a value) goes now, not at the statement's next use. */
	sqlite3_clear_bindings(s);
	return rc;
}

static int insert_metric(struct ul_store_sqlite *st, int64_t cell_id, size_t pos,
			 const struct ul_metric *m)
{
	int rc;
	sqlite3_stmt *s = ul_sq_stmt_key(st, S_INSERT_METRIC, cell_id, &rc);

	if (!s)
		return rc;
	sqlite3_bind_int64(s, 2, (sqlite3_int64)pos);
	BIND_FIELD(s, 3, m->name);
	if (isnan(m->value))
		sqlite3_bind_null(s, 4);
	else
		sqlite3_bind_double(s, 4, m->value);
	return ul_sq_step_done(s);
}

/* The body of add_cell, inside its transaction: SQLite's rc. */
static int insert_cell(struct ul_store_sqlite *st, int64_t run_id, const struct ul_cell *cell)
{
	int64_t cell_id;
	int col = 1, rc; /* ?1 is the run's id */
	sqlite3_stmt *s = ul_sq_stmt_key(st, S_INSERT_CELL, run_id, &rc);

	if (!s)
		return rc;
	rc = ul_sq_bind_fields(s, &col, cell, &ul_json_cell_table);
	if (rc == SQLITE_OK)
		rc = ul_sq_step_done(s);
	cell_id = sqlite3_last_insert_rowid(st->db);
	for (size_t i = 0; i < cell->n_series && rc == SQLITE_OK; i++)
		rc = insert_series(st, cell_id, i, &cell->series[i]);
	for (size_t i = 0; i < cell->n_metrics && rc == SQLITE_OK; i++)
		rc = insert_metric(st, cell_id, i, &cell->metrics[i]);
	return rc;
}

int ul_sq_add_cell(struct ul_store *base, const struct ul_run *run, const struct ul_cell *cell)
{
	struct ul_store_sqlite *st = sq(base);
	int rc, r;

	st->base.err[0] = '\0';
	if (run->id <= 0)
		return ul_sq_set_err(st->base.err, sizeof(st->base.err), -EINVAL,
				     "cannot add cell %d: run %s was not stored first", cell->seq,
				     run->uuid);
	if (!strcmp(ul_cell_outcome_name(cell->outcome), "unknown"))
		return ul_sq_set_err(st->base.err, sizeof(st->base.err), -EINVAL,
				     "cannot add cell %d: invalid outcome %d", cell->seq,
				     (int)cell->outcome);
	r = ul_sq_check_writable(st);
	if (r < 0)
		return r;
	rc = ul_sq_exec(st, S_BEGIN_WRITE);
	if (rc == SQLITE_OK)
		rc = insert_cell(st, run->id, cell);
	if (rc == SQLITE_OK)
		rc = ul_sq_exec(st, S_COMMIT);
	if (rc == SQLITE_OK)
		return 0;
	r = ul_sq_fail(st, rc, "cannot add cell %d of run %lld to '%s'", cell->seq,
		       (long long)run->id, st->path);
	if (rc == SQLITE_CONSTRAINT_FOREIGNKEY)
		snprintf(st->base.err, sizeof(st->base.err),
			 "cannot add cell %d: run %lld is not in '%s'", cell->seq,
			 (long long)run->id, st->path);
	ul_sq_rollback(st);
	return r;
}

int ul_sq_finish_run(struct ul_store *base, const struct ul_run *run)
{
	struct ul_store_sqlite *st = sq(base);
	const char *status = ul_run_status_name(run->status);
	sqlite3_stmt *s;
	int rc;

	st->base.err[0] = '\0';
	if (!strcmp(status, "unknown"))
		return ul_sq_set_err(st->base.err, sizeof(st->base.err), -EINVAL,
				     "cannot finish run %lld: invalid status %d",
				     (long long)run->id, (int)run->status);
	rc = ul_sq_check_writable(st);
	if (rc < 0)
		return rc;
	s = ul_sq_stmt(st, S_FINISH_RUN, &rc);
	if (!s)
		return ul_sq_fail(st, rc, "cannot finish run %lld in '%s'", (long long)run->id,
				  st->path);
	sqlite3_bind_text(s, 1, status, -1, SQLITE_STATIC);
	sqlite3_bind_int64(s, 2, run->finished_wall_ns);
	sqlite3_bind_int64(s, 3, run->id);
	rc = sqlite3_step(s);
	if (rc != SQLITE_DONE) {
		int r = ul_sq_fail(st, rc, "cannot finish run %lld in '%s'", (long long)run->id,
				   st->path);

		sqlite3_reset(s);
		return r;
	}
	sqlite3_reset(s);
	if (sqlite3_changes(st->db) == 0)
		return ul_sq_set_err(st->base.err, sizeof(st->base.err), -ENOENT,
				     "cannot finish run %lld: it is not in '%s'",
				     (long long)run->id, st->path);
	return 0;
}

/* Insert the cell where a crashed run was unless a cell of that seq is
 * stored (it crashed after it); *end_ns moves up to the cell's start. */
static int insert_crash_cell(struct ul_store_sqlite *st, int64_t id, const struct ul_cell *at,
			     int64_t *end_ns)
{
	sqlite3_stmt *s;
	int rc;

	s = ul_sq_stmt(st, S_CELL_EXISTS, &rc);
	if (!s)
		return rc;
	sqlite3_bind_int64(s, 1, id);
	sqlite3_bind_int(s, 2, at->seq);
	rc = sqlite3_step(s);
	sqlite3_reset(s);
	if (rc == SQLITE_DONE)
		rc = insert_cell(st, id, at);
	if (rc == SQLITE_ROW)
		rc = SQLITE_OK;
	if (rc == SQLITE_OK && at->started_wall_ns > *end_ns)
		*end_ns = at->started_wall_ns;
	return rc;
}

/* Inside mark_ended's transaction: find the run, its end, update it. */
static int mark_ended_tx(struct ul_store_sqlite *st, const char *uuid, enum ul_run_status to,
			 const struct ul_cell *at, int64_t *end_ns)
{
	const unsigned char *status;
	int64_t id, started;
	sqlite3_stmt *s;
	char canon[37];
	int rc;

	s = ul_sq_stmt(st, S_RUN_BY_UUID, &rc);
	if (!s)
		return ul_sq_fail(st, rc, "cannot look up run %s in '%s'", uuid, st->path);
	sqlite3_bind_text(s, 1, ul_sq_uuid(uuid, canon), -1, SQLITE_STATIC);
	rc = sqlite3_step(s);
	if (rc != SQLITE_ROW) {
		int r = rc == SQLITE_DONE
				? ul_sq_set_err(st->base.err, sizeof(st->base.err), -ENOENT,
						"no run %s in '%s'", uuid, st->path)
				: ul_sq_fail(st, rc, "cannot look up run %s in '%s'", uuid,
					     st->path);

		sqlite3_reset(s);
		return r;
	}
	id = column_i64(s, 0);
	status = sqlite3_column_text(s, 1);
	started = column_i64(s, 2);
	if (!status || strcmp((const char *)status, "running")) {
		rc = ul_sq_set_err(st->base.err, sizeof(st->base.err), -EALREADY,
				   "run %s in '%s' is not running", uuid, st->path);
		sqlite3_reset(s);
		return rc;
	}
	sqlite3_reset(s);
	s = ul_sq_stmt(st, S_LAST_CELL_END, &rc);
	if (!s)
		return ul_sq_fail(st, rc, "cannot read the cells of run %s in '%s'", uuid,
				  st->path);
	sqlite3_bind_int64(s, 1, id);
	rc = sqlite3_step(s);
	*end_ns = rc == SQLITE_ROW && sqlite3_column_type(s, 0) != SQLITE_NULL ? column_i64(s, 0)
									       : started;
	sqlite3_reset(s);
	if (rc != SQLITE_ROW)
		return ul_sq_fail(st, rc, "cannot read the cells of run %s in '%s'", uuid,
				  st->path);
	rc = at ? insert_crash_cell(st, id, at, end_ns) : SQLITE_OK;
	if (rc != SQLITE_OK)
		return ul_sq_fail(st, rc, "cannot store where run %s crashed in '%s'", uuid,
				  st->path);
	s = ul_sq_stmt(st, S_MARK_ENDED, &rc);
	if (!s)
		return ul_sq_fail(st, rc, "cannot mark run %s %s in '%s'", uuid,
				  ul_run_status_name(to), st->path);
	sqlite3_bind_int64(s, 1, *end_ns);
	sqlite3_bind_int64(s, 2, id);
	sqlite3_bind_text(s, 3, ul_run_status_name(to), -1, SQLITE_STATIC);
	rc = ul_sq_step_done(s);
	if (rc != SQLITE_OK)
		return ul_sq_fail(st, rc, "cannot mark run %s %s in '%s'", uuid,
				  ul_run_status_name(to), st->path);
	return 0;
}

/* mark_interrupted and mark_crashed: a `running` run ended as `to`. */
static int mark_ended(struct ul_store *base, const char *uuid, enum ul_run_status to,
		      const struct ul_cell *at, int64_t *finished_wall_ns)
{
	struct ul_store_sqlite *st = sq(base);
	int64_t end_ns = 0;
	int rc, r;

	st->base.err[0] = '\0';
	if (!uuid || !*uuid)
		return ul_sq_set_err(st->base.err, sizeof(st->base.err), -EINVAL, "empty run UUID");
	if (at && at->outcome != UL_CELL_CRASHED)
		return ul_sq_set_err(st->base.err, sizeof(st->base.err), -EINVAL,
				     "the cell where run %s crashed must have outcome crashed",
				     uuid);
	r = ul_sq_check_writable(st);
	if (r < 0)
		return r;
	rc = ul_sq_exec(st, S_BEGIN_WRITE);
	if (rc != SQLITE_OK)
		return ul_sq_fail(st, rc, "cannot write '%s'", st->path);
	r = mark_ended_tx(st, uuid, to, at, &end_ns);
	if (!r) {
		rc = ul_sq_exec(st, S_COMMIT);
		if (rc != SQLITE_OK)
			r = ul_sq_fail(st, rc, "cannot mark run %s %s in '%s'", uuid,
				       ul_run_status_name(to), st->path);
	}
	if (r < 0) {
		ul_sq_rollback(st);
		return r;
	}
	if (finished_wall_ns)
		*finished_wall_ns = end_ns;
	return 0;
}

int ul_sq_mark_interrupted(struct ul_store *base, const char *uuid, int64_t *finished_wall_ns)
{
	return mark_ended(base, uuid, UL_RUN_INTERRUPTED, NULL, finished_wall_ns);
}

int ul_sq_mark_crashed(struct ul_store *base, const char *uuid, const struct ul_cell *at,
		       int64_t *finished_wall_ns)
{
	return mark_ended(base, uuid, UL_RUN_CRASHED, at, finished_wall_ns);
}

/* One statement on one run UUID (delete, relabel): -ENOENT when no row changed. */
static int update_by_uuid(struct ul_store_sqlite *st, enum stmt_id id, const char *uuid,
			  const char *text, const char *what)
{
	sqlite3_stmt *s;
	char canon[37];
	int rc = ul_sq_check_writable(st);

	st->base.err[0] = '\0';
	if (rc < 0)
		return rc;
	s = ul_sq_stmt(st, id, &rc);
	if (!s)
		return ul_sq_fail(st, rc, "cannot %s run %s in '%s'", what, uuid, st->path);
	sqlite3_bind_text(s, 1, ul_sq_uuid(uuid, canon), -1, SQLITE_STATIC);
	if (text)
		sqlite3_bind_text(s, 2, text, -1, SQLITE_STATIC);
	rc = sqlite3_step(s);
	if (rc != SQLITE_DONE) {
		int r = ul_sq_fail(st, rc, "cannot %s run %s in '%s'", what, uuid, st->path);

		sqlite3_reset(s);
		return r;
	}
	sqlite3_reset(s);
	if (!sqlite3_changes(st->db))
		return ul_sq_set_err(st->base.err, sizeof(st->base.err), -ENOENT,
				     "no run %s in '%s'", uuid, st->path);
	return 0;
}

/* Inside delete_run's transaction: the run goes, its UUID is recorded as deleted. */
static int delete_tx(struct ul_store_sqlite *st, const char *uuid)
{
	struct timespec now;
	sqlite3_stmt *s;
	int r = update_by_uuid(st, S_DELETE_RUN, uuid, NULL, "delete"), rc;

	if (r < 0)
		return r;
	s = ul_sq_stmt(st, S_RECORD_DELETED, &rc);
	if (s) {
		char canon[37];

		clock_gettime(CLOCK_REALTIME, &now);
		sqlite3_bind_text(s, 1, ul_sq_uuid(uuid, canon), -1, SQLITE_TRANSIENT);
		sqlite3_bind_int64(s, 2, (sqlite3_int64)now.tv_sec * 1000000000 + now.tv_nsec);
		rc = ul_sq_step_done(s);
	}
	return rc == SQLITE_OK ? 0
			       : ul_sq_fail(st, rc, "cannot delete run %s in '%s'", uuid, st->path);
}

int ul_sq_delete_run(struct ul_store *base, const char *uuid)
{
	struct ul_store_sqlite *st = sq(base);
	int rc, r = ul_sq_check_writable(st);

	if (r < 0)
		return r;
	rc = ul_sq_exec(st, S_BEGIN_WRITE);
	if (rc != SQLITE_OK)
		return ul_sq_fail(st, rc, "cannot write '%s'", st->path);
	r = delete_tx(st, uuid);
	if (!r && (rc = ul_sq_exec(st, S_COMMIT)) != SQLITE_OK)
		r = ul_sq_fail(st, rc, "cannot delete run %s in '%s'", uuid, st->path);
	if (r < 0)
		ul_sq_rollback(st);
	return r;
}

int ul_sq_was_deleted(struct ul_store *base, const char *uuid)
{
	struct ul_store_sqlite *st = sq(base);
	sqlite3_stmt *s;
	char canon[37];
	int rc;

	st->base.err[0] = '\0';
	s = ul_sq_stmt(st, S_WAS_DELETED, &rc);
	if (!s)
		return ul_sq_fail(st, rc, "cannot read '%s'", st->path);
	sqlite3_bind_text(s, 1, ul_sq_uuid(uuid, canon), -1, SQLITE_STATIC);
	rc = sqlite3_step(s);
	if (rc == SQLITE_ROW || rc == SQLITE_DONE) {
		sqlite3_reset(s);
		return rc == SQLITE_ROW;
	}
	rc = ul_sq_fail(st, rc, "cannot read '%s'", st->path);
	sqlite3_reset(s);
	return rc;
}

int ul_sq_relabel_run(struct ul_store *base, const char *uuid, const char *label)
{
	return update_by_uuid(sq(base), S_RELABEL_RUN, uuid, label, "relabel");
}

/* Inside import's transaction: the cells of `run` the stored run `id` lacks. */
static int merge_cells(struct ul_store_sqlite *st, int64_t id, const struct ul_run *run,
		       bool *changed)
{
	for (size_t i = 0; i < run->n_cells; i++) {
		sqlite3_stmt *s;
		int rc;

		s = ul_sq_stmt(st, S_CELL_EXISTS, &rc);
		if (!s)
			return rc;
		sqlite3_bind_int64(s, 1, id);
		sqlite3_bind_int(s, 2, run->cells[i].seq);
		rc = sqlite3_step(s);
		sqlite3_reset(s);
		if (rc == SQLITE_DONE) {
			rc = insert_cell(st, id, &run->cells[i]);
			*changed = true;
		}
		if (rc != SQLITE_OK && rc != SQLITE_ROW)
			return rc;
	}
	return SQLITE_OK;
}

/*
 * Inside import's transaction: a new run is inserted whole; a stored one
 * (same UUID) gains only the cells it lacks, and its status and end when
 * it is still `running` and the file's is not (a recovery file completes
 * the run it was written for).  Idempotent: a second import changes nothing.
 */
static int import_one(struct ul_store_sqlite *st, const struct ul_run *given, bool *changed)
{
	struct ul_run canon = *given; /* shallow: the same cells, the UUID in its stored form */
	const struct ul_run *run = &canon;
	const unsigned char *status;
	bool was_running = false;
	sqlite3_stmt *s;
	int64_t id = 0;
	int rc;

	*changed = false;
	ul_uuid_canon(canon.uuid);
	s = ul_sq_stmt(st, S_RUN_BY_UUID, &rc);
	if (!s)
		return rc;
	sqlite3_bind_text(s, 1, run->uuid, -1, SQLITE_STATIC);
	rc = sqlite3_step(s);
	if (rc == SQLITE_ROW) {
		id = column_i64(s, 0);
		status = sqlite3_column_text(s, 1);
		was_running = status && !strcmp((const char *)status, "running");
	}
	sqlite3_reset(s);
	if (rc == SQLITE_DONE) {
		rc = insert_run_row(st, run, &id);
		if (rc == SQLITE_OK)
			*changed = true;
		/* Imported by hand: no longer recorded as deleted. */
		s = rc == SQLITE_OK ? ul_sq_stmt(st, S_FORGET_DELETED, &rc) : NULL;
		if (s) {
			sqlite3_bind_text(s, 1, run->uuid, -1, SQLITE_STATIC);
			rc = ul_sq_step_done(s);
		}
		if (rc != SQLITE_OK)
			return rc;
		was_running = false;
	} else if (rc != SQLITE_ROW) {
		return rc;
	}
	rc = ul_sq_put_fingerprint(st, id, run->fingerprint);
	if (rc == SQLITE_OK)
		rc = merge_cells(st, id, run, changed);
	if (rc != SQLITE_OK || !was_running || run->status == UL_RUN_RUNNING)
		return rc;
	s = ul_sq_stmt(st, S_FINISH_RUN, &rc);
	if (!s)
		return rc;
	sqlite3_bind_text(s, 1, ul_run_status_name(run->status), -1, SQLITE_STATIC);
	sqlite3_bind_int64(s, 2, run->finished_wall_ns);
	sqlite3_bind_int64(s, 3, id);
	*changed = true;
	return ul_sq_step_done(s);
}

int ul_sq_import_runs(struct ul_store *base, const struct ul_run *runs, size_t n, size_t *inserted)
{
	struct ul_store_sqlite *st = sq(base);
	size_t added = 0;
	size_t i = 0;
	int rc, r;

	st->base.err[0] = '\0';
	for (i = 0; i < n; i++)
		if (!strcmp(ul_run_status_name(runs[i].status), "unknown") || !runs[i].uuid[0])
			return ul_sq_set_err(st->base.err, sizeof(st->base.err), -EINVAL,
					     "cannot import run %zu: no UUID or an invalid status",
					     i + 1);
	r = ul_sq_check_writable(st);
	if (r < 0)
		return r;
	rc = ul_sq_exec(st, S_BEGIN_WRITE);
	for (i = 0; rc == SQLITE_OK && i < n; i++) {
		bool one = false;

		rc = import_one(st, &runs[i], &one);
		added += one;
	}
	if (rc == SQLITE_OK)
		rc = ul_sq_exec(st, S_COMMIT);
	if (rc != SQLITE_OK) {
		r = ul_sq_fail(st, rc, "cannot import into '%s' (run %s)", st->path,
			       i && i <= n ? runs[i - 1].uuid : "-");
		ul_sq_rollback(st);
		return r;
	}
	if (inserted)
		*inserted = added;
	return 0;
}

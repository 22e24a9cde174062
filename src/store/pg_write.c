/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * The PostgreSQL store's writing ops.  Each is one transaction.  No table
 * is locked: a run is found or made by its UUID (unique), a cell by its
 * (run, seq) (unique), with ON CONFLICT DO NOTHING where a second writer
 * of the same run must find it instead of failing; a run whose status
 * changes is locked as a row (FOR UPDATE), so no update is lost.
 */
#include "core/compat.h"
#include "store/pg_int.h"
#include "store/series_pack.h"

#include <errno.h>
#include <jansson.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#define INSERT_RUN                                                                                 \
	"INSERT INTO runs (" PG_RUN_COLUMNS ") VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10,"   \
	" $11, $12, $13, $14, $15, $16, $17, $18, $19, $20, $21, $22, $23)"
#define INSERT_CELL                                                                                \
	"INSERT INTO cells (run_id, " PG_CELL_COLUMNS ") VALUES ($1, $2, $3, $4, $5, $6, $7, $8,"  \
	" $9, $10, $11, $12)"

static int read_only(struct ul_store_pg *st)
{
	st->base.err[0] = '\0';
	if (!st->read_only)
		return ul_pg_ready(st);
	return ul_pg_err(st, -EROFS, "%s was opened for reading only", st->name);
}

/* The run row: *id, or 0 when `if_absent` and a run of its UUID is there. */
static int insert_run_row(struct ul_store_pg *st, const struct ul_run *run, bool if_absent,
			  int64_t *id, const char *what)
{
	struct ul_pg_params p = { 0 };
	PGresult *r;
	int rc;

	ul_pg_fields(&p, run, &ul_json_run_table);
	rc = ul_pg_run(st,
		       if_absent ? INSERT_RUN " ON CONFLICT (uuid) DO NOTHING RETURNING id"
				 : INSERT_RUN " RETURNING id",
		       &p, false, &r, what);
	if (rc < 0)
		return rc;
	*id = PQntuples(r) ? ul_pg_i64_at(r, 0, 0) : 0;
	PQclear(r);
	return 0;
}

/* The run's fingerprint (none: nothing), kept when the run has one stored. */
static int put_fingerprint(struct ul_store_pg *st, int64_t id, const json_t *fp, const char *what)
{
	struct ul_pg_params p = { 0 };
	char *text;
	int rc;

	if (!fp)
		return 0;
	text = json_dumps(fp, JSON_COMPACT | JSON_PRESERVE_ORDER);
	if (!text)
		return ul_pg_err(st, -ENOMEM, "%s: %s", what, strerror(ENOMEM));
	ul_pg_i64(&p, id);
	ul_pg_text(&p, text, strlen(text));
	free(text);
	rc = ul_pg_run(st,
		       "INSERT INTO run_fingerprints (run_id, json) VALUES ($1, $2)"
		       " ON CONFLICT (run_id) DO NOTHING",
		       &p, false, NULL, what);
	return rc;
}

int ul_pg_begin_run(struct ul_store *base, struct ul_run *run)
{
	struct ul_store_pg *st = pg(base);
	char what[UL_PG_WHAT];
	int64_t id = 0;
	int r;

	if (!strcmp(ul_run_status_name(run->status), "unknown"))
		return ul_pg_err(st, -EINVAL, "cannot store run: invalid status %d",
				 (int)run->status);
	r = read_only(st);
	if (r < 0)
		return r;
	if (!run->uuid[0]) {
		r = ul_run_new_uuid(run);
		if (r < 0)
			return ul_pg_err(st, r, "cannot make a run UUID: %s", strerror(-r));
	}
	ul_uuid_canon(run->uuid);
	snprintf(what, sizeof(what), "cannot store run %s in %s", run->uuid, st->name);
	r = ul_pg_begin(st, NULL, what);
	if (!r)
		r = insert_run_row(st, run, false, &id, what);
	if (!r)
		r = put_fingerprint(st, id, run->fingerprint, what);
	r = ul_pg_end(st, r, what);
	if (r == -EEXIST)
		ul_pg_err(st, r, "run %s is already in %s", run->uuid, st->name);
	if (r < 0)
		return r;
	run->id = id;
	return 0;
}

static int insert_series(struct ul_store_pg *st, int64_t cell_id, size_t pos,
			 const struct ul_series *ser, const char *what)
{
	struct ul_pg_params p = { 0 };
	unsigned char *packed = malloc(ser->n ? ul_series_packed_len(ser->n) : 1);
	int rc;

	if (!packed)
		return ul_pg_err(st, -ENOMEM, "%s: %s", what, strerror(ENOMEM));
	ul_series_pack(ser->v, ser->n, packed);
	ul_pg_i64(&p, cell_id);
	ul_pg_i64(&p, (int64_t)pos);
	ul_pg_text(&p, ser->name, sizeof(ser->name));
	ul_pg_i64(&p, (int64_t)ser->n);
	ul_pg_bytes(&p, packed, ul_series_packed_len(ser->n));
	rc = ul_pg_run(
		st,
		"INSERT INTO series (cell_id, pos, name, n, packed) VALUES ($1, $2, $3, $4, $5)",
		&p, false, NULL, what);
	free(packed);
	return rc;
}

static int insert_metric(struct ul_store_pg *st, int64_t cell_id, size_t pos,
			 const struct ul_metric *m, const char *what)
{
	struct ul_pg_params p = { 0 };

	ul_pg_i64(&p, cell_id);
	ul_pg_i64(&p, (int64_t)pos);
	ul_pg_text(&p, m->name, sizeof(m->name));
	ul_pg_real(&p, m->value);
	return ul_pg_run(st,
			 "INSERT INTO metrics (cell_id, pos, name, value) VALUES ($1, $2, $3, $4)",
			 &p, false, NULL, what);
}

/*
 * The cell with its series and metrics, inside the caller's transaction.
 * if_absent: a cell of its seq already stored stays as it is (*added
 * false); otherwise that is -EEXIST.
 */
static int insert_cell(struct ul_store_pg *st, int64_t run_id, const struct ul_cell *cell,
		       bool if_absent, bool *added, const char *what)
{
	struct ul_pg_params p = { 0 };
	int64_t cell_id;
	PGresult *r;
	int rc;

	*added = false;
	ul_pg_i64(&p, run_id);
	ul_pg_fields(&p, cell, &ul_json_cell_table);
	rc = ul_pg_run(st,
		       if_absent ? INSERT_CELL " ON CONFLICT (run_id, seq) DO NOTHING RETURNING id"
				 : INSERT_CELL " RETURNING id",
		       &p, false, &r, what);
	if (rc < 0)
		return rc;
	if (!PQntuples(r)) {
		PQclear(r);
		return 0;
	}
	cell_id = ul_pg_i64_at(r, 0, 0);
	PQclear(r);
	for (size_t i = 0; i < cell->n_series && !rc; i++)
		rc = insert_series(st, cell_id, i, &cell->series[i], what);
	for (size_t i = 0; i < cell->n_metrics && !rc; i++)
		rc = insert_metric(st, cell_id, i, &cell->metrics[i], what);
	*added = !rc;
	return rc;
}

int ul_pg_add_cell(struct ul_store *base, const struct ul_run *run, const struct ul_cell *cell)
{
	struct ul_store_pg *st = pg(base);
	bool added;
	char what[UL_PG_WHAT];
	int r;

	if (run->id <= 0)
		return ul_pg_err(st, -EINVAL, "cannot add cell %d: run %s was not stored first",
				 cell->seq, run->uuid);
	if (!strcmp(ul_cell_outcome_name(cell->outcome), "unknown"))
		return ul_pg_err(st, -EINVAL, "cannot add cell %d: invalid outcome %d", cell->seq,
				 (int)cell->outcome);
	r = read_only(st);
	if (r < 0)
		return r;
	snprintf(what, sizeof(what), "cannot add cell %d of run %lld to %s", cell->seq,
		 (long long)run->id, st->name);
	r = ul_pg_begin(st, NULL, what);
	if (!r)
		r = insert_cell(st, run->id, cell, false, &added, what);
	r = ul_pg_end(st, r, what);
	if (r == -ENOENT)
		ul_pg_err(st, r, "cannot add cell %d: run %lld is not in %s", cell->seq,
			  (long long)run->id, st->name);
	return r;
}

/* UPDATE of one run's status and end: -ENOENT when no row changed. */
static int set_status(struct ul_store_pg *st, int64_t id, enum ul_run_status status,
		      int64_t finished_ns, const char *what)
{
	struct ul_pg_params p = { 0 };
	PGresult *r;
	int rc;

	ul_pg_text(&p, ul_run_status_name(status), 64);
	ul_pg_i64(&p, finished_ns);
	ul_pg_i64(&p, id);
	rc = ul_pg_run(st, "UPDATE runs SET status = $1, finished_wall_ns = $2 WHERE id = $3", &p,
		       false, &r, what);
	if (rc < 0)
		return rc;
	if (!strcmp(PQcmdTuples(r), "0"))
		rc = ul_pg_err(st, -ENOENT, "%s: it is not there", what);
	PQclear(r);
	return rc;
}

int ul_pg_finish_run(struct ul_store *base, const struct ul_run *run)
{
	struct ul_store_pg *st = pg(base);
	char what[UL_PG_WHAT];
	int r;

	if (!strcmp(ul_run_status_name(run->status), "unknown"))
		return ul_pg_err(st, -EINVAL, "cannot finish run %lld: invalid status %d",
				 (long long)run->id, (int)run->status);
	r = read_only(st);
	if (r < 0)
		return r;
	snprintf(what, sizeof(what), "cannot finish run %lld in %s", (long long)run->id, st->name);
	return set_status(st, run->id, run->status, run->finished_wall_ns, what);
}

/* The run of this UUID, locked for the transaction: id, status, start. */
static int lock_run(struct ul_store_pg *st, const char *uuid, int64_t *id, bool *running,
		    int64_t *started, const char *what)
{
	struct ul_pg_params p = { 0 };
	char canon[37];
	PGresult *r;
	int rc;

	snprintf(canon, sizeof(canon), "%s", uuid);
	ul_pg_text(&p, ul_uuid_canon(canon), sizeof(canon));
	rc = ul_pg_run(st,
		       "SELECT id, status, started_wall_ns FROM runs WHERE uuid = $1 FOR UPDATE",
		       &p, false, &r, what);
	if (rc < 0)
		return rc;
	if (!PQntuples(r)) {
		PQclear(r);
		return ul_pg_err(st, -ENOENT, "no run %s in %s", uuid, st->name);
	}
	*id = ul_pg_i64_at(r, 0, 0);
	*running = !strcmp(PQgetvalue(r, 0, 1), "running");
	if (started)
		*started = ul_pg_i64_at(r, 0, 2);
	PQclear(r);
	return 0;
}

/* Inside mark_ended's transaction: find and lock the run, its end, update it. */
static int mark_ended_tx(struct ul_store_pg *st, const char *uuid, enum ul_run_status to,
			 const struct ul_cell *at, int64_t *end_ns, const char *what)
{
	struct ul_pg_params p = { 0 };
	bool running, added;
	int64_t id;
	PGresult *r;
	int rc = lock_run(st, uuid, &id, &running, end_ns, what);

	if (rc < 0)
		return rc;
	if (!running)
		return ul_pg_err(st, -EALREADY, "run %s in %s is not running", uuid, st->name);
	ul_pg_i64(&p, id);
	rc = ul_pg_run(st, "SELECT max(finished_wall_ns) FROM cells WHERE run_id = $1", &p, false,
		       &r, what);
	if (rc < 0)
		return rc;
	if (!PQgetisnull(r, 0, 0))
		*end_ns = ul_pg_i64_at(r, 0, 0);
	PQclear(r);
	/* Where it crashed, unless a cell of that seq is stored (it crashed after it). */
	if (at) {
		rc = insert_cell(st, id, at, true, &added, what);
		if (rc < 0)
			return rc;
		if (at->started_wall_ns > *end_ns)
			*end_ns = at->started_wall_ns;
	}
	return set_status(st, id, to, *end_ns, what);
}

/* mark_interrupted and mark_crashed: a `running` run ended as `to`. */
static int mark_ended(struct ul_store *base, const char *uuid, enum ul_run_status to,
		      const struct ul_cell *at, int64_t *finished_wall_ns)
{
	struct ul_store_pg *st = pg(base);
	int64_t end_ns = 0;
	char what[UL_PG_WHAT];
	int r;

	if (!uuid || !*uuid)
		return ul_pg_err(st, -EINVAL, "empty run UUID");
	if (at && at->outcome != UL_CELL_CRASHED)
		return ul_pg_err(st, -EINVAL,
				 "the cell where run %s crashed must have outcome crashed", uuid);
	r = read_only(st);
	if (r < 0)
		return r;
	snprintf(what, sizeof(what), "cannot mark run %.40s %s in %s", uuid, ul_run_status_name(to),
		 st->name);
	r = ul_pg_begin(st, NULL, what);
	if (!r)
		r = mark_ended_tx(st, uuid, to, at, &end_ns, what);
	r = ul_pg_end(st, r, what);
	if (r < 0)
		return r;
	if (finished_wall_ns)
		*finished_wall_ns = end_ns;
	return 0;
}

int ul_pg_mark_interrupted(struct ul_store *base, const char *uuid, int64_t *finished_wall_ns)
{
	return mark_ended(base, uuid, UL_RUN_INTERRUPTED, NULL, finished_wall_ns);
}

int ul_pg_mark_crashed(struct ul_store *base, const char *uuid, const struct ul_cell *at,
		       int64_t *finished_wall_ns)
{
	return mark_ended(base, uuid, UL_RUN_CRASHED, at, finished_wall_ns);
}

/* One statement on one run UUID ($1) and maybe a text ($2): -ENOENT when no row changed. */
static int update_by_uuid(struct ul_store_pg *st, const char *sql, const char *uuid,
			  const char *text, const char *what)
{
	struct ul_pg_params p = { 0 };
	char canon[37];
	PGresult *r;
	int rc;

	/* Longer than a UUID: "", which names no run. */
	if (snprintf(canon, sizeof(canon), "%s", uuid) >= (int)sizeof(canon))
		canon[0] = '\0';
	ul_pg_text(&p, ul_uuid_canon(canon), sizeof(canon));
	if (text)
		ul_pg_text(&p, text, strlen(text));
	rc = ul_pg_run(st, sql, &p, false, &r, what);
	if (rc < 0)
		return rc;
	if (!strcmp(PQcmdTuples(r), "0"))
		rc = ul_pg_err(st, -ENOENT, "no run %s in %s", uuid, st->name);
	PQclear(r);
	return rc;
}

int ul_pg_delete_run(struct ul_store *base, const char *uuid)
{
	struct ul_store_pg *st = pg(base);
	struct ul_pg_params p = { 0 };
	struct timespec now;
	char what[UL_PG_WHAT], canon[37];
	int r = read_only(st);

	if (r < 0)
		return r;
	snprintf(what, sizeof(what), "cannot delete run %.40s in %s", uuid, st->name);
	r = ul_pg_begin(st, NULL, what);
	if (!r)
		r = update_by_uuid(st, "DELETE FROM runs WHERE uuid = $1", uuid, NULL, what);
	if (!r) {
		clock_gettime(CLOCK_REALTIME, &now);
		snprintf(canon, sizeof(canon), "%s", uuid);
		ul_pg_text(&p, ul_uuid_canon(canon), sizeof(canon));
		ul_pg_i64(&p, (int64_t)now.tv_sec * UL_NS_PER_SEC + now.tv_nsec);
		r = ul_pg_run(st,
			      "INSERT INTO deleted_runs (uuid, deleted_wall_ns) VALUES ($1, $2)"
			      " ON CONFLICT (uuid) DO UPDATE SET deleted_wall_ns ="
			      " EXCLUDED.deleted_wall_ns",
			      &p, false, NULL, what);
	}
	return ul_pg_end(st, r, what);
}

int ul_pg_relabel_run(struct ul_store *base, const char *uuid, const char *label)
{
	struct ul_store_pg *st = pg(base);
	char what[UL_PG_WHAT];
	int r = read_only(st);

	if (r < 0)
		return r;
	snprintf(what, sizeof(what), "cannot relabel run %.40s in %s", uuid, st->name);
	return update_by_uuid(st, "UPDATE runs SET label = $2 WHERE uuid = $1", uuid, label, what);
}

/* Inside import's transaction: the run found or made, its missing cells, its end. */
static int import_one(struct ul_store_pg *st, const struct ul_run *given, bool *changed,
		      const char *what)
{
	struct ul_run canon = *given; /* shallow: the same cells, the UUID in its stored form */
	struct ul_pg_params p = { 0 };
	bool running = false, added;
	int64_t id = 0;
	int rc;

	*changed = false;
	ul_uuid_canon(canon.uuid);
	rc = insert_run_row(st, &canon, true, &id, what);
	if (!rc && id) {
		*changed = true;
		/* Imported by hand: no longer recorded as deleted. */
		ul_pg_text(&p, canon.uuid, sizeof(canon.uuid));
		rc = ul_pg_run(st, "DELETE FROM deleted_runs WHERE uuid = $1", &p, false, NULL,
			       what);
	} else if (!rc) {
		rc = lock_run(st, canon.uuid, &id, &running, NULL, what);
	}
	if (!rc)
		rc = put_fingerprint(st, id, canon.fingerprint, what);
	for (size_t i = 0; i < canon.n_cells && !rc; i++) {
		rc = insert_cell(st, id, &canon.cells[i], true, &added, what);
		*changed |= added;
	}
	if (rc < 0 || !running || canon.status == UL_RUN_RUNNING)
		return rc;
	*changed = true;
	return set_status(st, id, canon.status, canon.finished_wall_ns, what);
}

int ul_pg_import_runs(struct ul_store *base, const struct ul_run *runs, size_t n, size_t *inserted)
{
	struct ul_store_pg *st = pg(base);
	size_t added = 0, i;
	char what[UL_PG_WHAT];
	int r;

	for (i = 0; i < n; i++)
		if (!strcmp(ul_run_status_name(runs[i].status), "unknown") || !runs[i].uuid[0])
			return ul_pg_err(st, -EINVAL,
					 "cannot import run %zu: no UUID or an invalid status",
					 i + 1);
	r = read_only(st);
	if (r < 0)
		return r;
	snprintf(what, sizeof(what), "cannot import into %s", st->name);
	r = ul_pg_begin(st, NULL, what);
	for (i = 0; !r && i < n; i++) {
		bool one = false;

		snprintf(what, sizeof(what), "cannot import run %s into %s", runs[i].uuid,
			 st->name);
		r = import_one(st, &runs[i], &one, what);
		added += one;
	}
	r = ul_pg_end(st, r, what);
	if (r < 0)
		return r;
	if (inserted)
		*inserted = added;
	return 0;
}

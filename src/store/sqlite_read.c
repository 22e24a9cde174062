/* SPDX-License-Identifier: GPL-2.0-or-later */
/* The SQLite store's reading ops: listing, resolving references, loading runs. */
#include "core/compat.h"
#include "store/sqlite_int.h"

#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static int parse_status(struct ul_store_sqlite *st, sqlite3_stmt *s, int col, int64_t id,
			enum ul_run_status *out)
{
	const unsigned char *t = sqlite3_column_text(s, col);

	(void)st;
	(void)id;
	/* A status written by a newer version (or by hand) is shown as such;
	 * it does not make the rest of the store unreadable. */
	if (!t || ul_run_status_parse((const char *)t, out))
		*out = UL_RUN_UNKNOWN;
	return 0;
}

/* One row of S_LIST_RUNS / S_SUMMARY into rs. */
static void fill_summary(struct ul_store_sqlite *st, sqlite3_stmt *s, struct ul_run_summary *rs)
{
	memset(rs, 0, sizeof(*rs));
	rs->id = column_i64(s, 0);
	COLUMN_FIELD(s, 1, rs->uuid);
	COLUMN_FIELD(s, 2, rs->label);
	COLUMN_FIELD(s, 3, rs->hostname);
	COLUMN_FIELD(s, 4, rs->suites);
	(void)parse_status(st, s, 5, rs->id, &rs->status);
	rs->started_wall_ns = column_i64(s, 6);
	rs->n_cells = sqlite3_column_int(s, 7);
}

int ul_sq_list_runs(struct ul_store *base, struct ul_run_summary **out, size_t *n)
{
	struct ul_store_sqlite *st = sq(base);
	struct ul_run_summary *v = NULL;
	size_t len = 0, cap = 0;
	sqlite3_stmt *s;
	int rc, r = 0;

	st->base.err[0] = '\0';
	*out = NULL;
	*n = 0;
	s = ul_sq_stmt(st, S_LIST_RUNS, &rc);
	if (!s)
		return ul_sq_fail(st, rc, "cannot list runs in '%s'", st->path);
	while ((rc = sqlite3_step(s)) == SQLITE_ROW) {
		if (len == cap) {
			size_t ncap = cap ? cap * 2 : 16;
			struct ul_run_summary *nv = realloc(v, ncap * sizeof(*nv));

			if (!nv) {
				r = ul_sq_set_err(st->base.err, sizeof(st->base.err), -ENOMEM,
					    "cannot list runs in '%s': %s", st->path,
					    strerror(ENOMEM));
				goto out;
			}
			v = nv;
			cap = ncap;
		}
		fill_summary(st, s, &v[len]);
		len++;
	}
	if (rc != SQLITE_DONE)
		r = ul_sq_fail(st, rc, "cannot list runs in '%s'", st->path);
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
		s = ul_sq_stmt(st, S_LAST_RUN, &rc);
		if (!s)
			return ul_sq_fail(st, rc, "cannot find the last run in '%s'", st->path);
		rc = sqlite3_step(s);
		if (rc == SQLITE_ROW)
			*id = column_i64(s, 0);
		else if (rc != SQLITE_DONE)
			rc = ul_sq_fail(st, rc, "cannot find the last run in '%s'", st->path);
		sqlite3_reset(s);
		if (rc == SQLITE_ROW)
			return 0;
		if (rc != SQLITE_DONE)
			return rc;
		return ul_sq_set_err(err, errlen, -ENOENT, "no runs in '%s'", st->path);
	}
	if (is_digits(ref)) {
		char *end;
		long long v;

		errno = 0;
		v = strtoll(ref, &end, 10);
		if (!errno && !*end) {
			s = ul_sq_stmt(st, S_RUN_EXISTS, &rc);
			if (!s)
				return ul_sq_fail(st, rc, "cannot look up run %s in '%s'", ref, st->path);
			sqlite3_bind_int64(s, 1, v);
			rc = sqlite3_step(s);
			if (rc != SQLITE_ROW && rc != SQLITE_DONE)
				rc = ul_sq_fail(st, rc, "cannot look up run %s in '%s'", ref, st->path);
			sqlite3_reset(s);
			if (rc == SQLITE_ROW) {
				*id = v;
				return 0;
			}
			if (rc != SQLITE_DONE)
				return rc;
		}
		if (len < 4)
			return ul_sq_set_err(err, errlen, -ENOENT, "no run %s in '%s'", ref, st->path);
	} else if (!is_uuid_chars(ref)) {
		return ul_sq_set_err(err, errlen, -EINVAL,
			       "'%s' is not a run id, a UUID (prefix) or 'last'", ref);
	} else if (len < 4) {
		return ul_sq_set_err(err, errlen, -EINVAL,
			       "UUID prefix '%s' is too short (at least 4 characters)", ref);
	}
	if (len > 36)
		return ul_sq_set_err(err, errlen, -ENOENT, "no run matches '%s' in '%s'", ref, st->path);

	s = ul_sq_stmt(st, S_RUN_BY_PREFIX, &rc);
	if (!s)
		return ul_sq_fail(st, rc, "cannot look up run '%s' in '%s'", ref, st->path);
	sqlite3_bind_int(s, 1, (int)len);
	sqlite3_bind_text(s, 2, ref, (int)len, SQLITE_STATIC);
	while ((rc = sqlite3_step(s)) == SQLITE_ROW && found < 3) {
		ids[found] = column_i64(s, 0);
		COLUMN_FIELD(s, 1, uuids[found]);
		found++;
	}
	if (rc != SQLITE_ROW && rc != SQLITE_DONE) {
		rc = ul_sq_fail(st, rc, "cannot look up run '%s' in '%s'", ref, st->path);
		sqlite3_reset(s);
		return rc;
	}
	sqlite3_reset(s);
	if (found == 0)
		return ul_sq_set_err(err, errlen, -ENOENT, "no run matches '%s' in '%s'", ref, st->path);
	if (found > 1)
		return ul_sq_set_err(err, errlen, -EINVAL,
			       "run prefix '%s' is ambiguous: it matches %s (run %lld), %s (run "
			       "%lld)%s",
			       ref, uuids[0], (long long)ids[0], uuids[1], (long long)ids[1],
			       found > 2 ? " and more" : "");
	*id = ids[0];
	return 0;
}

/*
 * The samples of one series.  The stored count `expect` is only compared
 * with what is there, never trusted for an allocation (a crafted n of
 * 10^12 must not allocate 8 TB); indices must run 0, 1, 2 ... and values
 * must be integers.
 */
static int load_samples(struct ul_store_sqlite *st, int64_t series_id, struct ul_series *ser,
			int64_t expect)
{
	const char *bad = NULL;
	sqlite3_stmt *s;
	int rc;

	s = ul_sq_stmt(st, S_LOAD_SAMPLES, &rc);
	if (!s)
		return ul_sq_fail(st, rc, "cannot load series '%s' from '%s'", ser->name, st->path);
	sqlite3_bind_int64(s, 1, series_id);
	while ((rc = sqlite3_step(s)) == SQLITE_ROW) {
		if ((int64_t)ser->n >= expect)
			bad = "more samples than its count";
		else if (column_i64(s, 0) != (int64_t)ser->n)
			bad = "a gap in its sample indices";
		else if (sqlite3_column_type(s, 1) != SQLITE_INTEGER)
			bad = "a sample that is not an integer";
		else if (ul_series_push(ser, column_i64(s, 1)))
			bad = "more samples than fit in memory";
		if (bad)
			break;
	}
	sqlite3_reset(s);
	if (!bad && rc != SQLITE_DONE)
		return ul_sq_fail(st, rc, "cannot load series '%s' from '%s'", ser->name, st->path);
	if (!bad && (int64_t)ser->n != expect)
		bad = "fewer samples than its count";
	if (!bad)
		return 0;
	return ul_sq_set_err(st->base.err, sizeof(st->base.err), -EIO,
			     "series '%s' in '%s' is malformed: %s (%lld)", ser->name, st->path,
			     bad, (long long)expect);
}

/* Series (with their samples) and metrics of the stored cell `cell_id`. */
static int load_cell_data(struct ul_store_sqlite *st, int64_t cell_id, struct ul_cell *cell)
{
	sqlite3_stmt *s;
	int rc, r = 0;

	s = ul_sq_stmt(st, S_LOAD_SERIES, &rc);
	if (!s)
		return ul_sq_fail(st, rc, "cannot load cell %d from '%s'", cell->seq, st->path);
	sqlite3_bind_int64(s, 1, cell_id);
	while ((rc = sqlite3_step(s)) == SQLITE_ROW) {
		struct ul_series *ns = realloc(cell->series, (cell->n_series + 1) * sizeof(*ns));
		int64_t n = column_i64(s, 2);

		if (!ns) {
			r = ul_sq_set_err(st->base.err, sizeof(st->base.err), -ENOMEM,
				    "cannot load cell %d: %s", cell->seq, strerror(ENOMEM));
			break;
		}
		cell->series = ns;
		ns = &cell->series[cell->n_series++];
		memset(ns, 0, sizeof(*ns));
		COLUMN_FIELD(s, 1, ns->name);
		if (n < 0) {
			r = ul_sq_set_err(st->base.err, sizeof(st->base.err), -EIO,
				    "series '%s' in '%s' has a negative length", ns->name,
				    st->path);
			break;
		}
		r = load_samples(st, column_i64(s, 0), ns, n);
		if (r < 0)
			break;
	}
	if (!r && rc != SQLITE_DONE)
		r = ul_sq_fail(st, rc, "cannot load cell %d from '%s'", cell->seq, st->path);
	sqlite3_reset(s);
	if (r < 0)
		return r;

	s = ul_sq_stmt(st, S_LOAD_METRICS, &rc);
	if (!s)
		return ul_sq_fail(st, rc, "cannot load cell %d from '%s'", cell->seq, st->path);
	sqlite3_bind_int64(s, 1, cell_id);
	while ((rc = sqlite3_step(s)) == SQLITE_ROW) {
		struct ul_metric *nm = realloc(cell->metrics, (cell->n_metrics + 1) * sizeof(*nm));

		if (!nm) {
			r = ul_sq_set_err(st->base.err, sizeof(st->base.err), -ENOMEM,
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
		r = ul_sq_fail(st, rc, "cannot load cell %d from '%s'", cell->seq, st->path);
	sqlite3_reset(s);
	return r;
}

static int load_cells(struct ul_store_sqlite *st, struct ul_run *run)
{
	sqlite3_stmt *s;
	int rc, r = 0;

	s = ul_sq_stmt(st, S_LOAD_CELLS, &rc);
	if (!s)
		return ul_sq_fail(st, rc, "cannot load the cells of run %lld from '%s'",
			    (long long)run->id, st->path);
	sqlite3_bind_int64(s, 1, run->id);
	while ((rc = sqlite3_step(s)) == SQLITE_ROW) {
		struct ul_cell *c = ul_run_add_cell(run);
		const unsigned char *outcome;

		if (!c) {
			r = ul_sq_set_err(st->base.err, sizeof(st->base.err), -ENOMEM,
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
			r = ul_sq_set_err(st->base.err, sizeof(st->base.err), -EIO,
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
		r = ul_sq_fail(st, rc, "cannot load the cells of run %lld from '%s'", (long long)run->id,
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

	s = ul_sq_stmt(st, S_LOAD_RUN, &rc);
	if (!s)
		return ul_sq_fail(st, rc, "cannot load run %lld from '%s'", (long long)id, st->path);
	sqlite3_bind_int64(s, 1, id);
	rc = sqlite3_step(s);
	if (rc == SQLITE_ROW) {
		run->id = id;
		COLUMN_FIELD(s, 0, run->uuid);
		COLUMN_FIELD(s, 1, run->label);
		COLUMN_FIELD(s, 2, run->tool_version);
		COLUMN_FIELD(s, 3, run->argv);
		COLUMN_FIELD(s, 4, run->suites);
		(void)parse_status(st, s, 5, id, &run->status);
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
		r = ul_sq_set_err(st->base.err, sizeof(st->base.err), -ENOENT, "no run %lld in '%s'",
			    (long long)id, st->path);
	} else {
		r = ul_sq_fail(st, rc, "cannot load run %lld from '%s'", (long long)id, st->path);
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
int ul_sq_load_run(struct ul_store *base, const char *ref, struct ul_run *out)
{
	struct ul_store_sqlite *st = sq(base);
	int64_t id = 0;
	int rc, r;

	st->base.err[0] = '\0';
	ul_run_init(out);
	if (!ref || !*ref)
		return ul_sq_set_err(st->base.err, sizeof(st->base.err), -EINVAL, "empty run reference");
	rc = ul_sq_exec(st, S_BEGIN_READ);
	if (rc != SQLITE_OK)
		return ul_sq_fail(st, rc, "cannot read '%s'", st->path);
	r = resolve_ref(st, ref, &id);
	if (!r)
		r = load_run_row(st, id, out);
	if (!r)
		r = load_cells(st, out);
	if (!r) {
		char why[160];

		if (ul_run_validate(out, why, sizeof(why)))
			r = ul_sq_set_err(st->base.err, sizeof(st->base.err), -EIO,
					  "run %lld in '%s' is malformed: %s", (long long)id, st->path,
					  why);
	}
	if (!r) {
		rc = ul_sq_exec(st, S_COMMIT);
		if (rc != SQLITE_OK)
			r = ul_sq_fail(st, rc, "cannot read '%s'", st->path);
	}
	if (r < 0) {
		ul_sq_rollback(st);
		ul_run_release(out);
	}
	return r;
}

int ul_sq_find_run(struct ul_store *base, const char *ref, struct ul_run_summary *out)
{
	struct ul_store_sqlite *st = sq(base);
	sqlite3_stmt *s;
	int64_t id = 0;
	int rc, r;

	st->base.err[0] = '\0';
	memset(out, 0, sizeof(*out));
	if (!ref || !*ref)
		return ul_sq_set_err(st->base.err, sizeof(st->base.err), -EINVAL, "empty run reference");
	rc = ul_sq_exec(st, S_BEGIN_READ);
	if (rc != SQLITE_OK)
		return ul_sq_fail(st, rc, "cannot read '%s'", st->path);
	r = resolve_ref(st, ref, &id);
	if (!r) {
		s = ul_sq_stmt(st, S_SUMMARY, &rc);
		if (s) {
			sqlite3_bind_int64(s, 1, id);
			rc = sqlite3_step(s);
			if (rc == SQLITE_ROW)
				fill_summary(st, s, out);
			sqlite3_reset(s);
		}
		if (rc == SQLITE_DONE)
			r = ul_sq_set_err(st->base.err, sizeof(st->base.err), -ENOENT,
					  "no run %lld in '%s'", (long long)id, st->path);
		else if (rc != SQLITE_ROW)
			r = ul_sq_fail(st, rc, "cannot read run %lld in '%s'", (long long)id, st->path);
	}
	ul_sq_rollback(st);
	return r;
}

/* SPDX-License-Identifier: GPL-2.0-or-later */
/* The SQLite store's reading ops: listing, resolving references, loading runs. */
#include "core/compat.h"
#include "store/sqlite_int.h"

#include <errno.h>
#include <jansson.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* One row of S_LIST_RUNS / S_SUMMARY into rs. */
static void fill_summary(sqlite3_stmt *s, struct ul_run_summary *rs)
{
	memset(rs, 0, sizeof(*rs));
	rs->id = column_i64(s, 0);
	COLUMN_FIELD(s, 1, rs->uuid);
	COLUMN_FIELD(s, 2, rs->label);
	COLUMN_FIELD(s, 3, rs->hostname);
	COLUMN_FIELD(s, 4, rs->suites);
	rs->status = ul_sq_column_status(s, 5);
	rs->started_wall_ns = column_i64(s, 6);
	rs->n_cells = sqlite3_column_int(s, 7);
}

struct summaries {
	struct ul_run_summary *v;
	size_t n, cap;
};

static int summary_row(struct ul_store_sqlite *st, sqlite3_stmt *s, void *ctx)
{
	struct summaries *list = ctx;

	if (list->n == list->cap) {
		size_t ncap = list->cap ? list->cap * 2 : 16;
		struct ul_run_summary *nv = realloc(list->v, ncap * sizeof(*nv));

		if (!nv)
			return ul_sq_set_err(st->base.err, sizeof(st->base.err), -ENOMEM,
					     "cannot list runs in '%s': %s", st->path,
					     strerror(ENOMEM));
		list->v = nv;
		list->cap = ncap;
	}
	fill_summary(s, &list->v[list->n++]);
	return 0;
}

int ul_sq_list_runs(struct ul_store *base, struct ul_run_summary **out, size_t *n)
{
	struct ul_store_sqlite *st = sq(base);
	struct summaries list = { 0 };
	sqlite3_stmt *s;
	int rc, r;

	st->base.err[0] = '\0';
	*out = NULL;
	*n = 0;
	s = ul_sq_stmt(st, S_LIST_RUNS, &rc);
	r = ul_sq_rows(st, s, rc, summary_row, &list, "cannot list runs in '%s'", st->path);
	if (r < 0) {
		free(list.v);
		return r;
	}
	*out = list.v;
	*n = list.n;
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

/* Up to three runs a reference matched: column 0 an id, column 1 (if any) a UUID. */
struct matches {
	int found;
	int64_t ids[3];
	char uuids[3][37];
};

static int match_row(struct ul_store_sqlite *st, sqlite3_stmt *s, void *ctx)
{
	struct matches *m = ctx;

	(void)st;
	if (m->found < 3) {
		m->ids[m->found] = column_i64(s, 0);
		if (sqlite3_column_count(s) > 1)
			COLUMN_FIELD(s, 1, m->uuids[m->found]);
		m->found++;
	}
	return 0;
}

/* The run whose UUID starts with `ref` (len 4..36 UUID characters), which must be unique. */
static int resolve_prefix(struct ul_store_sqlite *st, const char *ref, size_t len, int64_t *id)
{
	struct matches m = { 0 };
	sqlite3_stmt *s;
	char canon[37];
	int rc, r;

	if (len > 36)
		return ul_sq_set_err(st->base.err, sizeof(st->base.err), -ENOENT,
				     "no run matches '%s' in '%s'", ref, st->path);
	s = ul_sq_stmt_key(st, S_RUN_BY_PREFIX, (int64_t)len, &rc);
	if (s)
		sqlite3_bind_text(s, 2, ul_sq_uuid(ref, canon), (int)len, SQLITE_STATIC);
	r = ul_sq_rows(st, s, rc, match_row, &m, "cannot look up run '%s' in '%s'", ref, st->path);
	if (r < 0)
		return r;
	if (m.found == 0)
		return ul_sq_set_err(st->base.err, sizeof(st->base.err), -ENOENT,
				     "no run matches '%s' in '%s'", ref, st->path);
	if (m.found > 1)
		return ul_sq_set_err(
			st->base.err, sizeof(st->base.err), -EINVAL,
			"run prefix '%s' is ambiguous: it matches %s (run %lld), %s (run "
			"%lld)%s",
			ref, m.uuids[0], (long long)m.ids[0], m.uuids[1], (long long)m.ids[1],
			m.found > 2 ? " and more" : "");
	*id = m.ids[0];
	return 0;
}

/* The most recent run; -ENOENT when there is none. */
static int find_last(struct ul_store_sqlite *st, int64_t *id)
{
	struct matches m = { 0 };
	sqlite3_stmt *s;
	int rc, r;

	s = ul_sq_stmt(st, S_LAST_RUN, &rc);
	r = ul_sq_rows(st, s, rc, match_row, &m, "cannot find the last run in '%s'", st->path);
	if (!r && !m.found)
		r = ul_sq_set_err(st->base.err, sizeof(st->base.err), -ENOENT, "no runs in '%s'",
				  st->path);
	if (!r)
		*id = m.ids[0];
	return r;
}

/* The run whose id is `ref` (all digits): 1 when it exists (*id set), 0 when not, or an error. */
static int find_id(struct ul_store_sqlite *st, const char *ref, int64_t *id)
{
	struct matches m = { 0 };
	sqlite3_stmt *s;
	long long v;
	char *end;
	int rc, r;

	errno = 0;
	v = strtoll(ref, &end, 10);
	if (errno || *end)
		return 0;
	s = ul_sq_stmt_key(st, S_RUN_EXISTS, v, &rc);
	r = ul_sq_rows(st, s, rc, match_row, &m, "cannot look up run %s in '%s'", ref, st->path);
	if (r < 0)
		return r;
	if (m.found)
		*id = v;
	return m.found > 0;
}

/*
 * Resolve `ref` (a "run:" prefix is dropped) to a run id, inside the
 * caller's read transaction.  Order: "last"; all digits = a numeric id if
 * such a run exists; otherwise a UUID prefix of at least 4 characters,
 * matched case-insensitively, which must be unique.  Returns 0 or a
 * negative errno with err filled.
 */
static int resolve_ref(struct ul_store_sqlite *st, const char *ref, int64_t *id)
{
	char *err = st->base.err;
	size_t errlen, len;
	int r;

	/* "run:REF" says REF is a run, not a label (cmd/names.c); here it is one anyway. */
	if (!strncmp(ref, "run:", 4))
		ref += 4;
	errlen = sizeof(st->base.err);
	len = strlen(ref);
	if (!strcmp(ref, "last"))
		return find_last(st, id);
	if (is_digits(ref)) {
		r = find_id(st, ref, id);
		if (r)
			return r < 0 ? r : 0;
		if (len < 4)
			return ul_sq_set_err(err, errlen, -ENOENT, "no run %s in '%s'", ref,
					     st->path);
	} else if (!is_uuid_chars(ref)) {
		return ul_sq_set_err(err, errlen, -EINVAL,
				     "'%s' is not a run id, a UUID (prefix) or 'last'", ref);
	} else if (len < 4) {
		return ul_sq_set_err(err, errlen, -EINVAL,
				     "UUID prefix '%s' is too short (at least 4 characters)", ref);
	}
	return resolve_prefix(st, ref, len, id);
}

struct samples {
	struct ul_series *ser;
	int64_t expect;	 /* the stored count */
	const char *bad; /* what is wrong with the rows */
	bool oom;	 /* they did not fit in memory */
};

static int sample_row(struct ul_store_sqlite *st, sqlite3_stmt *s, void *ctx)
{
	struct samples *x = ctx;

	(void)st;
	if ((int64_t)x->ser->n >= x->expect)
		x->bad = "more samples than its count";
	else if (column_i64(s, 0) != (int64_t)x->ser->n)
		x->bad = "a gap in its sample indices";
	else if (sqlite3_column_type(s, 1) != SQLITE_INTEGER)
		x->bad = "a sample that is not an integer";
	else if (ul_series_push(x->ser, column_i64(s, 1)))
		x->oom = true; /* nothing wrong with the store */
	return x->oom ? -ENOMEM : x->bad ? -EIO : 0;
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
	struct samples x = { .ser = ser, .expect = expect };
	sqlite3_stmt *s;
	int rc, r;

	s = ul_sq_stmt_key(st, S_LOAD_SAMPLES, series_id, &rc);
	r = ul_sq_rows(st, s, rc, sample_row, &x, "cannot load series '%s' from '%s'", ser->name,
		       st->path);
	if (x.oom)
		return ul_sq_set_err(st->base.err, sizeof(st->base.err), -ENOMEM,
				     "cannot load series '%s' from '%s': out of memory", ser->name,
				     st->path);
	if (r < 0 && !x.bad)
		return r;
	if (!x.bad && (int64_t)ser->n != expect)
		x.bad = "fewer samples than its count";
	if (!x.bad)
		return 0;
	return ul_sq_set_err(st->base.err, sizeof(st->base.err), -EIO,
			     "series '%s' in '%s' is malformed: %s (%lld)", ser->name, st->path,
			     x.bad, (long long)expect);
}

/* realloc(v, (n + 1) * size) with the new last element zeroed; NULL (v kept) without memory. */
static void *grow_zeroed(void *v, size_t n, size_t size)
{
	char *nv = realloc(v, (n + 1) * size);

	if (nv)
		memset(nv + n * size, 0, size);
	return nv;
}

static int cell_no_memory(struct ul_store_sqlite *st, const struct ul_cell *cell)
{
	return ul_sq_set_err(st->base.err, sizeof(st->base.err), -ENOMEM, "cannot load cell %d: %s",
			     cell->seq, strerror(ENOMEM));
}

/* A new series at the end of the cell, named by column col of s; NULL without memory. */
static struct ul_series *add_series(struct ul_store_sqlite *st, struct ul_cell *cell,
				    sqlite3_stmt *s, int col)
{
	struct ul_series *v = grow_zeroed(cell->series, cell->n_series, sizeof(*v)), *ser;

	if (!v) {
		cell_no_memory(st, cell);
		return NULL;
	}
	cell->series = v;
	ser = &v[cell->n_series++];
	COLUMN_FIELD(s, col, ser->name);
	return ser;
}

/* A row of S_LOAD_PACKED: a series with its values, in one BLOB. */
static int packed_row(struct ul_store_sqlite *st, sqlite3_stmt *s, void *ctx)
{
	struct ul_series *ser = add_series(st, ctx, s, 0);
	int64_t n = column_i64(s, 1);
	const char *bad;
	int r;

	if (!ser)
		return -ENOMEM;
	r = ul_sq_column_series(s, 2, n, ser, &bad);
	if (r == -ENOMEM)
		return ul_sq_set_err(st->base.err, sizeof(st->base.err), -ENOMEM,
				     "cannot load series '%s' from '%s': out of memory", ser->name,
				     st->path);
	if (!r)
		return 0;
	return ul_sq_set_err(st->base.err, sizeof(st->base.err), -EIO,
			     "series '%s' in '%s' is malformed: %s (%lld)", ser->name, st->path,
			     bad, (long long)n);
}

/* A row of S_LOAD_SERIES (a store before version 4): the series, then its samples. */
static int series_row(struct ul_store_sqlite *st, sqlite3_stmt *s, void *ctx)
{
	struct ul_series *ser = add_series(st, ctx, s, 1);
	int64_t n = column_i64(s, 2);

	if (!ser)
		return -ENOMEM;
	if (n < 0)
		return ul_sq_set_err(st->base.err, sizeof(st->base.err), -EIO,
				     "series '%s' in '%s' has a negative length", ser->name,
				     st->path);
	return load_samples(st, column_i64(s, 0), ser, n);
}

static int metric_row(struct ul_store_sqlite *st, sqlite3_stmt *s, void *ctx)
{
	struct ul_cell *cell = ctx;
	struct ul_metric *v = grow_zeroed(cell->metrics, cell->n_metrics, sizeof(*v)), *m;

	if (!v)
		return cell_no_memory(st, cell);
	cell->metrics = v;
	m = &v[cell->n_metrics++];
	COLUMN_FIELD(s, 0, m->name);
	/* NULL is how a NaN was stored (see the schema). */
	m->value = sqlite3_column_type(s, 1) == SQLITE_NULL ? NAN : sqlite3_column_double(s, 1);
	return 0;
}

/* A row of S_LOAD_CELLS: the cell, then its series and metrics. */
static int cell_row(struct ul_store_sqlite *st, sqlite3_stmt *s, void *ctx)
{
	struct ul_run *run = ctx;
	struct ul_cell *c = ul_run_add_cell(run);
	int64_t cell_id = column_i64(s, 0);
	int col = 1, bad, rc, r;

	if (!c)
		return ul_sq_set_err(st->base.err, sizeof(st->base.err), -ENOMEM,
				     "cannot load run %lld: %s", (long long)run->id,
				     strerror(ENOMEM));
	bad = ul_sq_column_fields(s, &col, c, &ul_json_cell_table);
	if (bad) {
		const unsigned char *outcome = sqlite3_column_text(s, bad);

		return ul_sq_set_err(st->base.err, sizeof(st->base.err), -EIO,
				     "cell %d of run %lld in '%s' has an unknown outcome '%s'",
				     c->seq, (long long)run->id, st->path,
				     outcome ? (const char *)outcome : "");
	}
	if (st->version >= UL_SQ_PACKED_SINCE) {
		s = ul_sq_stmt_key(st, S_LOAD_PACKED, cell_id, &rc);
		r = ul_sq_rows(st, s, rc, packed_row, c, "cannot load cell %d from '%s'", c->seq,
			       st->path);
	} else {
		s = ul_sq_stmt_key(st, S_LOAD_SERIES, cell_id, &rc);
		r = ul_sq_rows(st, s, rc, series_row, c, "cannot load cell %d from '%s'", c->seq,
			       st->path);
	}
	if (r < 0)
		return r;
	s = ul_sq_stmt_key(st, S_LOAD_METRICS, cell_id, &rc);
	return ul_sq_rows(st, s, rc, metric_row, c, "cannot load cell %d from '%s'", c->seq,
			  st->path);
}

static int run_row(struct ul_store_sqlite *st, sqlite3_stmt *s, void *run)
{
	int col = 0;

	(void)st;
	(void)ul_sq_column_fields(s, &col, run, &ul_json_run_table); /* a run has no outcome */
	return 0;
}

static int summary_one_row(struct ul_store_sqlite *st, sqlite3_stmt *s, void *rs)
{
	(void)st;
	fill_summary(s, rs);
	return 0;
}

/* A lookup of one row: fill() puts it in dst; found says whether it came. */
struct one_row {
	ul_sq_row_fn *fill;
	void *dst;
	bool found;
};

static int one_row_fn(struct ul_store_sqlite *st, sqlite3_stmt *s, void *ctx)
{
	struct one_row *one = ctx;

	one->found = true;
	return one->fill(st, s, one->dst);
}

/* The row of run `id` that statement `sid` gives, into dst; -ENOENT without one. */
static int run_lookup(struct ul_store_sqlite *st, enum stmt_id sid, int64_t id, ul_sq_row_fn *fill,
		      void *dst, const char *verb, const char *prep)
{
	struct one_row one = { .fill = fill, .dst = dst };
	sqlite3_stmt *s;
	int rc, r;

	s = ul_sq_stmt_key(st, sid, id, &rc);
	r = ul_sq_rows(st, s, rc, one_row_fn, &one, "cannot %s run %lld %s '%s'", verb,
		       (long long)id, prep, st->path);
	if (!r && !one.found)
		r = ul_sq_set_err(st->base.err, sizeof(st->base.err), -ENOENT,
				  "no run %lld in '%s'", (long long)id, st->path);
	return r;
}

/* The fingerprint's row: a JSON object, checked like any input read. */
static int fingerprint_row(struct ul_store_sqlite *st, sqlite3_stmt *s, void *ctx)
{
	struct ul_run *run = ctx;
	const char *text = (const char *)sqlite3_column_text(s, 0);
	json_error_t jerr;
	json_t *fp = text ? json_loads(text, JSON_REJECT_DUPLICATES, &jerr) : NULL;

	if (!json_is_object(fp)) {
		json_decref(fp);
		return ul_sq_set_err(st->base.err, sizeof(st->base.err), -EIO,
				     "the fingerprint of run %lld in '%s' is not a JSON object",
				     (long long)run->id, st->path);
	}
	json_decref(run->fingerprint);
	run->fingerprint = fp;
	return 0;
}

/* The run row `id`, its fingerprint (none in a store older than them) and its cells. */
static int load_run_rows(struct ul_store_sqlite *st, int64_t id, struct ul_run *run)
{
	sqlite3_stmt *s;
	int rc, r;

	r = run_lookup(st, S_LOAD_RUN, id, run_row, run, "load", "from");
	if (r < 0)
		return r;
	run->id = id;
	if (st->version >= UL_SQ_FINGERPRINT_SINCE) {
		s = ul_sq_stmt_key(st, S_LOAD_FINGERPRINT, id, &rc);
		r = ul_sq_rows(st, s, rc, fingerprint_row, run,
			       "cannot load the fingerprint of run %lld from '%s'", (long long)id,
			       st->path);
		if (r < 0)
			return r;
	}
	s = ul_sq_stmt_key(st, S_LOAD_CELLS, id, &rc);
	return ul_sq_rows(st, s, rc, cell_row, run, "cannot load the cells of run %lld from '%s'",
			  (long long)id, st->path);
}

/* Open the read transaction and resolve ref in it; on failure nothing is left open. */
static int begin_resolve(struct ul_store_sqlite *st, const char *ref, int64_t *id)
{
	int rc, r;

	st->base.err[0] = '\0';
	if (!ref || !*ref)
		return ul_sq_set_err(st->base.err, sizeof(st->base.err), -EINVAL,
				     "empty run reference");
	rc = ul_sq_exec(st, S_BEGIN_READ);
	if (rc != SQLITE_OK)
		return ul_sq_fail(st, rc, "cannot read '%s'", st->path);
	r = resolve_ref(st, ref, id);
	if (r < 0)
		ul_sq_rollback(st);
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

	ul_run_init(out);
	r = begin_resolve(st, ref, &id);
	if (r < 0)
		return r;
	r = load_run_rows(st, id, out);
	if (!r) {
		char why[160];

		if (ul_run_validate(out, why, sizeof(why)))
			r = ul_sq_set_err(st->base.err, sizeof(st->base.err), -EIO,
					  "run %lld in '%s' is malformed: %s", (long long)id,
					  st->path, why);
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
	int64_t id = 0;
	int r;

	memset(out, 0, sizeof(*out));
	r = begin_resolve(st, ref, &id);
	if (r < 0)
		return r;
	r = run_lookup(st, S_SUMMARY, id, summary_one_row, out, "read", "in");
	ul_sq_rollback(st);
	return r;
}

/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * The PostgreSQL store's reading ops: listing, resolving references,
 * loading runs.  A run is read in one REPEATABLE READ transaction (a
 * consistent snapshot while other machines add cells), its series in one
 * statement for the whole run, packed (store/series_pack.h), in binary.
 */
#include "core/compat.h"
#include "store/pg_int.h"
#include "store/series_pack.h"

#include <endian.h>
#include <errno.h>
#include <jansson.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* What `list` shows of a run (fill_summary() reads the columns in this order). */
#define SUMMARY_SELECT                                                                             \
	"SELECT r.id, r.uuid, r.label, r.host_name, r.suites, r.status, r.started_wall_ns,"        \
	" (SELECT count(*) FROM cells c WHERE c.run_id = r.id) FROM runs r"
#define SNAPSHOT "ISOLATION LEVEL REPEATABLE READ READ ONLY"

static void fill_summary(const PGresult *r, int row, struct ul_run_summary *rs)
{
	memset(rs, 0, sizeof(*rs));
	rs->id = ul_pg_i64_at(r, row, 0);
	ul_pg_copy_text(PQgetvalue(r, row, 1), rs->uuid, sizeof(rs->uuid));
	ul_pg_copy_text(PQgetvalue(r, row, 2), rs->label, sizeof(rs->label));
	ul_pg_copy_text(PQgetvalue(r, row, 3), rs->hostname, sizeof(rs->hostname));
	ul_pg_copy_text(PQgetvalue(r, row, 4), rs->suites, sizeof(rs->suites));
	if (ul_run_status_parse(PQgetvalue(r, row, 5), &rs->status))
		rs->status = UL_RUN_UNKNOWN;
	rs->started_wall_ns = ul_pg_i64_at(r, row, 6);
	rs->n_cells = (int)ul_pg_i64_at(r, row, 7);
}

int ul_pg_list_runs(struct ul_store *base, struct ul_run_summary **out, size_t *n)
{
	struct ul_store_pg *st = pg(base);
	char what[UL_PG_WHAT];
	PGresult *r;
	int rc;

	st->base.err[0] = '\0';
	*out = NULL;
	*n = 0;
	snprintf(what, sizeof(what), "cannot list runs in %s", st->name);
	rc = ul_pg_ready(st);
	if (!rc)
		rc = ul_pg_run(st, SUMMARY_SELECT " ORDER BY r.started_wall_ns DESC, r.id DESC",
			       NULL, false, &r, what);
	if (rc < 0)
		return rc;
	if (PQntuples(r)) {
		*out = calloc((size_t)PQntuples(r), sizeof(**out));
		if (!*out) {
			PQclear(r);
			return ul_pg_err(st, -ENOMEM, "%s: %s", what, strerror(ENOMEM));
		}
	}
	for (int i = 0; i < PQntuples(r); i++)
		fill_summary(r, i, &(*out)[i]);
	*n = (size_t)PQntuples(r);
	PQclear(r);
	return 0;
}

static bool all_of(const char *p, const char *set)
{
	return *p && strspn(p, set) == strlen(p);
}

/* Up to three run ids (and UUIDs) a lookup gave; 0 or an error. */
static int lookup(struct ul_store_pg *st, const char *sql, struct ul_pg_params *p, int *found,
		  int64_t ids[2], char uuids[2][37], const char *what)
{
	PGresult *r;
	int rc = ul_pg_run(st, sql, p, false, &r, what);

	if (rc < 0)
		return rc;
	*found = PQntuples(r);
	for (int i = 0; i < *found && i < 2; i++) {
		ids[i] = ul_pg_i64_at(r, i, 0);
		if (PQnfields(r) > 1)
			ul_pg_copy_text(PQgetvalue(r, i, 1), uuids[i], 37);
	}
	PQclear(r);
	return 0;
}

/* "last", a numeric id, or a unique UUID prefix (4..36 characters), as the SQLite store does. */
static int resolve_ref(struct ul_store_pg *st, const char *ref, int64_t *id)
{
	char uuids[2][37] = { "", "" }, what[UL_PG_WHAT], canon[37];
	struct ul_pg_params p = { 0 };
	int64_t ids[2] = { 0, 0 };
	size_t len;
	int found = 0, rc;

	if (!strncmp(ref, "run:", 4))
		ref += 4;
	len = strlen(ref);
	/* ref is never NULL; gcc 12 with the sanitizers thinks it may be
	 * (a -Wformat-truncation false positive that fails the ASan build). */
	snprintf(what, sizeof(what), "cannot look up run '%.60s' in %s", ref ? ref : "", st->name);
	if (!strcmp(ref, "last")) {
		rc = lookup(st,
			    "SELECT id FROM runs ORDER BY started_wall_ns DESC, id DESC LIMIT 1",
			    NULL, &found, ids, uuids, what);
		if (!rc && !found)
			rc = ul_pg_err(st, -ENOENT, "no runs in %s", st->name);
		*id = ids[0];
		return rc;
	}
	if (all_of(ref, "0123456789") && len < 19) {
		ul_pg_i64(&p, strtoll(ref, NULL, 10));
		rc = lookup(st, "SELECT id FROM runs WHERE id = $1", &p, &found, ids, uuids, what);
		if (rc < 0 || found) {
			*id = ids[0];
			return rc;
		}
		if (len < 4)
			return ul_pg_err(st, -ENOENT, "no run %s in %s", ref, st->name);
	} else if (!all_of(ref, "0123456789abcdefABCDEF-")) {
		return ul_pg_err(st, -EINVAL, "'%.60s' is not a run id, a UUID (prefix) or 'last'",
				 ref);
	} else if (len < 4) {
		return ul_pg_err(st, -EINVAL,
				 "UUID prefix '%s' is too short (at least 4 characters)", ref);
	}
	if (len > 36)
		return ul_pg_err(st, -ENOENT, "no run matches '%.60s' in %s", ref, st->name);
	snprintf(canon, sizeof(canon), "%s", ref);
	ul_pg_text(&p, ul_uuid_canon(canon), sizeof(canon));
	/* starts_with: a prefix holds no LIKE wildcard to escape. */
	rc = lookup(st, "SELECT id, uuid FROM runs WHERE starts_with(uuid, $1) ORDER BY id LIMIT 3",
		    &p, &found, ids, uuids, what);
	if (rc < 0)
		return rc;
	if (!found)
		return ul_pg_err(st, -ENOENT, "no run matches '%s' in %s", ref, st->name);
	if (found > 1)
		return ul_pg_err(st, -EINVAL,
				 "run prefix '%s' is ambiguous: it matches %s (run %lld), %s (run "
				 "%lld)%s",
				 ref, uuids[0], (long long)ids[0], uuids[1], (long long)ids[1],
				 found > 2 ? " and more" : "");
	*id = ids[0];
	return 0;
}

/* Rows of `sql` about run id ($1) in *r; binary results when asked. */
static int run_rows(struct ul_store_pg *st, const char *sql, int64_t id, bool binary, PGresult **r,
		    const char *what)
{
	struct ul_pg_params p = { 0 };

	ul_pg_i64(&p, id);
	return ul_pg_run(st, sql, &p, binary, r, what);
}

static int malformed(struct ul_store_pg *st, int64_t id, const char *why)
{
	return ul_pg_err(st, -EIO, "run %lld in %s is malformed: %s", (long long)id, st->name, why);
}

/* The run row and its fingerprint (a JSON object, checked like any input read). */
static int load_head(struct ul_store_pg *st, int64_t id, struct ul_run *run, const char *what)
{
	json_error_t jerr;
	PGresult *r;
	int col = 0;
	int rc = run_rows(st, "SELECT " PG_RUN_COLUMNS " FROM runs WHERE id = $1", id, false, &r,
			  what);

	if (rc < 0)
		return rc;
	if (!PQntuples(r)) {
		PQclear(r);
		return ul_pg_err(st, -ENOENT, "no run %lld in %s", (long long)id, st->name);
	}
	(void)ul_pg_get_fields(r, 0, &col, run, &ul_json_run_table); /* a run has no outcome */
	run->id = id;
	PQclear(r);
	if (st->version < UL_PG_FINGERPRINT_SINCE)
		return 0;
	rc = run_rows(st, "SELECT json FROM run_fingerprints WHERE run_id = $1", id, false, &r,
		      what);
	if (rc < 0 || !PQntuples(r)) {
		PQclear(r);
		return rc;
	}
	run->fingerprint = json_loads(PQgetvalue(r, 0, 0), JSON_REJECT_DUPLICATES, &jerr);
	PQclear(r);
	if (!json_is_object(run->fingerprint))
		return malformed(st, id, "its fingerprint is not a JSON object");
	return 0;
}

/* The cells, in seq order; ids[i] is the stored id of run->cells[i] (malloc'ed). */
static int load_cells(struct ul_store_pg *st, int64_t id, struct ul_run *run, int64_t **ids,
		      const char *what)
{
	PGresult *r;
	int rc = run_rows(st,
			  "SELECT id, " PG_CELL_COLUMNS
			  " FROM cells WHERE run_id = $1 ORDER BY seq",
			  id, false, &r, what);

	*ids = NULL;
	if (rc < 0)
		return rc;
	*ids = malloc(((size_t)PQntuples(r) + 1) * sizeof(**ids));
	for (int i = 0; *ids && i < PQntuples(r) && !rc; i++) {
		struct ul_cell *c = ul_run_add_cell(run);
		int col = 1, bad;

		if (!c)
			break;
		(*ids)[i] = ul_pg_i64_at(r, i, 0);
		bad = ul_pg_get_fields(r, i, &col, c, &ul_json_cell_table);
		if (bad)
			rc = ul_pg_err(st, -EIO,
				       "cell %d of run %lld in %s has an unknown outcome '%s'",
				       c->seq, (long long)id, st->name, PQgetvalue(r, i, bad));
	}
	if (!rc && (!*ids || run->n_cells != (size_t)PQntuples(r)))
		rc = ul_pg_err(st, -ENOMEM, "%s: %s", what, strerror(ENOMEM));
	PQclear(r);
	return rc;
}

/* The index of the cell whose id is cell_id, searching from *at on (rows come in cell order). */
static struct ul_cell *cell_of(struct ul_run *run, const int64_t *ids, size_t *at, int64_t cell_id)
{
	while (*at < run->n_cells && ids[*at] != cell_id)
		++*at;
	return *at < run->n_cells ? &run->cells[*at] : NULL;
}

static int64_t be64_at(const PGresult *r, int row, int col)
{
	uint64_t be = 0;

	if (PQgetlength(r, row, col) == sizeof(be))
		memcpy(&be, PQgetvalue(r, row, col), sizeof(be));
	return (int64_t)be64toh(be);
}

/* Every series of the run in one statement, binary: cell id, name, n, packed data. */
static int load_series(struct ul_store_pg *st, int64_t id, struct ul_run *run, const int64_t *ids,
		       const char *what)
{
	PGresult *r;
	size_t at = 0;
	int rc = run_rows(st,
			  "SELECT s.cell_id, s.name, s.n, s.packed FROM series s"
			  " JOIN cells c ON c.id = s.cell_id WHERE c.run_id = $1"
			  " ORDER BY c.seq, s.pos",
			  id, true, &r, what);

	for (int i = 0; !rc && i < PQntuples(r); i++) {
		struct ul_cell *c = cell_of(run, ids, &at, be64_at(r, i, 0));
		struct ul_series *s;
		char name[UL_NAME_LEN];
		size_t len = (size_t)PQgetlength(r, i, 3);
		int64_t n = be64_at(r, i, 2);

		if (!c) {
			rc = malformed(st, id, "a series out of its cells' order");
			break;
		}
		ul_pg_copy_text(PQgetvalue(r, i, 1), name,
				sizeof(name)); /* NUL-ended in binary too */
		s = ul_cell_add_series(c, name);
		if (!s)
			rc = ul_pg_err(st, -ENOMEM, "%s: %s", what, strerror(ENOMEM));
		else if (n < 0 || n > (int64_t)len || ul_series_packed_len((size_t)n) != len)
			rc = malformed(st, id, "a series whose length is not its count");
		else if (ul_series_unpack(PQgetvalue(r, i, 3), len, s))
			rc = ul_pg_err(st, -ENOMEM, "%s: %s", what, strerror(ENOMEM));
	}
	PQclear(r);
	return rc;
}

/* Every metric of the run in one statement; NULL is how a NaN was stored. */
static int load_metrics(struct ul_store_pg *st, int64_t id, struct ul_run *run, const int64_t *ids,
			const char *what)
{
	PGresult *r;
	size_t at = 0;
	int rc = run_rows(st,
			  "SELECT m.cell_id, m.name, m.value FROM metrics m"
			  " JOIN cells c ON c.id = m.cell_id WHERE c.run_id = $1"
			  " ORDER BY c.seq, m.pos",
			  id, false, &r, what);

	for (int i = 0; !rc && i < PQntuples(r); i++) {
		struct ul_cell *c = cell_of(run, ids, &at, ul_pg_i64_at(r, i, 0));
		char name[UL_NAME_LEN];

		if (!c) {
			rc = malformed(st, id, "a metric out of its cells' order");
			break;
		}
		ul_pg_copy_text(PQgetvalue(r, i, 1), name, sizeof(name));
		if (ul_cell_add_metric(c, name,
				       PQgetisnull(r, i, 2) ? NAN
							    : strtod(PQgetvalue(r, i, 2), NULL)))
			rc = ul_pg_err(st, -ENOMEM, "%s: %s", what, strerror(ENOMEM));
	}
	PQclear(r);
	return rc;
}

static int load_tx(struct ul_store_pg *st, int64_t id, struct ul_run *run)
{
	char what[UL_PG_WHAT], why[160];
	int64_t *ids = NULL;
	int rc;

	snprintf(what, sizeof(what), "cannot load run %lld from %s", (long long)id, st->name);
	rc = load_head(st, id, run, what);
	if (!rc)
		rc = load_cells(st, id, run, &ids, what);
	if (!rc)
		rc = load_series(st, id, run, ids, what);
	if (!rc)
		rc = load_metrics(st, id, run, ids, what);
	free(ids);
	if (!rc && ul_run_validate(run, why, sizeof(why)))
		rc = malformed(st, id, why);
	return rc;
}

/* The snapshot opened and ref resolved in it; on failure nothing is left open. */
static int begin_resolve(struct ul_store_pg *st, const char *ref, int64_t *id)
{
	int rc;

	st->base.err[0] = '\0';
	if (!ref || !*ref)
		return ul_pg_err(st, -EINVAL, "empty run reference");
	rc = ul_pg_begin(st, SNAPSHOT, "cannot read the PostgreSQL store");
	if (!rc)
		rc = resolve_ref(st, ref, id);
	if (rc < 0)
		ul_pg_rollback(st);
	return rc;
}

int ul_pg_load_run(struct ul_store *base, const char *ref, struct ul_run *out)
{
	struct ul_store_pg *st = pg(base);
	int64_t id = 0;
	int rc;

	ul_run_init(out);
	rc = begin_resolve(st, ref, &id);
	if (!rc)
		rc = load_tx(st, id, out);
	rc = ul_pg_end(st, rc, "cannot read the PostgreSQL store");
	if (rc < 0)
		ul_run_release(out);
	return rc;
}

int ul_pg_find_run(struct ul_store *base, const char *ref, struct ul_run_summary *out)
{
	struct ul_store_pg *st = pg(base);
	char what[UL_PG_WHAT];
	int64_t id = 0;
	PGresult *r;
	int rc;

	memset(out, 0, sizeof(*out));
	rc = begin_resolve(st, ref, &id);
	if (rc < 0)
		return rc;
	snprintf(what, sizeof(what), "cannot read run %lld in %s", (long long)id, st->name);
	rc = run_rows(st, SUMMARY_SELECT " WHERE r.id = $1", id, false, &r, what);
	if (!rc && PQntuples(r))
		fill_summary(r, 0, out);
	else if (!rc)
		rc = ul_pg_err(st, -ENOENT, "no run %lld in %s", (long long)id, st->name);
	PQclear(r);
	ul_pg_rollback(st);
	return rc;
}

int ul_pg_was_deleted(struct ul_store *base, const char *uuid)
{
	struct ul_store_pg *st = pg(base);
	struct ul_pg_params p = { 0 };
	char canon[37], what[UL_PG_WHAT];
	PGresult *r;
	int rc = ul_pg_ready(st);

	if (rc < 0)
		return rc;
	if (snprintf(canon, sizeof(canon), "%s", uuid) >= (int)sizeof(canon))
		canon[0] = '\0';
	ul_pg_text(&p, ul_uuid_canon(canon), sizeof(canon));
	snprintf(what, sizeof(what), "cannot read %s", st->name);
	rc = ul_pg_run(st, "SELECT 1 FROM deleted_runs WHERE uuid = $1", &p, false, &r, what);
	if (rc < 0)
		return rc;
	rc = PQntuples(r) > 0;
	PQclear(r);
	return rc;
}

/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Series as packed BLOBs in the SQLite store (schema version 4,
 * sqlite_v4.h): binding one for a write, reading one back, and the
 * aggregate that packs the rows of the old `samples` table in migration 4.
 */
#include "core/compat.h"
#include "store/series_pack.h"
#include "store/sqlite_int.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>

int ul_sq_bind_series(sqlite3_stmt *s, int col, const struct ul_series *ser)
{
	size_t len = ul_series_packed_len(ser->n);
	unsigned char *buf;

	/* A NULL pointer would bind SQL NULL; an empty series is x''. */
	if (!ser->n)
		return sqlite3_bind_zeroblob(s, col, 0);
	buf = malloc(len);
	if (!buf)
		return SQLITE_NOMEM;
	ul_series_pack(ser->v, ser->n, buf);
	/* SQLite owns buf from here and frees it, even when the bind fails. */
	return sqlite3_bind_blob64(s, col, buf, len, free);
}

int ul_sq_column_series(sqlite3_stmt *s, int col, int64_t expect, struct ul_series *ser,
			const char **bad)
{
	const void *blob;
	size_t len;

	*bad = NULL;
	if (sqlite3_column_type(s, col) != SQLITE_BLOB)
		*bad = "its values are not a BLOB";
	if (*bad)
		return -EIO;
	blob = sqlite3_column_blob(s, col);
	len = (size_t)sqlite3_column_bytes(s, col);
	if (!blob && len) /* SQLite could not copy it out */
		return -ENOMEM;
	if (len % sizeof(int64_t))
		*bad = "its BLOB is not a whole number of values";
	/* The count is compared with the bytes there, never used to allocate. */
	else if (expect < 0 || (uint64_t)expect != len / sizeof(int64_t))
		*bad = "its BLOB holds another number of values than its count";
	if (*bad)
		return -EIO;
	return len ? ul_series_unpack(blob, len, ser) : 0; /* whole values: -ENOMEM at worst */
}

/* ---- migration 4: ul_pack_samples(series_id, idx, value) ---- */

struct pack_rows {
	struct idx_value {
		int64_t idx, value;
	} * v;
	size_t n, cap;
	int64_t series_id;
	bool sorted;	 /* rows came in index order (the primary key's) */
	const char *bad; /* why the series cannot be packed */
};

static void pack_step(sqlite3_context *ctx, int argc, sqlite3_value **argv)
{
	struct pack_rows *p = sqlite3_aggregate_context(ctx, sizeof(*p));

	(void)argc;
	if (!p) {
		sqlite3_result_error_nomem(ctx);
		return;
	}
	if (p->bad)
		return;
	if (!p->n)
		p->sorted = true;
	p->series_id = sqlite3_value_int64(argv[0]);
	if (sqlite3_value_type(argv[1]) != SQLITE_INTEGER ||
	    sqlite3_value_type(argv[2]) != SQLITE_INTEGER) {
		p->bad = "a sample or index that is not an integer";
		return;
	}
	if (p->n == p->cap) {
		size_t cap = p->cap ? p->cap * 2 : 64;
		struct idx_value *nv = realloc(p->v, cap * sizeof(*nv));

		if (!nv) {
			p->bad = "not enough memory";
			return;
		}
		p->v = nv;
		p->cap = cap;
	}
	p->v[p->n].idx = sqlite3_value_int64(argv[1]);
	p->v[p->n].value = sqlite3_value_int64(argv[2]);
	p->sorted = p->sorted && (!p->n || p->v[p->n].idx > p->v[p->n - 1].idx);
	p->n++;
}

static int by_idx(const void *a, const void *b)
{
	const struct idx_value *x = a, *y = b;

	return (x->idx > y->idx) - (x->idx < y->idx);
}

/* The values in index order, packed; the indices must be 0, 1, 2 ... */
static const char *pack_rows(struct pack_rows *p, unsigned char **out)
{
	if (!p->sorted)
		qsort(p->v, p->n, sizeof(*p->v), by_idx);
	for (size_t i = 0; i < p->n; i++)
		if (p->v[i].idx != (int64_t)i)
			return "a gap in its sample indices";
	*out = malloc(ul_series_packed_len(p->n));
	if (!*out)
		return "not enough memory";
	for (size_t i = 0; i < p->n; i++) {
		int64_t v = p->v[i].value;

		ul_series_pack(&v, 1, *out + ul_series_packed_len(i));
	}
	return NULL;
}

static void pack_final(sqlite3_context *ctx)
{
	struct pack_rows *p = sqlite3_aggregate_context(ctx, 0);
	unsigned char *blob = NULL;
	const char *bad;
	char msg[160];

	if (!p) { /* no rows: an empty series */
		sqlite3_result_zeroblob(ctx, 0);
		return;
	}
	bad = p->bad ? p->bad : pack_rows(p, &blob);
	if (bad) {
		snprintf(msg, sizeof(msg), "series %lld cannot be packed: %s",
			 (long long)p->series_id, bad);
		sqlite3_result_error(ctx, msg, -1);
	} else {
		sqlite3_result_blob64(ctx, blob, ul_series_packed_len(p->n), free);
	}
	free(p->v);
}

int ul_sq_add_pack_function(sqlite3 *db)
{
	/* DIRECTONLY: only our own SQL can call it, never a view or trigger in the file. */
	return sqlite3_create_function_v2(db, "ul_pack_samples", 3,
					  SQLITE_UTF8 | SQLITE_DETERMINISTIC | SQLITE_DIRECTONLY,
					  NULL, NULL, pack_step, pack_final, NULL);
}

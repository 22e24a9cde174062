/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * The PostgreSQL store's connection and the helpers pg.c, pg_write.c and
 * pg_read.c share: parameters, running a statement, errors, columns.
 *
 * Passwords: never in the URI (it shows in ps, shell history and every
 * message naming the store).  libpq finds one in PGPASSWORD, ~/.pgpass
 * (PGPASSFILE) or the service file (PGSERVICEFILE, ~/.pg_service.conf)
 * named by "?service=NAME", which is how a fleet names its database.
 */
#include "core/compat.h"
#include "core/escape.h"
#include "core/log.h"
#include "store/pg_int.h"

#include <errno.h>
#include <math.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

int ul_pg_err(struct ul_store_pg *st, int code, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	ul_vwhyf(st->base.err, sizeof(st->base.err), fmt, ap);
	va_end(ap);
	return code;
}

/* The first line of msg into buf, without trailing blanks. */
static void first_line(const char *msg, char *buf, size_t len)
{
	size_t n = msg ? strcspn(msg, "\n") : 0;

	while (n && (msg[n - 1] == ' ' || msg[n - 1] == '\t' || msg[n - 1] == '\r'))
		n--;
	snprintf(buf, len, "%.*s", (int)n, n ? msg : "no reason given");
}

void ul_pg_conn_reason(PGconn *conn, char *buf, size_t len)
{
	first_line(conn ? PQerrorMessage(conn) : "out of memory", buf, len);
}

/* No NOTICE lines on stderr (e.g. "relation already exists, skipping"). */
static void quiet_notices(void *arg, const char *message)
{
	(void)arg;
	(void)message;
}

/* A password inside the URI is refused; 0, -EINVAL (unparsable) or -EPERM. */
static int check_uri(const char *uri, char *err, size_t errlen)
{
	char *why = NULL;
	PQconninfoOption *opts = PQconninfoParse(uri, &why);
	int r = 0;

	if (!opts) {
		char line[300];

		first_line(why ? why : "out of memory", line, sizeof(line));
		ul_whyf(err, errlen, "bad PostgreSQL connection string: %s", line);
		PQfreemem(why);
		return -EINVAL;
	}
	for (PQconninfoOption *o = opts; o->keyword; o++)
		if (!strcmp(o->keyword, "password") && o->val && *o->val) {
			ul_whyf(err, errlen,
				"refusing a password in the store URI (it would show in ps and "
				"shell history): put it in ~/.pgpass, a service file or PGPASSWORD");
			r = -EPERM;
		}
	PQconninfoFree(opts);
	return r;
}

int ul_pg_connect(const char *uri, PGconn **out, char *err, size_t errlen)
{
	/*
	 * Defaults before the URI (its own values win), the encoding after it.
	 * A network gone mid-statement (no reset, no answer) fails the
	 * statement within about a minute instead of TCP's quarter of an hour:
	 * keepalives while a result is awaited, a timeout on unacknowledged
	 * data.  The engine keeps the cell and carries on.
	 */
	const char *keys[] = { "connect_timeout",
			       "application_name",
			       "keepalives_idle",
			       "keepalives_interval",
			       "keepalives_count",
			       "tcp_user_timeout",
			       "dbname",
			       "client_encoding",
			       NULL };
	const char *vals[] = { "10", "underload", "30", "10", "3", "60000", uri, "UTF8", NULL };
	char reason[300];
	PGconn *conn;
	int r = check_uri(uri, err, errlen);

	*out = NULL;
	if (r < 0)
		return r;
	conn = PQconnectdbParams(keys, vals, 1);
	if (conn && PQstatus(conn) == CONNECTION_OK) {
		PQsetNoticeProcessor(conn, quiet_notices, NULL);
		*out = conn;
		return 0;
	}
	ul_pg_conn_reason(conn, reason, sizeof(reason));
	r = -EACCES;
	if (conn && PQconnectionNeedsPassword(conn))
		ul_whyf(err, errlen,
			"PostgreSQL store: the server wants a password and none was found "
			"(~/.pgpass, a service file or PGPASSWORD): %s",
			reason);
	else if (conn && PQconnectionUsedPassword(conn))
		ul_whyf(err, errlen, "PostgreSQL store: login refused: %s", reason);
	else
		r = -EIO;
	if (r == -EIO)
		ul_whyf(err, errlen, "cannot connect to the PostgreSQL store: %s", reason);
	PQfinish(conn);
	return r;
}

int ul_pg_ready(struct ul_store_pg *st)
{
	char reason[300];

	if (PQstatus(st->conn) == CONNECTION_OK)
		return 0;
	PQreset(st->conn);
	if (PQstatus(st->conn) == CONNECTION_OK)
		return 0;
	ul_pg_conn_reason(st->conn, reason, sizeof(reason));
	return ul_pg_err(st, -EIO, "lost the connection to %s: %s", st->name, reason);
}

/* ---- parameters ---- */

static void put(struct ul_pg_params *p, const char *v, int len, int fmt, char *owned)
{
	if (p->n == UL_PG_MAX_PARAMS) {
		free(owned);
		p->nomem = true;
		return;
	}
	p->v[p->n] = v;
	p->len[p->n] = len;
	p->fmt[p->n] = fmt;
	p->owned[p->n] = owned;
	p->n++;
}

void ul_pg_text(struct ul_pg_params *p, const char *s, size_t max)
{
	char *copy = strndup(s, max);

	if (!copy)
		p->nomem = true;
	put(p, copy, 0, 0, copy);
}

void ul_pg_i64(struct ul_pg_params *p, int64_t v)
{
	char *text = NULL;

	if (asprintf(&text, "%lld", (long long)v) < 0) {
		p->nomem = true;
		text = NULL;
	}
	put(p, text, 0, 0, text);
}

void ul_pg_real(struct ul_pg_params *p, double v)
{
	char *text = NULL;

	if (isnan(v)) {
		put(p, NULL, 0, 0, NULL);
		return;
	}
	if (isinf(v))
		text = strdup(v > 0 ? "Infinity" : "-Infinity");
	else if (asprintf(&text, "%.17g", v) < 0)
		text = NULL;
	if (!text)
		p->nomem = true;
	put(p, text, 0, 0, text);
}

void ul_pg_bytes(struct ul_pg_params *p, const void *b, size_t len)
{
	if (len > INT32_MAX) {
		p->nomem = true;
		return;
	}
	put(p, len ? b : "", (int)len, 1, NULL);
}

void ul_pg_clear(struct ul_pg_params *p)
{
	for (int i = 0; i < p->n; i++)
		free(p->owned[i]);
	memset(p, 0, sizeof(*p));
}

/* The fields a stored record holds: the exchange format's. */
static bool stored(const struct ul_json_field *f)
{
	return f->in & UL_JSON_EXCHANGE;
}

void ul_pg_fields(struct ul_pg_params *p, const void *base, const struct ul_json_table *t)
{
	for (size_t i = 0; i < t->n; i++) {
		const struct ul_json_field *f = &t->fields[i];
		const char *at = (const char *)base + f->off;

		if (!stored(f))
			continue;
		if (f->kind == UL_JSON_OBJECT)
			ul_pg_fields(p, at, f->sub);
		else if (f->kind == UL_JSON_STR || f->kind == UL_JSON_LIST)
			ul_pg_text(p, at, f->size);
		else if (f->kind == UL_JSON_RUN_STATUS)
			ul_pg_text(p, ul_run_status_name(*(const enum ul_run_status *)at), 64);
		else if (f->kind == UL_JSON_OUTCOME)
			ul_pg_text(p, ul_cell_outcome_name(*(const enum ul_cell_outcome *)at), 64);
		else
			ul_pg_i64(p, ul_json_get_int(f, base));
	}
}

/* ---- statements ---- */

/* The negative errno for a failed result (store.h lists the codes). */
static int result_errno(const PGresult *r)
{
	const char *state = r ? PQresultErrorField(r, PG_DIAG_SQLSTATE) : NULL;

	if (!state)
		return r ? -EIO : -ENOMEM;
	if (!strcmp(state, "23505"))
		return -EEXIST;
	if (!strcmp(state, "23503"))
		return -ENOENT;
	if (!strcmp(state, "40001") || !strcmp(state, "40P01") || !strcmp(state, "55P03"))
		return -EBUSY;
	if (!strcmp(state, "25006"))
		return -EROFS;
	if (!strcmp(state, "42501"))
		return -EACCES;
	if (!strncmp(state, "53", 2))
		return -ENOSPC;
	return -EIO;
}

int ul_pg_run(struct ul_store_pg *st, const char *sql, struct ul_pg_params *p, bool binary,
	      PGresult **res, const char *what)
{
	struct ul_pg_params none = { 0 };
	char reason[300];
	PGresult *r;
	int rc;

	if (res)
		*res = NULL;
	if (!p)
		p = &none;
	if (p->nomem) {
		ul_pg_clear(p);
		return ul_pg_err(st, -ENOMEM, "%s: %s", what, strerror(ENOMEM));
	}
	r = PQexecParams(st->conn, sql, p->n, NULL, p->v, p->len, p->fmt, binary);
	ul_pg_clear(p);
	rc = PQresultStatus(r);
	if (r && (rc == PGRES_COMMAND_OK || rc == PGRES_TUPLES_OK)) {
		if (res)
			*res = r;
		else
			PQclear(r);
		return 0;
	}
	first_line(r ? PQresultErrorMessage(r) : NULL, reason, sizeof(reason));
	if (!r || !*PQresultErrorMessage(r))
		ul_pg_conn_reason(st->conn, reason, sizeof(reason));
	/* libpq's messages start "ERROR:  "; the store's line says it is one. */
	rc = result_errno(r);
	ul_pg_err(st, rc, "%s: %s", what, !strncmp(reason, "ERROR:  ", 8) ? reason + 8 : reason);
	PQclear(r);
	return rc;
}

int ul_pg_begin(struct ul_store_pg *st, const char *mode, const char *what)
{
	char sql[100];
	int r = ul_pg_ready(st);

	if (r < 0)
		return r;
	snprintf(sql, sizeof(sql), "BEGIN%s%s", mode ? " " : "", mode ? mode : "");
	return ul_pg_run(st, sql, NULL, false, NULL, what);
}

int ul_pg_commit(struct ul_store_pg *st, const char *what)
{
	return ul_pg_run(st, "COMMIT", NULL, false, NULL, what);
}

void ul_pg_rollback(struct ul_store_pg *st)
{
	if (PQstatus(st->conn) == CONNECTION_OK && PQtransactionStatus(st->conn) != PQTRANS_IDLE)
		PQclear(PQexec(st->conn, "ROLLBACK"));
}

int ul_pg_end(struct ul_store_pg *st, int r, const char *what)
{
	if (!r)
		r = ul_pg_commit(st, what);
	if (r < 0)
		ul_pg_rollback(st);
	return r;
}

/* ---- columns ---- */

/* Like the SQLite store's text columns: see ul_utf8_copy(). */
void ul_pg_copy_text(const char *src, char *buf, size_t size)
{
	ul_utf8_copy(buf, size, src, SIZE_MAX);
}

int64_t ul_pg_i64_at(const PGresult *r, int row, int col)
{
	return PQgetisnull(r, row, col) ? 0 : strtoll(PQgetvalue(r, row, col), NULL, 10);
}

int ul_pg_get_fields(const PGresult *r, int row, int *col, void *base,
		     const struct ul_json_table *t)
{
	int bad = 0, sub;

	for (size_t i = 0; i < t->n; i++) {
		const struct ul_json_field *f = &t->fields[i];
		char *at = (char *)base + f->off;
		int c = *col;

		if (!stored(f))
			continue;
		if (f->kind == UL_JSON_OBJECT) {
			sub = ul_pg_get_fields(r, row, col, at, f->sub);
			bad = bad ? bad : sub;
			continue;
		}
		++*col;
		if (f->kind == UL_JSON_STR || f->kind == UL_JSON_LIST) {
			ul_pg_copy_text(PQgetvalue(r, row, c), at, f->size);
		} else if (f->kind == UL_JSON_RUN_STATUS) {
			/* One this program does not know reads as unknown. */
			if (ul_run_status_parse(PQgetvalue(r, row, c), (enum ul_run_status *)at))
				*(enum ul_run_status *)at = UL_RUN_UNKNOWN;
		} else if (f->kind == UL_JSON_OUTCOME) {
			if (ul_cell_outcome_parse(PQgetvalue(r, row, c),
						  (enum ul_cell_outcome *)at) &&
			    !bad)
				bad = c;
		} else {
			ul_json_set_int(f, base, ul_pg_i64_at(r, row, c));
		}
	}
	return bad;
}

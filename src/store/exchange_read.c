/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * The exchange format's reader: a JSON document from another machine (or
 * an attacker) becomes runs only when every key is there with its type and
 * range; the first problem is reported with its place ("runs[0].cells[3].
 * series[0].values[7]: expected an integer").
 */
#include "core/compat.h"
#include "core/escape.h"
#include "model/model_json.h"
#include "store/exchange.h"

#include <errno.h>
#include <jansson.h>
#include <limits.h>
#include <malloc.h>
#include <math.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

struct rd {
	char path[160]; /* where we are, for messages */
	char *why;
	size_t whylen;
	bool failed;
	bool oom; /* it failed for want of memory, not for what it read */
};

static void rd_fail(struct rd *rd, const char *key, const char *what)
{
	if (rd->failed)
		return;
	rd->failed = true;
	if (!*rd->path && !key) /* the document itself */
		snprintf(rd->why, rd->whylen, "%s", what);
	else
		snprintf(rd->why, rd->whylen, "%s%s%s: %s", rd->path, *rd->path && key ? "." : "",
			 key ? key : "", what);
}

/* Out of memory at the current place: the document may be fine. */
static void rd_oom(struct rd *rd)
{
	if (!rd->failed)
		rd->oom = true;
	rd_fail(rd, NULL, "out of memory");
}

static json_t *get(struct rd *rd, json_t *o, const char *key, json_type type)
{
	static const char *const names[] = {
		[JSON_OBJECT] = "an object", [JSON_ARRAY] = "an array",
		[JSON_STRING] = "a string",  [JSON_INTEGER] = "an integer",
		[JSON_REAL] = "a number",    [JSON_TRUE] = "a boolean",
		[JSON_FALSE] = "a boolean",  [JSON_NULL] = "null",
	};
	json_t *v = json_object_get(o, key);
	char what[48];

	if (!v) {
		rd_fail(rd, key, "missing");
		return NULL;
	}
	if (json_typeof(v) != type) {
		snprintf(what, sizeof(what), "expected %s", names[type]);
		rd_fail(rd, key, what);
		return NULL;
	}
	return v;
}

/* A string into a fixed model field: valid UTF-8, no NUL, and it must fit. */
static void rd_str(struct rd *rd, json_t *o, const char *key, char *field, size_t cap)
{
	json_t *v = get(rd, o, key, JSON_STRING);
	size_t len;

	if (!v)
		return;
	len = json_string_length(v);
	if (len >= cap || memchr(json_string_value(v), '\0', len)) {
		char what[64];

		snprintf(what, sizeof(what), "longer than %zu bytes or holds a NUL", cap - 1);
		rd_fail(rd, key, what);
		return;
	}
	memcpy(field, json_string_value(v), len + 1);
}

static int64_t rd_i64(struct rd *rd, json_t *o, const char *key, int64_t min, int64_t max)
{
	json_t *v = get(rd, o, key, JSON_INTEGER);
	json_int_t x;

	if (!v)
		return 0;
	x = json_integer_value(v);
	if (x < min || x > max) {
		rd_fail(rd, key, "out of range");
		return 0;
	}
	return (int64_t)x;
}

/* A uint64: an integer >= 0, or a decimal string for values above INT64_MAX. */
static uint64_t rd_u64(struct rd *rd, json_t *o, const char *key)
{
	json_t *v = json_object_get(o, key);
	unsigned long long x;
	char *end;

	if (v && json_is_string(v)) {
		const char *s = json_string_value(v);

		errno = 0;
		x = strtoull(s, &end, 10);
		if (*s >= '0' && *s <= '9' && !*end && !errno)
			return x;
		rd_fail(rd, key, "expected an unsigned integer");
		return 0;
	}
	return (uint64_t)rd_i64(rd, o, key, 0, INT64_MAX);
}

static double rd_real(struct rd *rd, json_t *v, const char *key)
{
	if (json_is_null(v))
		return NAN;
	if (json_is_number(v))
		return json_number_value(v);
	if (json_is_string(v) && !strcmp(json_string_value(v), "inf"))
		return INFINITY;
	if (json_is_string(v) && !strcmp(json_string_value(v), "-inf"))
		return -INFINITY;
	rd_fail(rd, key, "expected a number, null, \"inf\" or \"-inf\"");
	return NAN;
}

/* Push a path element; returns the old length to pop back to. */
static size_t rd_push(struct rd *rd, const char *key, size_t idx)
{
	size_t old = strlen(rd->path);

	snprintf(rd->path + old, sizeof(rd->path) - old, "%s%s[%zu]", old ? "." : "", key, idx);
	return old;
}

/*
 * Calls each(rd, element, ctx) for every element of the array under `key`
 * that is an object (any other is refused with `what`), with the path
 * saying which; stops at the first failure.
 */
static void rd_each(struct rd *rd, json_t *o, const char *key, const char *what,
		    void (*each)(struct rd *rd, json_t *elem, void *ctx), void *ctx)
{
	json_t *arr = get(rd, o, key, JSON_ARRAY), *x;
	size_t i;

	if (!arr || rd->failed)
		return;
	json_array_foreach (arr, i, x) {
		size_t old = rd_push(rd, key, i);

		if (!json_is_object(x))
			rd_fail(rd, NULL, what);
		else
			each(rd, x, ctx);
		if (rd->failed)
			return;
		rd->path[old] = '\0';
	}
}

/* The name of a series (or a metric): it must fit; that it is new in the
 * cell is checked once for all (ul_run_validate), not name by name. */
static const char *rd_name(struct rd *rd, json_t *name)
{
	if (json_string_length(name) >= UL_NAME_LEN) {
		rd_fail(rd, "name", "too long");
		return NULL;
	}
	return json_string_value(name);
}

static void rd_series(struct rd *rd, json_t *o, void *cell)
{
	json_t *vals, *name = get(rd, o, "name", JSON_STRING);
	struct ul_series *ser;
	const char *s;
	size_t i;
	json_t *x;

	if (!name || !(vals = get(rd, o, "values", JSON_ARRAY)) || !(s = rd_name(rd, name)))
		return;
	ser = ul_cell_add_series(cell, s);
	if (!ser) {
		rd_oom(rd);
		return;
	}
	json_array_foreach (vals, i, x) {
		if (!json_is_integer(x)) {
			rd_fail(rd, "values", "expected integers only");
			return;
		}
		if (ul_series_push(ser, json_integer_value(x))) {
			rd_oom(rd);
			return;
		}
	}
}

static void rd_metric(struct rd *rd, json_t *m, void *cell)
{
	json_t *name = get(rd, m, "name", JSON_STRING);
	json_t *value = name ? json_object_get(m, "value") : NULL;
	const char *s;

	if (!name || !value) {
		rd_fail(rd, NULL, "expected {name, value}");
		return;
	}
	s = rd_name(rd, name);
	if (s && ul_cell_add_metric(cell, s, rd_real(rd, value, "value")))
		rd_oom(rd);
}

/* The fields of `base` the table describes, as the exchange format writes them. */
static void rd_fields(struct rd *rd, json_t *o, void *base, const struct ul_json_table *t)
{
	for (size_t i = 0; i < t->n; i++) {
		const struct ul_json_field *f = &t->fields[i];
		char *p = (char *)base + f->off;
		json_t *x;

		if (!(f->in & UL_JSON_EXCHANGE))
			continue;
		switch (f->kind) {
		case UL_JSON_STR:
		case UL_JSON_LIST:
			rd_str(rd, o, f->key, p, f->size);
			break;
		case UL_JSON_INT:
		case UL_JSON_FLAGS:
		case UL_JSON_I64:
		case UL_JSON_WALL_NS:
			ul_json_set_int(f, base, rd_i64(rd, o, f->key, f->min, f->max));
			break;
		case UL_JSON_U64:
			ul_json_set_int(f, base, (int64_t)rd_u64(rd, o, f->key));
			break;
		case UL_JSON_RUN_STATUS:
			if ((x = get(rd, o, f->key, JSON_STRING)) &&
			    ul_run_status_parse(json_string_value(x), (enum ul_run_status *)p))
				rd_fail(rd, f->key, "unknown status");
			break;
		case UL_JSON_OUTCOME:
			if ((x = get(rd, o, f->key, JSON_STRING)) &&
			    ul_cell_outcome_parse(json_string_value(x), (enum ul_cell_outcome *)p))
				rd_fail(rd, f->key, "unknown outcome");
			break;
		case UL_JSON_OBJECT:
			if ((x = get(rd, o, f->key, JSON_OBJECT))) {
				size_t old = strlen(rd->path); /* "runs[0]" -> "runs[0].host" */

				snprintf(rd->path + old, sizeof(rd->path) - old, "%s%s",
					 old ? "." : "", f->key);
				rd_fields(rd, x, p, f->sub);
				rd->path[old] = '\0';
			}
			break;
		}
	}
}

static void rd_cell(struct rd *rd, json_t *o, void *run)
{
	struct ul_cell *c = ul_run_add_cell(run);

	if (!c) {
		rd_oom(rd);
		return;
	}
	rd_fields(rd, o, c, &ul_json_cell_table);
	if (rd->failed)
		return;
	rd_each(rd, o, "series", "expected an object", rd_series, c);
	rd_each(rd, o, "metrics", "expected {name, value}", rd_metric, c);
}

struct rd_runs {
	struct ul_run *v;
	size_t n, cap;
};

/* Room for one more run, grown as runs are read (not sized by the array:
 * 30M zeros there are no reason to allocate 30M runs). */
static struct ul_run *rd_new_run(struct rd *rd, struct rd_runs *runs)
{
	if (runs->n == runs->cap) {
		size_t cap = runs->cap ? runs->cap * 2 : 4;
		struct ul_run *v = realloc(runs->v, cap * sizeof(*v));

		if (!v) {
			rd_oom(rd);
			return NULL;
		}
		runs->v = v;
		runs->cap = cap;
	}
	return &runs->v[runs->n++];
}

static void rd_run(struct rd *rd, json_t *o, void *ctx)
{
	struct ul_run *run = rd_new_run(rd, ctx);
	char what[160];

	if (!run)
		return;

	ul_run_init(run);
	rd_fields(rd, o, run, &ul_json_run_table);
	if (rd->failed)
		return;
	/* The label `run --label` and `relabel` would accept, by the same check. */
	if (ul_text_check(run->label, sizeof(run->label) - 1, what, sizeof(what))) {
		rd_fail(rd, "label", what);
		return;
	}
	run->fingerprint = json_incref(json_object_get(o, "fingerprint"));
	if (run->fingerprint && !json_is_object(run->fingerprint)) {
		rd_fail(rd, "fingerprint", "expected an object");
		return;
	}
	rd_each(rd, o, "cells", "expected an object", rd_cell, run);
	if (!rd->failed && ul_run_validate(run, what, sizeof(what)))
		rd_fail(rd, NULL, what);
	ul_uuid_canon(run->uuid); /* the form the store keeps: "ABCD..." is the run "abcd..." */
}

/* The document's head: format and version, then the runs array. */
static json_t *rd_head(struct rd *rd, json_t *doc)
{
	json_t *f, *v;

	if (!json_is_object(doc)) {
		rd_fail(rd, NULL, "not an underload export (expected a JSON object)");
		return NULL;
	}
	f = json_object_get(doc, "format");
	if (!json_is_string(f) || strcmp(json_string_value(f), UL_EXCHANGE_FORMAT)) {
		rd_fail(rd, NULL,
			"not an underload export (format is not \"" UL_EXCHANGE_FORMAT "\")");
		return NULL;
	}
	v = json_object_get(doc, "format_version");
	if (!json_is_integer(v) || json_integer_value(v) != UL_EXCHANGE_VERSION) {
		char what[96];

		snprintf(what, sizeof(what),
			 "format_version %s is not supported (this underload reads %d)",
			 json_is_integer(v) ? "other than 1" : "missing or not an integer",
			 UL_EXCHANGE_VERSION);
		rd_fail(rd, NULL, what);
		return NULL;
	}
	return get(rd, doc, "runs", JSON_ARRAY);
}

void ul_exchange_free(struct ul_run *runs, size_t n)
{
	for (size_t i = 0; i < n; i++)
		ul_run_release(&runs[i]);
	free(runs);
}

/*
 * jansson's memory, counted: its allocator hooks add and subtract each
 * block's usable size, and while a document is parsed an allocation past
 * UL_EXCHANGE_MAX_TREE_BYTES more than at the start fails (jansson then
 * gives up cleanly).  A 64 MiB document of 3-byte values ("{},") would
 * otherwise take ~80 bytes a byte: 20M empty runs took 4.6 GB.
 */
static _Atomic long long tree_bytes;
static _Atomic long long tree_limit = LLONG_MAX;
static _Atomic bool tree_refused;
static _Atomic bool tree_oom; /* malloc itself failed (ulimit -v, no memory) */

static void *tree_malloc(size_t n)
{
	void *p;

	if (tree_bytes + (long long)(n > LLONG_MAX / 2 ? LLONG_MAX / 2 : n) > tree_limit) {
		tree_refused = true;
		return NULL;
	}
	p = malloc(n);
	if (p)
		tree_bytes += (long long)malloc_usable_size(p);
	else
		tree_oom = true;
	return p;
}

static void tree_free(void *p)
{
	if (p)
		tree_bytes -= (long long)malloc_usable_size(p);
	free(p);
}

static pthread_once_t tree_hooks_once = PTHREAD_ONCE_INIT;

static void tree_hooks(void)
{
	json_set_alloc_funcs(tree_malloc, tree_free);
}

/* Parse the document under the memory budget; NULL with jerr set, or
 * with *over (past the budget) or *oom (out of memory: jansson then says
 * "line -1 column -1" and nothing more). */
static json_t *load_bounded(const char *buf, size_t len, json_error_t *jerr, bool *over, bool *oom)
{
	json_t *doc;

	pthread_once(&tree_hooks_once, tree_hooks);
	tree_refused = false;
	tree_oom = false;
	tree_limit = tree_bytes + UL_EXCHANGE_MAX_TREE_BYTES;
	doc = json_loadb(buf, len, JSON_REJECT_DUPLICATES, jerr);
	tree_limit = LLONG_MAX;
	*over = !doc && tree_refused;
	*oom = !doc && tree_oom;
	return doc;
}

int ul_exchange_read_json(const char *buf, size_t len, struct ul_run **out, size_t *nout, char *why,
			  size_t whylen)
{
	struct rd rd = { .why = why, .whylen = whylen };
	struct rd_runs runs = { 0 };
	json_error_t jerr;
	json_t *doc, *arr;
	bool over, oom;

	*out = NULL;
	*nout = 0;
	if (len > UL_EXCHANGE_MAX_BYTES) {
		snprintf(why, whylen, "larger than %d MiB: export fewer runs per file",
			 (int)(UL_EXCHANGE_MAX_BYTES / UL_MiB));
		return -EINVAL;
	}
	doc = load_bounded(buf, len, &jerr, &over, &oom);
	if (!doc && over) {
		snprintf(why, whylen,
			 "too many values: parsing it would take over %d MiB of memory "
			 "(export fewer runs per file)",
			 (int)(UL_EXCHANGE_MAX_TREE_BYTES / UL_MiB));
		return -EINVAL;
	}
	if (!doc && oom) {
		snprintf(why, whylen, "out of memory while parsing it");
		return -ENOMEM;
	}
	if (!doc) {
		snprintf(why, whylen, "line %d column %d: %s", jerr.line, jerr.column,
			 ul_esc(jerr.text));
		return -EINVAL;
	}
	arr = rd_head(&rd, doc);
	if (arr)
		rd_each(&rd, doc, "runs", "expected an object", rd_run, &runs);
	json_decref(doc);
	if (rd.failed) {
		ul_exchange_free(runs.v, runs.n);
		return rd.oom ? -ENOMEM : -EINVAL;
	}
	*out = runs.v;
	*nout = runs.n;
	return 0;
}

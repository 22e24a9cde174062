/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * The exchange format's reader: a JSON document from another machine (or
 * an attacker) becomes runs only when every key is there with its type and
 * range; the first problem is reported with its place ("runs[0].cells[3].
 * series[0].values[7]: expected an integer").
 */
#include "core/compat.h"
#include "core/escape.h"
#include "store/exchange.h"

#include <errno.h>
#include <jansson.h>
#include <limits.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

struct rd {
	char path[160]; /* where we are, for messages */
	char *why;
	size_t whylen;
	bool failed;
};

static void rd_fail(struct rd *rd, const char *key, const char *what)
{
	if (rd->failed)
		return;
	rd->failed = true;
	snprintf(rd->why, rd->whylen, "%s%s%s: %s", rd->path, *rd->path && key ? "." : "",
		 key ? key : "", what);
}

static json_t *get(struct rd *rd, json_t *o, const char *key, json_type type)
{
	static const char *const names[] = {
		[JSON_OBJECT] = "an object", [JSON_ARRAY] = "an array",	  [JSON_STRING] = "a string",
		[JSON_INTEGER] = "an integer", [JSON_REAL] = "a number", [JSON_TRUE] = "a boolean",
		[JSON_FALSE] = "a boolean",	  [JSON_NULL] = "null",
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

#define RD_STR(rd, o, key, field) rd_str((rd), (o), (key), (field), sizeof(field))

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

static void rd_series(struct rd *rd, json_t *o, struct ul_cell *cell)
{
	json_t *vals, *name = get(rd, o, "name", JSON_STRING);
	struct ul_series *ser;
	size_t i;
	json_t *x;

	if (!name || !(vals = get(rd, o, "values", JSON_ARRAY)))
		return;
	if (json_string_length(name) >= UL_NAME_LEN || ul_cell_find_series(cell, json_string_value(name))) {
		rd_fail(rd, "name", "too long or used twice in the cell");
		return;
	}
	ser = ul_cell_series(cell, json_string_value(name));
	if (!ser) {
		rd_fail(rd, NULL, strerror(ENOMEM));
		return;
	}
	json_array_foreach(vals, i, x) {
		if (!json_is_integer(x)) {
			rd_fail(rd, "values", "expected integers only");
			return;
		}
		if (ul_series_push(ser, json_integer_value(x))) {
			rd_fail(rd, NULL, strerror(ENOMEM));
			return;
		}
	}
}

static void rd_metrics(struct rd *rd, json_t *arr, struct ul_cell *cell)
{
	size_t i;
	json_t *m;

	json_array_foreach(arr, i, m) {
		size_t old = rd_push(rd, "metrics", i);
		json_t *name = json_is_object(m) ? get(rd, m, "name", JSON_STRING) : NULL;
		json_t *value = name ? json_object_get(m, "value") : NULL;

		if (!json_is_object(m) || !name || !value) {
			rd_fail(rd, NULL, "expected {name, value}");
			return;
		}
		if (json_string_length(name) >= UL_NAME_LEN || ul_cell_metric(cell, json_string_value(name), &(double){ 0 })) {
			rd_fail(rd, "name", "too long or used twice in the cell");
			return;
		}
		if (ul_cell_set_metric(cell, json_string_value(name), rd_real(rd, value, "value")))
			rd_fail(rd, NULL, strerror(ENOMEM));
		if (rd->failed)
			return;
		rd->path[old] = '\0';
	}
}

static void rd_cell(struct rd *rd, json_t *o, struct ul_cell *c)
{
	json_t *arr, *x;
	size_t i;

	c->seq = (int)rd_i64(rd, o, "seq", 0, INT_MAX);
	RD_STR(rd, o, "suite", c->suite);
	RD_STR(rd, o, "load", c->load);
	RD_STR(rd, o, "probe", c->probe);
	if ((x = get(rd, o, "outcome", JSON_STRING)) &&
	    ul_cell_outcome_parse(json_string_value(x), &c->outcome))
		rd_fail(rd, "outcome", "unknown outcome");
	c->flags = (unsigned)rd_i64(rd, o, "flags", 0, UINT_MAX);
	RD_STR(rd, o, "note", c->note);
	RD_STR(rd, o, "load_unit", c->load_unit);
	c->load_units = rd_u64(rd, o, "load_units");
	c->started_wall_ns = rd_i64(rd, o, "started_ns", INT64_MIN, INT64_MAX);
	c->finished_wall_ns = rd_i64(rd, o, "finished_ns", INT64_MIN, INT64_MAX);
	if (rd->failed || !(arr = get(rd, o, "series", JSON_ARRAY)))
		return;
	json_array_foreach(arr, i, x) {
		size_t old = rd_push(rd, "series", i);

		if (!json_is_object(x))
			rd_fail(rd, NULL, "expected an object");
		else
			rd_series(rd, x, c);
		if (rd->failed)
			return;
		rd->path[old] = '\0';
	}
	if ((arr = get(rd, o, "metrics", JSON_ARRAY)))
		rd_metrics(rd, arr, c);
}

static void rd_host_params(struct rd *rd, json_t *o, struct ul_run *run)
{
	json_t *h = get(rd, o, "host", JSON_OBJECT), *p;

	if (h) {
		RD_STR(rd, h, "hostname", run->host.hostname);
		RD_STR(rd, h, "kernel_release", run->host.kernel_release);
		RD_STR(rd, h, "kernel_version", run->host.kernel_version);
		RD_STR(rd, h, "arch", run->host.arch);
		RD_STR(rd, h, "cpu_model", run->host.cpu_model);
		run->host.ncpu = (int)rd_i64(rd, h, "ncpu", 0, 1 << 20);
		run->host.mem_total_bytes = rd_u64(rd, h, "mem_total_bytes");
		run->host.swap_total_bytes = rd_u64(rd, h, "swap_total_bytes");
	}
	p = get(rd, o, "params", JSON_OBJECT);
	if (p) {
		run->params.interval_ns = rd_i64(rd, p, "interval_ns", 0, INT64_MAX);
		run->params.min_points = (int)rd_i64(rd, p, "min_points", 0, INT_MAX);
		run->params.max_points = (int)rd_i64(rd, p, "max_points", 0, INT_MAX);
		run->params.ci_target_centi = rd_i64(rd, p, "ci_target_centi", 0, INT64_MAX);
		run->params.mem_budget_bytes = rd_u64(rd, p, "mem_budget_bytes");
		run->params.mem_limit_bytes = rd_u64(rd, p, "mem_limit_bytes");
		run->params.swap_bytes = rd_u64(rd, p, "swap_bytes");
	}
}

static void rd_run(struct rd *rd, json_t *o, struct ul_run *run)
{
	json_t *cells, *x;
	size_t i;

	RD_STR(rd, o, "uuid", run->uuid);
	RD_STR(rd, o, "label", run->label);
	if ((x = get(rd, o, "status", JSON_STRING)) &&
	    ul_run_status_parse(json_string_value(x), &run->status))
		rd_fail(rd, "status", "unknown status");
	RD_STR(rd, o, "tool_version", run->tool_version);
	RD_STR(rd, o, "argv", run->argv);
	RD_STR(rd, o, "suites", run->suites);
	run->started_wall_ns = rd_i64(rd, o, "started_ns", INT64_MIN, INT64_MAX);
	run->finished_wall_ns = rd_i64(rd, o, "finished_ns", INT64_MIN, INT64_MAX);
	rd_host_params(rd, o, run);
	if (rd->failed || !(cells = get(rd, o, "cells", JSON_ARRAY)))
		return;
	json_array_foreach(cells, i, x) {
		size_t old = rd_push(rd, "cells", i);
		struct ul_cell *c = ul_run_add_cell(run);

		if (!c)
			rd_fail(rd, NULL, strerror(ENOMEM));
		else if (!json_is_object(x))
			rd_fail(rd, NULL, "expected an object");
		else
			rd_cell(rd, x, c);
		if (rd->failed)
			return;
		rd->path[old] = '\0';
	}
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
		rd_fail(rd, NULL, "not an underload export (format is not \"" UL_EXCHANGE_FORMAT
				  "\")");
		return NULL;
	}
	v = json_object_get(doc, "format_version");
	if (!json_is_integer(v) || json_integer_value(v) != UL_EXCHANGE_VERSION) {
		char what[96];

		snprintf(what, sizeof(what), "format_version %s is not supported (this underload reads %d)",
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

int ul_exchange_read_json(const char *buf, size_t len, struct ul_run **out, size_t *nout,
			  char *why, size_t whylen)
{
	struct rd rd = { .why = why, .whylen = whylen };
	struct ul_run *runs = NULL;
	json_error_t jerr;
	json_t *doc, *arr, *x;
	size_t i, n = 0;

	*out = NULL;
	*nout = 0;
	if (len > UL_EXCHANGE_MAX_BYTES) {
		snprintf(why, whylen, "larger than %d MiB: export fewer runs per file",
			 (int)(UL_EXCHANGE_MAX_BYTES / UL_MiB));
		return -EINVAL;
	}
	doc = json_loadb(buf, len, JSON_REJECT_DUPLICATES, &jerr);
	if (!doc) {
		snprintf(why, whylen, "line %d column %d: %s", jerr.line, jerr.column,
			 ul_esc(jerr.text));
		return -EINVAL;
	}
	arr = rd_head(&rd, doc);
	if (arr && json_array_size(arr)) {
		runs = calloc(json_array_size(arr), sizeof(*runs));
		if (!runs)
			rd_fail(&rd, NULL, strerror(ENOMEM));
	}
	if (arr && !rd.failed) {
		json_array_foreach(arr, i, x) {
			char what[160];

			rd_push(&rd, "runs", i);
			ul_run_init(&runs[n++]);
			if (!json_is_object(x))
				rd_fail(&rd, NULL, "expected an object");
			else
				rd_run(&rd, x, &runs[n - 1]);
			if (!rd.failed && ul_run_validate(&runs[n - 1], what, sizeof(what)))
				rd_fail(&rd, NULL, what);
			if (rd.failed)
				break;
			rd.path[0] = '\0';
		}
	}
	json_decref(doc);
	if (rd.failed) {
		ul_exchange_free(runs, n);
		return -EINVAL;
	}
	*out = runs;
	*nout = n;
	return 0;
}

/* SPDX-License-Identifier: GPL-2.0-or-later */
/* The model's JSON tables and the one encoder both JSON documents use. */
#include "core/compat.h"
#include "model/model_json.h"

#include <errno.h>
#include <limits.h>
#include <math.h>
#include <stddef.h>
#include <stdlib.h>
#include <string.h>

/* One row: member `m` of struct `type` under `key`, read back in [lo, hi]. */
#define FIELD(type, m, k, kd, where, lo, hi)                                                       \
	{                                                                                          \
		.key = (k), .kind = (kd), .in = (where), .off = offsetof(type, m),                 \
		.size = sizeof(((type *)0)->m), .min = (lo), .max = (hi)                           \
	}
#define HOST(m, kd, lo, hi) FIELD(struct ul_host, m, #m, kd, UL_JSON_BOTH, lo, hi)
#define PARAM(m, kd, lo, hi) FIELD(struct ul_run_params, m, #m, kd, UL_JSON_BOTH, lo, hi)
#define RUN(m, k, kd, where) FIELD(struct ul_run, m, k, kd, where, INT64_MIN, INT64_MAX)
#define CELL(m, k, kd, where, lo, hi) FIELD(struct ul_cell, m, k, kd, where, lo, hi)
#define TABLE(rows)                                                                                \
	{                                                                                          \
		(rows), UL_ARRAY_SIZE(rows)                                                        \
	}

static const struct ul_json_field host_fields[] = {
	HOST(hostname, UL_JSON_STR, 0, 0),	  HOST(kernel_release, UL_JSON_STR, 0, 0),
	HOST(kernel_version, UL_JSON_STR, 0, 0),  HOST(arch, UL_JSON_STR, 0, 0),
	HOST(cpu_model, UL_JSON_STR, 0, 0),	  HOST(ncpu, UL_JSON_INT, 0, 1 << 20),
	HOST(mem_total_bytes, UL_JSON_U64, 0, 0), HOST(swap_total_bytes, UL_JSON_U64, 0, 0),
};
static const struct ul_json_table host_table = TABLE(host_fields);

static const struct ul_json_field param_fields[] = {
	PARAM(interval_ns, UL_JSON_I64, 0, INT64_MAX),
	PARAM(min_points, UL_JSON_INT, 0, INT_MAX),
	PARAM(max_points, UL_JSON_INT, 0, INT_MAX),
	PARAM(ci_target_centi, UL_JSON_I64, 0, INT64_MAX),
	PARAM(mem_budget_bytes, UL_JSON_U64, 0, 0),
	PARAM(mem_limit_bytes, UL_JSON_U64, 0, 0),
	PARAM(swap_bytes, UL_JSON_U64, 0, 0),
};
static const struct ul_json_table param_table = TABLE(param_fields);

static const struct ul_json_field run_fields[] = {
	RUN(id, "id", UL_JSON_I64, UL_JSON_REPORT), /* an import gives the run a new id */
	RUN(uuid, "uuid", UL_JSON_STR, UL_JSON_BOTH),
	RUN(label, "label", UL_JSON_STR, UL_JSON_BOTH),
	RUN(status, "status", UL_JSON_RUN_STATUS, UL_JSON_BOTH),
	RUN(tool_version, "tool_version", UL_JSON_STR, UL_JSON_BOTH),
	RUN(argv, "argv", UL_JSON_STR, UL_JSON_BOTH),
	RUN(suites, "suites", UL_JSON_LIST, UL_JSON_BOTH),
	{ .key = "started_ns",
	  .kind = UL_JSON_WALL_NS,
	  .in = UL_JSON_BOTH,
	  .off = offsetof(struct ul_run, started_wall_ns),
	  .size = sizeof(int64_t),
	  .min = INT64_MIN,
	  .max = INT64_MAX,
	  .text_key = "started" },
	{ .key = "finished_ns",
	  .kind = UL_JSON_WALL_NS,
	  .in = UL_JSON_BOTH,
	  .off = offsetof(struct ul_run, finished_wall_ns),
	  .size = sizeof(int64_t),
	  .min = INT64_MIN,
	  .max = INT64_MAX,
	  .text_key = "finished" },
	{ .key = "host",
	  .kind = UL_JSON_OBJECT,
	  .in = UL_JSON_BOTH,
	  .off = offsetof(struct ul_run, host),
	  .sub = &host_table },
	{ .key = "params",
	  .kind = UL_JSON_OBJECT,
	  .in = UL_JSON_BOTH,
	  .off = offsetof(struct ul_run, params),
	  .sub = &param_table },
};
const struct ul_json_table ul_json_run_table = TABLE(run_fields);

/* seq comes first in the exchange format and after the names in the report. */
static const struct ul_json_field cell_fields[] = {
	CELL(seq, "seq", UL_JSON_INT, UL_JSON_EXCHANGE, 0, INT_MAX),
	CELL(suite, "suite", UL_JSON_STR, UL_JSON_BOTH, 0, 0),
	CELL(load, "load", UL_JSON_STR, UL_JSON_BOTH, 0, 0),
	CELL(probe, "probe", UL_JSON_STR, UL_JSON_BOTH, 0, 0),
	CELL(seq, "seq", UL_JSON_INT, UL_JSON_REPORT, 0, INT_MAX),
	CELL(outcome, "outcome", UL_JSON_OUTCOME, UL_JSON_BOTH, 0, 0),
	CELL(flags, "flags", UL_JSON_FLAGS, UL_JSON_BOTH, 0, UINT_MAX),
	CELL(note, "note", UL_JSON_STR, UL_JSON_BOTH, 0, 0),
	CELL(load_unit, "load_unit", UL_JSON_STR, UL_JSON_BOTH, 0, 0),
	CELL(load_units, "load_units", UL_JSON_U64, UL_JSON_BOTH, 0, 0),
	CELL(started_wall_ns, "started_ns", UL_JSON_WALL_NS, UL_JSON_BOTH, INT64_MIN, INT64_MAX),
	CELL(finished_wall_ns, "finished_ns", UL_JSON_WALL_NS, UL_JSON_BOTH, INT64_MIN, INT64_MAX),
};
const struct ul_json_table ul_json_cell_table = TABLE(cell_fields);

json_t *ul_json_str(const char *s, size_t cap)
{
	size_t len = strnlen(s, cap);
	json_t *v = json_stringn(s, len);
	char *copy;

	if (v)
		return v;
	copy = malloc(len + 1); /* invalid UTF-8: keep the ASCII, mark the rest */
	if (!copy)
		return NULL;
	for (size_t i = 0; i < len; i++)
		copy[i] = (unsigned char)s[i] < 0x80 ? s[i] : '?';
	v = json_stringn(copy, len);
	free(copy);
	return v;
}

/* A JSON integer is an int64 in jansson. */
json_t *ul_json_u64(uint64_t v, const struct ul_json_style *st)
{
	char buf[24];

	if (v <= INT64_MAX)
		return json_integer((json_int_t)v);
	if (!st->exact)
		return json_real((double)v);
	snprintf(buf, sizeof(buf), "%llu", (unsigned long long)v);
	return json_string(buf);
}

json_t *ul_json_real(double v, const struct ul_json_style *st)
{
	if (isfinite(v))
		return json_real(v);
	if (isinf(v) && st->exact)
		return json_string(v > 0 ? "inf" : "-inf");
	return json_null();
}

void ul_json_put(json_t *obj, const char *key, json_t *v, bool *bad)
{
	/* jansson frees v when obj is NULL or not an object. */
	if (!v || json_object_set_new(obj, key, v))
		*bad = true;
}

void ul_json_push(json_t *arr, json_t *v, bool *bad)
{
	if (!v || json_array_append_new(arr, v))
		*bad = true;
}

int ul_json_dump(FILE *out, const json_t *doc, const struct ul_json_style *st)
{
	if (json_dumpf(doc, out, st->dump_flags) || fputc('\n', out) == EOF)
		return -EIO;
	return 0;
}

/* "a,b" as ["a", "b"] (empty names dropped). */
static json_t *list_json(const char *s, size_t cap, bool *bad)
{
	json_t *arr = json_array();
	size_t len = strnlen(s, cap);

	if (!arr)
		*bad = true;
	for (size_t start = 0; start < len && arr;) {
		size_t end = start;

		while (end < len && s[end] != ',')
			end++;
		if (end > start)
			ul_json_push(arr, ul_json_str(s + start, end - start), bad);
		start = end + 1;
	}
	return arr;
}

static json_t *flags_json(unsigned flags, const struct ul_json_style *st, bool *bad)
{
	json_t *arr;

	if (!st->flag_name)
		return json_integer(flags);
	arr = json_array();
	if (!arr)
		*bad = true;
	for (unsigned bit = 0; bit < 8 * sizeof(flags) && arr; bit++) {
		unsigned flag = 1u << bit;
		const char *name = st->flag_name(flag);
		char unknown[16];

		if (!(flags & flag))
			continue;
		if (!name) {
			snprintf(unknown, sizeof(unknown), "bit%u", bit);
			name = unknown;
		}
		ul_json_push(arr, json_string(name), bad);
	}
	return arr;
}

bool ul_json_is_int(const struct ul_json_field *f)
{
	return f->kind == UL_JSON_INT || f->kind == UL_JSON_I64 || f->kind == UL_JSON_WALL_NS ||
	       f->kind == UL_JSON_U64 || f->kind == UL_JSON_FLAGS;
}

int64_t ul_json_get_int(const struct ul_json_field *f, const void *base)
{
	const char *p = (const char *)base + f->off;

	switch (f->kind) {
	case UL_JSON_INT:
		return *(const int *)p;
	case UL_JSON_FLAGS:
		return *(const unsigned *)p;
	case UL_JSON_U64:
		return (int64_t) * (const uint64_t *)p;
	default:
		return *(const int64_t *)p;
	}
}

void ul_json_set_int(const struct ul_json_field *f, void *base, int64_t v)
{
	char *p = (char *)base + f->off;

	switch (f->kind) {
	case UL_JSON_INT:
		*(int *)p = (int)v;
		break;
	case UL_JSON_FLAGS:
		*(unsigned *)p = (unsigned)v;
		break;
	case UL_JSON_U64:
		*(uint64_t *)p = (uint64_t)v;
		break;
	default:
		*(int64_t *)p = v;
		break;
	}
}

static json_t *field_json(const void *base, const struct ul_json_field *f,
			  const struct ul_json_style *st, bool *bad)
{
	const char *p = (const char *)base + f->off;
	int64_t v = ul_json_is_int(f) ? ul_json_get_int(f, base) : 0;

	switch (f->kind) {
	case UL_JSON_STR:
		return ul_json_str(p, f->size);
	case UL_JSON_LIST:
		return st->lists_as_arrays ? list_json(p, f->size, bad) : ul_json_str(p, f->size);
	case UL_JSON_INT:
	case UL_JSON_I64:
		return json_integer(v);
	case UL_JSON_WALL_NS:
		return v || !st->zero_time_null ? json_integer(v) : json_null();
	case UL_JSON_U64:
		return ul_json_u64((uint64_t)v, st);
	case UL_JSON_FLAGS:
		return flags_json((unsigned)v, st, bad);
	case UL_JSON_RUN_STATUS:
		return json_string(ul_run_status_name(*(const enum ul_run_status *)p));
	case UL_JSON_OUTCOME:
		return json_string(ul_cell_outcome_name(*(const enum ul_cell_outcome *)p));
	case UL_JSON_OBJECT:
		return ul_json_fields(p, f->sub, st, bad);
	}
	return NULL;
}

json_t *ul_json_fields(const void *base, const struct ul_json_table *t,
		       const struct ul_json_style *st, bool *bad)
{
	json_t *o = json_object();

	for (size_t i = 0; i < t->n && o; i++) {
		const struct ul_json_field *f = &t->fields[i];
		char text[32];
		int64_t ns;

		if (!(f->in & st->format))
			continue;
		ul_json_put(o, f->key, field_json(base, f, st, bad), bad);
		if (!f->text_key || !st->time_text)
			continue;
		ns = ul_json_get_int(f, base);
		ul_json_put(o, f->text_key,
			    ns ? json_string(st->time_text(text, sizeof(text), ns)) : json_null(),
			    bad);
	}
	if (!o)
		*bad = true;
	return o;
}

json_t *ul_json_run(const struct ul_run *run, const struct ul_json_style *st, bool *bad)
{
	return ul_json_fields(run, &ul_json_run_table, st, bad);
}

/* A name from a fixed model array as an object key. */
static void put_named(json_t *o, const char *name, size_t cap, json_t *v, bool *bad)
{
	char key[UL_NAME_LEN + 1];

	snprintf(key, sizeof(key), "%.*s", (int)strnlen(name, cap), name);
	ul_json_put(o, key, v, bad);
}

/* {name: v} into the object, or {"name": name, value_key: v} onto the array. */
static void add_named(json_t *to, const char *name, size_t cap, const char *value_key, json_t *v,
		      const struct ul_json_style *st, bool *bad)
{
	json_t *o;

	if (st->names_as_keys) {
		put_named(to, name, cap, v, bad);
		return;
	}
	o = json_object();
	ul_json_put(o, "name", ul_json_str(name, cap), bad);
	ul_json_put(o, value_key, v, bad);
	ul_json_push(to, o, bad);
}

json_t *ul_json_cell(const struct ul_cell *c, const struct ul_json_style *st, bool *bad)
{
	json_t *o = ul_json_fields(c, &ul_json_cell_table, st, bad);
	json_t *series = st->names_as_keys ? json_object() : json_array();
	json_t *metrics = st->names_as_keys ? json_object() : json_array();

	for (size_t i = 0; i < c->n_series && series && !*bad; i++) {
		const struct ul_series *s = &c->series[i];
		json_t *vals = json_array();

		for (size_t k = 0; k < s->n && vals && !*bad; k++)
			ul_json_push(vals, json_integer(s->v[k]), bad);
		add_named(series, s->name, sizeof(s->name), "values", vals, st, bad);
	}
	ul_json_put(o, "series", series, bad);
	for (size_t i = 0; i < c->n_metrics && metrics && !*bad; i++) {
		const struct ul_metric *m = &c->metrics[i];

		add_named(metrics, m->name, sizeof(m->name), "value", ul_json_real(m->value, st),
			  st, bad);
	}
	ul_json_put(o, "metrics", metrics, bad);
	return o;
}

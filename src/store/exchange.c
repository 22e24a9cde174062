/* SPDX-License-Identifier: GPL-2.0-or-later */
/* The exchange format's writers: JSON (export, recovery files) and tidy CSV. */
#include "core/compat.h"
#include "store/exchange.h"

#include <errno.h>
#include <jansson.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* A JSON string from a fixed model array; bytes that are not UTF-8 become '?'. */
static json_t *x_str(const char *s, size_t cap)
{
	size_t len = strnlen(s, cap);
	json_t *v = json_stringn(s, len);
	char *copy;

	if (v)
		return v;
	copy = malloc(len + 1);
	if (!copy)
		return NULL;
	for (size_t i = 0; i < len; i++)
		copy[i] = (unsigned char)s[i] < 0x80 ? s[i] : '?';
	v = json_stringn(copy, len);
	free(copy);
	return v;
}

#define X_STR(field) x_str((field), sizeof(field))

/* uint64 beyond what a JSON integer (int64 in jansson) holds goes as a string. */
static json_t *x_u64(uint64_t v)
{
	char buf[24];

	if (v <= INT64_MAX)
		return json_integer((json_int_t)v);
	snprintf(buf, sizeof(buf), "%llu", (unsigned long long)v);
	return json_string(buf);
}

static json_t *x_real(double v)
{
	if (isnan(v))
		return json_null();
	if (isinf(v))
		return json_string(v > 0 ? "inf" : "-inf");
	return json_real(v);
}

/* Add v under key; a NULL v (allocation failure) sets *bad. */
static void put(json_t *o, const char *key, json_t *v, bool *bad)
{
	if (!v || json_object_set_new(o, key, v))
		*bad = true;
}

static void append(json_t *a, json_t *v, bool *bad)
{
	if (!v || json_array_append_new(a, v))
		*bad = true;
}

static json_t *x_series(const struct ul_series *ser, bool *bad)
{
	json_t *o = json_object(), *vals = json_array();

	if (!o || !vals) {
		json_decref(o);
		json_decref(vals);
		*bad = true;
		return NULL;
	}
	for (size_t i = 0; i < ser->n && !*bad; i++)
		append(vals, json_integer(ser->v[i]), bad);
	put(o, "name", X_STR(ser->name), bad);
	put(o, "values", vals, bad);
	return o;
}

static json_t *x_cell(const struct ul_cell *c, bool *bad)
{
	json_t *o = json_object(), *series = json_array(), *metrics = json_array();

	if (!o || !series || !metrics) {
		json_decref(o);
		json_decref(series);
		json_decref(metrics);
		*bad = true;
		return NULL;
	}
	put(o, "seq", json_integer(c->seq), bad);
	put(o, "suite", X_STR(c->suite), bad);
	put(o, "load", X_STR(c->load), bad);
	put(o, "probe", X_STR(c->probe), bad);
	put(o, "outcome", json_string(ul_cell_outcome_name(c->outcome)), bad);
	put(o, "flags", json_integer(c->flags), bad);
	put(o, "note", X_STR(c->note), bad);
	put(o, "load_unit", X_STR(c->load_unit), bad);
	put(o, "load_units", x_u64(c->load_units), bad);
	put(o, "started_ns", json_integer(c->started_wall_ns), bad);
	put(o, "finished_ns", json_integer(c->finished_wall_ns), bad);
	for (size_t i = 0; i < c->n_series && !*bad; i++)
		append(series, x_series(&c->series[i], bad), bad);
	put(o, "series", series, bad);
	for (size_t i = 0; i < c->n_metrics && !*bad; i++) {
		json_t *m = json_object();

		if (m) {
			put(m, "name", X_STR(c->metrics[i].name), bad);
			put(m, "value", x_real(c->metrics[i].value), bad);
		}
		append(metrics, m, bad);
	}
	put(o, "metrics", metrics, bad);
	return o;
}

static json_t *x_host(const struct ul_host *h, bool *bad)
{
	json_t *o = json_object();

	if (!o) {
		*bad = true;
		return NULL;
	}
	put(o, "hostname", X_STR(h->hostname), bad);
	put(o, "kernel_release", X_STR(h->kernel_release), bad);
	put(o, "kernel_version", X_STR(h->kernel_version), bad);
	put(o, "arch", X_STR(h->arch), bad);
	put(o, "cpu_model", X_STR(h->cpu_model), bad);
	put(o, "ncpu", json_integer(h->ncpu), bad);
	put(o, "mem_total_bytes", x_u64(h->mem_total_bytes), bad);
	put(o, "swap_total_bytes", x_u64(h->swap_total_bytes), bad);
	return o;
}

static json_t *x_params(const struct ul_run_params *p, bool *bad)
{
	json_t *o = json_object();

	if (!o) {
		*bad = true;
		return NULL;
	}
	put(o, "interval_ns", json_integer(p->interval_ns), bad);
	put(o, "min_points", json_integer(p->min_points), bad);
	put(o, "max_points", json_integer(p->max_points), bad);
	put(o, "ci_target_centi", json_integer(p->ci_target_centi), bad);
	put(o, "mem_budget_bytes", x_u64(p->mem_budget_bytes), bad);
	put(o, "mem_limit_bytes", x_u64(p->mem_limit_bytes), bad);
	put(o, "swap_bytes", x_u64(p->swap_bytes), bad);
	return o;
}

static json_t *x_run(const struct ul_run *run, bool *bad)
{
	json_t *o = json_object(), *cells = json_array();

	if (!o || !cells) {
		json_decref(o);
		json_decref(cells);
		*bad = true;
		return NULL;
	}
	put(o, "uuid", X_STR(run->uuid), bad);
	put(o, "label", X_STR(run->label), bad);
	put(o, "status", json_string(ul_run_status_name(run->status)), bad);
	put(o, "tool_version", X_STR(run->tool_version), bad);
	put(o, "argv", X_STR(run->argv), bad);
	put(o, "suites", X_STR(run->suites), bad);
	put(o, "started_ns", json_integer(run->started_wall_ns), bad);
	put(o, "finished_ns", json_integer(run->finished_wall_ns), bad);
	put(o, "host", x_host(&run->host, bad), bad);
	put(o, "params", x_params(&run->params, bad), bad);
	for (size_t i = 0; i < run->n_cells && !*bad; i++)
		append(cells, x_cell(&run->cells[i], bad), bad);
	put(o, "cells", cells, bad);
	return o;
}

int ul_exchange_write_json(FILE *out, const struct ul_run *const *runs, size_t n)
{
	json_t *doc = json_object(), *arr = json_array();
	bool bad = false;
	int rc;

	if (!doc || !arr) {
		json_decref(doc);
		json_decref(arr);
		return -ENOMEM;
	}
	put(doc, "format", json_string(UL_EXCHANGE_FORMAT), &bad);
	put(doc, "format_version", json_integer(UL_EXCHANGE_VERSION), &bad);
	for (size_t i = 0; i < n && !bad; i++)
		append(arr, x_run(runs[i], &bad), &bad);
	put(doc, "runs", arr, &bad);
	if (bad) {
		json_decref(doc);
		return -ENOMEM;
	}
	rc = json_dumpf(doc, out, JSON_INDENT(1) | JSON_PRESERVE_ORDER | JSON_REAL_PRECISION(17));
	json_decref(doc);
	if (rc || fputc('\n', out) == EOF || fflush(out) || ferror(out))
		return -EIO;
	return 0;
}

/* One CSV field, RFC 4180: quoted when it holds a comma, quote, CR or LF. */
static void csv_field(FILE *out, const char *s, size_t cap, bool last)
{
	size_t len = strnlen(s, cap);

	if (strcspn(s, ",\"\r\n") < len) {
		fputc('"', out);
		for (size_t i = 0; i < len; i++) {
			if (s[i] == '"')
				fputc('"', out);
			fputc(s[i], out);
		}
		fputc('"', out);
	} else {
		fwrite(s, 1, len, out);
	}
	fputs(last ? "\r\n" : ",", out);
}

/* The unit a series name's suffix gives ("delay_ns" -> "ns"), or "". */
static const char *series_unit(const char *name)
{
	static const char *const units[] = { "ns", "bytes", "pct", "kb", "pages" };
	const char *us = strrchr(name, '_');

	if (us)
		for (size_t i = 0; i < UL_ARRAY_SIZE(units); i++)
			if (!strcmp(us + 1, units[i]))
				return units[i];
	return "";
}

#define CSV(out, field, last) csv_field((out), (field), sizeof(field), (last))

int ul_exchange_write_csv(FILE *out, const struct ul_run *const *runs, size_t n)
{
	fputs("run_uuid,label,host,suite,test,probe,metric,unit,index,value\r\n", out);
	for (size_t r = 0; r < n; r++) {
		const struct ul_run *run = runs[r];

		for (size_t c = 0; c < run->n_cells; c++) {
			const struct ul_cell *cell = &run->cells[c];

			for (size_t s = 0; s < cell->n_series; s++) {
				const struct ul_series *ser = &cell->series[s];
				const char *unit = series_unit(ser->name);

				for (size_t i = 0; i < ser->n; i++) {
					CSV(out, run->uuid, false);
					CSV(out, run->label, false);
					CSV(out, run->host.hostname, false);
					CSV(out, cell->suite, false);
					CSV(out, cell->load, false);
					CSV(out, cell->probe, false);
					CSV(out, ser->name, false);
					csv_field(out, unit, SIZE_MAX, false);
					fprintf(out, "%zu,%lld\r\n", i, (long long)ser->v[i]);
				}
			}
		}
	}
	if (fflush(out) || ferror(out))
		return -EIO;
	return 0;
}

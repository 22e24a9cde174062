/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * The "json" format: the whole run for machines, every raw sample included,
 * built with jansson (never by hand) so escaping and numbers are right.
 *
 * Document (format "underload-results", format_version 1), keys in this
 * order, indented by 2, followed by one newline:
 *   format, format_version,
 *   run: id (store row id, 0 = never stored), uuid, label, status,
 *        tool_version, argv (the command line as one string), suites (array
 *        of the comma-separated names), started_ns, started, finished_ns,
 *        finished (ns since the epoch and ISO-8601 UTC text; null when 0),
 *        host {hostname, kernel_release, kernel_version, arch, cpu_model,
 *        ncpu, mem_total_bytes, swap_total_bytes},
 *        params {interval_ns, min_points, max_points, ci_target_centi,
 *        mem_budget_bytes, mem_limit_bytes, swap_bytes}
 *   cells: [{suite, load, probe, seq, outcome, flags (array of names; an
 *        unknown bit N is "bitN"), note, load_unit, load_units, started_ns,
 *        finished_ns, series {name: [int, ...] in sampling order},
 *        metrics {name: number}, summary}]
 *   summary describes the primary series (series[0]) in its raw unit:
 *        {series, n, min, max, median, mean, sd, p90, dev_mean, ci_lo, ci_hi},
 *        ci_lo/ci_hi null when n < 6; summary is null without samples.
 * Integers above INT64_MAX and non-finite reals (which JSON cannot hold) are
 * written as reals and null.  Strings that are not UTF-8 have their
 * non-ASCII bytes replaced by '?'.
 */
#include "core/compat.h"
#include "report/common.h"
#include "report/format.h"
#include "stats/stats.h"

#include <errno.h>
#include <jansson.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define JW_FORMAT_NAME "underload-results"
#define JW_FORMAT_VERSION 1

/* A JSON string from a fixed model array that may lack its terminator. */
static json_t *jw_str(const char *s, size_t cap)
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

#define JW_STR(field) jw_str((field), sizeof(field))

static json_t *jw_u64(uint64_t v)
{
	return v <= (uint64_t)INT64_MAX ? json_integer((json_int_t)v) : json_real((double)v);
}

static json_t *jw_num(double v)
{
	return isfinite(v) ? json_real(v) : json_null();
}

static json_t *jw_time_ns(int64_t ns)
{
	return ns ? json_integer(ns) : json_null();
}

static json_t *jw_time_iso(int64_t ns)
{
	char buf[32];

	return ns ? json_string(ul_report_iso8601(buf, sizeof(buf), ns)) : json_null();
}

/*
 * Sets obj[key] = val and takes the reference; a NULL val (a failed
 * allocation) is remembered in *bad, so builders check once at the end.
 */
static void jw_put(json_t *obj, const char *key, json_t *val, bool *bad)
{
	if (!val || json_object_set_new(obj, key, val))
		*bad = true;
}

static void jw_push(json_t *arr, json_t *val, bool *bad)
{
	if (!val || json_array_append_new(arr, val))
		*bad = true;
}

static json_t *jw_suites(const char *suites, size_t cap, bool *bad)
{
	json_t *arr = json_array();
	size_t len = strnlen(suites, cap);

	if (!arr) {
		*bad = true;
		return NULL;
	}
	for (size_t start = 0; start < len;) {
		size_t end = start;

		while (end < len && suites[end] != ',')
			end++;
		if (end > start)
			jw_push(arr, jw_str(suites + start, end - start), bad);
		start = end + 1;
	}
	return arr;
}

static json_t *jw_host(const struct ul_host *h, bool *bad)
{
	json_t *o = json_object();

	if (!o) {
		*bad = true;
		return NULL;
	}
	jw_put(o, "hostname", JW_STR(h->hostname), bad);
	jw_put(o, "kernel_release", JW_STR(h->kernel_release), bad);
	jw_put(o, "kernel_version", JW_STR(h->kernel_version), bad);
	jw_put(o, "arch", JW_STR(h->arch), bad);
	jw_put(o, "cpu_model", JW_STR(h->cpu_model), bad);
	jw_put(o, "ncpu", json_integer(h->ncpu), bad);
	jw_put(o, "mem_total_bytes", jw_u64(h->mem_total_bytes), bad);
	jw_put(o, "swap_total_bytes", jw_u64(h->swap_total_bytes), bad);
	return o;
}

static json_t *jw_params(const struct ul_run_params *p, bool *bad)
{
	json_t *o = json_object();

	if (!o) {
		*bad = true;
		return NULL;
	}
	jw_put(o, "interval_ns", json_integer(p->interval_ns), bad);
	jw_put(o, "min_points", json_integer(p->min_points), bad);
	jw_put(o, "max_points", json_integer(p->max_points), bad);
	jw_put(o, "ci_target_centi", json_integer(p->ci_target_centi), bad);
	jw_put(o, "mem_budget_bytes", jw_u64(p->mem_budget_bytes), bad);
	jw_put(o, "mem_limit_bytes", jw_u64(p->mem_limit_bytes), bad);
	jw_put(o, "swap_bytes", jw_u64(p->swap_bytes), bad);
	return o;
}

static json_t *jw_run(const struct ul_run *run, bool *bad)
{
	json_t *o = json_object();

	if (!o) {
		*bad = true;
		return NULL;
	}
	jw_put(o, "id", json_integer(run->id), bad);
	jw_put(o, "uuid", JW_STR(run->uuid), bad);
	jw_put(o, "label", JW_STR(run->label), bad);
	jw_put(o, "status", json_string(ul_run_status_name(run->status)), bad);
	jw_put(o, "tool_version", JW_STR(run->tool_version), bad);
	jw_put(o, "argv", JW_STR(run->argv), bad);
	jw_put(o, "suites", jw_suites(run->suites, sizeof(run->suites), bad), bad);
	jw_put(o, "started_ns", jw_time_ns(run->started_wall_ns), bad);
	jw_put(o, "started", jw_time_iso(run->started_wall_ns), bad);
	jw_put(o, "finished_ns", jw_time_ns(run->finished_wall_ns), bad);
	jw_put(o, "finished", jw_time_iso(run->finished_wall_ns), bad);
	jw_put(o, "host", jw_host(&run->host, bad), bad);
	jw_put(o, "params", jw_params(&run->params, bad), bad);
	return o;
}

static json_t *jw_flags(unsigned flags, bool *bad)
{
	json_t *arr = json_array();

	if (!arr) {
		*bad = true;
		return NULL;
	}
	for (unsigned bit = 0; bit < 8 * sizeof(flags); bit++) {
		unsigned flag = 1u << bit;
		const char *name = ul_report_flag_name(flag);
		char unknown[16];

		if (!(flags & flag))
			continue;
		if (!name) {
			snprintf(unknown, sizeof(unknown), "bit%u", bit);
			name = unknown;
		}
		jw_push(arr, json_string(name), bad);
	}
	return arr;
}

static json_t *jw_series(const struct ul_cell *c, bool *bad)
{
	json_t *o = json_object();

	if (!o) {
		*bad = true;
		return NULL;
	}
	for (size_t i = 0; i < c->n_series; i++) {
		const struct ul_series *s = &c->series[i];
		json_t *arr = json_array();
		char name[UL_NAME_LEN + 1];

		if (!arr) {
			*bad = true;
			break;
		}
		for (size_t k = 0; k < s->n; k++)
			jw_push(arr, json_integer(s->v[k]), bad);
		snprintf(name, sizeof(name), "%.*s", (int)strnlen(s->name, sizeof(s->name)),
			 s->name);
		jw_put(o, name, arr, bad);
	}
	return o;
}

static json_t *jw_metrics(const struct ul_cell *c, bool *bad)
{
	json_t *o = json_object();

	if (!o) {
		*bad = true;
		return NULL;
	}
	for (size_t i = 0; i < c->n_metrics; i++) {
		const struct ul_metric *m = &c->metrics[i];
		char name[UL_NAME_LEN + 1];

		snprintf(name, sizeof(name), "%.*s", (int)strnlen(m->name, sizeof(m->name)),
			 m->name);
		jw_put(o, name, jw_num(m->value), bad);
	}
	return o;
}

/* The summary of the primary series, json null when there is nothing to summarise. */
static int jw_summary(const struct ul_cell *c, json_t **out, bool *bad)
{
	const struct ul_series *s = ul_report_primary(c);
	struct ul_summary sum;
	json_t *o;
	int err;

	*out = NULL;
	if (!s || !s->n) {
		*out = json_null();
		return 0;
	}
	err = ul_stats_summarize_i64(s->v, s->n, &sum);
	if (err)
		return err;
	o = json_object();
	if (!o) {
		*bad = true;
		return 0;
	}
	jw_put(o, "series", JW_STR(s->name), bad);
	jw_put(o, "n", jw_u64(sum.n), bad);
	jw_put(o, "min", jw_num(sum.min), bad);
	jw_put(o, "max", jw_num(sum.max), bad);
	jw_put(o, "median", jw_num(sum.median), bad);
	jw_put(o, "mean", jw_num(sum.mean), bad);
	jw_put(o, "sd", jw_num(sum.sd), bad);
	jw_put(o, "p90", jw_num(sum.p90), bad);
	jw_put(o, "dev_mean", jw_num(sum.dev_mean), bad);
	jw_put(o, "ci_lo", sum.has_ci ? jw_num(sum.ci_lo) : json_null(), bad);
	jw_put(o, "ci_hi", sum.has_ci ? jw_num(sum.ci_hi) : json_null(), bad);
	*out = o;
	return 0;
}

static int jw_cell(const struct ul_cell *c, json_t **out, bool *bad)
{
	json_t *o = json_object();
	json_t *summary;
	int err;

	*out = NULL;
	if (!o) {
		*bad = true;
		return 0;
	}
	jw_put(o, "suite", JW_STR(c->suite), bad);
	jw_put(o, "load", JW_STR(c->load), bad);
	jw_put(o, "probe", JW_STR(c->probe), bad);
	jw_put(o, "seq", json_integer(c->seq), bad);
	jw_put(o, "outcome", json_string(ul_cell_outcome_name(c->outcome)), bad);
	jw_put(o, "flags", jw_flags(c->flags, bad), bad);
	jw_put(o, "note", JW_STR(c->note), bad);
	jw_put(o, "load_unit", JW_STR(c->load_unit), bad);
	jw_put(o, "load_units", jw_u64(c->load_units), bad);
	jw_put(o, "started_ns", jw_time_ns(c->started_wall_ns), bad);
	jw_put(o, "finished_ns", jw_time_ns(c->finished_wall_ns), bad);
	jw_put(o, "series", jw_series(c, bad), bad);
	jw_put(o, "metrics", jw_metrics(c, bad), bad);
	err = jw_summary(c, &summary, bad);
	if (err) {
		json_decref(o);
		return err;
	}
	jw_put(o, "summary", summary, bad);
	*out = o;
	return 0;
}

static int jw_write_run(FILE *out, const struct ul_run *run)
{
	json_t *root = json_object();
	json_t *cells = json_array();
	bool bad = !root || !cells;
	int err = 0;

	if (bad) {
		json_decref(cells);
		json_decref(root);
		return -ENOMEM;
	}
	jw_put(root, "format", json_string(JW_FORMAT_NAME), &bad);
	jw_put(root, "format_version", json_integer(JW_FORMAT_VERSION), &bad);
	jw_put(root, "run", jw_run(run, &bad), &bad);
	for (size_t i = 0; i < run->n_cells && !err && !bad; i++) {
		json_t *cell;

		err = jw_cell(&run->cells[i], &cell, &bad);
		if (!err)
			jw_push(cells, cell, &bad);
	}
	jw_put(root, "cells", cells, &bad);
	if (!err && bad)
		err = -ENOMEM;
	if (!err) {
		/* PRESERVE_ORDER: keys come out in the documented order above. */
		if (json_dumpf(root, out, JSON_INDENT(2) | JSON_PRESERVE_ORDER) ||
		    fputc('\n', out) == EOF)
			err = -EIO;
	}
	json_decref(root);
	if (err)
		return err;
	return ul_report_finish(out);
}

const struct ul_format ul_format_json = {
	.name = "json",
	.summary = "the whole run with every raw sample, as JSON (jansson)",
	.version = JW_FORMAT_VERSION,
	.write_run = jw_write_run,
};

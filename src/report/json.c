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
 *        mem_budget_bytes, mem_limit_bytes, swap_bytes},
 *        fingerprint (the machine at the start, as `show --env` lists it:
 *        {section: {fact: value}}, its "doctor" section the doctor's
 *        findings {check: "SEVERITY: what; what to do"}; left out for a run
 *        stored before fingerprints)
 *   crashed_in: null, or for a run whose machine went down under it the
 *        test it was in: {suite, load, probe, seq, round, where (as list
 *        prints it)}; {} when its journal recorded no test
 *   cells: [{suite, load, probe, seq, outcome, flags (array of names; an
 *        unknown bit N is "bitN"), note, load_unit, load_units, started_ns,
 *        finished_ns, series {name: [int, ...] in sampling order},
 *        metrics {name: number}, summary}]
 *   breakdown: why each test was slow, the medians of its delay and of
 *        each part (report/breakdown_json.c); [] when no test recorded it
 *   summary describes the primary series (series[0]) in its raw unit:
 *        {series, n, min, max, median, mean, sd, p90, dev_mean, ci_lo, ci_hi},
 *        ci_lo/ci_hi null when n < 6; summary is null without samples.
 * Integers above INT64_MAX and non-finite reals (which JSON cannot hold) are
 * written as reals and null.  Strings that are not UTF-8 have their
 * non-ASCII bytes replaced by '?'.
 */
#include "core/compat.h"
#include "model/model_json.h"
#include "report/breakdown.h"
#include "report/common.h"
#include "report/format.h"
#include "stats/stats.h"

#include <errno.h>
#include <jansson.h>
#include <stddef.h>
#include <stdio.h>

#define JW_FORMAT_NAME "underload-results"
#define JW_FORMAT_VERSION 1

/*
 * What "json" does differently from the exchange format (model/model_json.h):
 * it is read by people's scripts, so times of 0 are null and come with
 * ISO-8601 text, flags and suites are arrays of names, series and metrics
 * objects keyed by name, and numbers JSON cannot hold are a real or null.
 */
static const struct ul_json_style report_style = {
	.format = UL_JSON_REPORT,
	.zero_time_null = true,
	.lists_as_arrays = true,
	.names_as_keys = true,
	.flag_name = ul_report_flag_name,
	.time_text = ul_report_iso8601,
	.dump_flags = JSON_INDENT(2) | JSON_PRESERVE_ORDER,
};

/* The summary's reals, in document order. */
static const struct {
	const char *key;
	size_t off;
	bool ci; /* null without a CI */
} jw_summary_reals[] = {
	{ "min", offsetof(struct ul_summary, min), false },
	{ "max", offsetof(struct ul_summary, max), false },
	{ "median", offsetof(struct ul_summary, median), false },
	{ "mean", offsetof(struct ul_summary, mean), false },
	{ "sd", offsetof(struct ul_summary, sd), false },
	{ "p90", offsetof(struct ul_summary, p90), false },
	{ "dev_mean", offsetof(struct ul_summary, dev_mean), false },
	{ "ci_lo", offsetof(struct ul_summary, ci_lo), true },
	{ "ci_hi", offsetof(struct ul_summary, ci_hi), true },
};

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
	ul_json_put(o, "series", UL_JSON_STR(s->name), bad);
	ul_json_put(o, "n", ul_json_u64(sum.n, &report_style), bad);
	for (size_t i = 0; i < UL_ARRAY_SIZE(jw_summary_reals) && o; i++) {
		double v = *(const double *)((const char *)&sum + jw_summary_reals[i].off);
		bool none = jw_summary_reals[i].ci && !sum.has_ci;

		ul_json_put(o, jw_summary_reals[i].key,
			    none ? json_null() : ul_json_real(v, &report_style), bad);
	}
	*out = o;
	return 0;
}

static int jw_cell(const struct ul_cell *c, json_t **out, bool *bad)
{
	json_t *o = ul_json_cell(c, &report_style, bad);
	json_t *summary;
	int err;

	*out = NULL;
	err = jw_summary(c, &summary, bad);
	if (err) {
		json_decref(o);
		return err;
	}
	ul_json_put(o, "summary", summary, bad);
	*out = o;
	return 0;
}

/* The run's metadata, then its fingerprint (the doctor's findings in it). */
static json_t *jw_run(const struct ul_run *run, bool *bad)
{
	json_t *o = ul_json_run(run, &report_style, bad);

	if (o && run->fingerprint)
		ul_json_put(o, "fingerprint", json_incref(run->fingerprint), bad);
	return o;
}

/* Where a crashed run went down: its crashed cell's test and round; null
 * for any other run (a crashed run without one: an empty "where"). */
static json_t *jw_crashed_in(const struct ul_run *run, bool *bad)
{
	char where[256];
	long i;
	json_t *o;

	if (run->status != UL_RUN_CRASHED)
		return json_null();
	i = ul_run_crash_where(run, where, sizeof(where));
	o = json_object();
	if (i < 0)
		return o;
	ul_json_put(o, "suite", UL_JSON_STR(run->cells[i].suite), bad);
	ul_json_put(o, "load", UL_JSON_STR(run->cells[i].load), bad);
	ul_json_put(o, "probe", UL_JSON_STR(run->cells[i].probe), bad);
	ul_json_put(o, "seq", json_integer(run->cells[i].seq), bad);
	ul_json_put(o, "round", json_integer(ul_run_cell_round(run, (size_t)i)), bad);
	ul_json_put(o, "where", UL_JSON_STR(where), bad);
	return o;
}

static int jw_write_run(FILE *out, const struct ul_run *run)
{
	json_t *root = json_object(), *cells = json_array();
	bool bad = false;
	int err = 0;

	ul_json_put(root, "format", json_string(JW_FORMAT_NAME), &bad);
	ul_json_put(root, "format_version", json_integer(JW_FORMAT_VERSION), &bad);
	ul_json_put(root, "run", jw_run(run, &bad), &bad);
	ul_json_put(root, "crashed_in", jw_crashed_in(run, &bad), &bad);
	for (size_t i = 0; i < run->n_cells && cells && !err && !bad; i++) {
		json_t *cell;

		err = jw_cell(&run->cells[i], &cell, &bad);
		if (!err)
			ul_json_push(cells, cell, &bad);
	}
	ul_json_put(root, "cells", cells, &bad);
	if (!err && !bad) {
		json_t *breakdown;

		err = ul_breakdown_json(run, &report_style, &breakdown);
		if (!err)
			ul_json_put(root, "breakdown", breakdown, &bad);
	}
	if (!err && bad)
		err = -ENOMEM;
	if (!err)
		err = ul_json_dump(out, root, &report_style); /* keys in the order above */
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

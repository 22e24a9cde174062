/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * The mtest format: seed 002's "Averages for N mtest01 runs" block
 * (seed-systems.md 3.3) with the deadline probe's dropouts beside it, and
 * the native block that adds S.D., min and max of every field.  Both take
 * one cell: a test's replicates pooled (report/replicate.h).
 */
#include "core/compat.h"
#include "report/common.h"
#include "report/format.h"
#include "report/suites.h"
#include "report/notes.h"
#include "report/replicate.h"
#include "report/monitors.h"
#include "stats/stats.h"

#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

extern const struct ul_format ul_format_mtest;
/* The suite this format prints: the one whose descriptor names it. */
#define MTEST_SUITE ul_report_format_suite(ul_format_mtest.name)

/* How a field's value is printed, as the seed's summary script did. */
enum fmt_kind {
	FMT_BYTES,   /* "134427443.2" */
	FMT_SECONDS, /* "2.546" */
	FMT_PERCENT, /* "89.1%" */
	FMT_COUNT,   /* like awk's print: "32702" when whole, else "30363.3" */
};

static const struct field {
	const char *label; /* the seed's, with its colon; left in a 36-column field */
	const char *series;
	double scale; /* raw value / scale = printed unit */
	enum fmt_kind fmt;
} fields[] = {
	{ "bytes allocated:", "mtest_bytes", 1, FMT_BYTES },
	{ "User time (seconds):", "mtest_user_ns", 1e9, FMT_SECONDS },
	{ "System time (seconds):", "mtest_sys_ns", 1e9, FMT_SECONDS },
	{ "Elapsed (wall clock) time:", "mtest_elapsed_ns", 1e9, FMT_SECONDS },
	{ "Percent of CPU this job got:", "mtest_cpu_centi", 100, FMT_PERCENT },
	{ "Major (requiring I/O) page faults:", "mtest_majflt", 1, FMT_COUNT },
	{ "Minor (reclaiming a frame) faults:", "mtest_minflt", 1, FMT_COUNT },
};

static void fmt_value(char *buf, size_t len, enum fmt_kind kind, double v)
{
	switch (kind) {
	case FMT_BYTES:
		snprintf(buf, len, "%.1f", v);
		break;
	case FMT_SECONDS:
		snprintf(buf, len, "%.3f", v);
		break;
	case FMT_PERCENT:
		snprintf(buf, len, "%.1f%%", v);
		break;
	case FMT_COUNT:
		/* Whole to within print precision: no decimals. */
		if (fabs(v - round(v)) < 0.05)
			snprintf(buf, len, "%.0f", round(v));
		else
			snprintf(buf, len, "%.1f", v);
		break;
	}
}

/* A field's values in printed units; NULL (and *n 0) if absent or empty. */
static double *field_values(const struct ul_cell *cell, const struct field *f, size_t *n)
{
	const struct ul_series *s = ul_cell_find_series(cell, f->series);
	double *v;

	*n = 0;
	if (!s || !s->n)
		return NULL;
	v = malloc(s->n * sizeof(*v));
	if (!v)
		return NULL;
	for (size_t i = 0; i < s->n; i++)
		v[i] = (double)s->v[i] / f->scale;
	*n = s->n;
	return v;
}

static size_t runs_of(const struct ul_cell *cell)
{
	const struct ul_series *s = ul_cell_find_series(cell, "mtest_elapsed_ns");

	return s ? s->n : 0;
}

static const char *profile_name(double code)
{
	return code == 1 ? "audio" : code == 2 ? "video" : "deadline";
}

/* The probe's dropouts, the seed's "mp3 played N seconds" measured. */
static void dropouts(FILE *out, const struct ul_cell *cell)
{
	double periods, missed, met, stall, code = 0;

	if (!ul_cell_metric(cell, "dl_periods", &periods) ||
	    !ul_cell_metric(cell, "dl_missed", &missed))
		return;
	(void)ul_cell_metric(cell, "dl_profile", &code);
	fprintf(out, "%s dropouts: %.0f of %.0f periods missed", profile_name(code), missed,
		periods);
	/* No share when no period elapsed (a run shorter than one period). */
	if (ul_cell_metric(cell, "dl_met_pct", &met))
		fprintf(out, " (%.1f%% met)", met);
	if (ul_cell_metric(cell, "dl_max_stall_ns", &stall))
		fprintf(out, ", longest stall %.1f ms", stall / 1e6);
	fputc('\n', out);
}

int ul_report_mtest_seed(FILE *out, const struct ul_cell *cell)
{
	char buf[64];

	if (!runs_of(cell)) {
		/* Means of nothing would print as zeros, which read as results. */
		fprintf(out, "Averages for 0 mtest01 runs: no run finished (%s)\n",
			ul_cell_outcome_name(cell->outcome));
		dropouts(out, cell);
		return ferror(out) ? -EIO : 0;
	}
	fprintf(out, "Averages for %zu mtest01 runs\n", runs_of(cell));
	for (size_t i = 0; i < UL_ARRAY_SIZE(fields); i++) {
		size_t n;
		double *v = field_values(cell, &fields[i], &n);

		if (!v && n)
			return -ENOMEM;
		fmt_value(buf, sizeof(buf), fields[i].fmt, n ? ul_stats_mean(v, n) : 0.0);
		fprintf(out, "%-36s%s\n", fields[i].label, buf);
		free(v);
	}
	dropouts(out, cell);
	return ferror(out) ? -EIO : 0;
}

int ul_report_mtest_native(FILE *out, const struct ul_cell *cell)
{
	static const char *const outcome_names[] = {
		"passed",
		"allocation failures",
		"killed (OOM)",
		"other failures",
	};
	double target = 0, centi = 0, budget = 0, swap = 0, in_use = 0, chunk = 0, capped = 0;
	const struct ul_series *status = ul_cell_find_series(cell, "mtest_status");
	size_t count[4] = { 0 };
	char a[64], b[64], c[64], d[64];

	(void)ul_cell_metric(cell, "mtest_target_bytes", &target);
	(void)ul_cell_metric(cell, "mtest_target_centi", &centi);
	(void)ul_cell_metric(cell, "mtest_budget_bytes", &budget);
	(void)ul_cell_metric(cell, "mtest_swap_free_bytes", &swap);
	(void)ul_cell_metric(cell, "mtest_in_use_bytes", &in_use);
	(void)ul_cell_metric(cell, "mtest_chunk_bytes", &chunk);
	(void)ul_cell_metric(cell, "mtest_capped", &capped);
	fprintf(out, "mtest01: %zu runs of %.0f bytes in %.0f-byte chunks", runs_of(cell), target,
		chunk);
	if (centi > 0)
		fprintf(out, " (%.2f%% of budget %.0f + free swap %.0f, less %.0f in use%s)",
			centi / 100, budget, swap, in_use, capped ? "; capped" : "");
	else
		fputs(" (size given)", out);
	fputc('\n', out);
	fprintf(out, "%-36s%12s %12s %12s %12s\n", "", "mean", "S.D.", "min", "max");
	for (size_t i = 0; i < UL_ARRAY_SIZE(fields); i++) {
		size_t n;
		double *v = field_values(cell, &fields[i], &n), lo, hi;

		if (!v)
			continue;
		lo = hi = v[0];
		for (size_t j = 1; j < n; j++) {
			lo = v[j] < lo ? v[j] : lo;
			hi = v[j] > hi ? v[j] : hi;
		}
		fmt_value(a, sizeof(a), fields[i].fmt, ul_stats_mean(v, n));
		/* An S.D. of counts keeps one decimal even when whole. */
		if (fields[i].fmt == FMT_COUNT)
			snprintf(b, sizeof(b), "%.1f", ul_stats_sd(v, n));
		else
			fmt_value(b, sizeof(b), fields[i].fmt, ul_stats_sd(v, n));
		fmt_value(c, sizeof(c), fields[i].fmt, lo);
		fmt_value(d, sizeof(d), fields[i].fmt, hi);
		fprintf(out, "%-36s%12s %12s %12s %12s\n", fields[i].label, a, b, c, d);
		free(v);
	}
	for (size_t i = 0; status && i < status->n; i++)
		count[status->v[i] >= 0 && status->v[i] < 4 ? status->v[i] : 3]++;
	fputs("outcomes:", out);
	for (size_t i = 0; i < 4; i++)
		fprintf(out, "%s %zu %s", i ? "," : "", count[i], outcome_names[i]);
	fputc('\n', out);
	dropouts(out, cell);
	return ferror(out) ? -EIO : 0;
}

/* A block per test, its replicate cells (--runs) pooled as the seed
 * averaged its runs (report/replicate.h). */
static int mtest_write_run(FILE *out, const struct ul_run *run)
{
	bool first = true;

	for (size_t i = 0; i < run->n_cells; i++) {
		struct ul_cell pooled;
		const struct ul_cell *cell;
		int rc;

		if (strcmp(run->cells[i].suite, MTEST_SUITE) || !ul_report_first_of_test(run, i))
			continue;
		cell = ul_report_test_cell(run, i, &pooled, &rc);
		if (!cell)
			return rc;
		if (!first)
			fputc('\n', out);
		first = false;
		rc = ul_report_mtest_seed(out, cell);
		ul_cell_release(&pooled);
		if (rc)
			return rc;
	}
	ul_report_disturbed_notes(out, run, MTEST_SUITE);
	return ul_report_finish(out);
}

const struct ul_format ul_format_mtest = {
	.name = "mtest",
	.summary = "seed 002's \"Averages for N mtest01 runs\" block, with the probe's dropouts",
	.version = 1,
	.write_run = mtest_write_run,
};

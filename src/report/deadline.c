/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * The deadline format: interbench's per-load table (latency mean +/- S.D.,
 * max, % desired CPU, % deadlines met) for the deadline suite's cells,
 * with the p99, the missed periods and the longest stall added.
 */
#include "core/compat.h"
#include "report/common.h"
#include "report/format.h"
#include "report/suites.h"
#include "report/notes.h"
#include "report/monitors.h"

#include <errno.h>
#include <stdio.h>
#include <string.h>

extern const struct ul_format ul_format_deadline;
/* The suite this format prints: the one whose descriptor names it. */
#define DEADLINE_SUITE ul_report_format_suite(ul_format_deadline.name)

/* The Load column is DL_NAME wide, DL_NAME_ROUNDS when rows name their
 * round ("largewrite #2"). */
#define DL_NAME 10
#define DL_NAME_ROUNDS 13
#define DL_HEAD "%*s %9s %9s %9s %9s %9s %8s %7s %7s\n"
#define DL_ROW "%*s %9.3f %9.3f %9.3f %9.3f %9.1f %8.0f %7.1f %7.1f\n"

static double metric_or(const struct ul_cell *cell, const char *name, double def)
{
	double v;

	return ul_cell_metric(cell, name, &v) ? v : def;
}

/*
 * The name of a stored "dl_profile" code (probe/deadline.c's table, index +
 * 1).  Runs of underload 0.1 stored its 50 Hz task as code 1, "audio",
 * before audio became interbench's 20 Hz: the period tells them apart.
 */
static const char *profile_name(double code, double period_ns)
{
	if (code == 1)
		return period_ns == 20e6 ? "audio-50hz" : "audio";
	return code == 2 ? "video" : code == 3 ? "audio-50hz" : "custom";
}

static void profile_line(FILE *out, const struct ul_cell *cell)
{
	double period = metric_or(cell, "dl_period_ns", 0), work = metric_or(cell, "dl_work_ns", 0);
	double code = metric_or(cell, "dl_profile", 0), rt = metric_or(cell, "dl_rt", 0);
	double refused = metric_or(cell, "dl_rt_errno", 0);

	fprintf(out,
		"deadline probe: %s, period %.3f ms (%.1f Hz), work %.3f ms (%.1f%% of a CPU), ",
		profile_name(code, period), period / 1e6, period > 0 ? 1e9 / period : 0, work / 1e6,
		period > 0 ? 100 * work / period : 0);
	if (rt == 1)
		fputs("SCHED_FIFO\n", out);
	else if (refused > 0)
		fprintf(out, "SCHED_OTHER (SCHED_FIFO refused: %s)\n", strerror((int)refused));
	else
		fputs("SCHED_OTHER\n", out);
}

/* One row: a cell's numbers, or its outcome when it has none. */
static void deadline_row(FILE *out, const struct ul_cell *c, bool rounds)
{
	int w = rounds ? DL_NAME_ROUNDS : DL_NAME;
	char name[UL_NAME_LEN + 16];

	ul_report_round_name(name, sizeof(name), c->load, c, rounds);
	if (!ul_cell_metric(c, "dl_periods", &(double){ 0 }) ||
	    !ul_cell_metric(c, "dl_lat_mean_ns", &(double){ 0 })) {
		fprintf(out, "%*s  %s", w, name, ul_cell_outcome_name(c->outcome));
		if (c->note[0]) {
			fputs(": ", out);
			ul_report_put_clean(out, c->note, sizeof(c->note));
		}
		fputc('\n', out);
		return;
	}
	fprintf(out, DL_ROW, w, name, metric_or(c, "dl_lat_mean_ns", 0) / 1e6,
		metric_or(c, "dl_lat_sd_ns", 0) / 1e6, metric_or(c, "dl_lat_p99_ns", 0) / 1e6,
		metric_or(c, "dl_lat_max_ns", 0) / 1e6, metric_or(c, "dl_max_stall_ns", 0) / 1e6,
		metric_or(c, "dl_missed", 0), metric_or(c, "dl_met_pct", 0),
		metric_or(c, "dl_cpu_pct", 0));
	if (c->outcome != UL_CELL_OK) {
		fprintf(out, "%*s  ^ %s: ", w, "", ul_cell_outcome_name(c->outcome));
		ul_report_put_clean(out, c->note, sizeof(c->note));
		fputc('\n', out);
	}
}

/* Test by test in order of first appearance; with replicates (--runs)
 * each test's rounds follow it in run order, named "LOAD #R". */
int ul_report_deadline_table(FILE *out, const struct ul_run *run)
{
	bool head = false, rounds = ul_report_has_rounds(run, DEADLINE_SUITE);

	for (size_t i = 0; i < run->n_cells; i++) {
		const struct ul_cell *c = &run->cells[i];

		if (strcmp(c->suite, DEADLINE_SUITE) || !ul_report_first_of_test(run, i))
			continue;
		if (!head) {
			profile_line(out, c);
			fputs("latencies in ms from when a period was due to when it woke (missed "
			      "periods "
			      "included); stall = longest wait for the CPU\n",
			      out);
			fprintf(out, DL_HEAD, rounds ? DL_NAME_ROUNDS : DL_NAME, "Load", "Mean",
				"S.D.", "p99", "Max", "Stall", "Missed", "% met", "% CPU");
			head = true;
		}
		for (size_t k = i; k < run->n_cells; k++)
			if (ul_report_same_test(c, &run->cells[k]))
				deadline_row(out, &run->cells[k], rounds);
	}
	return ferror(out) ? -EIO : 0;
}

static int deadline_write_run(FILE *out, const struct ul_run *run)
{
	int rc = ul_report_deadline_table(out, run);

	if (!rc)
		ul_report_disturbed_notes(out, run, DEADLINE_SUITE);
	return rc ? rc : ul_report_finish(out);
}

const struct ul_format ul_format_deadline = {
	.name = "deadline",
	.summary = "the deadline suite's per-load latency, deadlines met and share of desired CPU",
	.version = 1,
	.write_run = deadline_write_run,
};

/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * The "text" format: underload's own table for people.  A header about the
 * run and host, then one aligned table per (suite, probe, primary series).
 *
 * Layout (version 1):
 *   label:/host:/kernel:/run:/started:/params: lines, "key:" padded to 9
 *   columns, and for a run with a fingerprint "doctor:" lines (each
 *   warning and blocker `underload doctor` found at its start, or one line
 *   saying there was none); then for each group, in order of first appearance in the run,
 *   a blank line, "suite S, probe P: SERIES in UNIT; ratio = median / noload
 *   median", and a table whose columns are right-aligned numbers and
 *   left-aligned text, two spaces apart, with no trailing blanks:
 *     test n min median mean p90 max S.D. dev.mean ratio
 *     "95% CI of median" load units, per s, outcome
 *   "load units" is the load's work while the probe was measured, "per s"
 *   that work per second of the measured window ("-" where not recorded).
 *   With replicates (--runs: a cell of round 2 or more in the suite) the
 *   rows go test by test, each test's rounds in run order, named "TEST
 *   #R", and a row's ratio divides by the noload median of its own round
 *   (the group line says so); without, a row is a cell in run order.
 *   Below the table, when a test's cells recorded why it was slow, the
 *   block "  breakdown: median delay = median of each part" of
 *   report/breakdown.h; then a suite's own block (mtest's, fsbench's) comes once a
 *   test, its replicates pooled (report/replicate.h).
 *   Series of a known unit (*_ns, *_ps, *_bps: report/quantity.h) show each
 *   number with its prefix and 4 significant digits ("2.000 ms", "1038
 *   MB/s"); any other series is shown as recorded with 3 decimals ("as
 *   recorded" in the group line).  Every line of a
 *   table starts with a marker column: '!' when the cell is noisy or its
 *   outcome is not ok, else a space.  A group with marked cells ends with a
 *   legend line and one line per marked cell (name, outcome, flags, note).
 * Statistics come from stats/ (ul_stats_summarize_i64); nothing is
 * recomputed here.  A cell without samples shows "-" for every number.
 */
#include "core/compat.h"
#include "doctor/doctor.h"
#include "report/breakdown.h"
#include "report/common.h"
#include "report/contest.h"
#include "report/format.h"
#include "report/monitors.h"
#include "report/notes.h"
#include "report/quantity.h"
#include "report/replicate.h"
#include "report/suites.h"
#include "report/table.h"
#include "stats/stats.h"

#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define TEXT_OUTCOME_LEN 128 /* "ok" and every flag name, "+"-joined */

enum text_col {
	COL_TEST,
	COL_N,
	COL_MIN,
	COL_MEDIAN,
	COL_MEAN,
	COL_P90,
	COL_MAX,
	COL_SD,
	COL_DEV_MEAN,
	COL_RATIO,
	COL_CI,
	COL_UNITS,
	COL_RATE,
	COL_OUTCOME,
	COL_COUNT,
};

static const char *const text_titles[COL_COUNT] = {
	[COL_TEST] = "test",
	[COL_N] = "n",
	[COL_MIN] = "min",
	[COL_MEDIAN] = "median",
	[COL_MEAN] = "mean",
	[COL_P90] = "p90",
	[COL_MAX] = "max",
	[COL_SD] = "S.D.",
	[COL_DEV_MEAN] = "dev.mean",
	[COL_RATIO] = "ratio",
	[COL_CI] = "95% CI of median",
	[COL_UNITS] = "load units",
	[COL_RATE] = "per s",
	[COL_OUTCOME] = "outcome",
};

/* Text columns are left-aligned, numbers right-aligned. */
static const bool text_left[COL_COUNT] = {
	[COL_TEST] = true,
	[COL_CI] = true,
	[COL_OUTCOME] = true,
};

/* The primary series name that places a cell in a group; a cell without
 * series joins the first cell of its suite and probe that has one. */
static const char *text_series_key(const struct ul_run *run, const struct ul_cell *cell)
{
	const struct ul_series *s = ul_report_primary(cell);

	if (s)
		return s->name;
	for (size_t i = 0; i < run->n_cells; i++) {
		const struct ul_cell *c = &run->cells[i];

		s = ul_report_primary(c);
		if (s && !strcmp(c->suite, cell->suite) && !strcmp(c->probe, cell->probe))
			return s->name;
	}
	return "";
}

static bool text_same_group(const struct ul_run *run, const struct ul_cell *a,
			    const struct ul_cell *b)
{
	return !strcmp(a->suite, b->suite) && !strcmp(a->probe, b->probe) &&
	       !strcmp(text_series_key(run, a), text_series_key(run, b));
}

/* A statistic in its series' unit (report/quantity.h); a series of no
 * known unit (counts, iterations) keeps three decimals as recorded. */
static const char *text_quantity(char *buf, size_t len, double v, const char *unit)
{
	if (unit)
		return ul_fmt_quantity(buf, len, v, unit);
	snprintf(buf, len, "%.3f", v);
	return buf;
}

static void text_set_quantity(struct ul_table *t, size_t row, size_t col, double v,
			      const char *unit)
{
	char buf[32];

	ul_table_set(t, row, col, "%s", text_quantity(buf, sizeof(buf), v, unit));
}

static bool text_marked(const struct ul_cell *c)
{
	return c->outcome != UL_CELL_OK ||
	       (c->flags & (UL_CELL_NOISY | UL_CELL_DISTURBED | UL_CELL_NO_PRESSURE));
}

/* "ok", "load-died", "ok+noisy+load-killed": the outcome and the flags that are set. */
static void text_outcome(char *buf, size_t len, const struct ul_cell *c)
{
	size_t used = (size_t)snprintf(buf, len, "%s", ul_cell_outcome_name(c->outcome));

	for (unsigned bit = 0; bit < 8 * sizeof(c->flags); bit++) {
		unsigned flag = 1u << bit;
		const char *name = ul_report_flag_name(flag);
		char unknown[16];

		if (!(c->flags & flag) || used >= len)
			continue;
		if (!name) {
			snprintf(unknown, sizeof(unknown), "bit%u", bit);
			name = unknown;
		}
		used += (size_t)snprintf(buf + used, len - used, "+%s", name);
	}
}

static int text_fill_row(struct ul_table *t, const struct ul_cell *c, const struct ul_summary *base,
			 const char *unit, bool rounds)
{
	const struct ul_series *s = ul_report_primary(c);
	struct ul_summary sum;
	size_t row = ul_table_add_row(t, text_marked(c) ? '!' : ' ');
	char outcome[TEXT_OUTCOME_LEN], name[UL_NAME_LEN + 16];
	double rate;
	int err;

	ul_report_round_name(name, sizeof(name), c->load, c, rounds);
	ul_table_set_clean(t, row, COL_TEST, name, sizeof(name));
	if (c->load_unit[0])
		ul_table_set(t, row, COL_UNITS, "%llu %.*s", (unsigned long long)c->load_units,
			     (int)strnlen(c->load_unit, sizeof(c->load_unit)), c->load_unit);
	else
		ul_table_set(t, row, COL_UNITS, "%llu", (unsigned long long)c->load_units);
	if (ul_cell_metric(c, "load_units_per_s", &rate))
		ul_table_set(t, row, COL_RATE, "%.1f", rate);
	else
		ul_table_set(t, row, COL_RATE, "-");
	text_outcome(outcome, sizeof(outcome), c);
	ul_table_set(t, row, COL_OUTCOME, "%s", outcome);

	if (!s || !s->n) {
		ul_table_set(t, row, COL_N, "0");
		for (int col = COL_MIN; col <= COL_CI; col++)
			ul_table_set(t, row, (size_t)col, "-");
		return 0;
	}
	err = ul_stats_summarize_i64(s->v, s->n, &sum);
	if (err)
		return err;
	ul_table_set(t, row, COL_N, "%zu", sum.n);
	text_set_quantity(t, row, COL_MIN, sum.min, unit);
	text_set_quantity(t, row, COL_MEDIAN, sum.median, unit);
	text_set_quantity(t, row, COL_MEAN, sum.mean, unit);
	text_set_quantity(t, row, COL_P90, sum.p90, unit);
	text_set_quantity(t, row, COL_MAX, sum.max, unit);
	text_set_quantity(t, row, COL_SD, sum.sd, unit);
	text_set_quantity(t, row, COL_DEV_MEAN, sum.dev_mean, unit);
	if (base && base->median != 0)
		ul_table_set(t, row, COL_RATIO, "%.3f", sum.median / base->median);
	else
		ul_table_set(t, row, COL_RATIO, "-");
	if (sum.has_ci) {
		char lo[32], hi[32];

		ul_table_set(t, row, COL_CI, "[%s, %s]",
			     text_quantity(lo, sizeof(lo), sum.ci_lo, unit),
			     text_quantity(hi, sizeof(hi), sum.ci_hi, unit));
	} else
		ul_table_set(t, row, COL_CI, "n<6");
	return 0;
}

static void text_legend(FILE *out, const struct ul_run *run, const struct ul_cell *first,
			bool rounds)
{
	fputs("  ! = noisy (median CI wider than the target at max points), disturbed (over 5% of a\n"
	      "    CPU used outside the run), no-pressure (a memory load paged nothing) or outcome\n"
	      "    not ok:\n",
	      out);
	for (const struct ul_cell *c = first; c < run->cells + run->n_cells; c++) {
		char outcome[TEXT_OUTCOME_LEN], name[UL_NAME_LEN + 16];

		if (!text_same_group(run, first, c) || !text_marked(c))
			continue;
		text_outcome(outcome, sizeof(outcome), c);
		fputs("    ", out);
		ul_report_round_name(name, sizeof(name), c->load, c, rounds);
		ul_report_put_clean(out, name, sizeof(name));
		fprintf(out, ": %s", outcome);
		if (c->note[0]) {
			fputs(": ", out);
			ul_report_put_clean(out, c->note, sizeof(c->note));
		}
		fputc('\n', out);
	}
}

/* A suite's block of the test of run->cells[j] (at its first cell): its
 * replicates pooled, as the block pooled the rounds of one cell before. */
static int text_test_block(FILE *out, const struct ul_run *run, size_t j,
			   int (*block)(FILE *out, const struct ul_cell *cell))
{
	struct ul_cell pooled;
	const struct ul_cell *c;
	int err;

	if (!ul_report_first_of_test(run, j))
		return 0;
	c = ul_report_test_cell(run, j, &pooled, &err);
	if (!c)
		return err;
	err = fputc('\n', out) == EOF ? -EIO : block(out, c);
	ul_cell_release(&pooled);
	return err;
}

/*
 * Below a group's table: the suites' own blocks (the deadline table, the
 * mtest block, a test's replicates pooled) and what the monitors recorded
 * per cell (report/monitors.h).
 */
static int text_extras(FILE *out, const struct ul_run *run, const struct ul_cell *first,
		       bool rounds)
{
	const struct ul_suite_report *ts = ul_report_suite(first->suite);
	char indent[UL_NAME_LEN + 24], name[UL_NAME_LEN + 16];
	int err = 0;

	if (ts->text_group && fputc('\n', out) != EOF)
		err = ts->text_group(out, run);
	for (const struct ul_cell *c = first; c < run->cells + run->n_cells && !err; c++) {
		const struct ul_suite_report *cs = ul_report_suite(c->suite);

		if (!text_same_group(run, first, c))
			continue;
		if (cs->text_cell)
			err = text_test_block(out, run, (size_t)(c - run->cells), cs->text_cell);
		snprintf(indent, sizeof(indent),
			 "  %s: ", ul_report_round_name(name, sizeof(name), c->load, c, rounds));
		ul_report_cell_monitors(out, c, indent);
	}
	return err;
}

/*
 * One row of a group: the cell against its baseline, the noload cell of
 * its round when the run has rounds (--runs), else the group's first.
 */
static int text_row(struct ul_table *t, const struct ul_run *run, const struct ul_cell *c,
		    const char *key, bool rounds)
{
	const struct ul_cell *bc =
		ul_report_baseline_in(run, c->suite, c->probe, key, rounds ? ul_cell_round(c) : 0);
	struct ul_summary base;

	if (bc) {
		const struct ul_series *bs = ul_cell_find_series(bc, key);
		int err = ul_stats_summarize_i64(bs->v, bs->n, &base);

		if (err)
			return err;
	}
	return text_fill_row(t, c, bc ? &base : NULL, ul_series_unit(key), rounds);
}

/* The group's rows: test by test in order of first appearance, each
 * test's rounds in run order (the run measured them interleaved). */
static int text_rows(struct ul_table *t, const struct ul_run *run, const struct ul_cell *first,
		     bool rounds, bool *any_mark)
{
	const char *key = text_series_key(run, first);

	for (size_t j = (size_t)(first - run->cells); j < run->n_cells; j++) {
		const struct ul_cell *c = &run->cells[j];

		if (!text_same_group(run, first, c) || !ul_report_first_of_test(run, j))
			continue;
		for (const struct ul_cell *r = c; r < run->cells + run->n_cells; r++) {
			int err;

			if (!ul_report_same_test(c, r) || !text_same_group(run, first, r))
				continue;
			err = text_row(t, run, r, key, rounds);
			if (err)
				return err;
			*any_mark |= text_marked(r);
		}
	}
	return 0;
}

/* Why its tests were slow, when their cells recorded it (report/breakdown.h). */
static int text_breakdown(FILE *out, const struct ul_run *run, const struct ul_cell *first)
{
	bool printed;

	return ul_breakdown_block(out, run, first->suite, first->probe, "  breakdown", &printed);
}

/* Prints the group that starts with `first` (its first cell in run order). */
static int text_group(FILE *out, const struct ul_run *run, const struct ul_cell *first)
{
	const char *key = text_series_key(run, first);
	const char *unit = ul_series_unit(key);
	const struct ul_cell *bc = ul_report_baseline(run, first->suite, first->probe, key);
	bool any_mark = false, rounds = ul_report_has_rounds(run, first->suite);
	struct ul_table t;
	int err;

	ul_table_init(&t, COL_COUNT, text_left, true);
	ul_table_add_titles(&t, text_titles);
	err = text_rows(&t, run, first, rounds, &any_mark);
	if (!err)
		err = t.err;
	if (err)
		goto out_free;

	fputs("\nsuite ", out);
	ul_report_put_clean(out, first->suite, sizeof(first->suite));
	fputs(", probe ", out);
	ul_report_put_clean(out, first->probe, sizeof(first->probe));
	fprintf(out, ": %s %s%s; ratio = median / noload median%s\n", key[0] ? key : "(no series)",
		unit ? "in " : "", ul_fmt_unit_note(unit), rounds ? " of the same round" : "");
	if (bc && (bc->flags & UL_CELL_DISTURBED))
		ul_report_baseline_warning(out, run, first->suite);
	err = ul_table_print(out, &t);
	if (err)
		goto out_free;
	if (any_mark)
		text_legend(out, run, first, rounds);
	err = text_breakdown(out, run, first);
	if (!err)
		err = text_extras(out, run, first, rounds);
out_free:
	ul_table_free(&t);
	return err;
}

/* What the doctor found at the start worth a warning; silent for runs without a fingerprint. */
static void text_doctor(FILE *out, const struct ul_run *run)
{
	const json_t *d = ul_doctor_stored(run->fingerprint);
	const char *check;
	json_t *v;
	int shown = 0;

	if (!d)
		return;
	json_object_foreach ((json_t *)d, check, v) {
		const char *text = json_string_value(v);

		if (!text || ul_doctor_text_severity(text) == UL_DOCTOR_INFO)
			continue;
		fputs("doctor:  ", out);
		ul_report_put_clean(out, check, SIZE_MAX);
		fputs(" ", out);
		ul_report_put_clean(out, text, SIZE_MAX);
		fputc('\n', out);
		shown++;
	}
	if (!shown)
		fputs("doctor:  no warnings at the start (show --env lists every check)\n", out);
}

/* A run whose machine went down under it: where, right under its status,
 * so that nobody reads its tables without knowing. */
static void text_crash(FILE *out, const struct ul_run *run)
{
	char where[256];
	bool in_test;

	if (run->status != UL_RUN_CRASHED)
		return;
	in_test = ul_run_crash_where(run, where, sizeof(where)) >= 0;
	if (!in_test)
		(void)ul_run_crash_phrase(run, where,
					  sizeof(where)); /* after its tests, or unknown */
	fputs(in_test ? "CRASHED: the machine went down during "
		      : "CRASHED: the machine went down ",
	      out);
	ul_report_put_clean(out, where, sizeof(where));
	fputs(in_test ? " (a kernel crash, hang or reboot): that test has no measurement; what "
			"the run finished is below\n"
		      : " (a kernel crash, hang or reboot); what the run finished is below\n",
	      out);
}

static void text_header(FILE *out, const struct ul_run *run)
{
	const struct ul_host *h = &run->host;
	const struct ul_run_params *p = &run->params;
	char when[32];

	fputs("label:   ", out);
	ul_report_put_clean(out, run->label, sizeof(run->label));
	fputs("\nhost:    ", out);
	ul_report_put_clean(out, h->hostname, sizeof(h->hostname));
	fputs(" (", out);
	ul_report_put_clean(out, h->arch, sizeof(h->arch));
	fprintf(out, ", %d CPUs, %llu MiB RAM, %llu MiB swap", h->ncpu,
		(unsigned long long)(h->mem_total_bytes / UL_MiB),
		(unsigned long long)(h->swap_total_bytes / UL_MiB));
	/* The host's swap was read before the run's own swap file existed. */
	if (p->swap_bytes)
		fprintf(out, " + the run's %llu MiB swap file",
			(unsigned long long)(p->swap_bytes / UL_MiB));
	fputs(", ", out);
	ul_report_put_clean(out, h->cpu_model, sizeof(h->cpu_model));
	fputs(")\nkernel:  ", out);
	ul_report_put_clean(out, h->kernel_release, sizeof(h->kernel_release));
	fputc(' ', out);
	ul_report_put_clean(out, h->kernel_version, sizeof(h->kernel_version));
	fputs("\nrun:     ", out);
	ul_report_put_clean(out, run->uuid, sizeof(run->uuid));
	fprintf(out, " (%s)\n", ul_run_status_name(run->status));
	text_crash(out, run);
	fprintf(out, "started: %s",
		run->started_wall_ns ? ul_report_iso8601(when, sizeof(when), run->started_wall_ns)
				     : "unknown");
	if (run->finished_wall_ns)
		fprintf(out, ", finished %s",
			ul_report_iso8601(when, sizeof(when), run->finished_wall_ns));
	fputs("\nparams:  ", out);
	/* Sampling parameters mean something only to the suites that sample
	 * after a think time (resp) or for interval x points (deadline). */
	if (ul_report_run_has_flag(run, UL_RS_SAMPLING))
		fprintf(out, "interval %g s, %d..%d points, median CI target %.2f%%, ",
			(double)p->interval_ns / UL_NS_PER_SEC, p->min_points, p->max_points,
			(double)p->ci_target_centi / 100);
	fprintf(out, "memory budget %llu MiB", (unsigned long long)(p->mem_budget_bytes / UL_MiB));
	if (p->mem_limit_bytes)
		fprintf(out, ", memory limit %llu MiB",
			(unsigned long long)(p->mem_limit_bytes / UL_MiB));
	if (p->swap_bytes)
		fprintf(out, ", swap %llu MiB", (unsigned long long)(p->swap_bytes / UL_MiB));
	fputc('\n', out);
	text_doctor(out, run);
}

/* The contest suite's cells, one table of jobs pooled per load (report/contest.c). */
static int text_contest(FILE *out, const struct ul_run *run)
{
	return ul_report_contest_text(out, run);
}

static int text_write_run(FILE *out, const struct ul_run *run)
{
	text_header(out, run);
	for (size_t i = 0; i < run->n_cells; i++) {
		const struct ul_cell *c = &run->cells[i];
		bool seen = false;
		int err;

		/* One job per cell: contest's own table pools them per load (below). */
		if (ul_report_is_contest(c))
			continue;
		for (size_t j = 0; j < i && !seen; j++)
			seen = text_same_group(run, &run->cells[j], c);
		if (seen)
			continue;
		err = text_group(out, run, c);
		if (err)
			return err;
	}
	{
		int err = text_contest(out, run);

		if (err)
			return err;
	}
	return ul_report_finish(out);
}

const struct ul_format ul_format_text = {
	.name = "text",
	.summary = "underload's table: n, min, median, mean, p90, max, S.D., median CI, ratio",
	.version = 1,
	.write_run = text_write_run,
};

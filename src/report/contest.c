/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * The "contest" format: contest v0.5x's cross-kernel table (seed 001,
 * seed-systems.md section 2.5), over every label given; and the native
 * contest table the "text" format prints.
 *
 * Layout of the seed format (version 1), one block per load, a blank line
 * between blocks:
 *	"LOAD:"
 *	"Kernel [runs]\t\tTime\tCPU%\tLoads\tLCPU%\tRatio"
 *	LABEL " [" N "]\t\t" TIME "\t" CPU "\t" LOADS "\t" LCPU "\t" RATIO
 * with TIME "%.1f" seconds, CPU/LOADS/LCPU "%.0f", RATIO "%.2f" ("-" when
 * there is no baseline).  Loads come in the contest order (noload,
 * process_load, io_load, mem_load, tarc_load, tarx_load, read_load,
 * lslr_load), any other after them; labels newest run first.  Only the
 * contest suite's job cells count (suite "contest", probe "job").  A label's
 * row pools every valid job of that label and load over all runs given:
 * N valid jobs, mean Time, mean CPU%, mean Loads, mean LCPU%; Ratio = mean
 * Time / the mean Time of the same label's valid noload jobs (or of the
 * --baseline label's).  Jobs that are not valid (load failed or died, job
 * failed, interrupted) never enter a row (a load with none valid keeps its
 * block, without rows); when there are any, a blank line
 * and "Not counted:" follow the blocks, one line each:
 *	"  LABEL LOAD: OUTCOME: NOTE"
 * so a run without failures prints exactly the seed's layout.
 */
#include "core/compat.h"
#include "report/contest.h"
#include "report/common.h"
#include "core/log.h"
#include "model/suite.h"
#include "report/format.h"
#include "report/suites.h"
#include "report/notes.h"
#include "report/table.h"
#include "report/monitors.h"
#include "stats/compare.h"
#include "stats/stats.h"

#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

extern const struct ul_format ul_format_contest;
/* The suite this format prints: the one whose descriptor names it. */
#define CONTEST_SUITE ul_report_format_suite(ul_format_contest.name)
#define CONTEST_PROBE "job" /* one job per cell: wall_ns, user_ns, sys_ns */

/* The seed's order of blocks is the contest suite's test order (model/suite.h). */
static const struct ul_suite_test *contest_order(void)
{
	const struct ul_suite *s = ul_suite_find(CONTEST_SUITE);

	if (!s)
		UL_BUG("the contest suite is not registered");
	return s->tests;
}

bool ul_report_is_contest(const struct ul_cell *cell)
{
	return !strncmp(cell->suite, CONTEST_SUITE, sizeof(cell->suite)) &&
	       !strncmp(cell->probe, CONTEST_PROBE, sizeof(cell->probe));
}

/* A job that counts: ok, with its elapsed time. */
static bool valid_job(const struct ul_cell *c, int64_t *wall_ns)
{
	const struct ul_series *s = ul_cell_find_series(c, "wall_ns");

	if (!ul_report_is_contest(c) || c->outcome != UL_CELL_OK || !s || !s->n)
		return false;
	*wall_ns = s->v[0];
	return true;
}

static double metric_or(const struct ul_cell *c, const char *name, double def)
{
	double v;

	return ul_cell_metric(c, name, &v) ? v : def;
}

/* CPU% of a job: recorded, or recomputed from its series for old cells. */
static double job_cpu_pct(const struct ul_cell *c, int64_t wall_ns)
{
	const struct ul_series *u = ul_cell_find_series(c, "user_ns");
	const struct ul_series *s = ul_cell_find_series(c, "sys_ns");
	double v;

	if (ul_cell_metric(c, "cpu_pct", &v))
		return v;
	if (!u || !s || !u->n || !s->n || wall_ns <= 0)
		return 0;
	return (double)(u->v[0] + s->v[0]) * 100.0 / (double)wall_ns;
}

/* Means over the valid jobs of one (label, load). */
struct contest_agg {
	size_t n;
	double time_s, cpu, loads, lcpu;
};

static bool same_label(const struct ul_run *a, const struct ul_run *b)
{
	return !strncmp(a->label, b->label, sizeof(a->label));
}

static bool label_is(const struct ul_run *r, const char *label)
{
	return !strncmp(r->label, label, sizeof(r->label));
}

static void aggregate(const struct ul_run *const *runs, size_t nruns, const char *label,
		      const char *load, struct contest_agg *a)
{
	memset(a, 0, sizeof(*a));
	for (size_t r = 0; r < nruns; r++) {
		if (!label_is(runs[r], label))
			continue;
		for (size_t i = 0; i < runs[r]->n_cells; i++) {
			const struct ul_cell *c = &runs[r]->cells[i];
			int64_t wall;

			if (strncmp(c->load, load, sizeof(c->load)) || !valid_job(c, &wall))
				continue;
			a->n++;
			a->time_s += (double)wall / UL_NS_PER_SEC;
			a->cpu += job_cpu_pct(c, wall);
			a->loads += metric_or(c, "loads", 0);
			a->lcpu += metric_or(c, "load_cpu_pct", 0);
		}
	}
	if (a->n) {
		a->time_s /= (double)a->n;
		a->cpu /= (double)a->n;
		a->loads /= (double)a->n;
		a->lcpu /= (double)a->n;
	}
}

static bool has_contest(const struct ul_run *run)
{
	for (size_t i = 0; i < run->n_cells; i++)
		if (ul_report_is_contest(&run->cells[i]))
			return true;
	return false;
}

/* Runs with contest cells, newest first; the first run of each label in
 * that order stands for the label. */
static int order_runs(const struct ul_run *const *runs, size_t n, const struct ul_run ***out,
		      size_t *nout)
{
	const struct ul_run **v = calloc(n ? n : 1, sizeof(*v));
	size_t k = 0;

	if (!v)
		return -ENOMEM;
	for (size_t i = 0; i < n; i++)
		if (has_contest(runs[i]))
			v[k++] = runs[i];
	/* Insertion sort, stable: newest start first, then the higher id. */
	for (size_t i = 1; i < k; i++) {
		const struct ul_run *x = v[i];
		size_t j = i;

		while (j > 0 && (v[j - 1]->started_wall_ns < x->started_wall_ns ||
				 (v[j - 1]->started_wall_ns == x->started_wall_ns &&
				  v[j - 1]->id < x->id))) {
			v[j] = v[j - 1];
			j--;
		}
		v[j] = x;
	}
	*out = v;
	*nout = k;
	return 0;
}

/* Is `load` named by a contest cell of any run? */
static bool load_present(const struct ul_run *const *runs, size_t n, const char *load)
{
	for (size_t r = 0; r < n; r++)
		for (size_t i = 0; i < runs[r]->n_cells; i++) {
			const struct ul_cell *c = &runs[r]->cells[i];

			if (ul_report_is_contest(c) && !strncmp(c->load, load, sizeof(c->load)))
				return true;
		}
	return false;
}

static bool in_order(const char *load)
{
	return ul_suite_has_test(ul_suite_find(CONTEST_SUITE), load);
}

/* The loads to print: the seed's order, then others by first appearance. */
static int block_loads(const struct ul_run *const *runs, size_t n, const char ***out, size_t *nout)
{
	size_t cap = ul_suite_n_tests(ul_suite_find(CONTEST_SUITE)), k = 0;
	const char **v;

	for (size_t r = 0; r < n; r++)
		cap += runs[r]->n_cells;
	v = calloc(cap, sizeof(*v));
	if (!v)
		return -ENOMEM;
	for (const struct ul_suite_test *t = contest_order(); t->load; t++)
		if (load_present(runs, n, t->load))
			v[k++] = t->load;
	for (size_t r = 0; r < n; r++)
		for (size_t i = 0; i < runs[r]->n_cells; i++) {
			const struct ul_cell *c = &runs[r]->cells[i];
			bool seen = in_order(c->load);

			if (!ul_report_is_contest(c))
				continue;
			for (size_t j = 0; j < k && !seen; j++)
				seen = !strncmp(v[j], c->load, sizeof(c->load));
			if (!seen)
				v[k++] = c->load;
		}
	*out = v;
	*nout = k;
	return 0;
}

/* The first run of each label in `v` (already newest first). */
static bool first_of_label(const struct ul_run *const *v, size_t i)
{
	for (size_t j = 0; j < i; j++)
		if (same_label(v[j], v[i]))
			return false;
	return true;
}

static void put_load_name(FILE *out, const char *load)
{
	ul_report_put_clean(out, load, UL_NAME_LEN);
}

static void seed_block(FILE *out, const struct ul_run *const *v, size_t nv, const char *load,
		       const struct ul_report_opts *opts)
{
	put_load_name(out, load);
	fputs(":\nKernel [runs]\t\tTime\tCPU%\tLoads\tLCPU%\tRatio\n", out);
	for (size_t i = 0; i < nv; i++) {
		struct contest_agg a, base;

		if (!first_of_label(v, i))
			continue;
		aggregate(v, nv, v[i]->label, load, &a);
		if (!a.n)
			continue;
		aggregate(v, nv, opts && opts->baseline ? opts->baseline : v[i]->label,
			  UL_REPORT_BASELINE_LOAD, &base);
		ul_report_put_clean(out, v[i]->label, sizeof(v[i]->label));
		fprintf(out, " [%zu]\t\t%.1f\t%.0f\t%.0f\t%.0f\t", a.n, a.time_s, a.cpu, a.loads,
			a.lcpu);
		if (base.n && base.time_s > 0)
			fprintf(out, "%.2f\n", a.time_s / base.time_s);
		else
			fputs("-\n", out);
	}
}

/* Jobs left out of the rows, with why. */
static void not_counted(FILE *out, const struct ul_run *const *v, size_t nv)
{
	bool head = false;

	for (size_t r = 0; r < nv; r++)
		for (size_t i = 0; i < v[r]->n_cells; i++) {
			const struct ul_cell *c = &v[r]->cells[i];
			int64_t wall;

			if (!ul_report_is_contest(c) || valid_job(c, &wall))
				continue;
			if (!head)
				fputs("\nNot counted:\n", out);
			head = true;
			fputs("  ", out);
			ul_report_put_clean(out, v[r]->label, sizeof(v[r]->label));
			fputc(' ', out);
			put_load_name(out, c->load);
			fprintf(out, ": %s", ul_cell_outcome_name(c->outcome));
			if (c->note[0]) {
				fputs(": ", out);
				ul_report_put_clean(out, c->note, sizeof(c->note));
			}
			fputc('\n', out);
		}
}

static int contest_write_runs(FILE *out, const struct ul_run *const *runs, size_t n,
			      const struct ul_report_opts *opts)
{
	const struct ul_run **v = NULL;
	const char **loads = NULL;
	size_t nv = 0, nloads = 0;
	int err;

	err = order_runs(runs, n, &v, &nv);
	if (!err)
		err = block_loads(v, nv, &loads, &nloads);
	if (err) {
		free(v);
		return err;
	}
	if (!nv)
		fputs("(no contest results)\n", out);
	for (size_t i = 0; i < nloads; i++) {
		if (i)
			fputc('\n', out);
		seed_block(out, v, nv, loads[i], opts);
	}
	not_counted(out, v, nv);
	for (size_t i = 0; i < nv; i++)
		ul_report_disturbed_notes(out, v[i], CONTEST_SUITE);
	free(loads);
	free(v);
	return ul_report_finish(out);
}

static int contest_write_run(FILE *out, const struct ul_run *run)
{
	const struct ul_run *const one[] = { run };

	return contest_write_runs(out, one, 1, NULL);
}

const struct ul_format ul_format_contest = {
	.name = "contest",
	.summary = "contest v0.5x's table (Kernel [runs] Time CPU% Loads LCPU% Ratio), every label",
	.version = 1,
	.write_run = contest_write_run,
	.write_runs = contest_write_runs,
};

/* The native table's columns. */
enum {
	NC_LOAD,
	NC_N,
	NC_MEAN,
	NC_SD,
	NC_MIN,
	NC_MAX,
	NC_CI,
	NC_CPU,
	NC_LOADS,
	NC_UNITS,
	NC_LCPU,
	NC_RATIO,
	NC_COUNT
};

static const char *const nc_title[NC_COUNT] = {
	"load",		  "n",	  "time s", "S.D.",  "min",   "max",
	"95% CI of mean", "CPU%", "Loads",  "units", "LCPU%", "ratio",
};

/* Names and the interval are left-aligned, numbers right-aligned. */
static const bool nc_left[NC_COUNT] = { [NC_LOAD] = true, [NC_CI] = true };

/* One row of the native table: the valid jobs of `load` in `run`. */
static int native_row(const struct ul_run *run, const char *load, double base_s,
		      struct ul_table *table)
{
	size_t row = ul_table_add_row(table, ' ');
	double *t = calloc(run->n_cells ? run->n_cells : 1, sizeof(*t));
	double cpu = 0, loads = 0, lcpu = 0, units = 0;
	struct ul_summary s;
	size_t n = 0;
	int err;

	if (!t)
		return -ENOMEM;
	for (size_t i = 0; i < run->n_cells; i++) {
		const struct ul_cell *c = &run->cells[i];
		int64_t wall;

		if (strncmp(c->load, load, sizeof(c->load)) || !valid_job(c, &wall))
			continue;
		t[n++] = (double)wall / UL_NS_PER_SEC;
		cpu += job_cpu_pct(c, wall);
		loads += metric_or(c, "loads", 0);
		lcpu += metric_or(c, "load_cpu_pct", 0);
		units += (double)c->load_units;
	}
	/* A name from the store: control characters would break the table. */
	ul_table_set_clean(table, row, NC_LOAD, load, UL_NAME_LEN);
	ul_table_set(table, row, NC_N, "%zu", n);
	if (!n) {
		for (int k = NC_MEAN; k < NC_COUNT; k++)
			ul_table_set(table, row, k, "-");
		free(t);
		return 0;
	}
	err = ul_stats_summarize(t, n, &s);
	free(t);
	if (err)
		return err;
	ul_table_set(table, row, NC_MEAN, "%.2f", s.mean);
	ul_table_set(table, row, NC_SD, "%.2f", s.sd);
	ul_table_set(table, row, NC_MIN, "%.2f", s.min);
	ul_table_set(table, row, NC_MAX, "%.2f", s.max);
	if (n >= 2) {
		double half = ul_stats_t_quantile(0.975, (double)(n - 1)) * s.sd / sqrt((double)n);

		ul_table_set(table, row, NC_CI, "[%.2f, %.2f]", s.mean - half, s.mean + half);
	} else {
		ul_table_set(table, row, NC_CI, "n<2");
	}
	ul_table_set(table, row, NC_CPU, "%.1f", cpu / (double)n);
	ul_table_set(table, row, NC_LOADS, "%.1f", loads / (double)n);
	ul_table_set(table, row, NC_UNITS, "%.0f", units / (double)n);
	ul_table_set(table, row, NC_LCPU, "%.1f", lcpu / (double)n);
	if (base_s > 0)
		ul_table_set(table, row, NC_RATIO, "%.3f", s.mean / base_s);
	else
		ul_table_set(table, row, NC_RATIO, "-");
	return 0;
}

int ul_report_contest_text(FILE *out, const struct ul_run *run)
{
	const struct ul_run *const one[] = { run };
	struct ul_table table;
	size_t nloads = 0;
	const char **loads = NULL;
	struct contest_agg base;
	int err;

	if (!has_contest(run))
		return 0;
	err = block_loads(one, 1, &loads, &nloads);
	if (err)
		return err;
	aggregate(one, 1, run->label, UL_REPORT_BASELINE_LOAD, &base);
	ul_table_init(&table, NC_COUNT, nc_left, true);
	ul_table_add_titles(&table, nc_title);
	for (size_t i = 0; i < nloads && !err; i++)
		err = native_row(run, loads[i], base.n ? base.time_s : 0, &table);
	if (err)
		goto out;
	fputs("\nsuite contest, probe job: elapsed time of the whole job in s; CPU% and LCPU% "
	      "as time(1), 100 per CPU; ratio = mean / noload mean\n",
	      out);
	err = ul_table_print(out, &table);
	if (err)
		goto out;
	/* What the monitors saw during each job (nothing when none ran). */
	for (size_t i = 0; i < run->n_cells; i++) {
		const struct ul_cell *c = &run->cells[i];
		char indent[UL_NAME_LEN + 32];

		if (!ul_report_is_contest(c))
			continue;
		snprintf(indent, sizeof(indent), "  %.*s round %.0f: ", UL_NAME_LEN - 1, c->load,
			 metric_or(c, "round", 0));
		ul_report_cell_monitors(out, c, indent);
	}
	not_counted(out, one, 1);
out:
	ul_table_free(&table);
	free(loads);
	return err ? err : (ferror(out) ? -EIO : 0);
}

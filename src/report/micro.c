/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * The "micro" format: underload's own table of the micro suite, with the
 * spread LMbench never printed.  Per run and --under load (in the order
 * measured): one header line, then the six
 * tables in the summary's order (a cell's metric "micro_table" 0..5 says
 * which), one row per measurement:
 *   test  batches  median  min  max  S.D.  unit  iters/batch  preempted  outcome
 * over the batches of the cell's primary series: times in ns per
 * operation ("op_ps" / 1000), bandwidths in MiB/s ("bw_bytes_s" / 2^20);
 * preempted = batches during which the measuring process was switched out
 * involuntarily (series "preempted_n"), "-" when not recorded; outcome is
 * followed by the cell's flags ("ok+disturbed": CPU used outside the run).
 * The memory-latency cell gives rows l1, l2, l3 and main, then its whole
 * curve (one line per size: median, min and max of its batches).
 * Statistics from stats/; a failed cell shows its outcome and note.
 */
#include "core/compat.h"
#include "report/common.h"
#include "report/format.h"
#include "report/suites.h"
#include "stats/stats.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

extern const struct ul_format ul_format_micro;
/* The suite this format prints: the one whose descriptor names it. */
#define MICRO_SUITE ul_report_format_suite(ul_format_micro.name)

static const char *const micro_tables[] = {
	"Processor, processes",
	"Context switching",
	"Local communication latencies",
	"File and VM latencies",
	"Bandwidths",
	"Memory latencies (random-order pointer chase)",
};

static bool micro_table_of(const struct ul_cell *c, int *table)
{
	double t;

	if (strcmp(c->suite, MICRO_SUITE) || !ul_cell_metric(c, "micro_table", &t))
		return false;
	*table = (int)t;
	return *table >= 0 && *table < (int)UL_ARRAY_SIZE(micro_tables);
}

/* One row from one series; `name` is the row's test name. */
static int micro_row(FILE *out, const struct ul_cell *c, const struct ul_series *s,
		     const char *name)
{
	bool bw = !strcmp(s->name, "bw_bytes_s");
	double k = bw ? 1.0 / 1048576.0 : 1e-3, iters = 0;
	const struct ul_series *pre = ul_cell_find_series(c, "preempted_n");
	char buf[48];
	struct ul_summary sum;
	int err;

	if (!s->n) {
		fprintf(out, "%-16s %7s\n", name, "-");
		return 0;
	}
	err = ul_stats_summarize_i64(s->v, s->n, &sum);
	if (err)
		return err;
	fprintf(out, "%-16s %7zu %12.3f %12.3f %12.3f %10.3f  %-5s ", name, sum.n, sum.median * k,
		sum.min * k, sum.max * k, sum.sd * k, bw ? "MiB/s" : "ns");
	if (ul_cell_metric(c, "iters_per_batch", &iters))
		fprintf(out, "%12.0f  ", iters);
	else
		fprintf(out, "%12s  ", "-");
	if (pre) {
		size_t hit = 0;

		for (size_t i = 0; i < pre->n; i++)
			hit += pre->v[i] > 0;
		snprintf(buf, sizeof(buf), "%zu/%zu", hit, pre->n);
	}
	fprintf(out, "%9s  %s", pre ? buf : "-", ul_cell_outcome_name(c->outcome));
	for (unsigned bit = 1; bit; bit <<= 1)
		if ((c->flags & bit) && ul_report_flag_name(bit))
			fprintf(out, "+%s", ul_report_flag_name(bit));
	fputc('\n', out);
	return 0;
}

static int micro_curve(FILE *out, const struct ul_cell *c)
{
	bool header = false;

	for (size_t i = 0; i < c->n_series; i++) {
		const struct ul_series *s = &c->series[i];
		struct ul_summary sum;
		unsigned long kib;
		int err;

		if (sscanf(s->name, "curve_%luk_ps", &kib) != 1 || !s->n)
			continue;
		if (!header)
			fprintf(out, "  curve (ns per load):\n  %10s %10s %10s %10s\n", "size KiB",
				"median", "min", "max");
		header = true;
		err = ul_stats_summarize_i64(s->v, s->n, &sum);
		if (err)
			return err;
		fprintf(out, "  %10lu %10.3f %10.3f %10.3f\n", kib, sum.median / 1e3, sum.min / 1e3,
			sum.max / 1e3);
	}
	return 0;
}

static int micro_cell(FILE *out, const struct ul_cell *c)
{
	static const char *const mem_rows[] = { "l1_ps", "l2_ps", "l3_ps", "main_ps" };
	const struct ul_series *s = ul_report_primary(c);
	int err = 0;

	if (c->outcome != UL_CELL_OK || !s) {
		fprintf(out, "%-16s %7s  (%s", c->probe, "-", ul_cell_outcome_name(c->outcome));
		if (c->note[0]) {
			fputs(": ", out);
			ul_report_put_clean(out, c->note, sizeof(c->note));
		}
		fputs(")\n", out);
		return 0;
	}
	if (strcmp(s->name, "l1_ps"))
		return micro_row(out, c, s, c->probe);
	for (size_t i = 0; i < UL_ARRAY_SIZE(mem_rows) && !err; i++) {
		char name[64];

		s = ul_cell_find_series(c, mem_rows[i]);
		snprintf(name, sizeof(name), "%s.%.*s", c->probe, (int)(strlen(mem_rows[i]) - 3),
			 mem_rows[i]);
		if (s)
			err = micro_row(out, c, s, name);
	}
	return err ? err : micro_curve(out, c);
}

/* The tables of a run's cells measured under the load of `first`, in its
 * round (--runs: a block per load and round, "under LOAD #R"). */
static int micro_write_load(FILE *out, const struct ul_run *run, const struct ul_cell *first)
{
	const char *load = first->load;
	char name[UL_NAME_LEN + 16];

	fprintf(out, "micro: %s on %s (%s %s), under %s; median, min, max, S.D. of the batches\n",
		run->label, run->host.hostname, run->host.arch, run->host.kernel_release,
		ul_report_round_name(name, sizeof(name), load, first,
				     ul_report_has_rounds(run, MICRO_SUITE)));
	for (int t = 0; t < (int)UL_ARRAY_SIZE(micro_tables); t++) {
		bool header = false;

		for (size_t i = 0; i < run->n_cells; i++) {
			const struct ul_cell *c = &run->cells[i];
			int table, err;

			if (!micro_table_of(c, &table) || table != t || strcmp(c->load, load) ||
			    ul_cell_round(c) != ul_cell_round(first))
				continue;
			if (!header)
				fprintf(out,
					"\n%s\n%-16s %7s %12s %12s %12s %10s  %-5s %12s  %9s  %s\n",
					micro_tables[t], "test", "batches", "median", "min", "max",
					"S.D.", "unit", "iters/batch", "preempted", "outcome");
			header = true;
			err = micro_cell(out, c);
			if (err)
				return err;
		}
	}
	return 0;
}

/* Load by load (and round by round), in the order the run measured them. */
static int micro_write_run(FILE *out, const struct ul_run *run)
{
	bool any = false;

	for (size_t i = 0; i < run->n_cells; i++) {
		const struct ul_cell *c = &run->cells[i];
		bool first = !strcmp(c->suite, MICRO_SUITE);
		int err;

		for (size_t j = 0; j < i && first; j++)
			first = strcmp(run->cells[j].suite, MICRO_SUITE) ||
				strcmp(run->cells[j].load, c->load) ||
				ul_cell_round(&run->cells[j]) != ul_cell_round(c);
		if (!first)
			continue;
		if (any)
			fputc('\n', out);
		any = true;
		err = micro_write_load(out, run, c);
		if (err)
			return err;
	}
	return ul_report_finish(out);
}

static int micro_write_runs(FILE *out, const struct ul_run *const *runs, size_t n,
			    const struct ul_report_opts *opts)
{
	(void)opts;
	for (size_t i = 0; i < n; i++) {
		int err;

		if (i)
			fputc('\n', out);
		err = micro_write_run(out, runs[i]);
		if (err)
			return err;
	}
	return ul_report_finish(out);
}

const struct ul_format ul_format_micro = {
	.name = "micro",
	.summary = "the micro suite with its spread: median, min, max and S.D. of the batches",
	.version = 1,
	.write_run = micro_write_run,
	.write_runs = micro_write_runs,
};

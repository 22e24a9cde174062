/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * The "resp1" format: Bill Davidsen's 2002 resp1 table, byte for byte, from
 * the cells of the resp suite (layout: reference seed-systems.md section 1.6).
 *
 * Frozen: any change of output is a new format name, not a new version.
 * The seed's quirks are kept on purpose and only here: S.D. is in seconds
 * while everything else is in ms, and ratio is a ratio of means.
 *
 *   line 1  two spaces, "Starting N CPU run with M MB RAM, minimum P data
 *           points at S sec intervals"; M is the run's memory budget in MiB,
 *           truncated (MemTotal when there is no budget); S is whole seconds,
 *           or %g of the seconds when the interval is not whole
 *   line 2  one space
 *   line 3  the underscore title, 77 columns
 *   line 4  the column header, 77 columns
 *   rows    name right-aligned in 15 columns, then low, high, median and
 *           average of series "delay_ns" in ms as %11.3f, the sample S.D.
 *           (n-1) in seconds as %9.3f, and average / noload average as %9.3f
 *           ("        -" when there is no usable noload cell)
 *
 * Rows come in the seed's fixed order (noload, smallwrite, largewrite,
 * cpuload, spawnload, 8ctx-mem, 2ctx-mem), then any other resp load in
 * order of first appearance; a load measured twice gets two rows.  Replicates (--runs N) are
 * such rows: N per test, in round order, each an unpooled round as the
 * seed printed one run, and each ratio divides by the noload average of
 * the same round (ul_cell_round; a run without rounds is all round 1, so
 * its table is the seed's).
 *
 * Rows the seed never had: a cell whose outcome is not OK prints its name
 * and then "   (OUTCOME: NOTE)" (or "   (OUTCOME)" without a note) instead
 * of numbers; an OK cell without samples prints "   (no data)".  A failed
 * load's numbers are not comparable, so they are not shown here at all (the
 * native formats keep them).  Names of 15 or more characters are printed
 * after one space, so every line still begins with a space (the seed's
 * users extracted tables with grep '^ ').  Cells flagged disturbed (CPU
 * used outside the run) are listed under the table by report/notes.h, in
 * lines that do not begin with a space.
 */
#include "core/compat.h"
#include "core/log.h"
#include "model/suite.h"
#include "report/common.h"
#include "report/format.h"
#include "report/suites.h"
#include "report/notes.h"
#include "stats/stats.h"

#include <errno.h>
#include <stdio.h>
#include <string.h>

extern const struct ul_format ul_format_resp1;
/* The suite this format prints: the one whose descriptor names it. */
#define RESP1_SUITE ul_report_format_suite(ul_format_resp1.name)
#define RESP1_SERIES "delay_ns"

/* The seed's row order is the resp suite's test order (model/suite.h):
 * every table of seed 000 lists exactly these. */
static const struct ul_suite_test *resp1_rows(void)
{
	const struct ul_suite *s = ul_suite_find(RESP1_SUITE);

	if (!s)
		UL_BUG("the resp suite is not registered");
	return s->tests;
}

static bool resp1_fixed_row(const char *load)
{
	return ul_suite_has_test(ul_suite_find(RESP1_SUITE), load);
}

static void resp1_name(FILE *out, const char *name)
{
	if (strlen(name) < 15)
		fprintf(out, "%15s", name);
	else
		fprintf(out, " %s", name);
}

/* The noload average of the cell's round, into *base; NULL when there is none. */
static const struct ul_summary *resp1_base(const struct ul_run *run, const struct ul_cell *c,
					   struct ul_summary *base)
{
	const struct ul_cell *bc =
		ul_report_baseline_in(run, RESP1_SUITE, NULL, RESP1_SERIES, ul_cell_round(c));
	const struct ul_series *bs = bc ? ul_cell_find_series(bc, RESP1_SERIES) : NULL;

	return bs && !ul_stats_summarize_i64(bs->v, bs->n, base) ? base : NULL;
}

static int resp1_row(FILE *out, const struct ul_run *run, const struct ul_cell *c)
{
	const struct ul_series *s = ul_cell_find_series(c, RESP1_SERIES);
	struct ul_summary sum, base_sum;
	const struct ul_summary *base;
	int err;

	resp1_name(out, c->load);
	if (c->outcome != UL_CELL_OK) {
		fprintf(out, "   (%s", ul_cell_outcome_name(c->outcome));
		if (c->note[0]) {
			fputs(": ", out);
			ul_report_put_clean(out, c->note, sizeof(c->note));
		}
		fputs(")\n", out);
		return 0;
	}
	if (!s || !s->n) {
		fputs("   (no data)\n", out);
		return 0;
	}
	err = ul_stats_summarize_i64(s->v, s->n, &sum);
	if (err)
		return err;
	base = resp1_base(run, c, &base_sum);
	fprintf(out, "%11.3f%11.3f%11.3f%11.3f%9.3f", sum.min / UL_NS_PER_MS,
		sum.max / UL_NS_PER_MS, sum.median / UL_NS_PER_MS, sum.mean / UL_NS_PER_MS,
		sum.sd / UL_NS_PER_SEC);
	if (base && base->mean > 0)
		fprintf(out, "%9.3f\n", sum.mean / base->mean);
	else
		fprintf(out, "%9s\n", "-");
	return 0;
}

static void resp1_header(FILE *out, const struct ul_run *run)
{
	const struct ul_run_params *p = &run->params;
	uint64_t mem = p->mem_budget_bytes ? p->mem_budget_bytes : run->host.mem_total_bytes;

	fprintf(out, "  Starting %d CPU run with %llu MB RAM, minimum %d data points at ",
		run->host.ncpu, (unsigned long long)(mem / UL_MiB), p->min_points);
	if (p->interval_ns % UL_NS_PER_SEC == 0)
		fprintf(out, "%lld", (long long)(p->interval_ns / UL_NS_PER_SEC));
	else
		fprintf(out, "%g", (double)p->interval_ns / UL_NS_PER_SEC);
	fputs(" sec intervals\n", out);
	fputs(" \n", out);
	fprintf(out, "%23s%s%18s\n", "", "_____________ delay ms. ____________", "");
	fprintf(out, "%15s%11s%11s%10s%12s%9s%9s\n", "Test", "low", "high", "median", "average",
		"S.D.", "ratio");
}

static int resp1_write_run(FILE *out, const struct ul_run *run)
{
	int err;

	resp1_header(out, run);
	for (const struct ul_suite_test *t = resp1_rows(); t->load; t++) {
		for (size_t i = 0; i < run->n_cells; i++) {
			const struct ul_cell *c = &run->cells[i];

			if (strcmp(c->suite, RESP1_SUITE) || strcmp(c->load, t->load))
				continue;
			err = resp1_row(out, run, c);
			if (err)
				return err;
		}
	}
	/* Other loads test by test, in order of first appearance. */
	for (size_t i = 0; i < run->n_cells; i++) {
		const struct ul_cell *c = &run->cells[i];

		if (strcmp(c->suite, RESP1_SUITE) || resp1_fixed_row(c->load) ||
		    !ul_report_first_of_test(run, i))
			continue;
		for (size_t k = i; k < run->n_cells; k++) {
			if (!ul_report_same_test(c, &run->cells[k]))
				continue;
			err = resp1_row(out, run, &run->cells[k]);
			if (err)
				return err;
		}
	}
	ul_report_disturbed_notes(out, run, RESP1_SUITE);
	return ul_report_finish(out);
}

const struct ul_format ul_format_resp1 = {
	.name = "resp1",
	.summary = "Davidsen's 2002 resp1 table (delay ms, S.D. in s, ratio of means)",
	.version = 1,
	.write_run = resp1_write_run,
};

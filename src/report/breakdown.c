/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * The medians of a test's delay and its parts, and their table
 * (report/breakdown.h); the "breakdown" format prints that table for every
 * group of the run.
 *
 * Layout of the "breakdown" format (version 1): for each (suite, probe) in
 * order of first appearance that has a test with a breakdown, the block of
 * ul_breakdown_block() headed "suite S, probe P".  A run without any
 * breakdown prints one line saying so.
 */
#include "core/compat.h"
#include "report/breakdown.h"
#include "report/common.h"
#include "report/format.h"
#include "report/quantity.h"
#include "report/replicate.h"
#include "report/table.h"
#include "stats/stats.h"

#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

const struct ul_series *ul_breakdown_wall(const struct ul_cell *c)
{
	const struct ul_series *w = ul_cell_find_series(c, UL_BREAKDOWN_WALL_SERIES);

	return w ? w : ul_report_primary(c);
}

const struct ul_series *ul_breakdown_series(const struct ul_cell *c, enum ul_breakdown_part p)
{
	const struct ul_series *samples = ul_breakdown_wall(c);
	const struct ul_series *s = ul_cell_find_series(c, ul_breakdown_parts[p].series);

	return samples && s && s != samples && s->n == samples->n ? s : NULL;
}

bool ul_breakdown_has(const struct ul_cell *c)
{
	const struct ul_series *samples = ul_breakdown_wall(c);

	if (!samples || !samples->n)
		return false;
	for (int p = 0; p < UL_PART_COUNT; p++)
		if (!ul_breakdown_parts[p].needs_delayacct &&
		    !ul_breakdown_series(c, (enum ul_breakdown_part)p))
			return false;
	return true;
}

static int median_of(const struct ul_series *s, double *median)
{
	struct ul_summary sum;
	int err = ul_stats_summarize_i64(s->v, s->n, &sum);

	if (!err)
		*median = sum.median;
	return err;
}

int ul_breakdown_medians(const struct ul_cell *c, struct ul_breakdown_medians *m)
{
	int err;

	if (!ul_breakdown_has(c))
		return 1;
	m->n = ul_breakdown_wall(c)->n;
	err = median_of(ul_breakdown_wall(c), &m->delay);
	for (int p = 0; p < UL_PART_COUNT && !err; p++) {
		const struct ul_series *s = ul_breakdown_series(c, (enum ul_breakdown_part)p);

		m->counted[p] = s != NULL;
		m->part[p] = NAN;
		if (s)
			err = median_of(s, &m->part[p]);
	}
	return err;
}

/* Columns: test, median delay, then per part its operator ("=" before the
 * first, "+" before the others) and its median. */
#define BD_COL_OP(p) (2 + 2 * (size_t)(p))
#define BD_COL_PART(p) (3 + 2 * (size_t)(p))
#define BD_NCOLS BD_COL_OP(UL_PART_COUNT)

static const bool *bd_left(void)
{
	static bool left[BD_NCOLS];

	left[0] = true;
	for (int p = 0; p < UL_PART_COUNT; p++)
		left[BD_COL_OP(p)] = true;
	return left;
}

static void bd_titles(struct ul_table *t)
{
	size_t row = ul_table_add_row(t, ' ');

	ul_table_set(t, row, 0, "test");
	ul_table_set(t, row, 1, "median delay");
	for (int p = 0; p < UL_PART_COUNT; p++)
		ul_table_set(t, row, BD_COL_PART(p), "%s", ul_breakdown_parts[p].label);
}

static void bd_row(struct ul_table *t, const struct ul_cell *c,
		   const struct ul_breakdown_medians *m)
{
	const char *unit = ul_series_unit(ul_breakdown_wall(c)->name);
	size_t row = ul_table_add_row(t, ' ');
	char buf[32];

	ul_table_set_clean(t, row, 0, c->load, sizeof(c->load));
	ul_table_set(t, row, 1, "%s", ul_fmt_quantity(buf, sizeof(buf), m->delay, unit));
	for (int p = 0; p < UL_PART_COUNT; p++) {
		ul_table_set(t, row, BD_COL_OP(p), "%s", p ? "+" : "=");
		ul_table_set(t, row, BD_COL_PART(p), "%s",
			     m->counted[p] ? ul_fmt_quantity(buf, sizeof(buf), m->part[p], unit)
					   : UL_BREAKDOWN_NOT_COUNTED);
	}
}

/* The row of the test of run->cells[j], if it has a breakdown. */
static int bd_test_row(struct ul_table *t, const struct ul_run *run, size_t j, bool *any)
{
	struct ul_breakdown_medians m;
	struct ul_cell pooled;
	const struct ul_cell *c;
	int err;

	if (!ul_breakdown_has(&run->cells[j]))
		return 0;
	c = ul_report_test_cell(run, j, &pooled, &err);
	if (!c)
		return err;
	err = ul_breakdown_medians(c, &m);
	if (!err) {
		bd_row(t, c, &m);
		*any = true;
	}
	ul_cell_release(&pooled);
	return err < 0 ? err : 0;
}

int ul_breakdown_print_group(FILE *out, const struct ul_run *run, const char *suite,
			     const char *probe, bool *printed)
{
	struct ul_table t;
	int err = 0;

	*printed = false;
	ul_table_init(&t, BD_NCOLS, bd_left(), true);
	bd_titles(&t);
	for (size_t j = 0; j < run->n_cells && !err; j++) {
		const struct ul_cell *c = &run->cells[j];

		if (!strcmp(c->suite, suite) && !strcmp(c->probe, probe) &&
		    ul_report_first_of_test(run, j))
			err = bd_test_row(&t, run, j, printed);
	}
	if (!err && *printed)
		err = ul_table_print(out, &t);
	ul_table_free(&t);
	return err;
}

int ul_breakdown_block(FILE *out, const struct ul_run *run, const char *suite, const char *probe,
		       const char *head, bool *printed)
{
	char *text = NULL;
	size_t len = 0;
	FILE *mem = open_memstream(&text, &len);
	int err;

	*printed = false;
	if (!mem)
		return -ENOMEM;
	/* The table first, so that the head is printed only above one. */
	err = ul_breakdown_print_group(mem, run, suite, probe, printed);
	if (fclose(mem) && !err)
		err = -ENOMEM;
	if (!err && *printed) {
		fputc('\n', out);
		ul_report_put_clean(out, head, SIZE_MAX);
		fputs(": median delay = median of each part (" UL_BREAKDOWN_NOT_COUNTED
		      " = not counted: delay accounting was off)\n",
		      out);
		fwrite(text, 1, len, out);
	}
	free(text);
	return err;
}

/* Is cell i the first of its (suite, probe) in the run? */
static bool bd_first_of_group(const struct ul_run *run, size_t i)
{
	for (size_t j = 0; j < i; j++)
		if (!strcmp(run->cells[j].suite, run->cells[i].suite) &&
		    !strcmp(run->cells[j].probe, run->cells[i].probe))
			return false;
	return true;
}

static int bd_write_run(FILE *out, const struct ul_run *run)
{
	bool any = false;

	for (size_t i = 0; i < run->n_cells; i++) {
		const struct ul_cell *c = &run->cells[i];
		char head[2 * UL_NAME_LEN + 32];
		bool printed;
		int err;

		if (!bd_first_of_group(run, i))
			continue;
		snprintf(head, sizeof(head), "suite %s, probe %s", c->suite, c->probe);
		err = ul_breakdown_block(out, run, c->suite, c->probe, head, &printed);
		if (err)
			return err;
		any |= printed;
	}
	if (!any)
		fputs("no test of this run has a breakdown of its delay\n", out);
	return ul_report_finish(out);
}

const struct ul_format ul_format_breakdown = {
	.name = "breakdown",
	.summary = "why it was slow: each test's median delay = the median of each part "
		   "(on-CPU, run queue, I/O, swap-in, reclaim, ...)",
	.version = 1,
	.write_run = bd_write_run,
};

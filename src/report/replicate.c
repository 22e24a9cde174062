/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * A test's replicate cells pooled into one (report/replicate.h): series
 * appended in round order, counts summed by a table of the metrics the
 * formats read across rounds.  Pure functions of the model.
 */
#include "core/compat.h"
#include "report/common.h"
#include "report/replicate.h"

#include <errno.h>
#include <string.h>

enum pool_rule {
	POOL_SUM,  /* events and exposures: the pooled count */
	POOL_MAX,  /* extremes: the worst of any round */
	POOL_DROP, /* a round's own statistic: no pooled value without the raw data */
};

static const struct {
	const char *name;
	enum pool_rule rule;
} pool_rules[] = {
	{ "dl_periods", POOL_SUM },	 { "dl_met", POOL_SUM },
	{ "dl_missed", POOL_SUM },	 { "dl_synthetic", POOL_SUM },
	{ "dl_lost", POOL_SUM },	 { "dl_max_stall_ns", POOL_MAX },
	{ "dl_lat_max_ns", POOL_MAX },	 { "dl_died", POOL_MAX },
	{ "dl_met_pct", POOL_DROP },	 { "dl_cpu_pct", POOL_DROP },
	{ "dl_lat_mean_ns", POOL_DROP }, { "dl_lat_sd_ns", POOL_DROP },
	{ "dl_lat_p99_ns", POOL_DROP },	 { "load_units_per_s", POOL_DROP },
	{ "mtest_runs", POOL_SUM },	 { "mtest_runs_done", POOL_SUM },
	{ "mtest_passes", POOL_SUM },	 { "mtest_alloc_failures", POOL_SUM },
	{ "mtest_oom_kills", POOL_SUM }, { "mtest_other_failures", POOL_SUM },
};

static void drop_metric(struct ul_cell *cell, const char *name)
{
	for (size_t i = 0; i < cell->n_metrics; i++)
		if (!strcmp(cell->metrics[i].name, name)) {
			memmove(&cell->metrics[i], &cell->metrics[i + 1],
				(cell->n_metrics - i - 1) * sizeof(*cell->metrics));
			cell->n_metrics--;
			return;
		}
}

/* b pooled into a (absent: b alone) by `rule`. */
static double pooled_value(enum pool_rule rule, bool have_a, double a, double b)
{
	if (!have_a)
		return b;
	if (rule == POOL_SUM)
		return a + b;
	return a > b ? a : b;
}

int ul_report_pool_metrics(struct ul_cell *into, const struct ul_cell *c)
{
	double a = 0, b = 0, met, periods;

	for (size_t i = 0; i < UL_ARRAY_SIZE(pool_rules); i++) {
		const char *name = pool_rules[i].name;
		enum pool_rule rule = pool_rules[i].rule;
		bool have_a = ul_cell_metric(into, name, &a);

		if (rule == POOL_DROP)
			drop_metric(into, name);
		else if (ul_cell_metric(c, name, &b) &&
			 ul_cell_set_metric(into, name, pooled_value(rule, have_a, a, b)))
			return -ENOMEM;
	}
	/* The share met, of the pooled periods (as deadline_ops.c computes it). */
	if (ul_cell_metric(into, "dl_met", &met) && ul_cell_metric(into, "dl_periods", &periods) &&
	    periods > 0 && ul_cell_set_metric(into, "dl_met_pct", 100.0 * met / periods))
		return -ENOMEM;
	return 0;
}

int ul_report_pool_cell(struct ul_cell *into, const struct ul_cell *c)
{
	for (size_t s = 0; s < c->n_series; s++) {
		struct ul_series *dst = ul_cell_series(into, c->series[s].name);

		if (!dst)
			return -ENOMEM;
		for (size_t i = 0; i < c->series[s].n; i++)
			if (ul_series_push(dst, c->series[s].v[i]))
				return -ENOMEM;
	}
	if (into->outcome == UL_CELL_OK && c->outcome != UL_CELL_OK) {
		into->outcome = c->outcome;
		memcpy(into->note, c->note, sizeof(into->note));
	}
	into->flags |= c->flags;
	into->load_units += c->load_units;
	return ul_report_pool_metrics(into, c);
}

/* into := a copy of c (its own series and metrics). */
static int copy_cell(struct ul_cell *into, const struct ul_cell *c)
{
	*into = *c;
	into->series = NULL;
	into->metrics = NULL;
	into->n_series = into->n_metrics = into->cap_series = into->cap_metrics = 0;
	into->outcome = UL_CELL_OK;
	into->flags = 0;
	into->load_units = 0;
	into->note[0] = '\0';
	for (size_t m = 0; m < c->n_metrics; m++)
		if (ul_cell_add_metric(into, c->metrics[m].name, c->metrics[m].value))
			return -ENOMEM;
	/* its counts again below: start them from nothing */
	for (size_t i = 0; i < UL_ARRAY_SIZE(pool_rules); i++)
		drop_metric(into, pool_rules[i].name);
	return ul_report_pool_cell(into, c);
}

const struct ul_cell *ul_report_test_cell(const struct ul_run *run, size_t j,
					  struct ul_cell *pooled, int *err)
{
	const struct ul_cell *first = &run->cells[j];
	size_t n = 0;
	bool started = false;

	memset(pooled, 0, sizeof(*pooled));
	*err = 0;
	for (size_t i = 0; i < run->n_cells; i++)
		n += ul_report_same_test(first, &run->cells[i]);
	if (n <= 1)
		return first;
	for (size_t i = 0; i < run->n_cells && !*err; i++) {
		const struct ul_cell *c = &run->cells[i];

		if (!ul_report_same_test(first, c))
			continue;
		*err = started ? ul_report_pool_cell(pooled, c) : copy_cell(pooled, c);
		started = true;
	}
	if (*err) {
		ul_cell_release(pooled);
		return NULL;
	}
	return pooled;
}

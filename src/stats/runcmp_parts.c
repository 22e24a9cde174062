/* SPDX-License-Identifier: GPL-2.0-or-later */
/* The breakdown's parts compared between labels (stats/runcmp_parts.h). */
#include "core/compat.h"
#include "stats/runcmp_parts.h"

#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

/* Is `series` cell c's sample series, with every always-present part
 * aligned with it?  Parts that split another wall time (fsbench's
 * clients, deadline's cells: UL_BREAKDOWN_WALL_SERIES) explain no metric. */
static bool cell_broken_down(const struct ul_cell *c, const char *series)
{
	if (!c->n_series || strcmp(c->series[0].name, series) || !c->series[0].n ||
	    ul_cell_find_series(c, UL_BREAKDOWN_WALL_SERIES))
		return false;
	for (int p = 0; p < UL_PART_COUNT; p++) {
		const struct ul_series *s = ul_cell_find_series(c, ul_breakdown_parts[p].series);

		if (!ul_breakdown_parts[p].needs_delayacct && (!s || s->n != c->series[0].n))
			return false;
	}
	return true;
}

static bool metric_broken_down(const struct ul_runcmp *c, const struct ul_runcmp_metric *m)
{
	if (m->exposure)
		return false;
	for (size_t g = 0; g < c->n_groups; g++)
		for (size_t r = 0; r < c->groups[g].n_runs; r++) {
			const struct ul_run *run = c->groups[g].runs[r];

			for (size_t i = 0; i < run->n_cells; i++)
				if (!strcmp(run->cells[i].suite, m->suite) &&
				    cell_broken_down(&run->cells[i], m->series))
					return true;
		}
	return false;
}

int ul_runcmp_parts_build(const struct ul_runcmp *c, const struct ul_runcmp_metric *metrics,
			  size_t n_metrics, struct ul_runcmp_parts *out)
{
	size_t broken = 0;

	memset(out, 0, sizeof(*out));
	for (size_t i = 0; i < n_metrics && broken < UL_PARTS_MAX_METRICS; i++) {
		if (!metric_broken_down(c, &metrics[i]))
			continue;
		broken++;
		for (int p = 0; p < UL_PART_COUNT; p++) {
			size_t k = out->n_metrics++;

			out->metrics[k] = (struct ul_runcmp_metric){
				.suite = metrics[i].suite,
				.series = ul_breakdown_parts[p].series,
				.label = ul_breakdown_parts[p].label,
				.unit = metrics[i].unit,
				.better = UL_BETTER_LOWER,
			};
			out->of[k] = &metrics[i];
			out->part[k] = (enum ul_breakdown_part)p;
		}
	}
	if (!out->n_metrics)
		return 0;
	if (ul_runcmp_build_hist(c->groups, c->n_groups, out->metrics, out->n_metrics, &c->opts,
				 c->unit, c->history, c->n_history, &out->cmp)) {
		ul_runcmp_parts_free(out);
		return -ENOMEM;
	}
	return 0;
}

void ul_runcmp_parts_free(struct ul_runcmp_parts *pc)
{
	ul_runcmp_free(&pc->cmp);
	pc->n_metrics = 0;
}

const struct ul_runcmp_row *ul_runcmp_parts_row(const struct ul_runcmp_parts *pc,
						const struct ul_runcmp_row *r,
						enum ul_breakdown_part p)
{
	for (size_t i = 0; pc && i < pc->cmp.n_rows; i++) {
		const struct ul_runcmp_row *pr = &pc->cmp.rows[i];
		size_t k = (size_t)(pr->metric - pc->metrics);

		if (pc->of[k] == r->metric && pc->part[k] == p && pr->cand == r->cand &&
		    !strcmp(pr->test, r->test))
			return pr;
	}
	return NULL;
}

double ul_runcmp_parts_share(const struct ul_runcmp_row *r, const struct ul_runcmp_row *pr)
{
	if (!pr || !pr->tested || !r->tested || r->res.shift == 0.0)
		return NAN;
	return pr->res.shift / r->res.shift;
}

static bool is_change(enum ul_cmp_verdict v)
{
	return v == UL_VERDICT_FASTER || v == UL_VERDICT_SLOWER ||
	       v == UL_VERDICT_FASTER_UNCONFIRMED || v == UL_VERDICT_SLOWER_UNCONFIRMED;
}

size_t ul_runcmp_parts_carriers(const struct ul_runcmp_parts *pc, const struct ul_runcmp_row *r,
				enum ul_breakdown_part *out)
{
	size_t n = 0;

	if (!r->tested || !is_change(r->res.verdict) || !isfinite(r->res.shift) ||
	    r->res.shift == 0.0)
		return 0;
	for (int p = 0; p < UL_PART_COUNT; p++) {
		const struct ul_runcmp_row *pr =
			ul_runcmp_parts_row(pc, r, (enum ul_breakdown_part)p);
		double share = ul_runcmp_parts_share(r, pr);

		if (isnan(share) || !(is_change(pr->res.verdict) || share >= UL_PARTS_CARRY_SHARE))
			continue;
		/* insertion by |shift|, largest first */
		size_t at = n++;

		for (; at > 0; at--) {
			const struct ul_runcmp_row *q = ul_runcmp_parts_row(pc, r, out[at - 1]);

			if (fabs(q->res.shift) >= fabs(pr->res.shift))
				break;
			out[at] = out[at - 1];
		}
		out[at] = (enum ul_breakdown_part)p;
	}
	return n;
}

/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * compare explains a change: each part of the breakdown of a sample's
 * delay (model/breakdown.h) compared between the labels exactly as the
 * delay is (stats/runcmp.h: the same groups, history, options and
 * replicate-aware test; Holm per suite over the part rows), and the parts
 * that carry a row's change picked out.
 *
 * A suite metric is broken down when it is not a count and some cell of
 * its suite in the compared groups has it as its sample series (series[0])
 * with every always-present part aligned with it; its part metrics are
 * named by the part's series (why_runq_ns), in its unit, lower is better.
 * A part only delay accounting counts is a row not tested ("too few
 * values") where a side did not count it, and no row where neither did.
 *
 * Which parts carry a change (ul_runcmp_parts_carriers): for a row whose
 * verdict is a change (slower or faster, confirmed or not) and whose shift
 * is not 0, a part is named when its own row is tested and either its
 * verdict is a change too (its shift significant by the same test) or its
 * shift carries at least UL_PARTS_CARRY_SHARE of the row's shift in the
 * same direction; the named parts in order of |shift|, largest first.
 */
#ifndef UL_STATS_RUNCMP_PARTS_H
#define UL_STATS_RUNCMP_PARTS_H

#include "core/compat.h"
#include "model/breakdown.h"
#include "stats/runcmp.h"

/* Least share of the change that names a part whose change is not significant. */
#define UL_PARTS_CARRY_SHARE 0.25
/* Suite metrics broken down at most (compare's own limit is its metric table's). */
#define UL_PARTS_MAX_METRICS 8

struct ul_runcmp_parts {
	struct ul_runcmp cmp; /* a row per part, test and candidate */
	struct ul_runcmp_metric metrics[UL_PARTS_MAX_METRICS * UL_PART_COUNT];
	const struct ul_runcmp_metric *of[UL_PARTS_MAX_METRICS * UL_PART_COUNT];
	enum ul_breakdown_part part[UL_PARTS_MAX_METRICS * UL_PART_COUNT];
	size_t n_metrics;
};

/*
 * Compare the parts of every broken-down metric of `c` (built with
 * `metrics`).  0 (out->n_metrics 0: nothing to break down), or -ENOMEM
 * with nothing left allocated.  Free with ul_runcmp_parts_free().
 */
int ul_runcmp_parts_build(const struct ul_runcmp *c, const struct ul_runcmp_metric *metrics,
			  size_t n_metrics, struct ul_runcmp_parts *out) UL_MUST_CHECK;
void ul_runcmp_parts_free(struct ul_runcmp_parts *pc);

/* The row of part p that explains row r (same metric, test, candidate), or NULL. */
const struct ul_runcmp_row *ul_runcmp_parts_row(const struct ul_runcmp_parts *pc,
						const struct ul_runcmp_row *r,
						enum ul_breakdown_part p);

/* The share of r's shift that part row pr carries (NAN without one). */
double ul_runcmp_parts_share(const struct ul_runcmp_row *r, const struct ul_runcmp_row *pr);

/* The parts that carry r's change, by the rule above, into out (room for
 * UL_PART_COUNT); returns how many (0 when r is no change). */
size_t ul_runcmp_parts_carriers(const struct ul_runcmp_parts *pc, const struct ul_runcmp_row *r,
				enum ul_breakdown_part *out);

#endif

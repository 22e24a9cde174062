/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * A test's replicates seen as one cell, for the blocks that summarise
 * across rounds (mtest's "Averages for N mtest01 runs" and native block,
 * fsbench's native block, compare's seed tables of a label).
 *
 * Since --runs stores each round as its own cell (metric "round"), such a
 * block pools the cells of its test as it pooled the rounds inside one
 * cell before.  Stores of earlier versions hold an mtest or fsbench test's
 * rounds inside one cell: that test has one cell, which is shown as it is
 * (nothing is merged, the output is what it was), and compare takes it as
 * one replicate whose value is the median of its rounds.
 */
#ifndef UL_REPORT_REPLICATE_H
#define UL_REPORT_REPLICATE_H

#include "core/compat.h"
#include "model/model.h"

/*
 * Adds the metrics of `c`, a further replicate of the test `into` holds,
 * to into's: counts summed (dl_periods, dl_missed, mtest_passes ...),
 * extremes kept (dl_max_stall_ns ...), dl_met_pct recomputed from the
 * sums, a round's own statistics that the sums do not give back
 * (dl_lat_mean_ns, dl_cpu_pct ...) dropped; any other metric keeps
 * into's value (the plan: the same in every round).  0 or -ENOMEM.
 */
int ul_report_pool_metrics(struct ul_cell *into, const struct ul_cell *c) UL_MUST_CHECK;

/*
 * Adds the whole of `c` to `into`: its series appended to the same-named
 * ones (in round order when called in run order), its metrics as above,
 * its flags and load units; the first outcome that is not ok is kept with
 * its note.  0 or -ENOMEM.
 */
int ul_report_pool_cell(struct ul_cell *into, const struct ul_cell *c) UL_MUST_CHECK;

/*
 * The test of run->cells[j] as one cell: that cell itself when it is its
 * test's only cell, else `pooled` (initialised here) holding every cell of
 * the test (suite, load, probe) in run order.  Release `pooled` with
 * ul_cell_release() in both cases.  NULL with *err = -ENOMEM.
 */
const struct ul_cell *ul_report_test_cell(const struct ul_run *run, size_t j,
					  struct ul_cell *pooled, int *err);

#endif

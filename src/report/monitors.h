/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Renderings of what the monitors, the deadline probe and mtest recorded,
 * shared by `underload vmstat`, the mtest and deadline formats and the
 * native text format.  Pure functions of the model: they write to a FILE
 * and return 0 or a negative errno (-EIO on a stream error).
 */
#ifndef UL_REPORT_MONITORS_H
#define UL_REPORT_MONITORS_H

#include "core/compat.h"
#include "model/model.h"

#include <stdio.h>

/*
 * One cell's sampler records in vmstat(8)'s layout (procps-ng, default
 * units): a title line, the two header lines, then one row per interval
 * between consecutive samples with rates over that interval computed as
 * vmstat does (si/so in KiB/s from pswpin/pswpout pages, bi/bo in KiB/s
 * from pgpgin/pgpgout, in/cs per second, cpu shares of the tick deltas,
 * us = user + nice - guest); followed by a PSI view (avg10 some/full and
 * the stall time of the interval in ms).  -ENOENT when the cell has no
 * sampler records.
 */
int ul_report_vmstat(FILE *out, const struct ul_cell *cell);

/*
 * Lines for the native text format under a cell, each starting with
 * `indent`: swap-in/out MB, system major faults and PSI "some" shares when
 * the sampler ran; the deadline probe's latency, misses and longest stall
 * when it ran.  Writes nothing for a cell without those metrics.
 */
void ul_report_cell_monitors(FILE *out, const struct ul_cell *cell, const char *indent);

/* mtest: the native block of an mtest cell (mean, S.D., min, max of each
 * field of the seed's summary, outcomes, how the target was computed). */
int ul_report_mtest_native(FILE *out, const struct ul_cell *cell);
/* The seed's "Averages for N mtest01 runs" block of an mtest cell, then
 * the deadline probe's dropouts beside it. */
int ul_report_mtest_seed(FILE *out, const struct ul_cell *cell);

/* fsbench: the native block of an fsbench cell (report/fsbench.c): each
 * per-run figure as median, min and max across rounds, then per operation
 * ops/s, mean, p50, p99 (medians of the rounds'), max and mismatches. */
int ul_report_fsbench_native(FILE *out, const struct ul_cell *cell);

/* deadline: the per-load table of a run's deadline-suite cells. */
int ul_report_deadline_table(FILE *out, const struct ul_run *run);

#endif

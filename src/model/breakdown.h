/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * The breakdown of a sample's delay into its causes: the registry of parts
 * (model/breakdown.def) shared by the recorders (engine/, probe/), which
 * write one series per part into a cell, and the readers (report/, stats/,
 * cmd/), which find them by name.  A cell has a breakdown when it has the
 * series of every part whose needs_delayacct is 0; the others are present
 * only when delay accounting counted them.
 */
#ifndef UL_MODEL_BREAKDOWN_H
#define UL_MODEL_BREAKDOWN_H

#include <stdbool.h>

enum ul_breakdown_part {
#define UL_BREAKDOWN_PART(id, series, label, needs_delayacct) UL_PART_##id,
#include "model/breakdown.def"
#undef UL_BREAKDOWN_PART
	UL_PART_COUNT
};

struct ul_breakdown_part_info {
	const char *series; /* "why_runq_ns" */
	const char *label;  /* "run queue" */
	bool needs_delayacct;
};

/*
 * The wall time the parts split, integer ns, when it is not the cell's
 * sample series: each fsbench client's life (fork to exit, as the kernel
 * timed it; one per client, aligned with fsbench_client_ops) and the
 * deadline probe's cell (the measured window; one per cell).  A cell that
 * has it aligns its parts with it; any other aligns them with its
 * primary series (resp's delay_ns, contest's wall_ns, mtest's
 * mtest_elapsed_ns).
 */
#define UL_BREAKDOWN_WALL_SERIES "why_wall_ns"

/* Indexed by enum ul_breakdown_part (model/breakdown.c). */
extern const struct ul_breakdown_part_info ul_breakdown_parts[UL_PART_COUNT];

#endif

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

/* Indexed by enum ul_breakdown_part (model/breakdown.c). */
extern const struct ul_breakdown_part_info ul_breakdown_parts[UL_PART_COUNT];

#endif

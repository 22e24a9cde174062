/* SPDX-License-Identifier: GPL-2.0-or-later */
#include "model/breakdown.h"

const struct ul_breakdown_part_info ul_breakdown_parts[UL_PART_COUNT] = {
#define UL_BREAKDOWN_PART(id, series, label, needs_delayacct)                                      \
	[UL_PART_##id] = { series, label, needs_delayacct },
#include "model/breakdown.def"
#undef UL_BREAKDOWN_PART
};

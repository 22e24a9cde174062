/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * The "mtest01" probe: LTP mtest01 -p80 -w, one allocate-and-touch child
 * timed end to end.  The mtest suite sizes and spawns it
 * (engine/suites/mtest/mtest.h): series mtest_elapsed_ns and its rusage.
 */
#include "core/compat.h"
#include "probe/probe.h"

const struct ul_probe ul_probe_mtest01 = {
	.name = "mtest01",
	.summary = "allocates and writes a share of memory + swap, timed whole (LTP mtest01 -w)",
	.unit = "ns",
	.kind = UL_PROBE_WHOLE,
	.direction = UL_LOWER_IS_BETTER,
};

/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * The "fsbench" probe: N clients replaying a dbench 4 trace, each round
 * measured whole (bytes moved per second).  The fsbench suite drives it
 * (engine/suites/fsbench/fsbench.h, engine/suites/fsbench/round.h; the trace and its replay: dbench/).
 */
#include "core/compat.h"
#include "probe/probe.h"

const struct ul_probe ul_probe_fsbench = {
	.name = "fsbench",
	.summary = "clients replay a dbench 4 file-server trace; bytes read + written per second",
	.unit = "B/s",
	.kind = UL_PROBE_WHOLE,
	.direction = UL_HIGHER_IS_BETTER,
};

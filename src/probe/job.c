/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * The "job" probe: a reference job timed end to end (contest's compile, or
 * the command --job names).  The contest suite spawns it per cell and
 * times it whole with wait4() rusage: series wall_ns, user_ns, sys_ns.
 */
#include "core/compat.h"
#include "probe/probe.h"

const struct ul_probe ul_probe_job = {
	.name = "job",
	.summary = "a reference job (make -jNCPU of a generated tree, or --job) timed whole",
	.unit = "ns",
	.kind = UL_PROBE_WHOLE,
	.direction = UL_LOWER_IS_BETTER,
};

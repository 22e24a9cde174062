/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * The mtest suite's sizing, exposed for tests: how much to allocate,
 * computed once for all its rounds so every run (and every kernel) does
 * the same work.  The runs are the mtest01 probe's (probe/mtest01.h: its child,
 * its series); the cell's metrics say how the target was computed
 * (mtest_budget_bytes, ...).
 */
#ifndef UL_ENGINE_MTEST_H
#define UL_ENGINE_MTEST_H

#include "core/compat.h"
#include "probe/mtest01.h" /* the probe: its child, its statuses */

#define UL_MTEST_DEFAULT_RUNS 10
#define UL_MTEST_DEFAULT_CHUNK UL_MiB
#define UL_MTEST_DEFAULT_CENTI 8000 /* 80% */

/* The suite's own options of `underload run` (its table in engine/suites/mtest/mtest.c). */
struct ul_mtest_opts {
	int64_t target_centi;  /* --mtest-target as a share of budget + free swap; 0 = 80% */
	uint64_t target_bytes; /* --mtest-target as a size; 0 = use the share */
	uint64_t chunk_bytes;  /* --mtest-chunk */
};

/*
 * The target, from what is really free: unlike mtest01's sysinfo() free
 * RAM, `available` counts reclaimable cache (MemAvailable, or inside the
 * run's cgroup its limit minus its usage), so kernels that cache more are
 * not given less work.
 *   base     = budget + swap_free
 *   in_use   = budget - min(available, budget)
 *   target   = base * centi / 10000 - in_use      (or explicit_bytes)
 * then capped at `cap` (the run's memory ceiling or --quick's cap; 0 =
 * none).  -ENOSPC when in_use already exceeds the share (the seed's "More
 * memory than the maximum amount you specified is already being used"),
 * -E2BIG when an explicit size exceeds the cap.
 */
struct ul_mtest_plan {
	uint64_t budget, available, swap_free, base, in_use;
	int64_t centi;	 /* the share asked for; 0 with an explicit size */
	uint64_t target; /* bytes each run allocates and touches */
	bool capped;	 /* target was lowered to the cap */
};

int ul_mtest_plan(uint64_t budget, uint64_t available, uint64_t swap_free, int64_t centi,
		  uint64_t explicit_bytes, uint64_t cap, struct ul_mtest_plan *out) UL_MUST_CHECK;

#endif

/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * The mtest suite's sizing and its child, exposed for tests: how much to
 * allocate, computed once per cell so every run (and every kernel) does
 * the same work, and the allocate-and-touch child itself.
 *
 * Each run records, in order, series mtest_elapsed_ns (the primary),
 * mtest_bytes, mtest_user_ns, mtest_sys_ns, mtest_cpu_centi, mtest_majflt,
 * mtest_minflt and mtest_status (enum ul_mtest_status); the cell's metrics
 * say how the target was computed (mtest_budget_bytes, ...).
 */
#ifndef UL_ENGINE_MTEST_H
#define UL_ENGINE_MTEST_H

#include "core/compat.h"

#define UL_MTEST_DEFAULT_RUNS 10
#define UL_MTEST_DEFAULT_CHUNK UL_MiB
#define UL_MTEST_DEFAULT_CENTI 8000 /* 80% */

/* The suite's own options of `underload run` (its table in engine/suites/mtest/mtest.c). */
struct ul_mtest_opts {
	int64_t target_centi;	/* --mtest-target as a share of budget + free swap; 0 = 80% */
	uint64_t target_bytes;	/* --mtest-target as a size; 0 = use the share */
	uint64_t chunk_bytes;	/* --mtest-chunk */
};

enum ul_mtest_status {
	UL_MTEST_PASS = 0,	   /* allocated and touched the whole target */
	UL_MTEST_ALLOC_FAILED = 1, /* malloc() returned NULL: "stopped at N bytes" */
	UL_MTEST_KILLED = 2,	   /* SIGKILL we did not send: the OOM killer */
	UL_MTEST_FAILED = 3,	   /* any other end */
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
	int64_t centi;	   /* the share asked for; 0 with an explicit size */
	uint64_t target;   /* bytes each run allocates and touches */
	bool capped;	   /* target was lowered to the cap */
};

int ul_mtest_plan(uint64_t budget, uint64_t available, uint64_t swap_free, int64_t centi,
		  uint64_t explicit_bytes, uint64_t cap, struct ul_mtest_plan *out) UL_MUST_CHECK;

/* The child: allocate `target` bytes in `chunk`-byte pieces, writing every
 * byte (so every page), publishing the count after each piece.  Exit
 * status per enum ul_mtest_status.  `bytes` is shared with the parent. */
struct ul_mtest_child {
	uint64_t target, chunk;
	_Atomic uint64_t *bytes;
};
int ul_mtest_child_main(void *arg);

#endif

/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * The mtest01 probe (LTP mtest01 -p80 -w): one run allocates and writes
 * `target` bytes in `chunk`-byte pieces and is timed whole.  Its suite
 * (engine/suites/mtest/) sizes the target and passes it as ctx->arg.
 *
 * Each run appends, in order, to series mtest_elapsed_ns (the primary),
 * mtest_bytes, mtest_user_ns, mtest_sys_ns, mtest_cpu_centi, mtest_majflt,
 * mtest_minflt and mtest_status (enum ul_mtest_status).
 */
#ifndef UL_PROBE_MTEST01_H
#define UL_PROBE_MTEST01_H

#include "core/compat.h"

enum ul_mtest_status {
	UL_MTEST_PASS = 0,	   /* allocated and touched the whole target */
	UL_MTEST_ALLOC_FAILED = 1, /* malloc() returned NULL: "stopped at N bytes" */
	UL_MTEST_KILLED = 2,	   /* SIGKILL we did not send: the OOM killer */
	UL_MTEST_FAILED = 3,	   /* any other end */
};

/* What the suite sized for every run of a cell (ctx->arg). */
struct ul_mtest01_size {
	uint64_t target; /* bytes each run allocates and writes */
	uint64_t chunk;	 /* bytes per allocation */
};

/* The status series, whose last value says how a run ended, and the
 * bytes series (what each run touched: the cell's work). */
#define UL_MTEST_STATUS_SERIES "mtest_status"
#define UL_MTEST_BYTES_SERIES "mtest_bytes"

/* The child: allocate `target` bytes in `chunk`-byte pieces, writing every
 * byte (so every page), publishing the count after each piece.  Exit
 * status per enum ul_mtest_status.  `bytes` is shared with the parent. */
struct ul_mtest_child {
	uint64_t target, chunk;
	_Atomic uint64_t *bytes;
};
int ul_mtest_child_main(void *arg);

#endif

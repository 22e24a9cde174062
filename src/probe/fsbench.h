/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * The "fsbench" probe (probe/fsbench.c): N clients replay a dbench 4
 * trace (dbench/), each in its own directory clients/clientN under the
 * suite's, for a measured window after an uncounted warm-up or for one
 * pass.  A whole probe of the group form (probe.h): one run, a round, is
 * its N clients.  Its suite (engine/suites/fsbench/) sizes it as ctx->arg.
 *
 * Each round appends one value to every per-round series:
 *
 *   fsbench_throughput_bps (primary)  bytes read + written per second
 *   fsbench_elapsed_ns                the measured window (one pass: go
 *                                     to the last client's end)
 *   fsbench_read_bytes, fsbench_write_bytes, fsbench_ops, fsbench_mismatches
 *   fsbench_max_latency_ns            slowest operation
 *   fsbench_user_ns, fsbench_sys_ns, fsbench_majflt, fsbench_minflt
 *                                     the clients' rusage over the window
 *   fsbench_client_min_ops, fsbench_client_max_ops
 *   fsop_<Op>_{count,sum_ns,max_ns,p50_ns,p99_ns,mismatches}
 *                                     per operation kind in the trace
 * and one per client: fsbench_client_ops, fsbench_client_finish_ns (when
 * that client ended, since go: the seed's "termination pattern").  The
 * suite adds, per client when it can read them, why_wall_ns (the client's
 * life, fork to exit, as the kernel timed it) and the parts it splits
 * into (why_*_ns, engine/breakdown_record.h).
 */
#ifndef UL_PROBE_FSBENCH_H
#define UL_PROBE_FSBENCH_H

#include "core/compat.h"

struct ul_cell;
struct ul_fsb_trace;
struct ul_fsb_totals;

/* What every round of a cell replays, and how (ctx->arg). */
struct ul_fsbench_spec {
	const struct ul_fsb_trace *trace;
	int root_fd;		     /* the suite's directory; clients work in clients/ */
	int clients;		     /* 1 .. UL_FSB_MAX_CLIENTS */
	bool once;		     /* one pass, no warm-up */
	int64_t duration_ns;	     /* the measured window when !once */
	int64_t warmup_ns;	     /* uncounted, before it */
	int64_t ready_ns;	     /* how long the clients may take to be ready */
	int64_t pass_ns;	     /* one pass: how long it may take */
	uint64_t disk_reserve_bytes; /* keep this much free (--disk-reserve) */
};

/* The primary series' name, for the suite's metrics and the formats. */
#define UL_FSB_S_THROUGHPUT "fsbench_throughput_bps"

/* Make the cell's series in storage order, those of the operation kinds
 * in `totals` (the trace's) only; the rounds then fill them.  0 or
 * -ENOMEM. */
int ul_fsbench_make_series(struct ul_cell *cell, const struct ul_fsb_totals *totals);

#endif

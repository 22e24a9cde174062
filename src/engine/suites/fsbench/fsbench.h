/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * The fsbench suite (dbench's question, seed 003): N clients replay a
 * file-server trace, each in its own directory, for a fixed time after an
 * uncounted warm-up or for one pass of the trace.  One cell per --under
 * load; each of --runs rounds appends one value to every per-run series:
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
 * and per client per run: fsbench_client_ops, fsbench_client_finish_ns
 * (when that client ended, since go: the seed's "termination pattern").
 * Metrics: fsbench_clients, fsbench_duration_ns (0 = one pass),
 * fsbench_warmup_ns, fsbench_builtin_trace, fsbench_trace_ops,
 * fsbench_trace_read_bytes, fsbench_trace_write_bytes.
 */
#ifndef UL_ENGINE_FSBENCH_H
#define UL_ENGINE_FSBENCH_H

#include "core/compat.h"

#define UL_FSBENCH_CLIENTS_PER_CPU 4
#define UL_FSBENCH_DEFAULT_DURATION_NS (60 * UL_NS_PER_SEC)
#define UL_FSBENCH_DEFAULT_RUNS 1

/* The suite's options of `underload run` (its table in engine/suites/fsbench/fsbench.c);
 * zeroed means the defaults. */
struct ul_fsbench_opts {
	int64_t clients;     /* --clients; 0 = UL_FSBENCH_CLIENTS_PER_CPU per CPU */
	int64_t duration_ns; /* --duration; 0 = UL_FSBENCH_DEFAULT_DURATION_NS */
	bool once;	     /* --duration once: one pass of the trace */
	int64_t warmup_ns;   /* --warmup, when warmup_set; else duration / 5, as dbench */
	bool warmup_set;
	const char *loadfile; /* --loadfile; NULL = the Debian file if present, else built-in */
};

/* Series names, for the formats. */
#define UL_FSB_S_THROUGHPUT "fsbench_throughput_bps"

#endif

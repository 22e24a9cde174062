/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * The fsbench suite (dbench's question, seed 003): N clients replay a
 * file-server trace, each in its own directory, for a fixed time after an
 * uncounted warm-up or for one pass of the trace.  One cell per --under
 * load and --runs round (rounds interleaved, metric "round"); a cell is
 * one run of the fsbench probe, which appends one value to every per-round
 * series (probe/fsbench.h lists them; cells of earlier versions hold
 * several rounds, a value each).  Metrics: fsbench_clients, fsbench_duration_ns (0 = one pass),
 * fsbench_warmup_ns, fsbench_builtin_trace, fsbench_trace_ops,
 * fsbench_trace_read_bytes, fsbench_trace_write_bytes.
 */
#ifndef UL_ENGINE_FSBENCH_H
#define UL_ENGINE_FSBENCH_H

#include "core/compat.h"

#define UL_FSBENCH_CLIENTS_PER_CPU 4
#define UL_FSBENCH_DEFAULT_DURATION_NS (60 * UL_NS_PER_SEC)

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

#endif

/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Micro benchmarks (the micro suite, LMbench 2.0's summary rebuilt): what
 * every benchmark file (bench_*.c) shares, the timing harness (harness.c)
 * and the records they return.  Named bench.h, not micro.h: the suite's
 * own header is engine/suites/micro/micro.h.  Everything here runs in
 * the probe child (probe/micro/child.c spawns it); nothing prints or exits.
 *
 * Harness contract (ul_mh_run):
 *  - a batch function runs a benchmark body `iters` times and returns the
 *    elapsed CLOCK_MONOTONIC ns of the part it times (usually all of it);
 *  - calibration grows iters (x8 while a batch is under 1/64 of the target,
 *    else rescaled to 1.1x the target) until a batch lasts at least 95% of
 *    min_batch_ns; those calibration batches are the warm-up, plus one more
 *    untimed batch of iters/8 (at least 1) at the final count;
 *  - then `batches` timed batches at that fixed count, every one kept;
 *  - the clock overhead (median of 201 back-to-back clock_gettime pairs) is
 *    subtracted once from each batch, which reads the clock twice;
 *  - per-iteration time = (elapsed - clock overhead) / iters, never below 0.
 * Values leave the child as records: series of int64 (per batch) or
 * metrics (one double), named like model series ("op_ps", "batch_ns").
 */
#ifndef UL_PROBE_MICRO_BENCH_H
#define UL_PROBE_MICRO_BENCH_H

#include "core/compat.h"
#include "core/clock.h"

#include "probe/probe.h"

#include <sys/types.h>

#define UL_MH_MAX_BATCHES 64
#define UL_MICRO_MAX_RECS 64
#define UL_MICRO_NAME_LEN 48 /* = UL_NAME_LEN of the model */

/* The six tables of the summary, in the seed's order. */
enum ul_micro_table {
	UL_MT_PROC = 0, /* processor, processes */
	UL_MT_CTX,	/* context switching */
	UL_MT_LAT,	/* local communication latencies */
	UL_MT_FS,	/* file and VM system latencies */
	UL_MT_BW,	/* local communication and memory bandwidths */
	UL_MT_MEM,	/* memory latencies */
	UL_MT_COUNT,
};

typedef int (*ul_mh_batch_fn)(void *st, uint64_t iters, int64_t *elapsed_ns);

struct ul_mh_opts {
	int64_t min_batch_ns; /* a calibrated batch lasts at least 95% of this */
	int batches;	      /* timed batches, 1..UL_MH_MAX_BATCHES */
	uint64_t max_iters;   /* calibration never goes above; 0 = no limit */
};

struct ul_mh_result {
	uint64_t iters;			       /* per timed batch */
	int n;				       /* timed batches */
	int64_t elapsed_ns[UL_MH_MAX_BATCHES]; /* as the batch function returned */
	double iter_ns[UL_MH_MAX_BATCHES];     /* (elapsed - clock_ns) / iters, >= 0 */
	int64_t preempted[UL_MH_MAX_BATCHES];  /* involuntary context switches of the
						* measuring process during the batch */
	double clock_ns;		       /* the overhead subtracted from each batch */
};

/* Median cost of one clock_gettime(CLOCK_MONOTONIC) (measured once, cached). */
double ul_mh_clock_overhead_ns(void);
/* Calibrate, warm up and time batches as above; 0 or the batch function's
 * -errno, -EINVAL for bad opts, -ERANGE when a batch never reaches the
 * target within 2^40 iterations. */
int ul_mh_run(const struct ul_mh_opts *o, ul_mh_batch_fn fn, void *st, struct ul_mh_result *r);
/* Median of r->iter_ns. */
double ul_mh_median_iter_ns(const struct ul_mh_result *r);

/* One record sent from the probe child to the supervisor. */
struct ul_micro_rec {
	char name[UL_MICRO_NAME_LEN];
	int32_t is_metric; /* 1: `metric` holds the value; 0: v[0..n) */
	int32_t n;
	double metric;
	int64_t v[UL_MH_MAX_BATCHES];
};

struct ul_micro_out {
	struct ul_micro_rec rec[UL_MICRO_MAX_RECS];
	size_t n;
};

/* What a benchmark gets in the probe child. */
struct ul_micro_env {
	const char *scratch_dir; /* private, exists */
	struct ul_mh_opts mh;
	/* Placement of multi-process tests (util.c): place_cpu[0] runs the
	 * measuring end (and every end of a "-1cpu" test), place_cpu[1] the
	 * other ends of a "-2cpu" test; -1 = none (one CPU only). */
	int place_cpu[2];
	bool quick;				 /* smaller working sets */
	const char *self_exe;			 /* this program, for the lm-fork family's helper */
	uint64_t l1d_bytes, l2_bytes, llc_bytes; /* from sysfs, sane defaults otherwise */
	uint64_t bw_bytes; /* working set of the memory/file bandwidth tests */
};

/* The six tables and the probes' group names, in the summary's order. */
extern const char *const ul_micro_groups[UL_MT_COUNT];
/* Table of a micro probe's group, or -1. */
int ul_micro_table_of(const char *group);

/* Define a micro probe: `ul_probe_IDENT` of kind micro whose measure() is
 * FN.  Latency probes record "op_ps" (lower is better); bandwidth probes
 * "bw_bytes_s" (higher is better). */
#define UL_MICRO_LAT(ident, name_, group_, summary_, fn_)                                          \
	const struct ul_probe ul_probe_##ident = {                                                 \
		.name = name_,                                                                     \
		.summary = summary_,                                                               \
		.unit = "ps",                                                                      \
		.kind = UL_PROBE_MICRO,                                                            \
		.direction = UL_LOWER_IS_BETTER,                                                   \
		.group = group_,                                                                   \
		.measure = fn_,                                                                    \
	}
#define UL_MICRO_BW(ident, name_, group_, summary_, fn_)                                           \
	const struct ul_probe ul_probe_##ident = {                                                 \
		.name = name_,                                                                     \
		.summary = summary_,                                                               \
		.unit = "bytes/s",                                                                 \
		.kind = UL_PROBE_MICRO,                                                            \
		.direction = UL_HIGHER_IS_BETTER,                                                  \
		.group = group_,                                                                   \
		.measure = fn_,                                                                    \
	}

/* Append records; -ENOSPC when out is full. */
int ul_micro_put_series(struct ul_micro_out *out, const char *name, const int64_t *v, int n);
int ul_micro_put_metric(struct ul_micro_out *out, const char *name, double value);
/*
 * The usual record set of one harness result: "op_ps" (per-op time of each
 * batch, iter_ns / ops_per_iter, in ps) or, when bytes_per_iter > 0,
 * "bw_bytes_s" (bytes_per_iter / iter time); then "batch_ns" (raw elapsed),
 * "preempted_n" (involuntary context switches of the measuring process in
 * each batch: on a busy machine they say which batches were disturbed),
 * and metrics "iters_per_batch", "clock_overhead_ns".
 */
int ul_micro_put_result(struct ul_micro_out *out, const struct ul_mh_result *r, double ops_per_iter,
			double bytes_per_iter);
/* What each fork of ul_micro_proc_batch does: exit at once, exec the
 * target, or run /bin/sh -c TARGET (forker.c's modes name them in this order). */
enum ul_micro_proc_how {
	UL_MICRO_FORK,
	UL_MICRO_EXEC,
	UL_MICRO_SH
};
/* One fork test: what the child does, the program it execs (directly or
 * through /bin/sh -c) with envp, and as_lat_proc: whether the child does
 * the three things lat_proc's child does: closes stdout before the exec,
 * gives the shell argv[0] "sh" (not "/bin/sh"), and, a fork's child,
 * leaves through exit() (atexit handlers and stdio run, and the pages
 * they write are copied on write) rather than _exit(). */
struct ul_micro_proc {
	enum ul_micro_proc_how how;
	const char *target;
	char *const *envp;
	bool as_lat_proc;
};
/* A batch of fork + (exit | exec | sh) + waitpid; arg is a struct
 * ul_micro_proc.  bench_proc.c's native tests (/bin/true, the prober's
 * environment) and the underload-forker helper of the lm- tests (a small
 * fresh process, underload-hello, an empty environment) both time it.
 * 0, -errno, or -ECHILD when a child failed. */
int ul_micro_proc_batch(void *arg, uint64_t iters, int64_t *elapsed);
/* Harness + put_result for a plain batch function. */
int ul_micro_simple(const struct ul_micro_env *env, struct ul_micro_out *out, ul_mh_batch_fn fn,
		    void *st, double ops_per_iter, double bytes_per_iter);

/*
 * Net time per operation of a loop whose iteration does nops operations
 * plus a fixed cost measured apart (base_ns): (gross - base) / nops, and 0
 * when the base is larger (never negative).  LMbench's subtractions: the
 * ring's pipe and summing work (context switches), kill(me, 0) (signal
 * handler), mmap+munmap (page fault).  Pure, for the tests.
 */
double ul_micro_net_ns(double gross_ns, double base_ns, int nops);
/* The same for one ring trip of nproc switches (the ctx tests). */
double ul_micro_ctx_switch_ns(double trip_ns, double overhead_ns, int nproc);

/* --- helpers for benchmarks (util.c) --- */
/* ul_fork_child() a helper process of the benchmark: it dies with the
 * probe child, stays in its process group (so the supervisor's group stop
 * reaches it) and is pinned to cpu when >= 0.  Returns the pid in the
 * parent, 0 in the child. */
pid_t ul_micro_fork(int cpu);
/* The first 64 CPUs of the calling process's affinity mask, as bits. */
uint64_t ul_micro_affinity(void);
/* The lowest CPU of our affinity mask above `after` (-1: the lowest),
 * wrapping round to the lowest; -1 when none but `after` itself. */
int ul_micro_next_cpu(int after);
/* Pin the calling process to cpu (no-op for cpu < 0); 0 or -errno. */
int ul_micro_pin(int cpu);

/*
 * Placement of a multi-process test, a separate measurement each, named by
 * its suffix: "-1cpu" runs every end on env->place_cpu[0]; "-2cpu" runs the
 * measuring end (end 0) and every even end there, the odd ends on
 * place_cpu[1] (a ring alternates, a pair is split).  Every end is pinned
 * with sched_setaffinity before the test starts.
 */
enum ul_micro_place {
	UL_PLACE_ONE_CPU = 1,
	UL_PLACE_TWO_CPUS = 2,
};
#define UL_MICRO_MAX_ENDS 16
/* Where the ends ran, as they saw it: a page shared with the helpers, each
 * writing its affinity mask and sched_getcpu() once pinned. */
struct ul_micro_ends {
	enum ul_micro_place place;
	int cpu[2]; /* env->place_cpu */
	uint64_t mask[UL_MICRO_MAX_ENDS];
	int32_t ran_on[UL_MICRO_MAX_ENDS];
};
/* Does the probe need two CPUs (its name ends in "-2cpu")? */
bool ul_micro_needs_two_cpus(const char *probe_name);
/* The CPU of end i under the placement; -1 when it has no second CPU. */
int ul_micro_end_cpu(const struct ul_micro_ends *e, int i);
/* A shared page for place (NULL, errno set, on failure or when place needs
 * a second CPU env has not); free with ul_micro_ends_free().  Pins the
 * calling process (end 0) and records it. */
struct ul_micro_ends *ul_micro_ends_new(const struct ul_micro_env *env, enum ul_micro_place place);
void ul_micro_ends_free(struct ul_micro_ends *e);
/* ul_micro_fork() end i (1..UL_MICRO_MAX_ENDS-1), pinned where the
 * placement puts it; the child records its mask and CPU first. */
pid_t ul_micro_fork_end(struct ul_micro_ends *e, int i);
/*
 * Metrics of ends 0..n-1: "place_cpus" (1 or 2), "place_cpu0" and, for
 * two, "place_cpu1" (the CPUs), "affinity_self" (end 0's mask, bit c for
 * CPU c), "affinity_peers" (the other ends' masks or'ed), "ran_on_self"
 * and, for a pair, "ran_on_peer" (sched_getcpu() of each, once pinned).
 */
int ul_micro_put_ends(struct ul_micro_out *out, const struct ul_micro_ends *e, int n);
/* Kill (SIGKILL) and reap a helper; pid <= 0 is ignored. */
void ul_micro_reap(pid_t pid);
/* Full reads and writes of blocking fds: ul_read_full, ul_write_full (core/file.h). */
/* Sum of a buffer's 64-bit words (reads every byte); keeps the compiler honest. */
uint64_t ul_micro_sum(const void *buf, size_t bytes);
/* Write a file of `bytes` (pattern data) at path; 0 or -errno. */
int ul_micro_make_file(const char *path, uint64_t bytes);
/*
 * The same in UL_MICRO_LM_FILE_CHUNK-byte writes, then fsync: lmbench's
 * $FILE, which its script writes with lmdd (bs=8k fsync=1) for lat_mmap
 * and lat_pagefault.  How a file was written sets the size of its page
 * cache folios (8 KiB writes: small ones; 1 MiB writes: large ones), and
 * a write fault maps one folio: lat_mmap's 52 writes are 52 faults on
 * this file, 13 on one written in 64 KiB, 1 on one written in 1 MiB.
 */
#define UL_MICRO_LM_FILE_CHUNK 8192
int ul_micro_make_lm_file(const char *path, uint64_t bytes);

/* Cache sizes from /sys/devices/system/cpu/cpu0/cache (0 when unknown). */
void ul_micro_cache_sizes(uint64_t *l1d, uint64_t *l2, uint64_t *llc);

/* Batch settings of the two profiles. */
#define UL_MICRO_MIN_BATCH_NS (100 * UL_NS_PER_MS)
#define UL_MICRO_QUICK_MIN_BATCH_NS (10 * UL_NS_PER_MS)
#define UL_MICRO_BATCHES 11
#define UL_MICRO_QUICK_BATCHES 5
/*
 * An environment for scratch_dir: cache sizes from sysfs (32K/512K/8M when
 * unknown), bandwidth working set 2x the LLC within [8M, 256M], placement
 * on the two lowest CPUs we may run on (place_cpu[1] -1 with one), no
 * self_exe, and the default or quick batch profile.
 */
void ul_micro_env_init(struct ul_micro_env *env, const char *scratch_dir, bool quick);

#endif

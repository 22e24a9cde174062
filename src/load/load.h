/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Loads: background work started before measuring and stopped after.
 *
 * How to add a load:
 *  1. copy load/none.c to load/NAME.c and rename its descriptor
 *     `ul_load_IDENT` (the user-visible name goes in .name, kebab-case);
 *  2. add `UL_LOAD(NAME, IDENT)` to load/loads.def (this also adds the file
 *     to the build);
 *  3. document its unit of work and options in the descriptor; the
 *     conformance test in tests/unit/test_load.c will start and stop it.
 *
 * Life of a load (all driven by ul_load_start()/ul_load_stop()):
 *  - supervisor: supported(), then check() sizes and validates the options
 *    against the memory budget and free disk, and may refuse with a reason;
 *  - ul_spawn() forks the load's leader in its own process group;
 *  - child: prepare() (allocate, create files) then the barrier "ready";
 *  - supervisor: waits for ready with a deadline, releases "go";
 *  - child: run() works until it is killed.  It returns only on failure,
 *    which makes the leader exit non-zero: the supervisor sees the load
 *    died.  Multi-process loads fork workers with ul_load_run_workers().
 *  - supervisor: SIGTERM to the group, grace, SIGKILL, reap.  The scratch
 *    directory is removed by the supervisor: loads own no cleanup and must
 *    tolerate SIGKILL at any instant.
 * Loads never print and never call exit(); errors are return values.
 */
#ifndef UL_LOAD_H
#define UL_LOAD_H

#include "core/compat.h"
#include "core/opt.h"

#include <stdatomic.h>

enum ul_load_flags {
	UL_LOAD_MEMORY = 1 << 0, /* uses memory sized by the budget: oom_score_adj 1000 */
	UL_LOAD_DISK = 1 << 1,	 /* writes to the scratch dir: keeps the free-space reserve */
	UL_LOAD_FORKS = 1 << 2,	 /* creates processes continuously */
};

/* Shared between the supervisor and every process of a load (MAP_SHARED). */
struct ul_load_shared {
	_Atomic uint64_t units;	  /* work done, in the descriptor's unit */
	_Atomic int failed_errno; /* first error a worker hit, for the report */
	/* The leader's own and reaped children's CPU at "go" (getrusage, µs
	 * precision): its set-up, which is not counted as the load's work. */
	_Atomic int64_t setup_user_ns, setup_sys_ns;
	_Atomic bool setup_valid;
	/* The same when the leader took the stop, before its exit: the exit
	 * unmaps the address space it inherited from the supervisor, which is
	 * not the load's work (~3 ms of sys under ASan, 10 ms seen in CI). */
	_Atomic int64_t stop_user_ns, stop_sys_ns;
	_Atomic bool stop_valid;
};

struct ul_load_ctx {
	const char *scratch_dir;       /* private, exists; removed by the supervisor */
	const char *self_exe;	       /* absolute path of this program, to exec */
	int ncpu;		       /* online CPUs */
	uint64_t mem_budget_bytes;     /* what memory loads size against */
	uint64_t mem_ceiling_bytes;    /* hard cap: 90% of MemAvailable + SwapFree at start */
	uint64_t disk_reserve_bytes;   /* free space that must remain on the scratch fs */
	int64_t opt[UL_OPT_MAX];       /* option values, in the descriptor's table order */
	struct ul_load_shared *shared; /* counters; NULL in check() */
	const char *cgroup_procs;      /* run the processes in this cgroup (NULL: none) */
	const char *src_dir;	       /* a tree the load reads, set by the suite (contest: the
				    * job's source tree for the tar loads, --lslr-dir for
				    * lslr_load); NULL = the load's default or refusal */
};

struct ul_load {
	const char *name;	   /* user-visible, e.g. "8ctx-mem" */
	const char *summary;	   /* one line for `underload list loads` */
	const char *unit;	   /* what shared->units counts, plural: "writes" */
	const struct ul_opt *opts; /* NULL-name terminated, may be NULL */
	unsigned flags;		   /* enum ul_load_flags */
	/* Supervisor, any time: 0 if the load can run here, else -ENOTSUP and a reason. NULL = always. */
	int (*supported)(char *why, size_t len);
	/* Supervisor, before spawning: resolve "auto" options (write back into
	 * ctx->opt), refuse impossible sizes with a reason (-E2BIG, -ENOSPC,
	 * -EINVAL).  NULL = nothing to check. */
	int (*check)(struct ul_load_ctx *ctx, char *why, size_t len);
	/* Leader child, before ready: set up; *state is passed to run(). NULL = none. */
	int (*prepare)(struct ul_load_ctx *ctx, void **state);
	/* Leader child, after go: work until killed.  Returns only on failure
	 * (a positive errno), which ends the leader with exit status 1. */
	int (*run)(struct ul_load_ctx *ctx, void *state);
};

const struct ul_load *ul_load_find(const char *name);
size_t ul_load_count(void);
const struct ul_load *ul_load_at(size_t i);

/*
 * Helper for run(): fork `n` workers, each with PR_SET_PDEATHSIG SIGKILL
 * and in the leader's process group, running fn(ctx, state, index) until
 * killed; the leader then waits.  If any worker exits, the rest are killed
 * and the exit's errno (or EPIPE) is returned, so the load is seen to die.
 */
int ul_load_run_workers(struct ul_load_ctx *ctx, void *state, int n,
			int (*fn)(struct ul_load_ctx *ctx, void *state, int index));

/* --- supervisor side: the one way the engine runs a load --- */
struct ul_sup;
struct ul_running_load; /* opaque */

/*
 * Check, spawn, wait for ready (deadline ready_timeout_ns), release go.
 * On failure returns -errno and a one-line reason in why; nothing is left
 * running.  ctx->shared is allocated here.
 */
int ul_load_start(struct ul_sup *sup, const struct ul_load *load, const struct ul_load_ctx *ctx,
		  int64_t ready_timeout_ns, struct ul_running_load **out, char *why, size_t len);
/* The leader's child record, for noticing its death in ul_sup_wait(). */
struct ul_child *ul_load_child(struct ul_running_load *rl);
/* Units of work done so far. */
uint64_t ul_load_units(const struct ul_running_load *rl);
/* The first error a process of the load recorded (positive errno), 0 if none:
 * why it died, for the cell's note.  Valid until the stop. */
int ul_load_failed_errno(const struct ul_running_load *rl);
/* Stop (TERM, grace, KILL) and reap; report whether SIGKILL was needed and
 * whether it had died before being stopped.  Frees rl. */
int ul_load_stop(struct ul_sup *sup, struct ul_running_load *rl, int64_t grace_ns, uint64_t *units,
		 bool *needed_kill);

/*
 * What a stopped load used while it ran (contest's LCPU%).  CPU comes from
 * the leader's wait4() rusage, which includes every process it reaped: the
 * leader and ul_load_run_workers()/ul_load_exec_wait() reap their children
 * on SIGTERM so their time is counted.  Set-up time (prepare() and what it
 * ran) is subtracted: it is read from /proc at the moment of "go".  When
 * the leader recorded its CPU as it took the stop (its SIGTERM handler,
 * ul_load_die_of_stop()), that reading ends the count instead, so its
 * exit's teardown is left out.
 */
struct ul_load_usage {
	int64_t user_ns, sys_ns; /* CPU since go, all processes of the load together */
	int64_t ran_ns;		 /* go -> leader reaped */
	bool valid;		 /* false when the leader was not reaped by the stop */
};

/* ul_load_stop() that also reports usage (may be NULL); same return values. */
int ul_load_stop_usage(struct ul_sup *sup, struct ul_running_load *rl, int64_t grace_ns,
		       uint64_t *units, bool *needed_kill, struct ul_load_usage *usage);

#endif

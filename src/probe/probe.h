/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Probes: the things measured, one registry for every kind (DESIGN.md):
 *  - repeat: a long-lived child (standing for the user's session) that, on
 *    each request, sleeps a think time and then times one fixed task; this
 *    header drives it (ul_probe_start/measure/stop below);
 *  - periodic: a task due every period that must do its work before the
 *    next (interbench's audio/video); its ul_periodic_ops below (the
 *    deadline probe: probe/deadline_ops.c over probe/deadline.h);
 *  - whole: a job timed end to end (contest's compile, mtest01's
 *    allocation, with wait4() rusage; fsbench's N clients replaying a
 *    trace, its group form); its ul_whole_ops are run by
 *    ul_whole_start/measure/result/stop below;
 *  - micro: a tight loop timed in batches (lmbench-style); the micro
 *    suite's harness calibrates the iterations, calls batch() repeatedly
 *    in the probe process and keeps every batch.
 * A suite names its probe in its descriptor (model/suite.h); `list probes
 * -v` shows every probe with its kind and options.
 *
 * How to add a probe: one file probe/NAME.c defining `ul_probe_IDENT`
 * and one line `UL_PROBE(NAME, IDENT)` in probe/probes.def (the
 * conformance test in tests/unit/test_probe.c runs every repeat probe).
 * The file gives what its kind asks for:
 *  - repeat: setup(), sample(), teardown(): copy probe/null.c;
 *  - micro: batch() or measure(), its group (probe/micro/ has the many);
 *  - whole: a struct ul_whole_ops (start, run, result, stop, its series):
 *    copy probe/mtest01.c (or probe/job.c, a program exec'd; or
 *    probe/fsbench.c, N children: its group ops); its suite sizes it
 *    (ctx->arg), may set a ul_whole_watch (progress tick, stop grace) and
 *    calls ul_whole_start/measure/result/stop;
 *  - periodic: a struct ul_periodic_ops (start, measure, result, stop,
 *    child): see probe/deadline_ops.c; the deadline monitor runs the
 *    "deadline" probe (a second periodic probe would need the monitor
 *    to choose it by name).
 * A suite that uses it names it in its descriptor (model/suite.h).
 *
 * Life of a repeat probe (driven by ul_probe_start/measure/stop):
 *  - ul_spawn() forks the probe child; in it setup() prepares the task
 *    (allocates the working set, creates files), then it reports ready;
 *  - for each request the child sleeps think_ns (relative clock_nanosleep
 *    on CLOCK_MONOTONIC), calls sample() which returns one measurement in
 *    ns, and writes it back;
 *  - when its request pipe closes the child calls teardown() and exits 0.
 * Measured paths must not allocate, print or log.
 */
#ifndef UL_PROBE_H
#define UL_PROBE_H

#include "core/compat.h"
#include "core/opt.h"
#include "model/model.h"

#include <sys/types.h>

struct ul_micro_env;
struct ul_micro_out;
struct ul_whole_ops;
struct ul_periodic_ops;
struct ul_barrier;
struct ul_child;
struct ul_sup;

enum ul_probe_kind {
	UL_PROBE_REPEAT = 0, /* sampled after each think-time sleep */
	UL_PROBE_PERIODIC,   /* due every period: latency and deadlines met */
	UL_PROBE_WHOLE,	     /* one job timed end to end */
	UL_PROBE_MICRO,	     /* batches of N iterations of one operation */
};

struct ul_probe_ctx {
	const char *scratch_dir; /* private, exists; removed by the supervisor */
	const char *self_exe;	 /* absolute path of this program, to exec */
	int ncpu;
	uint64_t mem_budget_bytes;
	int64_t opt[UL_OPT_MAX];  /* option values in the descriptor's table order */
	const char *cgroup_procs; /* run the processes in this cgroup (NULL: none) */
	const void *arg;	  /* whole kind: what its suite sized for it (mtest01's
				    * struct ul_mtest01_size); NULL = nothing */
};

struct ul_probe {
	const char *name; /* user-visible, "resp" */
	const char *summary;
	const char *unit; /* of the samples: "ns" */
	const struct ul_opt *opts;
	enum ul_probe_kind kind;
	enum ul_direction direction;		 /* of its values: which way is better */
	int (*supported)(char *why, size_t len); /* NULL = always */
	/* Probe child, before ready. *state goes to sample()/batch()/teardown().
	 * Repeat and micro kinds; NULL = no state. */
	int (*setup)(struct ul_probe_ctx *ctx, void **state);
	/* Repeat kind, probe child: one timed measurement into *out_ns; 0 or a
	 * positive errno. */
	int (*sample)(struct ul_probe_ctx *ctx, void *state, int64_t *out_ns);
	void (*teardown)(struct ul_probe_ctx *ctx, void *state); /* may be NULL */

	/* --- micro kind --- */
	const char *group; /* the summary table it belongs to: "proc", "ctx",
			    * "lat", "file", "bw", "mem" (the micro suite's order) */
	/* Bandwidth probes: bytes one iteration moves, reported as MB/s
	 * (direction higher); 0 = reported as ns per iteration. */
	uint64_t bytes_per_iter;
	/* Probe process, after setup(): run `iters` iterations of the
	 * measured operation and put their elapsed time (CLOCK_MONOTONIC) in
	 * *elapsed_ns.  The harness calibrates iters, subtracts the clock's
	 * overhead and divides; batch() must not allocate, print or log.  0
	 * or a positive errno. */
	int (*batch)(struct ul_probe_ctx *ctx, void *state, uint64_t iters, int64_t *elapsed_ns);
	/* Instead of batch(), a micro probe that is more than one timed loop
	 * (an overhead to subtract, several sizes) runs its whole measurement
	 * with the harness itself, in its probe process; probe/micro/bench.h. */
	int (*measure)(const struct ul_micro_env *env, struct ul_micro_out *out);

	/* --- periodic kind: started once, cut into cells (a monitor or its
	 * suite drives it: engine/monitors/deadline.c) --- */
	const struct ul_periodic_ops *periodic;

	/* --- whole kind (driven by ul_whole_start/measure/result/stop) --- */
	const struct ul_whole_ops *whole;
};

/*
 * A periodic probe's own behaviour: it runs from start to stop, and what
 * it recorded between measure() and result() belongs to one cell.
 */
struct ul_periodic_ops {
	/* Supervisor: spawn it and wait for it to be ready; it then runs
	 * until stop.  ctx->arg is its profile (deadline: struct
	 * ul_deadline_spec).  0, with a warning to print in why when it runs
	 * degraded (why[0] = '\0' if not); or -errno with the reason in why. */
	int (*start)(struct ul_sup *sup, const struct ul_probe_ctx *ctx, int64_t ready_timeout_ns,
		     void **state, char *why, size_t len);
	/* Supervisor: a cell's measurement begins now. */
	void (*measure)(void *state);
	/* Supervisor: what it recorded since measure() into the cell's
	 * series and metrics; 0, or -ENOMEM.  Without a measure(): 0. */
	int (*result)(void *state, struct ul_cell *cell);
	/* Stop and reap; frees state.  0, -ECHILD if it had died, -ETIME if
	 * even SIGKILL did not get it reaped (its record stays registered). */
	int (*stop)(struct ul_sup *sup, void *state);
	/* Its child record (to tell its death from a load's; reaped = dead). */
	struct ul_child *(*child)(void *state);
};

struct ul_whole_group_ops;

/*
 * A whole probe's own behaviour; the driver (probe/whole.c) spawns each run
 * as a supervised child, waits for it with a deadline and the other
 * children watched, and stops it on a timeout or an interrupt.  A probe
 * whose run is N children gives `group` instead of run and result.
 */
struct ul_whole_ops {
	/* Supervisor, before the runs: what they share (*state; may stay
	 * NULL).  ctx->arg is what the suite sized for it.  0 or -errno. */
	int (*start)(const struct ul_probe_ctx *ctx, void **state);
	/* The child of one run, in its own process: the work, then its exit
	 * status (the probe's own codes). */
	int (*run)(const struct ul_probe_ctx *ctx, void *state);
	/* Supervisor, after a run ended by itself: its values (from its
	 * wait4() record `run` and spawn-to-reap elapsed_ns) appended to the
	 * cell's series, whose names `series` lists.  0 or -ENOMEM. */
	int (*result)(const struct ul_probe_ctx *ctx, void *state, const struct ul_child *run,
		      int64_t elapsed_ns, struct ul_cell *cell);
	void (*stop)(void *state); /* releases what start made; may be NULL */
	/* The series it fills, in storage order, NULL-terminated; [0] is the
	 * primary measurement. */
	const char *const *series;
	/* The OOM killer takes a run before anything else (a memory hog). */
	bool oom_first;
	/* The group form (below); run and result are then NULL, and series
	 * lists the per-run series (the probe may fill more). */
	const struct ul_whole_group_ops *group;
};

/* The phases a group's children follow, as its probe publishes them. */
enum ul_whole_phase {
	UL_WHOLE_WARMUP = 1, /* working, not counted */
	UL_WHOLE_MEASURE,    /* working and counted: the measured window */
	UL_WHOLE_STOP,	     /* finish the current step, tidy up, exit 0 */
};

/* The shape of one group run (ul_whole_group_ops.plan). */
struct ul_whole_plan {
	int children;	   /* > 0 */
	int64_t ready_ns;  /* how long they may take, all, to be ready */
	int64_t warmup_ns; /* from go, before a window; 0 = none */
	int64_t window_ns; /* the measured window; 0 = one pass: each ends by itself */
	int64_t pass_ns;   /* one pass: how long from go it may take */
	int64_t exit_ns;   /* after STOP: how long they get to exit by themselves */
	int keep_fd;	   /* an fd the children keep open (fsbench: their
			    * directory); -1, as the driver sets it: none */
};

/*
 * The group form of a whole probe: one run is N children (fsbench's
 * clients), each a supervised child in its own process group, released
 * together and driven through phases by the group driver
 * (probe/whole_group.c), in this order:
 *  1. plan(): the run's shape; the probe resets what the children share;
 *  2. child(i) for i = 0..N-1, each in its own process: it sets up, passes
 *     the barrier (ul_barrier_child_ready then ul_barrier_child_wait_go,
 *     proc/barrier.h), then works following the phase until STOP or the
 *     end of its one pass; its return is its exit status, 0 a clean end;
 *  3. all ready within ready_ns: phase(WARMUP, or MEASURE without a
 *     warm-up), then go releases them together; after warmup_ns,
 *     phase(MEASURE): the window opens;
 *  4. window_ns > 0: at its end phase(STOP) and exit_ns for them to exit;
 *     window_ns = 0: each exits after its pass, all within pass_ns of go
 *     (else the run is stopped: UL_MEASURE_TIMEOUT);
 *  5. a child that ends otherwise (before STOP, or not with 0) fails the
 *     run: why() words it, the others are stopped;
 *  6. every child gone, however the run ended: ended() (tidy up what they
 *     left); after a run that went well, result() records it.
 * Stopping a child is TERM to its group, the watch's grace, KILL.
 */
struct ul_whole_group_ops {
	/* Supervisor, before each run.  ctx->arg is what the suite sized. */
	void (*plan)(const struct ul_probe_ctx *ctx, void *state, struct ul_whole_plan *plan);
	/* Child i of a run, in its own process (step 2). */
	int (*child)(const struct ul_probe_ctx *ctx, void *state, int i,
		     struct ul_barrier *barrier);
	/* Supervisor: publish the phase; go_ns is when the children were (or
	 * are about to be) released, monotonic. */
	void (*phase)(void *state, enum ul_whole_phase phase, int64_t go_ns);
	/* Supervisor: why child i failed, after it ended, into buf; false
	 * leaves the driver's words ("client 2 ended before it was stopped
	 * (exit status 1)").  May be NULL. */
	bool (*why)(void *state, int i, char *buf, size_t len);
	/* Supervisor, every child of the run gone.  May be NULL. */
	void (*ended)(const struct ul_probe_ctx *ctx, void *state);
	/* Supervisor, after a run that went well: its values onto the cell;
	 * window_ns is the measured window (one pass: go to the last end).
	 * 0 or -ENOMEM. */
	int (*result)(const struct ul_probe_ctx *ctx, void *state, int64_t window_ns,
		      struct ul_cell *cell);
	const char *child_name; /* what a child is called in notes: "client" */
};

/* "repeat", "periodic", "whole", "micro". */
const char *ul_probe_kind_name(enum ul_probe_kind kind);

const struct ul_probe *ul_probe_find(const char *name);
size_t ul_probe_count(void);
const struct ul_probe *ul_probe_at(size_t i);

/* --- supervisor side --- */
struct ul_sup;
struct ul_child;
struct ul_running_probe; /* opaque */

enum ul_measure_result {
	UL_MEASURE_OK = 0,
	UL_MEASURE_FAILED,	 /* sample() returned an error: err holds its errno */
	UL_MEASURE_TIMEOUT,	 /* no answer by the deadline */
	UL_MEASURE_INTERRUPTED,	 /* a terminating signal arrived */
	UL_MEASURE_CHILD_EXITED, /* some supervised child exited: see *exited */
};

/* Spawn a repeat probe's child and wait for its ready (deadline
 * ready_timeout_ns).  -errno and a reason in why on failure (-EINVAL for
 * another kind); nothing left running. */
int ul_probe_start(struct ul_sup *sup, const struct ul_probe *probe, const struct ul_probe_ctx *ctx,
		   int64_t ready_timeout_ns, struct ul_running_probe **out, char *why, size_t len);
/*
 * Ask for one sample after think_ns and wait for it until `deadline`
 * (absolute monotonic ns).  If another supervised child (a load) exits
 * meanwhile, returns UL_MEASURE_CHILD_EXITED with *exited set; the request
 * stays outstanding and a further call with think_ns < 0 keeps waiting for
 * its answer.
 */
enum ul_measure_result ul_probe_measure(struct ul_sup *sup, struct ul_running_probe *rp,
					int64_t think_ns, int64_t deadline, int64_t *value_ns,
					int *err, struct ul_child **exited);
struct ul_child *ul_probe_child(struct ul_running_probe *rp);
/* Close the request pipe, wait up to grace for a clean exit, then stop and
 * reap.  Frees rp. */
int ul_probe_stop(struct ul_sup *sup, struct ul_running_probe *rp, int64_t grace_ns);

/* --- whole kind, supervisor side (probe/whole.c) --- */
struct ul_whole_run; /* opaque: a started whole probe */

/* Start a whole probe that has ops (ctx is kept: it must outlive the
 * probe); 0, or -errno (-EINVAL without ops). */
int ul_whole_start(const struct ul_probe *probe, const struct ul_probe_ctx *ctx,
		   struct ul_whole_run **out);
/*
 * One run: spawned now and waited for until `deadline` (absolute monotonic
 * ns).  UL_MEASURE_OK: it ended by itself (ul_whole_result records it);
 * UL_MEASURE_FAILED: it could not be spawned (*err, a negative errno);
 * UL_MEASURE_TIMEOUT, UL_MEASURE_INTERRUPTED: it was stopped, nothing to
 * record; UL_MEASURE_CHILD_EXITED: another supervised child exited
 * (*exited) and the run goes on: ul_whole_wait() keeps waiting.
 * The group form: its plan bounds every step (deadline is not used);
 * UL_MEASURE_OK when the run went well; UL_MEASURE_FAILED when a child
 * could not start, was not ready in time or ended when it should not
 * have (ul_whole_note() says which and how), or, with no note, when the
 * run could not be set up (*err: no pipes, no memory); UL_MEASURE_TIMEOUT:
 * a pass took longer than pass_ns.  Every child is gone on any return but
 * UL_MEASURE_CHILD_EXITED.
 */
enum ul_measure_result ul_whole_measure(struct ul_sup *sup, struct ul_whole_run *wr,
					int64_t deadline, int *err, struct ul_child **exited);
enum ul_measure_result ul_whole_wait(struct ul_sup *sup, struct ul_whole_run *wr, int64_t deadline,
				     struct ul_child **exited);
/* The ended run's values onto the cell (ul_whole_ops.result). */
int ul_whole_result(struct ul_whole_run *wr, struct ul_cell *cell);
/* The ended run's record (wait status, rusage) and *elapsed_ns, spawn to
 * reap; NULL while none has ended by itself, and for the group form. */
const struct ul_child *ul_whole_child(const struct ul_whole_run *wr, int64_t *elapsed_ns);
/* The group form's ended run: its children's records in order (child i
 * at [i], up to room: pid, wait status, rusage), how many; 0 while none
 * has ended well, and for a single run.  They are reaped: for their exit
 * records (taskstats).  The records live until the next run starts. */
size_t ul_whole_children(const struct ul_whole_run *wr, const struct ul_child **kids, size_t room);
/* Why the group form's last run failed or was interrupted ("client 2:
 * the scratch file system is full ..."); "" when it went well, and for a
 * single run. */
const char *ul_whole_note(const struct ul_whole_run *wr);

/* What its suite wants while a run goes; zeroed: no tick, no grace. */
struct ul_whole_watch {
	/* > 0: tick(arg, ran_ns) before each wait, so at the run's start and
	 * about every tick_ns (a progress line); ran_ns is since the spawn. */
	int64_t tick_ns;
	void (*tick)(void *arg, int64_t ran_ns);
	void *arg;
	/* Every stop of a run (deadline, interrupt, ul_whole_cancel): SIGTERM
	 * to its process group, up to grace_ns to exit, then SIGKILL.  The
	 * group form ticks too (ran_ns: since its first spawn). */
	int64_t grace_ns;
};
void ul_whole_set_watch(struct ul_whole_run *wr, const struct ul_whole_watch *w);
/* Stop the run going (its load died, say), with the watch's grace.  0, or
 * -ETIME when even SIGKILL did not get it reaped: ul_whole_unkillable(). */
int ul_whole_cancel(struct ul_sup *sup, struct ul_whole_run *wr);
/* Whether the current run's stop (by its deadline, an interrupt or
 * ul_whole_cancel) failed to reap it; its record then stays with the
 * supervisor (leaked on purpose). */
bool ul_whole_unkillable(const struct ul_whole_run *wr);
/* Release the probe (a run still going is stopped first).  Frees wr. */
void ul_whole_stop(struct ul_sup *sup, struct ul_whole_run *wr);

/* The hidden `underload __lsdir DIR` mode the resp task execs: lists and
 * lstat()s every entry of DIR like `ls -l`, printing nothing; exit 0/1. */
int ul_probe_lsdir_main(int argc, char **argv);

#endif

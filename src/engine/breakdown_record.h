/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * The recorder of "why was it slow" (model/breakdown.def): for each sample
 * of a measured task, the parts of its wall time the kernel saw the task
 * and its descendants spend (on-CPU, run queue, block I/O, swap-in,
 * reclaim, thrashing, compaction; other = the rest), written as the
 * cell's why_* series, aligned index for index with its sample series.
 *
 * How a sample is read: the task's thread group is queried through
 * taskstats (proc/taskstats.h) when the sample is asked for and when it is
 * answered, and the difference is its own part; its descendants that
 * exited in between (a forked `ls`) are added from the exit records of a
 * listener on the run's CPUs (--cpus, else every online CPU), picked by
 * their parent chain from the task.  The task idles between samples, so
 * the think time adds nothing.  A descendant still alive when the sample
 * ends is not counted (resp's lister never is).
 *
 * Delay accounting is switched on for the recorder's life when it is off
 * (engine/breakdown_switch.c: journalled, shared between runs, restored by
 * ul_breakdown_close, and by `underload cleanup` after a kill -9).
 * Without it, or without CAP_NET_ADMIN, or without taskstats, only the
 * on-CPU and run-queue parts (and other) are written, from taskstats'
 * scheduler fields or /proc/PID/schedstat, and what is missing is said
 * once; nothing fails.  A cell in which some sample could not be read
 * keeps no why_* series (a part must never be misaligned or invented).
 *
 * Three kinds of sample:
 *  - a request to a task that idles between samples (resp's probe):
 *    ul_breakdown_begin / ul_breakdown_end, as above;
 *  - a long window of a task that forks nothing (the deadline probe's
 *    cell): ul_breakdown_begin_alone / ul_breakdown_end_wall, its own
 *    counters only, so the other tasks' exit records may be dropped;
 *  - a task tree's whole life (contest's job, an mtest01 run, each
 *    fsbench client): the root is forked after ul_breakdown_begin_life
 *    and reaped before ul_breakdown_end_life, which adds the exit records
 *    of the root, its threads and every descendant that exited; a long
 *    life calls ul_breakdown_poll now and then, as the listener's socket
 *    holds a few hundred records.  Such a sample needs the listener:
 *    without it (schedstat, no CAP_NET_ADMIN) it is not read.  Its
 *    on-CPU part is at least the root's wait4() rusage (user + system:
 *    its own and its reaped descendants' CPU): an exit record's on-CPU
 *    time lacks the task's last stretch, as the kernel reads the
 *    scheduler's sum, brought up to date only at a tick or a switch, and
 *    the exit's own teardown comes after the record, so a task that
 *    lived less than a tick can read 0.
 * When the parts explain another wall time than the cell's sample
 * series (a whole client's life, a cell's window), that wall time is
 * written too, as UL_BREAKDOWN_WALL_SERIES (model/breakdown.h), and the
 * parts are aligned with it.
 */
#ifndef UL_ENGINE_BREAKDOWN_RECORD_H
#define UL_ENGINE_BREAKDOWN_RECORD_H

#include "core/compat.h"
#include "model/breakdown.h"

#include <stdint.h>
#include <sys/types.h>

struct ul_cell;
struct ul_child;
struct ul_journal;

/*
 * The parts of one sample of wall_ns: raw[p] is what the kernel counted
 * for part p (negative counts as 0; raw[UL_PART_OTHER] is ignored), have[p]
 * whether it was counted at all.  Each counted part in the registry's order
 * is cut to what is left of the wall time, so they never add up to more;
 * other is the rest, never negative.  Parts not counted are 0 in out.
 */
void ul_breakdown_clamp(int64_t wall_ns, const int64_t raw[UL_PART_COUNT],
			const bool have[UL_PART_COUNT], int64_t out[UL_PART_COUNT]);

/* kernel.task_delayacct held on for a run (engine/breakdown_switch.c). */
struct ul_delayacct_hold {
	int lock_fd;   /* the shared lock, -1 when not held */
	bool entry;    /* a "delayacct 0" of ours is in the journal */
	bool counting; /* delay accounting is on for the run */
};
/* Switch it on when off (journalled in j, which is required to switch),
 * or share underload's switch; false in h->counting, with why, when it
 * stays off.  Never fails the run. */
void ul_delayacct_hold_on(struct ul_journal *j, struct ul_delayacct_hold *h, char *why, size_t len);
/* Let it go: switched off when this was its last run. */
void ul_delayacct_hold_off(struct ul_journal *j, struct ul_delayacct_hold *h);

struct ul_breakdown_rec;
/*
 * A recorder for the run: the switch held, taskstats opened, the listener
 * on cpus ("" or NULL: every online CPU).  Says once (a note) what it
 * cannot record.  NULL (nothing recorded, nothing switched) without
 * memory, or when the environment says UL_BREAKDOWN=0 (bench/
 * breakdown-cost.sh measures the recorder's cost against that).
 */
struct ul_breakdown_rec *ul_breakdown_open(struct ul_journal *j, const char *cpus);
/* Close it and let delay accounting go (NULL: nothing). */
void ul_breakdown_close(struct ul_breakdown_rec *r, struct ul_journal *j);
/* A sample of the task `root` (a thread group id) is asked for now. */
void ul_breakdown_begin(struct ul_breakdown_rec *r, pid_t root);
/* It was answered with wall_ns: its parts pushed onto cell's why_*
 * series.  0, or -ENOMEM.  A part that cannot be read makes the cell's
 * breakdown void (ul_breakdown_cell_end drops it). */
int ul_breakdown_end(struct ul_breakdown_rec *r, struct ul_cell *cell, int64_t wall_ns);
/* A window of `root`, a task that forks nothing, opens now; its parts are
 * its own counters' (exit records are not looked at). */
void ul_breakdown_begin_alone(struct ul_breakdown_rec *r, pid_t root);
/* ul_breakdown_end, with wall_ns pushed onto UL_BREAKDOWN_WALL_SERIES. */
int ul_breakdown_end_wall(struct ul_breakdown_rec *r, struct ul_cell *cell, int64_t wall_ns);

/* One sample's parts, read now and pushed later (contest pushes its
 * job's values after the load stopped). */
struct ul_breakdown_sample {
	bool read;		     /* false: it could not be read; nothing is pushed */
	int64_t wall_ns;	     /* the wall time split */
	int64_t part[UL_PART_COUNT]; /* clamped: ul_breakdown_clamp() */
	bool have[UL_PART_COUNT];    /* counted by this recorder */
};
/* The roots of whole-life samples are forked from now on. */
void ul_breakdown_begin_life(struct ul_breakdown_rec *r);
/* Take the exit records pending now (during a long life). */
void ul_breakdown_poll(struct ul_breakdown_rec *r);
/* `root`, forked since ul_breakdown_begin_life, has been reaped (its pid
 * and, when root->reaped, its rusage): its tree's parts of wall_ns into
 * *out (wall_ns <= 0: the root's life, fork to exit, as its exit record
 * times it).  Several roots of one begin_life may be ended in turn.  r
 * or root NULL: out->read false. */
void ul_breakdown_end_life(struct ul_breakdown_rec *r, const struct ul_child *root, int64_t wall_ns,
			   struct ul_breakdown_sample *out);
/* Push a sample's parts onto cell's why_* series (with_wall: its wall
 * time onto UL_BREAKDOWN_WALL_SERIES too); nothing when it was not read.
 * 0, or -ENOMEM. */
int ul_breakdown_push(struct ul_cell *cell, const struct ul_breakdown_sample *s, bool with_wall);

/* The cell is measured: its why_* series are dropped unless each is as
 * long as `samples` (the series they are aligned with) and, after
 * ul_breakdown_begin, every sample was read.  r may be NULL (lengths
 * only). */
void ul_breakdown_cell_end(struct ul_breakdown_rec *r, struct ul_cell *cell, size_t samples);

#endif

/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * The deadline probe: a periodic task in the spirit of interbench.  Every
 * period it wakes at an absolute time (clock_nanosleep TIMER_ABSTIME) and
 * must finish a fixed amount of CPU work before the next period starts.
 *
 * Definitions (the one place they live):
 *  - period k is due at t0 + k*P and its deadline is t0 + (k+1)*P;
 *  - wake-up latency = when it woke (or, if it was still busy with an
 *    earlier period, when it could start) minus when it was due;
 *  - work is CPU time: the task spins until its thread CPU clock advanced
 *    by W.  No calibration (which can loop forever, interbench PR #1), and
 *    the CPU it wanted is exact: W per period;
 *  - a period whose work ends after its deadline is missed (a dropout);
 *  - coordinated omission: when the work of period k ends at `done` after
 *    the deadlines of later periods too, every one of those is missed as
 *    well and skipped (like a player dropping buffers it cannot catch up
 *    with); each skipped period k+m gets a synthetic latency record of
 *    done - due(k+m), the earliest it could have started.  A 200 ms stall
 *    at 50 Hz therefore counts about 10 missed periods, not 1;
 *  - stall of a period = wall time from when it was due (or the previous
 *    period ended, if later) until its work ended, minus W: time it wanted
 *    the CPU and did not have it.  The longest stall is the maximum;
 *  - share of desired CPU = periods whose work was done (late or not) /
 *    periods elapsed: the CPU it obtained over the CPU it asked for.
 *
 * The probe child records into memory shared with the supervisor, all of
 * it allocated (and locked when allowed) before the probe reports ready;
 * the measured loop never allocates, prints or makes a system call other
 * than the sleep and the clocks.  Nothing here knows about cells or runs.
 */
#ifndef UL_PROBE_DEADLINE_H
#define UL_PROBE_DEADLINE_H

#include "core/compat.h"
#include "core/clock.h"

struct ul_deadline_spec {
	char name[16]; /* "audio", "video", "custom" */
	int64_t period_ns;
	int64_t work_ns; /* < period_ns */
	bool rt;	 /* ask for SCHED_FIFO */
};

/*
 * Parse a profile: "audio" (interbench's: 20 Hz, 2.5 ms: 5% of a CPU),
 * "video" (60 Hz, 40%), "audio-50hz" (50 Hz, 1 ms), or "PERIOD:WORK" with durations ("10ms:2ms") or "PERIOD:PCT%"
 * ("20ms:5%").  0, or -EINVAL (malformed) / -ERANGE (period outside 1 ms..10 s,
 * work not in (0, period)); `err` then says why.
 */
int ul_deadline_parse(const char *text, struct ul_deadline_spec *out, char *err, size_t errlen);

/* A named profile; its stored code (the "dl_profile" metric) is its index + 1. */
struct ul_deadline_profile {
	const char *name;
	int64_t period_ns;
	int64_t work_ns;
};
extern const struct ul_deadline_profile ul_deadline_profiles[3];

/* One record per period, in order; synthetic ones have stall_ns < 0. */
struct ul_deadline_rec {
	int64_t lat_ns;
	int64_t stall_ns;
};

/* Consistent counters of a running probe (a seqlock-protected snapshot). */
struct ul_deadline_snap {
	uint64_t periods;    /* elapsed and accounted: met + missed */
	uint64_t met;	     /* work finished by the deadline */
	uint64_t missed;     /* dropouts, skipped periods included */
	uint64_t served;     /* periods whose work was done, late or not */
	uint64_t recs;	     /* records written (real and synthetic) */
	uint64_t synthetic;  /* of which synthetic */
	int64_t work_cpu_ns; /* thread CPU time spent in work */
};

struct ul_sup;
struct ul_child;
struct ul_deadline; /* opaque: a running probe */

/*
 * Spawn the probe (cgroup_procs may be NULL), wait for it to be ready
 * (ready_timeout_ns), then it runs until ul_deadline_stop().  The record
 * ring holds `capacity_s` seconds of periods.  0 or -errno with a reason.
 */
int ul_deadline_start(struct ul_sup *sup, const struct ul_deadline_spec *spec,
		      const char *cgroup_procs, int64_t capacity_s, int64_t ready_timeout_ns,
		      struct ul_deadline **out, char *why, size_t len) UL_MUST_CHECK;
void ul_deadline_snapshot(const struct ul_deadline *d, struct ul_deadline_snap *s);
/*
 * Copy records [from, to) (indices as counted by snap.recs) into out,
 * skipping those already overwritten by the ring; returns how many were
 * copied and adds the overwritten ones to *lost.
 */
size_t ul_deadline_records(const struct ul_deadline *d, uint64_t from, uint64_t to,
			   struct ul_deadline_rec *out, uint64_t *lost);
/* Whether SCHED_FIFO was asked for and obtained, and the errno if refused. */
bool ul_deadline_is_rt(const struct ul_deadline *d, int *refused_errno);
/* Whether the record ring could be locked in memory (mlock). */
bool ul_deadline_locked(const struct ul_deadline *d);
const struct ul_deadline_spec *ul_deadline_spec_of(const struct ul_deadline *d);
struct ul_child *ul_deadline_child(struct ul_deadline *d);
/* SIGTERM, grace, SIGKILL, reap; frees d.  0, or -ECHILD if it had died,
 * -ETIME if even SIGKILL did not get it reaped (d is then leaked). */
int ul_deadline_stop(struct ul_sup *sup, struct ul_deadline *d, int64_t grace_ns);

/* Its periodic ops (probe/deadline_ops.c): the probe cut into cells. */
struct ul_periodic_ops;
extern const struct ul_periodic_ops ul_deadline_periodic_ops;

/*
 * The accounting step, pure so tests can drive it: period due at `due`
 * (its deadline due + P) finished its work at `done`.  Returns how many
 * periods were missed (0 if met; else 1 + the skipped ones), so the next
 * period to serve is this one + max(1, result).
 */
uint64_t ul_deadline_missed(int64_t due, int64_t done, int64_t period_ns);

#endif

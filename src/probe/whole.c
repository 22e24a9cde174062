/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * The whole kind's driver: each run of a whole probe is a supervised child
 * timed from spawn to reap, its wait4() record kept; a run that outlives
 * its deadline or an interrupt is stopped.  The probe's own behaviour is
 * its struct ul_whole_ops (probe.h); the suite's, while a run goes (a
 * progress tick, the grace of a stop), its struct ul_whole_watch.  The
 * runs of a probe with group ops go to the group driver (whole_group.c).
 */
#include "core/compat.h"
#include "core/clock.h"
#include "probe/probe.h"
#include "probe/whole_group.h"
#include "proc/supervise.h"

#include <errno.h>
#include <stdlib.h>

struct ul_whole_run {
	const struct ul_probe *probe;
	const struct ul_probe_ctx *ctx;
	void *state;
	/* The current run's record, on the heap: if even SIGKILL cannot get
	 * it reaped, the supervisor keeps pointing at it, and it must then
	 * outlive the run (it is leaked on purpose). */
	struct ul_child *child;
	ul_nsec t0;		      /* just before the spawn */
	int64_t elapsed_ns;	      /* spawn to reap, once ended */
	struct ul_whole_watch watch;  /* the suite's tick and grace (zero: none) */
	bool unkillable;	      /* the last stop could not get the run reaped */
	struct ul_whole_group *group; /* the group form's runs; NULL: single */
};

void ul_whole_set_watch(struct ul_whole_run *wr, const struct ul_whole_watch *w)
{
	wr->watch = *w;
}

int ul_whole_start(const struct ul_probe *probe, const struct ul_probe_ctx *ctx,
		   struct ul_whole_run **out)
{
	struct ul_whole_run *wr;
	int rc;

	*out = NULL;
	if (probe->kind != UL_PROBE_WHOLE || !probe->whole)
		return -EINVAL;
	wr = calloc(1, sizeof(*wr));
	if (!wr)
		return -ENOMEM;
	wr->probe = probe;
	wr->ctx = ctx;
	rc = probe->whole->start ? probe->whole->start(ctx, &wr->state) : 0;
	if (rc) {
		free(wr);
		return rc;
	}
	if (probe->whole->group) {
		wr->group = ul_whole_group_new(probe->name, probe->whole->group, ctx, wr->state,
					       &wr->watch);
		if (!wr->group) {
			ul_whole_stop(NULL, wr);
			return -ENOMEM;
		}
	}
	*out = wr;
	return 0;
}

/* In the run's child: the probe's work; its return is the exit status. */
static int run_main(void *arg)
{
	const struct ul_whole_run *wr = arg;

	return wr->probe->whole->run(wr->ctx, wr->state);
}

/* Stop (TERM, the watch's grace, KILL) and reap the current run; its record
 * is freed unless still registered.  0 or -ETIME (unkillable). */
static int stop_run(struct ul_sup *sup, struct ul_whole_run *wr)
{
	int rc = ul_sup_stop(sup, wr->child, wr->watch.grace_ns);

	if (rc == -ETIME)
		wr->unkillable = true;
	else
		free(wr->child);
	wr->child = NULL;
	return rc == -ETIME ? -ETIME : 0;
}

int ul_whole_cancel(struct ul_sup *sup, struct ul_whole_run *wr)
{
	if (wr->group)
		return ul_whole_group_cancel(sup, wr->group);
	if (!wr->child || wr->child->reaped)
		return 0;
	return stop_run(sup, wr);
}

bool ul_whole_unkillable(const struct ul_whole_run *wr)
{
	return wr->group ? ul_whole_group_unkillable(wr->group) : wr->unkillable;
}

const char *ul_whole_note(const struct ul_whole_run *wr)
{
	return wr->group ? ul_whole_group_note(wr->group) : "";
}

const struct ul_child *ul_whole_child(const struct ul_whole_run *wr, int64_t *elapsed_ns)
{
	if (!wr->child || !wr->child->reaped)
		return NULL;
	*elapsed_ns = wr->elapsed_ns;
	return wr->child;
}

size_t ul_whole_children(const struct ul_whole_run *wr, const struct ul_child **kids, size_t room)
{
	return wr->group ? ul_whole_group_children(wr->group, kids, room) : 0;
}

/* When the wait must wake next: the deadline, or the next tick before it. */
static int64_t next_wake(const struct ul_whole_run *wr, int64_t deadline)
{
	ul_nsec now = ul_now_ns();

	if (wr->watch.tick_ns <= 0 || !wr->watch.tick)
		return deadline;
	wr->watch.tick(wr->watch.arg, now - wr->t0);
	if (deadline > 0 && deadline < now + wr->watch.tick_ns)
		return deadline;
	return now + wr->watch.tick_ns;
}

enum ul_measure_result ul_whole_measure(struct ul_sup *sup, struct ul_whole_run *wr,
					int64_t deadline, int *err, struct ul_child **exited)
{
	struct ul_spawn_opts so = {
		.name = wr->probe->name,
		.fn = run_main,
		.arg = wr,
		.set_oom_score_adj = wr->probe->whole->oom_first,
		.oom_score_adj = 1000, /* the OOM killer takes it, never us */
		.cgroup_procs = wr->ctx->cgroup_procs,
	};
	int rc;

	if (wr->group)
		return ul_whole_group_measure(sup, wr->group, err, exited);
	free(wr->child); /* the previous run's, reaped */
	wr->child = calloc(1, sizeof(*wr->child));
	if (!wr->child) {
		*err = -ENOMEM;
		return UL_MEASURE_FAILED;
	}
	wr->child->pidfd = -1;
	wr->unkillable = false;
	wr->t0 = ul_now_ns();
	rc = ul_spawn(sup, &so, wr->child);
	if (rc) {
		free(wr->child);
		wr->child = NULL;
		*err = rc;
		return UL_MEASURE_FAILED;
	}
	return ul_whole_wait(sup, wr, deadline, exited);
}

enum ul_measure_result ul_whole_wait(struct ul_sup *sup, struct ul_whole_run *wr, int64_t deadline,
				     struct ul_child **exited)
{
	if (wr->group)
		return ul_whole_group_wait(sup, wr->group, exited);
	if (!wr->child)
		return UL_MEASURE_FAILED; /* no run going: a caller's bug, said as a failure */
	while (!wr->child->reaped) {
		struct ul_child *ex = NULL;

		switch (ul_sup_wait(sup, -1, next_wake(wr, deadline), &ex)) {
		case UL_WAIT_READY:
			break;
		case UL_WAIT_CHILD_EXITED:
			if (ex != wr->child) {
				*exited = ex;
				return UL_MEASURE_CHILD_EXITED;
			}
			break;
		case UL_WAIT_TIMEOUT:
			if (deadline <= 0 || ul_now_ns() < deadline)
				break; /* a tick */
			stop_run(sup, wr);
			return UL_MEASURE_TIMEOUT;
		case UL_WAIT_INTERRUPTED:
			stop_run(sup, wr);
			return UL_MEASURE_INTERRUPTED;
		}
	}
	wr->elapsed_ns = ul_now_ns() - wr->t0;
	return UL_MEASURE_OK;
}

int ul_whole_result(struct ul_whole_run *wr, struct ul_cell *cell)
{
	if (wr->group)
		return ul_whole_group_result(wr->group, cell);
	if (!wr->child || !wr->child->reaped)
		return -EINVAL;
	return wr->probe->whole->result(wr->ctx, wr->state, wr->child, wr->elapsed_ns, cell);
}

void ul_whole_stop(struct ul_sup *sup, struct ul_whole_run *wr)
{
	if (!wr)
		return;
	ul_whole_group_free(sup, wr->group);
	if (wr->child && !wr->child->reaped)
		stop_run(sup, wr);
	free(wr->child);
	if (wr->probe->whole->stop)
		wr->probe->whole->stop(wr->state);
	free(wr);
}

/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * The group form of the whole kind (probe.h: struct ul_whole_group_ops):
 * one run is N supervised children, each in its own process group, held
 * behind one barrier (proc/barrier.h) until all are ready, released
 * together and driven through the probe's phases on the plan's clock.
 * A run is a sequence of steps, each with its end time, so that a wait
 * cut short by another child's exit (a load's, a monitor's) resumes where
 * it stood.
 */
#include "core/compat.h"
#include "core/clock.h"
#include "probe/whole_group.h"
#include "proc/barrier.h"
#include "proc/supervise.h"

#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

/* Where a run stands; each step but IDLE and DONE ends at `until`. */
enum step {
	IDLE,	 /* no run going: none yet, or the last one failed or was stopped */
	READY,	 /* spawned, waiting for every ready byte */
	WARMUP,	 /* released, not counted */
	WINDOW,	 /* the measured window (window_ns > 0) */
	PASS,	 /* one pass (window_ns = 0): until every child has ended */
	EXITING, /* after STOP: until every child has exited */
	DONE,	 /* the run went well: result() may record it */
};

struct ul_whole_group {
	const char *name; /* the probe's, its children's process name */
	const struct ul_whole_group_ops *ops;
	const struct ul_probe_ctx *ctx;
	void *state;
	const struct ul_whole_watch *watch; /* its grace, read at each stop */
	struct ul_whole_plan plan;
	/* The run's children, on the heap: one that even SIGKILL could not
	 * get reaped stays registered with the supervisor, and the array is
	 * then leaked on purpose. */
	struct ul_child *kids;
	int spawning; /* the index the child being forked takes with it */
	int n_spawned, n_live, n_ready;
	struct ul_barrier barrier;
	bool ready_eof; /* the ready pipe gave EOF: no longer polled */
	enum step step;
	ul_nsec until;		 /* the current step's end */
	ul_nsec spawned;	 /* just before the first spawn */
	ul_nsec go, start, stop; /* released, window opened, window closed */
	char note[200];		 /* why the last run failed; "" if it did not */
	bool unkillable;
};

struct ul_whole_group *ul_whole_group_new(const char *name, const struct ul_whole_group_ops *ops,
					  const struct ul_probe_ctx *ctx, void *state,
					  const struct ul_whole_watch *watch)
{
	struct ul_whole_group *g = calloc(1, sizeof(*g));

	if (!g)
		return NULL;
	g->name = name;
	g->ops = ops;
	g->ctx = ctx;
	g->state = state;
	g->watch = watch;
	g->barrier = (struct ul_barrier){ { -1, -1 }, { -1, -1 } };
	return g;
}

/* In child g->spawning, forked with a copy of g. */
static int child_main(void *arg)
{
	struct ul_whole_group *g = arg;

	return g->ops->child(g->ctx, g->state, g->spawning, &g->barrier);
}

static int child_of(const struct ul_whole_group *g, const struct ul_child *c)
{
	if (!c || !g->kids || c < g->kids || c >= g->kids + g->n_spawned)
		return -1;
	return (int)(c - g->kids);
}

/* The run failed: the first reason is kept. */
static void fail(struct ul_whole_group *g, const char *fmt, ...) UL_PRINTF(2, 3);
static void fail(struct ul_whole_group *g, const char *fmt, ...)
{
	va_list ap;

	if (g->note[0])
		return;
	va_start(ap, fmt);
	vsnprintf(g->note, sizeof(g->note), fmt, ap);
	va_end(ap);
}

/*
 * Every child gone, whatever the step: STOP published, each one still
 * registered stopped (TERM, the watch's grace, KILL), the barrier closed,
 * the probe's ended().  0, or -ETIME when one could not be reaped.
 */
static int end_run(struct ul_sup *sup, struct ul_whole_group *g, enum step step)
{
	int rc = 0;

	if (g->step == IDLE || g->step == DONE)
		return 0;
	g->ops->phase(g->state, UL_WHOLE_STOP, g->go);
	for (int i = 0; i < g->n_spawned; i++) {
		if (g->kids[i].reaped)
			continue;
		if (ul_sup_stop(sup, &g->kids[i], g->watch->grace_ns) == 0)
			g->n_live--;
		else
			rc = -ETIME;
	}
	g->unkillable = rc != 0;
	ul_barrier_close(&g->barrier);
	if (g->ops->ended)
		g->ops->ended(g->ctx, g->state);
	g->step = step;
	return rc;
}

/* Spawn every child, kept fds the barrier's; false with the note set. */
static bool spawn_all(struct ul_sup *sup, struct ul_whole_group *g)
{
	for (int i = 0; i < g->plan.children; i++) {
		struct ul_spawn_opts so = {
			.name = g->name,
			.fn = child_main,
			.arg = g,
			.keep_fds = { g->barrier.ready[1], g->barrier.go[0], g->plan.keep_fd },
			.n_keep_fds = g->plan.keep_fd >= 0 ? 3 : 2,
			.cgroup_procs = g->ctx->cgroup_procs,
		};
		int rc;

		g->spawning = i;
		g->kids[i].pidfd = -1;
		rc = ul_spawn(sup, &so, &g->kids[i]);
		if (rc) {
			fail(g, "cannot start %s %d: %s", g->ops->child_name, i + 1, strerror(-rc));
			return false;
		}
		g->n_spawned++;
		g->n_live++;
	}
	ul_barrier_parent_after_fork(&g->barrier);
	return true;
}

/* A new run's children and barrier; -errno when it cannot be set up. */
static int set_up(struct ul_whole_group *g)
{
	if (!g->unkillable)
		free(g->kids);
	g->kids = NULL;
	g->n_spawned = g->n_live = g->n_ready = 0;
	g->unkillable = g->ready_eof = false;
	g->note[0] = '\0';
	g->go = g->start = g->stop = 0;
	g->plan = (struct ul_whole_plan){ .keep_fd = -1 };
	g->ops->plan(g->ctx, g->state, &g->plan);
	if (g->plan.children <= 0)
		return -EINVAL;
	g->kids = calloc((size_t)g->plan.children, sizeof(*g->kids));
	if (!g->kids)
		return -ENOMEM;
	return ul_barrier_init(&g->barrier);
}

enum ul_measure_result ul_whole_group_measure(struct ul_sup *sup, struct ul_whole_group *g,
					      int *err, struct ul_child **exited)
{
	int rc;

	end_run(sup, g, IDLE); /* a run still going: a caller's bug, stopped */
	g->step = IDLE;
	rc = set_up(g);
	if (rc) {
		ul_barrier_close(&g->barrier);
		*err = rc;
		return UL_MEASURE_FAILED;
	}
	g->step = READY;
	g->spawned = ul_now_ns();
	g->until = g->spawned + g->plan.ready_ns;
	if (!spawn_all(sup, g)) {
		*err = 0;
		end_run(sup, g, IDLE);
		return UL_MEASURE_FAILED;
	}
	return ul_whole_group_wait(sup, g, exited);
}

/* Release them: the first phase, then go. */
static void release(struct ul_whole_group *g)
{
	const struct ul_whole_plan *p = &g->plan;

	g->go = g->start = ul_now_ns();
	g->ops->phase(g->state,
		      p->window_ns && p->warmup_ns > 0 ? UL_WHOLE_WARMUP : UL_WHOLE_MEASURE, g->go);
	ul_barrier_release(&g->barrier);
	if (!p->window_ns) {
		g->step = PASS;
		g->until = g->go + p->pass_ns;
	} else if (p->warmup_ns > 0) {
		g->step = WARMUP;
		g->until = g->go + p->warmup_ns;
	} else {
		g->step = WINDOW;
		g->until = g->go + p->window_ns;
	}
}

/* The current step's end came; false when the run ends here (its result
 * in *r). */
static bool next_step(struct ul_whole_group *g, enum ul_measure_result *r)
{
	switch (g->step) {
	case READY:
		fail(g, "%d of %d %ss were not ready in time", g->plan.children - g->n_ready,
		     g->plan.children, g->ops->child_name);
		*r = UL_MEASURE_FAILED;
		return false;
	case WARMUP:
		g->start = ul_now_ns();
		g->ops->phase(g->state, UL_WHOLE_MEASURE, g->go);
		g->step = WINDOW;
		g->until = g->start + g->plan.window_ns;
		return true;
	case WINDOW:
		g->stop = ul_now_ns();
		g->ops->phase(g->state, UL_WHOLE_STOP, g->go);
		g->step = EXITING;
		g->until = g->stop + g->plan.exit_ns;
		return true;
	case PASS:
		*r = UL_MEASURE_TIMEOUT;
		return false;
	default: /* EXITING: the rest are stopped */
		*r = UL_MEASURE_OK;
		return false;
	}
}

/* One of ours exited; false when that fails the run. */
static bool child_ended(struct ul_whole_group *g, int i)
{
	const struct ul_child *c = &g->kids[i];
	bool clean = WIFEXITED(c->wstatus) && WEXITSTATUS(c->wstatus) == 0;
	char how[96];

	g->n_live--;
	if (clean && (g->step == PASS || g->step == EXITING)) {
		if (g->n_live == 0 && g->step == PASS)
			g->stop = ul_now_ns();
		return true;
	}
	if (g->ops->why && g->ops->why(g->state, i, g->note, sizeof(g->note)))
		return false;
	ul_wstatus_describe(c->wstatus, how, sizeof(how));
	fail(g, "%s %d ended before it was stopped (%s)", g->ops->child_name, i + 1, how);
	return false;
}

/* The ready bytes that came; all of them releases the children. */
static void read_ready(struct ul_whole_group *g)
{
	char buf[64];
	ssize_t n = read(g->barrier.ready[0], buf, sizeof(buf));

	if (n == 0)
		g->ready_eof = true; /* a child died first: its exit comes next */
	if (n > 0)
		g->n_ready += (int)n;
	if (g->n_ready >= g->plan.children)
		release(g);
}

/* When the wait must wake next: the step's end, or the watch's next tick
 * before it (the tick called now). */
static ul_nsec next_wake(const struct ul_whole_group *g)
{
	const struct ul_whole_watch *w = g->watch;
	ul_nsec now;

	if (w->tick_ns <= 0 || !w->tick)
		return g->until;
	now = ul_now_ns();
	w->tick(w->arg, now - g->spawned);
	return now + w->tick_ns < g->until ? now + w->tick_ns : g->until;
}

/*
 * Wait until the run ends, fails, or another child exits.  UL_MEASURE_OK
 * with g->step DONE; UL_MEASURE_CHILD_EXITED with the run going on;
 * any other result with every child gone.
 */
enum ul_measure_result ul_whole_group_wait(struct ul_sup *sup, struct ul_whole_group *g,
					   struct ul_child **exited)
{
	enum ul_measure_result r = UL_MEASURE_OK;

	if (g->step == IDLE || g->step == DONE)
		return g->step == DONE ? UL_MEASURE_OK : UL_MEASURE_FAILED;
	for (;;) {
		bool polling = g->step == READY && !g->ready_eof;
		struct ul_child *ex = NULL;
		enum ul_wait_result w;

		if (g->n_live == 0 && (g->step == PASS || g->step == EXITING))
			break;
		if (ul_now_ns() >= g->until) {
			if (!next_step(g, &r))
				break;
			continue;
		}
		w = ul_sup_wait(sup, polling ? g->barrier.ready[0] : -1, next_wake(g), &ex);
		if (w == UL_WAIT_READY && polling) {
			read_ready(g);
		} else if (w == UL_WAIT_INTERRUPTED) {
			fail(g, "interrupted while the %ss ran", g->ops->child_name);
			r = UL_MEASURE_INTERRUPTED;
			break;
		} else if (w == UL_WAIT_CHILD_EXITED && child_of(g, ex) < 0) {
			*exited = ex;
			return UL_MEASURE_CHILD_EXITED;
		} else if (w == UL_WAIT_CHILD_EXITED && !child_ended(g, child_of(g, ex))) {
			r = UL_MEASURE_FAILED;
			break;
		}
	}
	if (r == UL_MEASURE_OK && g->step == PASS)
		g->stop = g->stop ? g->stop : ul_now_ns();
	end_run(sup, g, r == UL_MEASURE_OK ? DONE : IDLE);
	return r;
}

int ul_whole_group_cancel(struct ul_sup *sup, struct ul_whole_group *g)
{
	return end_run(sup, g, IDLE);
}

int ul_whole_group_result(struct ul_whole_group *g, struct ul_cell *cell)
{
	if (g->step != DONE)
		return -EINVAL;
	return g->ops->result(g->ctx, g->state, g->stop - g->start, cell);
}

size_t ul_whole_group_children(const struct ul_whole_group *g, const struct ul_child **kids,
			       size_t room)
{
	size_t n = 0;

	if (g->step != DONE)
		return 0;
	for (int i = 0; i < g->n_spawned && n < room; i++)
		kids[n++] = &g->kids[i];
	return n;
}

const char *ul_whole_group_note(const struct ul_whole_group *g)
{
	return g->note;
}

bool ul_whole_group_unkillable(const struct ul_whole_group *g)
{
	return g->unkillable;
}

void ul_whole_group_free(struct ul_sup *sup, struct ul_whole_group *g)
{
	if (!g)
		return;
	end_run(sup, g, IDLE);
	if (!g->unkillable)
		free(g->kids);
	free(g);
}

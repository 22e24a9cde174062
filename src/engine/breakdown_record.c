/* SPDX-License-Identifier: GPL-2.0-or-later */
/* The recorder of a sample's parts (contract: breakdown_record.h). */
#include "core/compat.h"
#include "core/clock.h"
#include "core/log.h"
#include "engine/breakdown_record.h"
#include "model/model.h"
#include "proc/delayacct.h"
#include "proc/schedstat.h"
#include "proc/supervise.h"
#include "proc/taskstats.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

void ul_breakdown_clamp(int64_t wall_ns, const int64_t raw[UL_PART_COUNT],
			const bool have[UL_PART_COUNT], int64_t out[UL_PART_COUNT])
{
	int64_t left = wall_ns > 0 ? wall_ns : 0;

	for (int p = 0; p < UL_PART_COUNT; p++) {
		int64_t v = have[p] && p != UL_PART_OTHER && raw[p] > 0 ? raw[p] : 0;

		out[p] = v < left ? v : left;
		left -= out[p];
	}
	out[UL_PART_OTHER] = left;
}

/* What the kernel counted for a task or a tree of them (ns). */
struct counted {
	uint64_t cpu_ns, delay_ns[UL_DELAY_N];
};

/* An exit record of the sample's window. */
struct exit_rec {
	pid_t pid, ppid, tgid;
	bool in_tree;
	uint64_t elapsed_us; /* fork to exit */
	struct counted c;
};

enum source {
	FROM_TASKSTATS, /* queries and exit records */
	FROM_SCHEDSTAT, /* /proc/PID/schedstat of the task alone */
};

struct ul_breakdown_rec {
	struct ul_delayacct_hold hold;
	enum source src;
	bool counting; /* every delay counts (else on-CPU and run queue only) */
	struct ul_taskstats_conn *conn;
	struct ul_taskstats_listener *lis; /* NULL: exited descendants are not seen */
	pid_t root;
	bool began, ok; /* a sample began; every sample of the cell was read */
	bool alone;	/* the root forks nothing: exit records are not needed */
	bool lost;	/* an exit record of the window may be missing */
	struct counted before;
	struct exit_rec *recs;
	size_t n_recs, cap_recs;
};

static void from_taskstats(const struct ul_taskstats *ts, struct counted *c)
{
	c->cpu_ns = ts->cpu_ns;
	memcpy(c->delay_ns, ts->delay_ns, sizeof(c->delay_ns));
}

/* The task's own counters now: 0 or -errno. */
static int read_root(struct ul_breakdown_rec *r, struct counted *c)
{
	memset(c, 0, sizeof(*c));
	if (r->src == FROM_TASKSTATS) {
		struct ul_taskstats ts;
		int rc = ul_taskstats_query(r->conn, r->root, true, &ts, NULL, 0);

		if (!rc)
			from_taskstats(&ts, c);
		return rc;
	}
	struct ul_schedstat ss;
	int rc = ul_schedstat_read(r->root, &ss);

	c->cpu_ns = ss.cpu_ns;
	c->delay_ns[UL_DELAY_RUNQ] = ss.runq_ns;
	return rc;
}

static void keep_record(void *arg, const struct ul_taskstats *rec)
{
	struct ul_breakdown_rec *r = arg;
	struct exit_rec *e;

	/* A group's sum: its threads' records count already; a task alone
	 * needs no records. */
	if (rec->group || r->alone)
		return;
	if (r->n_recs == r->cap_recs) {
		size_t cap = r->cap_recs ? r->cap_recs * 2 : 64;
		struct exit_rec *nr = realloc(r->recs, cap * sizeof(*nr));

		if (!nr) {
			r->lost = true; /* a descendant might be missed */
			return;
		}
		r->recs = nr;
		r->cap_recs = cap;
	}
	e = &r->recs[r->n_recs++];
	*e = (struct exit_rec){
		.pid = rec->pid, .ppid = rec->ppid, .tgid = rec->tgid, .elapsed_us = rec->elapsed_us
	};
	from_taskstats(rec, &e->c);
}

/* Take the pending exit records; a loss or an error sets r->lost (the
 * socket overflowed: a record of the window may be missing). */
static void drain(struct ul_breakdown_rec *r)
{
	unsigned lost = 0;

	if (r->lis && (ul_taskstats_drain(r->lis, keep_record, r, &lost) < 0 || lost))
		r->lost = true;
}

/* A new window: what exited before is not its. */
static void open_window(struct ul_breakdown_rec *r)
{
	drain(r);
	r->n_recs = 0;
	r->lost = false;
}

static void add_counted(struct counted *c, const struct counted *x)
{
	c->cpu_ns += x->cpu_ns;
	for (int d = 0; d < UL_DELAY_N; d++)
		c->delay_ns[d] += x->delay_ns[d];
}

static int by_pid(const void *a, const void *b)
{
	pid_t x = (*(const struct exit_rec *const *)a)->pid;
	pid_t y = (*(const struct exit_rec *const *)b)->pid;

	return (x > y) - (x < y);
}

/* Is pid the root or a task already in its tree?  idx: the records by pid
 * (a long life's window holds thousands: a compile under a forking load). */
static bool in_tree(const struct ul_breakdown_rec *r, struct exit_rec *const *idx, pid_t pid)
{
	size_t lo = 0, hi = r->n_recs;

	if (pid == r->root)
		return true;
	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;

		if (idx[mid]->pid < pid)
			lo = mid + 1;
		else
			hi = mid;
	}
	for (; lo < r->n_recs && idx[lo]->pid == pid; lo++)
		if (idx[lo]->in_tree)
			return true;
	return false;
}

/* Add the exited descendants of the root to c: a record joins the tree
 * when its parent or its thread group is in it, until none joins.  false
 * without memory (the tree cannot be told). */
static bool add_descendants(struct ul_breakdown_rec *r, struct counted *c)
{
	struct exit_rec **idx;
	bool grew = true;

	if (!r->n_recs)
		return true;
	idx = malloc(r->n_recs * sizeof(*idx));
	if (!idx)
		return false;
	for (size_t i = 0; i < r->n_recs; i++)
		idx[i] = &r->recs[i];
	qsort(idx, r->n_recs, sizeof(*idx), by_pid);
	while (grew) {
		grew = false;
		for (size_t i = 0; i < r->n_recs; i++) {
			struct exit_rec *e = &r->recs[i];

			/* The root's own threads are in its thread group's query
			 * (a life's: counted with it, already in the tree). */
			if (e->in_tree || e->tgid == r->root || e->pid == r->root)
				continue;
			if (in_tree(r, idx, e->ppid) ||
			    (e->tgid && e->tgid != e->pid && in_tree(r, idx, e->tgid))) {
				e->in_tree = grew = true;
				add_counted(c, &e->c);
			}
		}
	}
	free(idx);
	return true;
}

/* Which parts this recorder counts. */
static bool counts(const struct ul_breakdown_rec *r, int p)
{
	return p == UL_PART_OTHER || !ul_breakdown_parts[p].needs_delayacct || r->counting;
}

/* Say once what the parts will lack, and why. */
static void say_missing(const struct ul_breakdown_rec *r, const char *why)
{
	if (r->src == FROM_SCHEDSTAT)
		ul_note("breakdown: no taskstats (%s): recording on-CPU and run-queue time only, "
			"from /proc/PID/schedstat; missing: %s",
			why, UL_SCHEDSTAT_MISSING);
	else if (!r->counting)
		ul_note("breakdown: no delay accounting (%s): recording on-CPU and run-queue time "
			"only; missing: block I/O, swap-in, reclaim, thrashing and compaction",
			why[0] ? why : "kernel.task_delayacct is off");
	else if (!r->lis)
		ul_note("breakdown: %s: the measured task's exited children are not counted, and "
			"whole jobs, runs and clients (contest, mtest, fsbench) are not broken down",
			why);
}

/* Does this kernel fill the scheduler's part of a query (taskstats.h)? */
static int probe_taskstats(struct ul_breakdown_rec *r, char *why, size_t len)
{
	struct ul_taskstats self;
	int rc = ul_taskstats_open(&r->conn, why, len);

	if (!rc)
		rc = ul_taskstats_query(r->conn, getpid(), true, &self, why, len);
	if (!rc && !self.sched && !self.counting) {
		ul_whyf(why, len, "the kernel fills no run-queue delay without delay accounting");
		rc = -ENOTSUP;
	}
	return rc;
}

struct ul_breakdown_rec *ul_breakdown_open(struct ul_journal *j, const char *cpus)
{
	const char *env = getenv("UL_BREAKDOWN");
	struct ul_breakdown_rec *r;
	char why[512] = "", lwhy[512] = "";

	if (env && !strcmp(env, "0"))
		return NULL;
	r = calloc(1, sizeof(*r));
	if (!r)
		return NULL;
	ul_delayacct_hold_on(j, &r->hold, why, sizeof(why));
	r->counting = r->hold.counting || ul_delayacct_read() == 1;
	if (probe_taskstats(r, r->counting ? why : lwhy, sizeof(why))) {
		ul_taskstats_close(r->conn);
		r->conn = NULL;
		r->src = FROM_SCHEDSTAT;
		r->counting = false;
		ul_delayacct_hold_off(j, &r->hold); /* of no use without taskstats */
	} else if (ul_taskstats_listen(cpus && cpus[0] ? cpus : NULL, &r->lis, lwhy,
				       sizeof(lwhy))) {
		r->lis = NULL;
	}
	say_missing(r, r->src == FROM_SCHEDSTAT || !r->counting ? why : lwhy);
	return r;
}

void ul_breakdown_close(struct ul_breakdown_rec *r, struct ul_journal *j)
{
	if (!r)
		return;
	ul_taskstats_unlisten(r->lis);
	ul_taskstats_close(r->conn);
	ul_delayacct_hold_off(j, &r->hold);
	free(r->recs);
	free(r);
}

static void begin_task(struct ul_breakdown_rec *r, pid_t root, bool alone)
{
	if (!r)
		return;
	if (!r->began)
		r->ok = true; /* the cell's first sample */
	r->began = true;
	r->root = root;
	r->alone = alone;
	open_window(r);
	if (read_root(r, &r->before))
		r->ok = false;
}

void ul_breakdown_begin(struct ul_breakdown_rec *r, pid_t root)
{
	begin_task(r, root, false);
}

void ul_breakdown_begin_alone(struct ul_breakdown_rec *r, pid_t root)
{
	begin_task(r, root, true);
}

/* The parts of c, counted over wall_ns, into s as this recorder counts. */
static void to_sample(const struct ul_breakdown_rec *r, const struct counted *c, int64_t wall_ns,
		      struct ul_breakdown_sample *s)
{
	int64_t raw[UL_PART_COUNT] = { 0 };

	raw[UL_PART_ONCPU] = (int64_t)c->cpu_ns;
	raw[UL_PART_RUNQ] = (int64_t)c->delay_ns[UL_DELAY_RUNQ];
	raw[UL_PART_BLKIO] = (int64_t)c->delay_ns[UL_DELAY_BLKIO];
	raw[UL_PART_SWAPIN] = (int64_t)c->delay_ns[UL_DELAY_SWAPIN];
	raw[UL_PART_RECLAIM] = (int64_t)c->delay_ns[UL_DELAY_RECLAIM];
	raw[UL_PART_THRASH] = (int64_t)c->delay_ns[UL_DELAY_THRASHING];
	raw[UL_PART_COMPACT] = (int64_t)c->delay_ns[UL_DELAY_COMPACT];
	for (int p = 0; p < UL_PART_COUNT; p++)
		s->have[p] = counts(r, p);
	s->wall_ns = wall_ns > 0 ? wall_ns : 0;
	ul_breakdown_clamp(s->wall_ns, raw, s->have, s->part);
	s->read = true;
}

int ul_breakdown_push(struct ul_cell *cell, const struct ul_breakdown_sample *s, bool with_wall)
{
	if (!s->read)
		return 0;
	for (int p = 0; p < UL_PART_COUNT; p++) {
		struct ul_series *v;

		if (!s->have[p])
			continue;
		v = ul_cell_series(cell, ul_breakdown_parts[p].series);
		if (!v || ul_series_push(v, s->part[p]))
			return -ENOMEM;
	}
	if (with_wall) {
		struct ul_series *w = ul_cell_series(cell, UL_BREAKDOWN_WALL_SERIES);

		if (!w || ul_series_push(w, s->wall_ns))
			return -ENOMEM;
	}
	return 0;
}

static int end_task(struct ul_breakdown_rec *r, struct ul_cell *cell, int64_t wall_ns,
		    bool with_wall)
{
	struct ul_breakdown_sample s;
	struct counted now, c;

	if (!r || !r->ok)
		return 0;
	drain(r);
	if ((r->lost && !r->alone) || read_root(r, &now)) {
		r->ok = false;
		return 0;
	}
	c.cpu_ns = now.cpu_ns - r->before.cpu_ns;
	for (int d = 0; d < UL_DELAY_N; d++)
		c.delay_ns[d] = now.delay_ns[d] - r->before.delay_ns[d];
	if (!r->alone && !add_descendants(r, &c)) {
		r->ok = false;
		return 0;
	}
	to_sample(r, &c, wall_ns, &s);
	return ul_breakdown_push(cell, &s, with_wall);
}

int ul_breakdown_end(struct ul_breakdown_rec *r, struct ul_cell *cell, int64_t wall_ns)
{
	return end_task(r, cell, wall_ns, false);
}

int ul_breakdown_end_wall(struct ul_breakdown_rec *r, struct ul_cell *cell, int64_t wall_ns)
{
	return end_task(r, cell, wall_ns, true);
}

void ul_breakdown_begin_life(struct ul_breakdown_rec *r)
{
	if (!r)
		return;
	r->alone = false;
	open_window(r);
}

void ul_breakdown_poll(struct ul_breakdown_rec *r)
{
	if (r)
		drain(r);
}

/* The CPU the reaped root and the descendants it reaped burnt (its
 * wait4() rusage, which the kernel takes at each one's full exit), 0 when
 * it was not reaped here. */
static uint64_t reaped_cpu_ns(const struct ul_child *root)
{
	if (!root->reaped)
		return 0;
	return (uint64_t)(ul_tv_to_ns(&root->ru.ru_utime) + ul_tv_to_ns(&root->ru.ru_stime));
}

void ul_breakdown_end_life(struct ul_breakdown_rec *r, const struct ul_child *root, int64_t wall_ns,
			   struct ul_breakdown_sample *out)
{
	struct counted c = { 0 };
	bool found = false;
	uint64_t ru_cpu;

	memset(out, 0, sizeof(*out));
	if (!r || !r->lis || !root || root->pid <= 0)
		return; /* no exit records: a life cannot be read */
	drain(r);
	if (r->lost)
		return;
	/* The root and its threads (its thread group), then its descendants. */
	r->root = root->pid;
	for (size_t i = 0; i < r->n_recs; i++) {
		struct exit_rec *e = &r->recs[i];

		e->in_tree = e->pid == root->pid || e->tgid == root->pid;
		if (!e->in_tree)
			continue;
		add_counted(&c, &e->c);
		if (e->pid == root->pid) {
			found = true;
			if (wall_ns <= 0)
				wall_ns = (int64_t)e->elapsed_us * 1000;
		}
	}
	/* Without its exit record its tree cannot be told. */
	if (!found || !add_descendants(r, &c))
		return;
	/* Each record lacks its task's last stretch on a CPU (the header);
	 * the rusage lacks only descendants reaped elsewhere (orphans), which
	 * the records may hold: each undercounts, so the larger is nearer. */
	ru_cpu = reaped_cpu_ns(root);
	if (ru_cpu > c.cpu_ns)
		c.cpu_ns = ru_cpu;
	to_sample(r, &c, wall_ns, out);
}

void ul_breakdown_cell_end(struct ul_breakdown_rec *r, struct ul_cell *cell, size_t samples)
{
	bool keep = !r || !r->began || r->ok;
	size_t w = 0;

	if (r)
		r->began = false;
	for (size_t i = 0; i < cell->n_series && keep; i++)
		if (!strncmp(cell->series[i].name, "why_", 4) && cell->series[i].n != samples)
			keep = false;
	if (keep)
		return;
	for (size_t i = 0; i < cell->n_series; i++) {
		if (!strncmp(cell->series[i].name, "why_", 4)) {
			free(cell->series[i].v);
			continue;
		}
		cell->series[w++] = cell->series[i];
	}
	cell->n_series = w;
}

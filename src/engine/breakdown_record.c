/* SPDX-License-Identifier: GPL-2.0-or-later */
/* The recorder of a sample's parts (contract: breakdown_record.h). */
#include "core/compat.h"
#include "core/log.h"
#include "engine/breakdown_record.h"
#include "model/model.h"
#include "proc/delayacct.h"
#include "proc/schedstat.h"
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

	if (rec->group)
		return; /* a group's sum: its threads' records count already */
	if (r->n_recs == r->cap_recs) {
		size_t cap = r->cap_recs ? r->cap_recs * 2 : 64;
		struct exit_rec *nr = realloc(r->recs, cap * sizeof(*nr));

		if (!nr) {
			r->ok = false; /* a descendant might be missed */
			return;
		}
		r->recs = nr;
		r->cap_recs = cap;
	}
	e = &r->recs[r->n_recs++];
	*e = (struct exit_rec){ .pid = rec->pid, .ppid = rec->ppid, .tgid = rec->tgid };
	from_taskstats(rec, &e->c);
}

/* Take the pending exit records; in_sample: they may hold the sample's
 * descendants, so a loss or an error voids the cell's breakdown. */
static void drain(struct ul_breakdown_rec *r, bool in_sample)
{
	unsigned lost = 0;

	if (r->lis && (ul_taskstats_drain(r->lis, keep_record, r, &lost) < 0 || lost) && in_sample)
		r->ok = false; /* the socket overflowed: a descendant may be missing */
}

/* Is pid the root or a task already in its tree? */
static bool in_tree(const struct ul_breakdown_rec *r, pid_t pid)
{
	if (pid == r->root)
		return true;
	for (size_t i = 0; i < r->n_recs; i++)
		if (r->recs[i].in_tree && r->recs[i].pid == pid)
			return true;
	return false;
}

/* Add the exited descendants of the root to c: a record joins the tree
 * when its parent or its thread group is in it, until none joins. */
static void add_descendants(struct ul_breakdown_rec *r, struct counted *c)
{
	bool grew = true;

	while (grew) {
		grew = false;
		for (size_t i = 0; i < r->n_recs; i++) {
			struct exit_rec *e = &r->recs[i];

			/* The root's own threads are in its thread group's query. */
			if (e->in_tree || e->tgid == r->root || e->pid == r->root)
				continue;
			if (in_tree(r, e->ppid) ||
			    (e->tgid && e->tgid != e->pid && in_tree(r, e->tgid))) {
				e->in_tree = grew = true;
				c->cpu_ns += e->c.cpu_ns;
				for (int d = 0; d < UL_DELAY_N; d++)
					c->delay_ns[d] += e->c.delay_ns[d];
			}
		}
	}
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
		ul_note("breakdown: %s: the measured task's exited children are not counted", why);
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

void ul_breakdown_begin(struct ul_breakdown_rec *r, pid_t root)
{
	if (!r)
		return;
	if (!r->began)
		r->ok = true; /* the cell's first sample */
	r->began = true;
	r->root = root;
	drain(r, false); /* what exited before is not this sample's */
	r->n_recs = 0;
	if (read_root(r, &r->before))
		r->ok = false;
}

int ul_breakdown_end(struct ul_breakdown_rec *r, struct ul_cell *cell, int64_t wall_ns)
{
	struct counted now, c;
	int64_t raw[UL_PART_COUNT] = { 0 }, out[UL_PART_COUNT];
	bool have[UL_PART_COUNT];

	if (!r || !r->ok)
		return 0;
	drain(r, true);
	if (read_root(r, &now)) {
		r->ok = false;
		return 0;
	}
	c.cpu_ns = now.cpu_ns - r->before.cpu_ns;
	for (int d = 0; d < UL_DELAY_N; d++)
		c.delay_ns[d] = now.delay_ns[d] - r->before.delay_ns[d];
	add_descendants(r, &c);
	raw[UL_PART_ONCPU] = (int64_t)c.cpu_ns;
	raw[UL_PART_RUNQ] = (int64_t)c.delay_ns[UL_DELAY_RUNQ];
	raw[UL_PART_BLKIO] = (int64_t)c.delay_ns[UL_DELAY_BLKIO];
	raw[UL_PART_SWAPIN] = (int64_t)c.delay_ns[UL_DELAY_SWAPIN];
	raw[UL_PART_RECLAIM] = (int64_t)c.delay_ns[UL_DELAY_RECLAIM];
	raw[UL_PART_THRASH] = (int64_t)c.delay_ns[UL_DELAY_THRASHING];
	raw[UL_PART_COMPACT] = (int64_t)c.delay_ns[UL_DELAY_COMPACT];
	for (int p = 0; p < UL_PART_COUNT; p++)
		have[p] = counts(r, p);
	ul_breakdown_clamp(wall_ns, raw, have, out);
	for (int p = 0; p < UL_PART_COUNT; p++) {
		struct ul_series *s;

		if (!have[p])
			continue;
		s = ul_cell_series(cell, ul_breakdown_parts[p].series);
		if (!s || ul_series_push(s, out[p]))
			return -ENOMEM;
	}
	return 0;
}

void ul_breakdown_cell_end(struct ul_breakdown_rec *r, struct ul_cell *cell, size_t samples)
{
	bool keep = r && r->ok;
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

/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * The disturbance monitor: how much CPU the rest of the machine used while
 * a cell was measured.  A cell whose foreign CPU is above 5% of one CPU is
 * flagged "disturbed": its numbers measure someone else's work as well.
 */
#include "core/compat.h"
#include "core/file.h"
#include "core/clock.h"
#include "core/procstat.h"
#include "engine/engine.h"
#include "engine/monitors/monitor.h"

#include <errno.h>
#include <fcntl.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

/* Above this share of one CPU used outside the run, a cell is disturbed. */
#define DISTURBED_PCT 5.0

/*
 * Foreign CPU = busy CPU of the whole machine (/proc/stat user + nice +
 * system) - the CPU of the run's own process tree (the supervisor and all
 * its descendants, with the children they reaped) - kernel threads (the
 * writeback, reclaim and I/O work our own loads cause).  Interrupt time is
 * left out on both sides.  Processes of other pid namespaces count as
 * foreign, which they are.
 */
struct snap {
	int64_t t_ns;
	uint64_t busy_ticks;
	uint64_t tree_ticks;
	size_t n_tree;
	uint64_t procs_running;
	struct ul_procstat *kthreads; /* sorted by pid */
	size_t n_kthreads;
};

struct disturb {
	struct snap begin;
	bool begun;
};

static int read_stat(uint64_t *busy, uint64_t *running)
{
	char buf[8192];
	unsigned long long user, nice, sys;
	const char *pr;
	ssize_t len = ul_read_file("/proc/stat", buf, sizeof(buf));

	if (len < 0)
		return (int)len;
	if (len == 0)
		return -EIO;
	if (sscanf(buf, "cpu %llu %llu %llu", &user, &nice, &sys) != 3)
		return -EINVAL;
	*busy = user + nice + sys;
	pr = strstr(buf, "\nprocs_running ");
	*running = pr ? strtoull(pr + 15, NULL, 10) : 0;
	return 0;
}

static void snap_free(struct snap *s)
{
	free(s->kthreads);
	s->kthreads = NULL;
	s->n_kthreads = 0;
}

static int snap_take(struct snap *s)
{
	struct ul_procstat *all;
	size_t n, nk = 0;
	bool *in_tree;
	int rc;

	memset(s, 0, sizeof(*s));
	rc = ul_procstat_all(&all, &n);
	if (rc)
		return rc;
	in_tree = calloc(n ? n : 1, sizeof(*in_tree));
	if (!in_tree) {
		free(all);
		return -ENOMEM;
	}
	s->n_tree = ul_procstat_tree(all, n, getpid(), in_tree);
	for (size_t i = 0; i < n; i++) {
		if (in_tree[i])
			s->tree_ticks += all[i].cpu_ticks;
		else if (all[i].flags & UL_PF_KTHREAD)
			all[nk++] = all[i]; /* keeps pid order */
	}
	free(in_tree);
	s->kthreads = all;
	s->n_kthreads = nk;
	rc = read_stat(&s->busy_ticks, &s->procs_running);
	s->t_ns = ul_now_ns();
	if (rc)
		snap_free(s);
	return rc;
}

/* Kernel threads' CPU between two snapshots; *changed counts those that ran. */
static uint64_t kthread_ticks(const struct snap *a, const struct snap *b, size_t *changed)
{
	uint64_t sum = 0;

	*changed = 0;
	for (size_t i = 0; i < b->n_kthreads; i++) {
		const struct ul_procstat *k = &b->kthreads[i];
		const struct ul_procstat *was =
			ul_procstat_find(a->kthreads, a->n_kthreads, k->pid);
		uint64_t before = was && was->starttime == k->starttime ? was->cpu_ticks : 0;

		if (k->cpu_ticks > before) {
			sum += k->cpu_ticks - before;
			(*changed)++;
		}
	}
	return sum;
}

static bool disturb_enabled(const struct ul_engine *eng)
{
	(void)eng;
	return access("/proc/stat", R_OK) == 0;
}

static int disturb_start(struct ul_engine *eng, void **state)
{
	(void)eng;
	*state = calloc(1, sizeof(struct disturb));
	return *state ? 0 : -ENOMEM;
}

static void disturb_stop(struct ul_engine *eng, void *state)
{
	struct disturb *d = state;

	(void)eng;
	snap_free(&d->begin);
	free(d);
}

static int disturb_cell_begin(struct ul_engine *eng, void *state, struct ul_cell *cell)
{
	struct disturb *d = state;

	(void)eng;
	(void)cell;
	snap_free(&d->begin);
	d->begun = snap_take(&d->begin) == 0;
	return 0;
}

static int disturb_cell_end(struct ul_engine *eng, void *state, struct ul_cell *cell)
{
	struct disturb *d = state;
	double tick_ns = 1e9 / (double)sysconf(_SC_CLK_TCK);
	uint64_t busy, tree, kthr;
	double wall_ns, foreign, margin;
	size_t kchanged;
	struct snap end;
	int rc = 0;

	(void)eng;
	if (!d->begun || snap_take(&end))
		return 0; /* nothing to say: no flag either way */
	d->begun = false;
	wall_ns = (double)(end.t_ns - d->begin.t_ns);
	busy = end.busy_ticks - d->begin.busy_ticks;
	tree = end.tree_ticks > d->begin.tree_ticks ? end.tree_ticks - d->begin.tree_ticks : 0;
	kthr = kthread_ticks(&d->begin, &end, &kchanged);
	foreign = (double)busy - (double)tree - (double)kthr;
	if (foreign < 0)
		foreign = 0;
	/*
	 * Per-process times are truncated to whole ticks at each end (two
	 * fields each) and /proc/stat is sampled at the tick: a foreign share
	 * within that error is not evidence of anything.
	 */
	margin = 2.0 * (double)(end.n_tree + kchanged) + 2.0 * sqrt((double)busy) + 2.0;
	if (wall_ns > 0) {
		double pct = foreign * tick_ns * 100.0 / wall_ns;

		rc |= ul_cell_set_metric(cell, "foreign_cpu_pct", pct);
		rc |= ul_cell_set_metric(cell, "run_cpu_pct",
					 (double)tree * tick_ns * 100 / wall_ns);
		rc |= ul_cell_set_metric(cell, "kthread_cpu_pct",
					 (double)kthr * tick_ns * 100 / wall_ns);
		rc |= ul_cell_set_metric(cell, "foreign_margin_pct",
					 margin * tick_ns * 100 / wall_ns);
		if (pct > DISTURBED_PCT && foreign > margin)
			cell->flags |= UL_CELL_DISTURBED;
	}
	rc |= ul_cell_set_metric(cell, "runq_begin", (double)d->begin.procs_running);
	rc |= ul_cell_set_metric(cell, "runq_end", (double)end.procs_running);
	snap_free(&end);
	return rc ? -ENOMEM : 0;
}

const struct ul_monitor ul_monitor_disturb = {
	.name = "disturb",
	.summary = "CPU used outside the run while measured; flags cells above 5% of a CPU",
	.enabled = disturb_enabled,
	.start = disturb_start,
	.stop = disturb_stop,
	.cell_begin = disturb_cell_begin,
	.cell_end = disturb_cell_end,
};

/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * The fsbench client loop: phases, per-phase statistics and rusage.  It
 * replays through replay.c; the latency histogram is stats/hist.c.
 */
#include "core/compat.h"
#include "core/clock.h"
#include "dbench/replay.h"

#include <errno.h>
#include <string.h>
#include <sys/resource.h>

void ul_fsb_stats_add(struct ul_fsb_stats *a, const struct ul_fsb_stats *b)
{
	for (int k = 0; k < UL_FSB_N_KINDS; k++) {
		struct ul_fsb_opstat *x = &a->op[k];
		const struct ul_fsb_opstat *y = &b->op[k];

		x->count += y->count;
		x->sum_ns += y->sum_ns;
		x->mismatches += y->mismatches;
		if (y->max_ns > x->max_ns)
			x->max_ns = y->max_ns;
		for (unsigned i = 0; i < UL_HIST_N; i++)
			x->hist[i] += y->hist[i];
	}
	a->ops += b->ops;
	a->read_bytes += b->read_bytes;
	a->write_bytes += b->write_bytes;
	a->mismatches += b->mismatches;
	a->passes += b->passes;
	a->user_ns += b->user_ns;
	a->sys_ns += b->sys_ns;
	a->majflt += b->majflt;
	a->minflt += b->minflt;
	if (b->finished_ns > a->finished_ns)
		a->finished_ns = b->finished_ns;
}

struct usage {
	int64_t user_ns, sys_ns, majflt, minflt;
};

static void usage_now(struct usage *u)
{
	struct rusage ru;

	memset(u, 0, sizeof(*u));
	if (getrusage(RUSAGE_SELF, &ru) < 0)
		return;
	u->user_ns = (int64_t)ru.ru_utime.tv_sec * UL_NS_PER_SEC + ru.ru_utime.tv_usec * 1000;
	u->sys_ns = (int64_t)ru.ru_stime.tv_sec * UL_NS_PER_SEC + ru.ru_stime.tv_usec * 1000;
	u->majflt = ru.ru_majflt;
	u->minflt = ru.ru_minflt;
}

static void usage_record(struct ul_fsb_stats *s, const struct usage *from)
{
	struct usage to;

	usage_now(&to);
	s->user_ns = to.user_ns - from->user_ns;
	s->sys_ns = to.sys_ns - from->sys_ns;
	s->majflt = to.majflt - from->majflt;
	s->minflt = to.minflt - from->minflt;
}

/* Start the measured phase: everything before it is forgotten. */
static void begin_measure(struct ul_fsb_client *c, struct usage *start)
{
	if (c->stats)
		memset(c->stats, 0, sizeof(*c->stats));
	usage_now(start);
}

int ul_fsb_client_run(struct ul_fsb_client *c, _Atomic int *phase, bool once, int64_t go_ns)
{
	int cur = UL_FSB_WARMUP, rc = 0;
	struct usage start;

	usage_now(&start);
	if (atomic_load(phase) >= UL_FSB_MEASURE) {
		cur = UL_FSB_MEASURE;
		begin_measure(c, &start);
	}
	for (;;) {
		for (size_t i = 0; i < c->t->n; i++) {
			int ph = atomic_load_explicit(phase, memory_order_relaxed);

			if (ph != cur) {
				if (ph >= UL_FSB_STOP)
					goto out;
				cur = ph;
				begin_measure(c, &start);
			}
			rc = ul_fsb_replay_op(c, i);
			if (rc < 0)
				goto out;
		}
		if (c->stats)
			c->stats->passes++;
		if (once)
			break;
	}
	rc = 0;
out:
	if (c->stats) {
		usage_record(c->stats, &start);
		c->stats->finished_ns = ul_now_ns() - go_ns;
	}
	return rc < 0 ? rc : 0;
}

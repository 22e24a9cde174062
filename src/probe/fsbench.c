/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * The "fsbench" probe: N clients replaying a dbench 4 trace, each round
 * measured whole (probe/fsbench.h).  A whole probe of the group form: the
 * group driver (probe/whole_group.c) spawns, releases, times and stops the
 * clients; this file is what a client does, what the clients share with
 * the supervisor (a phase word, their statistics) and what a round
 * records.  Each client removes its own directory when it stops; whatever
 * a killed client leaves, ended() removes before the next round.
 */
#include "core/compat.h"
#include "core/clock.h"
#include "dbench/loadfile.h"
#include "dbench/replay.h"
#include "model/model.h"
#include "probe/fsbench.h"
#include "probe/probe.h"
#include "proc/barrier.h"
#include "stats/hist.h"

#include <errno.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>

/* How long stopped clients get to finish their operation and remove their
 * directory before they are killed. */
#define CLIENT_EXIT_NS (120 * UL_NS_PER_SEC)

/* What the clients share with the supervisor: zeroed before each round. */
struct shared {
	_Atomic int phase; /* enum ul_fsb_phase */
	_Atomic int64_t go_ns;
	struct ul_fsb_stats stats[]; /* one per client, written by it alone */
};

struct fsbench {
	const struct ul_fsbench_spec *spec;
	struct ul_fsb_totals totals; /* the trace's: which kinds have series */
	struct ul_fsb_stats total;   /* a round's, all clients merged */
	struct shared *sh;
	size_t sh_len;
};

/* Per-round series, in storage order; [0] is the cell's primary. */
enum {
	S_TPUT,
	S_ELAPSED,
	S_READ,
	S_WRITE,
	S_OPS,
	S_MISMATCH,
	S_MAXLAT,
	S_USER,
	S_SYS,
	S_MAJFLT,
	S_MINFLT,
	S_CMIN,
	S_CMAX,
	S_N
};
static const char *const run_series[S_N + 1] = {
	UL_FSB_S_THROUGHPUT,	  "fsbench_elapsed_ns", "fsbench_read_bytes",
	"fsbench_write_bytes",	  "fsbench_ops",	"fsbench_mismatches",
	"fsbench_max_latency_ns", "fsbench_user_ns",	"fsbench_sys_ns",
	"fsbench_majflt",	  "fsbench_minflt",	"fsbench_client_min_ops",
	"fsbench_client_max_ops",
};
enum {
	O_COUNT,
	O_SUM,
	O_MAX,
	O_P50,
	O_P99,
	O_MISMATCH,
	O_N
};
static const char *const op_suffix[O_N] = { "count",  "sum_ns", "max_ns",
					    "p50_ns", "p99_ns", "mismatches" };

static void op_series_name(char *buf, size_t len, int kind, int field)
{
	snprintf(buf, len, "fsop_%s_%s", ul_fsb_kind_name(kind), op_suffix[field]);
}

int ul_fsbench_make_series(struct ul_cell *cell, const struct ul_fsb_totals *totals)
{
	char name[UL_NAME_LEN];

	for (int i = 0; i < S_N; i++)
		if (!ul_cell_series(cell, run_series[i]))
			return -ENOMEM;
	for (int k = 0; k < UL_FSB_N_KINDS; k++) {
		if (!totals->ops[k])
			continue;
		for (int f = 0; f < O_N; f++) {
			op_series_name(name, sizeof(name), k, f);
			if (!ul_cell_series(cell, name))
				return -ENOMEM;
		}
	}
	if (!ul_cell_series(cell, "fsbench_client_ops") ||
	    !ul_cell_series(cell, "fsbench_client_finish_ns"))
		return -ENOMEM;
	return 0;
}

static int fsbench_start(const struct ul_probe_ctx *ctx, void **state)
{
	const struct ul_fsbench_spec *spec = ctx->arg;
	struct fsbench *f;
	int err;

	if (!spec || !spec->trace || spec->clients <= 0 || spec->clients > UL_FSB_MAX_CLIENTS)
		return -EINVAL; /* the suite sizes every round */
	f = calloc(1, sizeof(*f));
	if (!f)
		return -ENOMEM;
	f->spec = spec;
	ul_fsb_trace_totals(spec->trace, &f->totals);
	f->sh_len = sizeof(*f->sh) + (size_t)spec->clients * sizeof(f->sh->stats[0]);
	f->sh = mmap(NULL, f->sh_len, PROT_READ | PROT_WRITE, MAP_SHARED | MAP_ANONYMOUS, -1, 0);
	if (f->sh == MAP_FAILED) {
		err = -errno;
		free(f);
		return err;
	}
	*state = f;
	return 0;
}

static void fsbench_stop(void *state)
{
	struct fsbench *f = state;

	if (!f)
		return;
	munmap(f->sh, f->sh_len);
	free(f);
}

/* A round's shape; it starts from zeroed statistics. */
static void fsbench_plan(const struct ul_probe_ctx *ctx, void *state, struct ul_whole_plan *plan)
{
	struct fsbench *f = state;
	const struct ul_fsbench_spec *s = f->spec;

	(void)ctx;
	memset(f->sh, 0, f->sh_len);
	plan->children = s->clients;
	plan->ready_ns = s->ready_ns;
	plan->warmup_ns = s->once ? 0 : s->warmup_ns;
	plan->window_ns = s->once ? 0 : s->duration_ns;
	plan->pass_ns = s->pass_ns;
	plan->exit_ns = CLIENT_EXIT_NS;
	plan->keep_fd = s->root_fd;
}

/* In client i's process: set up, pass the barrier, replay, tidy up. */
static int fsbench_child(const struct ul_probe_ctx *ctx, void *state, int i,
			 struct ul_barrier *barrier)
{
	struct fsbench *f = state;
	const struct ul_fsbench_spec *s = f->spec;
	struct ul_fsb_client c;
	int rc;

	(void)ctx;
	if (ul_fsb_client_init(&c, s->trace, s->root_fd, i, s->clients, s->disk_reserve_bytes))
		return 2;
	c.stats = &f->sh->stats[i];
	if (ul_barrier_child_ready(barrier) || ul_barrier_child_wait_go(barrier)) {
		ul_fsb_client_fini(&c);
		return 2;
	}
	rc = ul_fsb_client_run(&c, &f->sh->phase, s->once, atomic_load(&f->sh->go_ns));
	ul_fsb_client_cleanup(&c);
	ul_fsb_client_fini(&c);
	return rc ? 1 : 0;
}

static void fsbench_phase(void *state, enum ul_whole_phase phase, int64_t go_ns)
{
	static const int fsb_phase[] = {
		[UL_WHOLE_WARMUP] = UL_FSB_WARMUP,
		[UL_WHOLE_MEASURE] = UL_FSB_MEASURE,
		[UL_WHOLE_STOP] = UL_FSB_STOP,
	};
	struct fsbench *f = state;

	atomic_store(&f->sh->go_ns, go_ns);
	atomic_store(&f->sh->phase, fsb_phase[phase]);
}

/* A client that ran out of space says where; others get the driver's words. */
static bool fsbench_why(void *state, int i, char *buf, size_t len)
{
	const struct fsbench *f = state;
	const struct ul_fsb_stats *s = &f->sh->stats[i];
	char where[48];

	if (s->fatal_errno != ENOSPC && s->fatal_errno != EDQUOT)
		return false;
	if (s->fatal_line)
		snprintf(where, sizeof(where), "loadfile line %u", s->fatal_line);
	else
		snprintf(where, sizeof(where), "built-in trace, operation %llu",
			 (unsigned long long)s->fatal_index + 1);
	snprintf(buf, len, "client %d: %s during %s (%s): %s", i + 1,
		 s->reserve_hit ? "free space fell below --disk-reserve"
				: "the scratch file system is full",
		 ul_fsb_kind_name(s->fatal_kind), where, strerror(s->fatal_errno));
	return true;
}

/* What killed or failed clients left would shrink the next round's free
 * space: every round starts from an empty directory. */
static void fsbench_ended(const struct ul_probe_ctx *ctx, void *state)
{
	const struct fsbench *f = state;

	(void)ctx;
	ul_fsb_remove_tree(f->spec->root_fd, "clients");
}

static int push(struct ul_cell *cell, const char *name, int64_t v)
{
	return ul_series_push(ul_cell_series(cell, name), v);
}

/* Each client's operations and end; min and max of the operations into v. */
static int push_clients(struct fsbench *f, struct ul_cell *cell, int64_t v[S_N])
{
	uint64_t cmin = UINT64_MAX, cmax = 0;
	int rc = 0;

	memset(&f->total, 0, sizeof(f->total));
	for (int i = 0; i < f->spec->clients; i++) {
		const struct ul_fsb_stats *s = &f->sh->stats[i];

		ul_fsb_stats_add(&f->total, s);
		cmin = s->ops < cmin ? s->ops : cmin;
		cmax = s->ops > cmax ? s->ops : cmax;
		rc |= push(cell, "fsbench_client_ops", (int64_t)s->ops);
		rc |= push(cell, "fsbench_client_finish_ns", s->finished_ns);
	}
	v[S_CMIN] = (int64_t)cmin;
	v[S_CMAX] = (int64_t)cmax;
	return rc;
}

/* Per operation kind of the trace; the slowest operation into v. */
static int push_ops(struct fsbench *f, struct ul_cell *cell, int64_t v[S_N])
{
	char name[UL_NAME_LEN];
	uint64_t maxlat = 0;
	int rc = 0;

	for (int k = 0; k < UL_FSB_N_KINDS; k++) {
		const struct ul_fsb_opstat *o = &f->total.op[k];
		int64_t x[O_N] = {
			(int64_t)o->count,
			(int64_t)o->sum_ns,
			(int64_t)o->max_ns,
			(int64_t)ul_hist_quantile(o->hist, o->count, 0.50),
			(int64_t)ul_hist_quantile(o->hist, o->count, 0.99),
			(int64_t)o->mismatches,
		};

		maxlat = o->max_ns > maxlat ? o->max_ns : maxlat;
		if (!f->totals.ops[k])
			continue;
		for (int j = 0; j < O_N; j++) {
			op_series_name(name, sizeof(name), k, j);
			rc |= push(cell, name, x[j]);
		}
	}
	v[S_MAXLAT] = (int64_t)maxlat;
	return rc;
}

/* One round that went well onto the cell's series. */
static int fsbench_result(const struct ul_probe_ctx *ctx, void *state, int64_t window_ns,
			  struct ul_cell *cell)
{
	struct fsbench *f = state;
	const struct ul_fsb_stats *t = &f->total;
	int64_t v[S_N];
	int rc;

	(void)ctx;
	rc = push_clients(f, cell, v);
	rc |= push_ops(f, cell, v);
	/* One pass: the clock stops at the last client, as dbench 1. */
	if (f->spec->once && t->finished_ns > 0)
		window_ns = t->finished_ns;
	v[S_TPUT] = window_ns > 0 ? (int64_t)((double)(t->read_bytes + t->write_bytes) * 1e9 /
					      (double)window_ns)
				  : 0;
	v[S_ELAPSED] = window_ns;
	v[S_READ] = (int64_t)t->read_bytes;
	v[S_WRITE] = (int64_t)t->write_bytes;
	v[S_OPS] = (int64_t)t->ops;
	v[S_MISMATCH] = (int64_t)t->mismatches;
	v[S_USER] = t->user_ns;
	v[S_SYS] = t->sys_ns;
	v[S_MAJFLT] = t->majflt;
	v[S_MINFLT] = t->minflt;
	for (int i = 0; i < S_N; i++)
		rc |= push(cell, run_series[i], v[i]);
	return rc ? -ENOMEM : 0;
}

static const struct ul_whole_group_ops fsbench_group = {
	.plan = fsbench_plan,
	.child = fsbench_child,
	.phase = fsbench_phase,
	.why = fsbench_why,
	.ended = fsbench_ended,
	.result = fsbench_result,
	.child_name = "client",
};

static const struct ul_whole_ops fsbench_ops = {
	.start = fsbench_start,
	.stop = fsbench_stop,
	.series = run_series,
	.group = &fsbench_group,
};

const struct ul_probe ul_probe_fsbench = {
	.name = "fsbench",
	.summary = "clients replay a dbench 4 file-server trace; bytes read + written per second",
	.unit = "B/s",
	.kind = UL_PROBE_WHOLE,
	.direction = UL_HIGHER_IS_BETTER,
	.whole = &fsbench_ops,
};

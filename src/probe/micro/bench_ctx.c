/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Context switching (lat_ctx's definition): N processes in a ring of
 * pipes pass a token round; each sums its own private S KiB working set
 * before passing it on.  The overhead of one trip, N pipe write+read pairs
 * and N sums of one (cache-hot) S KiB array in a single process, is
 * measured with the same harness and its median batch subtracted, as
 * lat_ctx subtracts its median overhead; the rest divided by N is
 * the time of one switch, never negative (ul_micro_ctx_switch_ns).
 * Each ring in two placements, two probes (ctx-NpSk-1cpu, -2cpu): every
 * member on one CPU, or members alternating between two CPUs (so every
 * hop crosses CPUs; ul_micro_ends in bench.h); the overhead is measured
 * in the master alone, on its CPU.
 */
#include "core/compat.h"
#include "core/file.h"
#include "core/clock.h"
#include "probe/micro/bench.h"

#include <errno.h>
#include <fcntl.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#define RING_MAX 16

struct ring {
	int nproc;
	size_t ws_bytes;
	int p[RING_MAX][2]; /* process i reads p[i][0], writes p[(i+1) % n][1] */
	pid_t pid[RING_MAX];
	char *ws;
	struct ul_micro_ends *ends; /* placement of the members */
};

static volatile uint64_t ctx_sink;

static char *new_ws(size_t bytes)
{
	char *ws = malloc(bytes ? bytes : 8);

	if (ws)
		memset(ws, 1, bytes ? bytes : 8);
	return ws;
}

static void ring_member(struct ring *r, int i)
{
	char *ws = new_ws(r->ws_bytes);
	int next = (i + 1) % r->nproc;
	uint64_t tok;

	if (!ws)
		_exit(1);
	for (;;) {
		if (ul_read_full(r->p[i][0], &tok, sizeof(tok)))
			_exit(0);
		ctx_sink += ul_micro_sum(ws, r->ws_bytes);
		if (ul_write_full(r->p[next][1], &tok, sizeof(tok)))
			_exit(0);
	}
}

static int ring_batch(void *arg, uint64_t iters, int64_t *elapsed)
{
	struct ring *r = arg;
	uint64_t tok = 0;
	ul_nsec t0 = ul_now_ns();
	int rc;

	for (uint64_t i = 0; i < iters; i++) {
		ctx_sink += ul_micro_sum(r->ws, r->ws_bytes);
		rc = ul_write_full(r->p[1][1], &tok, sizeof(tok));
		if (!rc)
			rc = ul_read_full(r->p[0][0], &tok, sizeof(tok));
		if (rc)
			return rc;
	}
	*elapsed = ul_now_ns() - t0;
	return 0;
}

/* The same pipe and summing work in one process: n pipes, one array. */
static int overhead_batch(void *arg, uint64_t iters, int64_t *elapsed)
{
	struct ring *r = arg;
	uint64_t tok = 0;
	ul_nsec t0 = ul_now_ns();
	int rc = 0;

	for (uint64_t i = 0; i < iters; i++) {
		for (int j = 0; j < r->nproc && !rc; j++) {
			ctx_sink += ul_micro_sum(r->ws, r->ws_bytes);
			rc = ul_write_full(r->p[j][1], &tok, sizeof(tok));
			if (!rc)
				rc = ul_read_full(r->p[j][0], &tok, sizeof(tok));
		}
		if (rc)
			return rc;
	}
	*elapsed = ul_now_ns() - t0;
	return 0;
}

static void ring_close(struct ring *r)
{
	for (int i = 0; i < r->nproc; i++) {
		ul_micro_reap(r->pid[i]);
		r->pid[i] = 0;
		for (int e = 0; e < 2; e++) {
			if (r->p[i][e] >= 0)
				close(r->p[i][e]);
			r->p[i][e] = -1;
		}
	}
	free(r->ws);
	r->ws = NULL;
	ul_micro_ends_free(r->ends);
	r->ends = NULL;
}

/* The pipes and the master's working set, the master pinned where place
 * puts it; members are forked when fork_members. */
static int ring_open(struct ring *r, int nproc, size_t ws_bytes, const struct ul_micro_env *env,
		     enum ul_micro_place place, bool fork_members)
{
	memset(r, 0, sizeof(*r));
	r->nproc = nproc;
	r->ws_bytes = ws_bytes;
	for (int i = 0; i < nproc; i++)
		r->p[i][0] = r->p[i][1] = -1;
	for (int i = 0; i < nproc; i++)
		if (pipe2(r->p[i], O_CLOEXEC))
			return -errno;
	r->ws = new_ws(ws_bytes);
	if (!r->ws)
		return -ENOMEM;
	r->ends = ul_micro_ends_new(env, place);
	if (!r->ends)
		return -errno;
	for (int i = 1; i < nproc && fork_members; i++) {
		r->pid[i] = ul_micro_fork_end(r->ends, i);
		if (r->pid[i] < 0)
			return -errno;
		if (r->pid[i] == 0)
			ring_member(r, i);
	}
	return 0;
}

static int ctx_measure(const struct ul_micro_env *env, struct ul_micro_out *out, int nproc,
		       size_t ws_kib, enum ul_micro_place place)
{
	struct ring r;
	struct ul_mh_result trip, ovh;
	struct ul_micro_ends where;
	int64_t v[UL_MH_MAX_BATCHES], o[UL_MH_MAX_BATCHES];
	double ovh_ns;
	/* The overhead first, on pipes of its own: no ring member may read them. */
	int rc = ring_open(&r, nproc, ws_kib * 1024, env, place, false);

	if (!rc)
		rc = ul_mh_run(&env->mh, overhead_batch, &r, &ovh);
	ring_close(&r);
	if (!rc)
		rc = ring_open(&r, nproc, ws_kib * 1024, env, place, true);
	if (!rc)
		rc = ul_mh_run(&env->mh, ring_batch, &r, &trip);
	if (!rc)
		where = *r.ends;
	ring_close(&r);
	if (rc)
		return rc;
	/* The overhead's median batch, as lat_ctx subtracts the median of its
	 * overhead repetitions (benchmp's figure): the fastest batch sat
	 * below it and left the switch high against lmbench3 (t0505). */
	ovh_ns = ul_mh_median_iter_ns(&ovh);
	for (int i = 0; i < trip.n; i++) {
		v[i] = llround(ul_micro_ctx_switch_ns(trip.iter_ns[i], ovh_ns, nproc) * 1000.0);
		o[i] = llround(ovh.iter_ns[i] * 1000.0 / nproc);
	}
	rc = ul_micro_put_series(out, "op_ps", v, trip.n);
	if (!rc)
		rc = ul_micro_put_series(out, "batch_ns", trip.elapsed_ns, trip.n);
	if (!rc)
		rc = ul_micro_put_series(out, "preempted_n", trip.preempted, trip.n);
	if (!rc)
		rc = ul_micro_put_series(out, "overhead_ps", o, ovh.n);
	if (!rc)
		rc = ul_micro_put_metric(out, "iters_per_batch", (double)trip.iters);
	if (!rc)
		rc = ul_micro_put_metric(out, "clock_overhead_ns", trip.clock_ns);
	if (!rc)
		rc = ul_micro_put_metric(out, "overhead_ns", ovh_ns / nproc);
	if (!rc)
		rc = ul_micro_put_ends(out, &where, nproc);
	return rc;
}

#define CTX_PLACED(np, kib, place, sfx, where)                                                     \
	static int bench_ctx_##np##p##kib##k_##sfx(const struct ul_micro_env *env,                 \
						   struct ul_micro_out *out)                       \
	{                                                                                          \
		return ctx_measure(env, out, np, kib, place);                                      \
	}                                                                                          \
	UL_MICRO_LAT(ctx_##np##p##kib##k_##sfx, "ctx-" #np "p" #kib "k-" #sfx, "ctx",              \
		     "context switch, " #np " processes in a ring of pipes, " #kib                 \
		     " KiB each, " where,                                                          \
		     bench_ctx_##np##p##kib##k_##sfx)
#define CTX_BENCH(np, kib)                                                                         \
	CTX_PLACED(np, kib, UL_PLACE_ONE_CPU, 1cpu, "all on one CPU");                             \
	CTX_PLACED(np, kib, UL_PLACE_TWO_CPUS, 2cpu, "alternating between two CPUs")

CTX_BENCH(2, 0);
CTX_BENCH(2, 16);
CTX_BENCH(2, 64);
CTX_BENCH(8, 16);
CTX_BENCH(8, 64);
CTX_BENCH(16, 16);
CTX_BENCH(16, 64);

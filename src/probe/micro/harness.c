/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * The micro timing harness: calibrate a batch to a minimum time, warm up,
 * time repeated batches and keep them all (contract in bench.h), and the
 * records that carry the results out of the probe child.
 */
#include "core/compat.h"
#include "core/clock.h"
#include "probe/micro/bench.h"
#include "stats/stats.h"

#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>

#define MH_CLOCK_PAIRS 201
#define MH_MAX_ITERS (UINT64_C(1) << 40)
#define MH_MAX_CALIBRATIONS 40

static double median_of(double *v, size_t n)
{
	ul_stats_sort(v, n);
	return ul_stats_median_sorted(v, n);
}

double ul_mh_clock_overhead_ns(void)
{
	static double cached = -1;
	double d[MH_CLOCK_PAIRS];

	if (cached >= 0)
		return cached;
	for (size_t i = 0; i < MH_CLOCK_PAIRS; i++) {
		ul_nsec t0 = ul_now_ns(), t1 = ul_now_ns();

		d[i] = (double)(t1 - t0);
	}
	cached = median_of(d, MH_CLOCK_PAIRS);
	return cached;
}

double ul_mh_median_iter_ns(const struct ul_mh_result *r)
{
	double v[UL_MH_MAX_BATCHES];

	if (r->n <= 0)
		return 0;
	memcpy(v, r->iter_ns, (size_t)r->n * sizeof(v[0]));
	return median_of(v, (size_t)r->n);
}

/* The next iteration count after a batch of `iters` took `elapsed`. */
static uint64_t next_iters(uint64_t iters, int64_t elapsed, int64_t target)
{
	double want;

	if (elapsed <= 0 || elapsed < target / 64)
		return iters * 8;
	want = (double)iters * 1.1 * (double)target / (double)elapsed;
	if (want <= (double)iters)
		return iters + 1;
	return want >= (double)MH_MAX_ITERS ? MH_MAX_ITERS : (uint64_t)ceil(want);
}

static int calibrate(const struct ul_mh_opts *o, ul_mh_batch_fn fn, void *st, uint64_t *out)
{
	uint64_t iters = 1, cap = o->max_iters ? o->max_iters : MH_MAX_ITERS;

	for (int step = 0; step < MH_MAX_CALIBRATIONS; step++) {
		int64_t elapsed = 0;
		int rc = fn(st, iters, &elapsed);

		if (rc)
			return rc;
		if ((double)elapsed >= 0.95 * (double)o->min_batch_ns || iters >= cap) {
			*out = iters;
			return 0;
		}
		iters = next_iters(iters, elapsed, o->min_batch_ns);
		if (iters > cap)
			iters = cap;
	}
	return -ERANGE;
}

int ul_mh_run(const struct ul_mh_opts *o, ul_mh_batch_fn fn, void *st, struct ul_mh_result *r)
{
	int64_t warm = 0;
	uint64_t iters = 0;
	int rc;

	memset(r, 0, sizeof(*r));
	if (o->batches < 1 || o->batches > UL_MH_MAX_BATCHES || o->min_batch_ns <= 0)
		return -EINVAL;
	r->clock_ns = ul_mh_clock_overhead_ns();
	/* One iteration first: a cold start (helpers still being scheduled,
	 * first faults) must not make calibration settle on a tiny count. */
	rc = fn(st, 1, &warm);
	if (!rc)
		rc = calibrate(o, fn, st, &iters);
	if (rc)
		return rc;
	rc = fn(st, iters / 8 ? iters / 8 : 1, &warm);
	if (rc)
		return rc;
	r->iters = iters;
	for (int i = 0; i < o->batches; i++) {
		struct rusage ru0, ru1;
		int64_t elapsed = 0;
		double net;

		getrusage(RUSAGE_SELF, &ru0);
		rc = fn(st, iters, &elapsed);
		if (rc)
			return rc;
		getrusage(RUSAGE_SELF, &ru1);
		r->preempted[i] = ru1.ru_nivcsw - ru0.ru_nivcsw;
		net = (double)elapsed - r->clock_ns;
		if (net < 0)
			net = 0;
		r->elapsed_ns[i] = elapsed;
		r->iter_ns[i] = net / (double)iters;
		r->n = i + 1;
	}
	return 0;
}

double ul_micro_net_ns(double gross_ns, double base_ns, int nops)
{
	double d = gross_ns - base_ns;

	if (!(d > 0) || nops < 1)
		return 0;
	return d / nops;
}

double ul_micro_ctx_switch_ns(double trip_ns, double overhead_ns, int nproc)
{
	return ul_micro_net_ns(trip_ns, overhead_ns, nproc);
}

static struct ul_micro_rec *new_rec(struct ul_micro_out *out, const char *name)
{
	struct ul_micro_rec *r;

	if (out->n >= UL_MICRO_MAX_RECS)
		return NULL;
	r = &out->rec[out->n++];
	memset(r, 0, sizeof(*r));
	/* memcpy, not snprintf: GCC 12 with -fsanitize=address sees a "null
	 * destination" in the snprintf here (-Wformat-truncation, a false alarm). */
	memcpy(r->name, name, strnlen(name, sizeof(r->name) - 1));
	return r;
}

int ul_micro_put_series(struct ul_micro_out *out, const char *name, const int64_t *v, int n)
{
	struct ul_micro_rec *r;

	if (n < 0 || n > UL_MH_MAX_BATCHES)
		return -EINVAL;
	r = new_rec(out, name);
	if (!r)
		return -ENOSPC;
	r->n = n;
	memcpy(r->v, v, (size_t)n * sizeof(v[0]));
	return 0;
}

int ul_micro_put_metric(struct ul_micro_out *out, const char *name, double value)
{
	struct ul_micro_rec *r = new_rec(out, name);

	if (!r)
		return -ENOSPC;
	r->is_metric = 1;
	r->metric = value;
	return 0;
}

int ul_micro_put_result(struct ul_micro_out *out, const struct ul_mh_result *r, double ops_per_iter,
			double bytes_per_iter)
{
	int64_t v[UL_MH_MAX_BATCHES];
	int rc;

	for (int i = 0; i < r->n; i++) {
		double x;

		if (bytes_per_iter > 0)
			x = r->iter_ns[i] > 0 ? bytes_per_iter * 1e9 / r->iter_ns[i] : 0;
		else
			x = r->iter_ns[i] * 1000.0 / ops_per_iter;
		v[i] = (int64_t)llround(x);
	}
	rc = ul_micro_put_series(out, bytes_per_iter > 0 ? "bw_bytes_s" : "op_ps", v, r->n);
	if (!rc)
		rc = ul_micro_put_series(out, "batch_ns", r->elapsed_ns, r->n);
	if (!rc)
		rc = ul_micro_put_series(out, "preempted_n", r->preempted, r->n);
	if (!rc)
		rc = ul_micro_put_metric(out, "iters_per_batch", (double)r->iters);
	if (!rc)
		rc = ul_micro_put_metric(out, "clock_overhead_ns", r->clock_ns);
	return rc;
}

int ul_micro_simple(const struct ul_micro_env *env, struct ul_micro_out *out, ul_mh_batch_fn fn,
		    void *st, double ops_per_iter, double bytes_per_iter)
{
	struct ul_mh_result r;
	int rc = ul_mh_run(&env->mh, fn, st, &r);

	if (rc)
		return rc;
	return ul_micro_put_result(out, &r, ops_per_iter, bytes_per_iter);
}

/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * The resp suite: Davidsen's trivial response benchmark.  One long-lived
 * resp probe (the user's session) is sampled after each think-time sleep
 * while each load runs in turn.
 *
 * Stopping rule (documented in underload(1), "resp stopping rule"): a test
 * always takes --min-points points; then, up to --max-points, one more
 * while the median's 95% CI half-width exceeds --ci-target of the median.
 * That CI needs 6 points (below, it does not exist and counts as too
 * wide), and at 6 it is the whole range, so a test stops at 6 only when
 * max - min <= 2 * target * median.  Because the extra points depend on
 * the data, each cell records "fixed_n" = --min-points: compare tests that
 * prefix only, a sample whose size was fixed before any data was seen.
 */
#include "core/compat.h"
#include "core/log.h"
#include "core/parse.h"
#include "engine/engine.h"
#include "engine/suites/resp/internal.h"
#include "load/load.h"
#include "probe/probe.h"
#include "stats/runcmp.h"
#include "stats/stats.h"
#include "report/suites.h"

#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <sys/wait.h>

/* Davidsen's seven tests in the seed's order; the deadline suite runs them too. */
const struct ul_suite_test ul_resp_tests[] = {
	{ .load = "noload" },	  { .load = "smallwrite" },
	{ .load = "largewrite" }, { .load = "cpuload" },
	{ .load = "spawnload" },  { .load = "8ctx-mem" },
	{ .load = "2ctx-mem" },	  { NULL },
};

static const struct ul_suite_metric resp_metrics[] = {
	{ .series = "delay_ns", .label = "delay", .unit = "ns", .direction = UL_LOWER_IS_BETTER },
	{ NULL },
};

/* True when the median's 95% CI half-width is within the target share of
 * the median (never with fewer than 6 points: no CI exists). */
static bool ci_within_target(const struct ul_engine *eng, const struct ul_series *s)
{
	struct ul_summary sum;

	if (ul_stats_summarize_i64(s->v, s->n, &sum))
		return false;
	return ul_stats_ci_rel_halfwidth(&sum) * 10000.0 <= (double)eng->cfg->ci_target_centi;
}

/* True once the samples are enough: max points, or min points and a
 * narrow enough CI. */
static bool enough_points(const struct ul_engine *eng, const struct ul_series *s)
{
	if (s->n < (size_t)eng->cfg->min_points)
		return false;
	return s->n >= (size_t)eng->cfg->max_points || ci_within_target(eng, s);
}

/*
 * The points a test takes when every CI is narrow at once: min points, but
 * at least 6 (the first n with a median CI) when the rule may extend.
 */
static int64_t floor_points(const struct ul_engine_config *cfg)
{
	int64_t n = cfg->min_points;

	if (cfg->max_points > cfg->min_points && n < 6)
		n = cfg->max_points < 6 ? cfg->max_points : 6;
	return n;
}

/*
 * Progress with an ETA from measured times: the mean wall time of a point
 * so far (think time + task + overhead; interval + 150 ms before the
 * first), the mean set-up/stop time of a test, and the fewest points the
 * remaining tests can take (floor_points): a lower bound, said as such.
 */
static void progress(const struct resp_state *st, size_t point)
{
	const struct ul_engine_config *cfg = st->eng->cfg;
	int64_t per_point = st->points_done ? st->point_ns_sum / (int64_t)st->points_done
					    : cfg->interval_ns + 150 * UL_NS_PER_MS;
	int64_t per_test = st->tests_done ? st->test_extra_ns_sum / (int64_t)st->tests_done : 0;
	int64_t floor_n = floor_points(cfg), here = floor_n - (int64_t)point, left;
	int64_t after = (int64_t)(st->step.n - st->step.i - 1); /* cells after this one */
	char eta[32], name[160];

	if (here < 1)
		here = 1;
	left = per_point * (after * floor_n + here) + per_test * after;
	ul_fmt_duration(eta, sizeof(eta), left / UL_NS_PER_SEC * UL_NS_PER_SEC);
	ul_engine_step_name(name, sizeof(name), "resp", &st->step);
	ul_engine_progress(st->eng, "%s: point %zu (min %d, max %d), at least ~%s left", name,
			   point + 1, cfg->min_points, cfg->max_points, eta);
}

static int start_probe(struct resp_state *st)
{
	struct ul_probe_ctx pctx;
	char why[512];
	int rc;

	ul_engine_probe_ctx(st->eng, st->probe, &pctx);
	rc = ul_probe_start(&st->eng->sup, st->probe, &pctx, st->eng->cfg->ready_timeout_ns,
			    &st->rp, why, sizeof(why));
	if (rc == -EINTR)
		return UL_ENGINE_INTERRUPTED;
	if (rc) {
		st->rp = NULL;
		ul_error("probe '%s' did not start: %s", st->probe->name, why);
		return UL_ENGINE_ERROR;
	}
	st->eng->probe_pid = ul_probe_child(st->rp)->pid;
	return UL_ENGINE_OK;
}

int ul_resp_sample_cell(void *arg, struct ul_cell *cell, struct ul_running_load *rl)
{
	struct resp_state *st = arg;
	struct ul_engine *eng = st->eng;
	const struct ul_engine_config *cfg = eng->cfg;
	struct ul_series *s = ul_cell_series(cell, "delay_ns");
	int64_t think = cfg->interval_ns;
	ul_nsec t0 = ul_now_ns(), deadline = 0;
	char how[96];

	if (!s)
		return ul_engine_oom();
	while (!enough_points(eng, s)) {
		int64_t value = 0;
		int err = 0;
		struct ul_child *exited = NULL;
		enum ul_measure_result r;

		if (think >= 0) { /* a new sample: its deadline, kept while other children exit */
			progress(st, s->n);
			ul_breakdown_begin(st->why, eng->probe_pid);
			t0 = ul_now_ns();
			deadline = t0 + (think > 0 ? think : 0) + cfg->sample_timeout_ns;
		}
		r = ul_probe_measure(&eng->sup, st->rp, think, deadline, &value, &err, &exited);
		switch (r) {
		case UL_MEASURE_OK:
			if (ul_series_push(s, value) || ul_breakdown_end(st->why, cell, value))
				return ul_engine_oom();
			s = ul_cell_series(cell, "delay_ns"); /* the series may have moved */
			if (!s)
				return ul_engine_oom();
			st->point_ns_sum += (int64_t)(ul_now_ns() - t0);
			st->points_done++;
			think = cfg->interval_ns;
			break;
		case UL_MEASURE_CHILD_EXITED:
			if (rl && exited == ul_load_child(rl)) {
				snprintf(how, sizeof(how), "while measured, after %zu points",
					 s->n);
				ul_engine_load_died(cell, how, rl);
				return UL_ENGINE_OK;
			}
			think = -1; /* an orphan or worker: keep waiting for the answer */
			break;
		case UL_MEASURE_INTERRUPTED:
			cell->outcome = UL_CELL_INTERRUPTED;
			snprintf(cell->note, sizeof(cell->note), "interrupted after %zu points",
				 s->n);
			return UL_ENGINE_INTERRUPTED;
		case UL_MEASURE_TIMEOUT:
		case UL_MEASURE_FAILED:
			cell->outcome = UL_CELL_PROBE_FAILED;
			if (r == UL_MEASURE_TIMEOUT) {
				ul_fmt_duration(how, sizeof(how), cfg->sample_timeout_ns);
				snprintf(cell->note, sizeof(cell->note),
					 "probe gave no answer within %s after %zu points", how,
					 s->n);
			} else {
				snprintf(cell->note, sizeof(cell->note),
					 "probe failed after %zu points: %s", s->n, strerror(err));
			}
			/* The probe's state is unknown: replace it for the next test. */
			ul_probe_stop(&eng->sup, st->rp, 0);
			st->rp = NULL;
			eng->probe_pid = 0;
			return UL_ENGINE_OK;
		}
	}
	return UL_ENGINE_OK;
}

/*
 * After a load died mid-sample the probe's request is still outstanding:
 * collect (and drop) that answer so the next test starts clean, or
 * replace the probe if it gives none.
 */
static int drain_probe(struct resp_state *st)
{
	struct ul_engine *eng = st->eng;
	ul_nsec deadline = ul_now_ns() + eng->cfg->interval_ns + eng->cfg->sample_timeout_ns;

	for (;;) {
		int64_t value;
		int err;
		struct ul_child *exited = NULL;
		enum ul_measure_result r =
			ul_probe_measure(&eng->sup, st->rp, -1, deadline, &value, &err, &exited);

		if (r == UL_MEASURE_OK)
			return UL_ENGINE_OK;
		if (r == UL_MEASURE_CHILD_EXITED)
			continue;
		if (r == UL_MEASURE_INTERRUPTED)
			return UL_ENGINE_INTERRUPTED;
		ul_probe_stop(&eng->sup, st->rp, 0);
		st->rp = NULL;
		eng->probe_pid = 0;
		return UL_ENGINE_OK;
	}
}

/* After the count: a probe that was mid-answer when the load died is
 * drained, so the next test starts with an idle probe (a ul_engine_window). */
static int after_sampling(void *arg, struct ul_cell *cell, int result)
{
	struct resp_state *st = arg;

	if (result == UL_ENGINE_OK && cell->outcome == UL_CELL_LOAD_DIED)
		result = drain_probe(st);
	return result;
}

/* One cell: the load `load` in the round of `step` (for ul_engine_each_test). */
static int run_test(void *arg, const struct ul_load *load, const struct ul_engine_step *step)
{
	struct resp_state *st = arg;
	struct ul_engine *eng = st->eng;
	const struct ul_engine_window w = { .measure = ul_resp_sample_cell,
					    .end = after_sampling,
					    .arg = st };
	struct ul_cell *cell;
	struct ul_series *s;
	int result;
	ul_nsec test_start = ul_now_ns();
	int64_t points_before = st->point_ns_sum;

	st->step = *step;
	if (!st->rp) {
		result = start_probe(st);
		if (result != UL_ENGINE_OK)
			return result;
	}
	cell = ul_engine_begin_cell(eng, "resp", load, st->probe->name, &st->step, "starting load");
	if (!cell)
		return UL_ENGINE_ERROR;
	result = ul_engine_measure_cell(eng, cell, load, &w);
	s = ul_cell_series(cell, "delay_ns");
	ul_breakdown_cell_end(st->why, cell, s ? s->n : 0);
	if (cell->outcome == UL_CELL_OK && s && s->n >= (size_t)eng->cfg->max_points &&
	    !ci_within_target(eng, s))
		cell->flags |= UL_CELL_NOISY;
	/* the prefix of a size fixed in advance, which compare tests */
	if (s && s->n && ul_cell_set_metric(cell, UL_RUNCMP_FIXED_N, eng->cfg->min_points) &&
	    result == UL_ENGINE_OK)
		result = UL_ENGINE_ERROR;
	st->test_extra_ns_sum +=
		(int64_t)(ul_now_ns() - test_start) - (st->point_ns_sum - points_before);
	st->tests_done++;
	return ul_engine_end_cell(eng, cell, result, NULL);
}

static int resp_run(struct ul_engine *eng, const struct ul_suite *suite)
{
	struct resp_state st = { .eng = eng, .probe = ul_probe_find(suite->probe) };
	int result;

	if (!st.probe)
		UL_BUG("the resp probe is not registered");
	/* Delay accounting on before the probe starts: it counts from then on. */
	st.why = ul_breakdown_open(eng->journal.fd >= 0 ? &eng->journal : NULL, eng->cfg->cpus);
	/* One probe, the user's session, for every test of every round. */
	result = ul_engine_each_test(eng, suite, run_test, &st);
	if (st.rp)
		ul_probe_stop(&eng->sup, st.rp, ul_engine_stop_grace(eng));
	eng->probe_pid = 0;
	ul_breakdown_close(st.why, eng->journal.fd >= 0 ? &eng->journal : NULL);
	return result;
}

/* What report shows of it beyond the generic tables (report/suites.h). */
static const struct ul_suite_report resp_report = { .flags = UL_RS_SAMPLING };

const struct ul_suite ul_suite_resp = {
	.name = "resp",
	.summary = "Davidsen's trivial response benchmark: a small task timed after a think time",
	.probe = "resp",
	.tests = ul_resp_tests,
	.run_opts =
		"interval,min-points,max-points,ci-target,sample-timeout,disk-reserve,round-sysctl",
	.tests_any_load = true,
	.format = "resp1",
	.metrics = resp_metrics,
	.run = resp_run,
	.report = &resp_report,
};

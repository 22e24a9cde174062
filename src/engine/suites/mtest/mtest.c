/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * The mtest suite: LTP's mtest01 -p80 -w run --runs times, as in seed 002,
 * with the audio deadline probe alongside instead of an mp3 heard by ear.
 * An allocation failure or an OOM kill is a recorded outcome of a run.
 * Each run is a replicate round, its own cell (metric "round"), so that
 * compare sees run-to-run variance; the target is sized once for all of
 * them, so every round does the same work.  (Stores of earlier versions
 * hold all runs in one cell; the formats read both: report/replicate.h.)
 */
#include "core/compat.h"
#include "core/log.h"
#include "core/parse.h"
#include "core/sysinfo.h"
#include "engine/breakdown_record.h"
#include "engine/deadline.h"
#include "engine/engine.h"
#include "engine/suites/mtest/mtest.h"
#include "probe/probe.h"
#include "proc/cgroup/cgroup.h"
#include "report/monitors.h"
#include "report/suites.h"

#include <errno.h>
#include <stdio.h>
#include <string.h>

/* One test: the allocator is both the load and the probe. */
static const struct ul_suite_test mtest_tests[] = { { .load = "mtest01" }, { NULL } };

static const struct ul_suite_metric mtest_metrics[] = {
	{ .series = "mtest_elapsed_ns",
	  .label = "elapsed",
	  .unit = "ns",
	  .direction = UL_LOWER_IS_BETTER },
	/* the deadline probe's dropouts, what a listener hears */
	{ .series = "dl_missed",
	  .label = "dropouts",
	  .unit = "%",
	  .direction = UL_LOWER_IS_BETTER,
	  .exposure = "dl_periods" },
	{ NULL },
};

/* --mtest-target PCT|SIZE: a share, or a size when it has no '%'. */
static int set_target(void *base, const char *arg, char *err, size_t errlen)
{
	struct ul_mtest_opts *o = base;
	int rc;

	o->target_centi = 0;
	o->target_bytes = 0;
	if (*arg && arg[strlen(arg) - 1] == '%')
		rc = ul_parse_pct(arg, 1, 10000, &o->target_centi);
	else
		rc = ul_parse_size(arg, 4 * UL_KiB, UL_GiB * 1024 * 1024, &o->target_bytes);
	if (rc)
		snprintf(err, errlen,
			 "%s value '%s' for --mtest-target: expected a share from 0.01%% to 100%% "
			 "or a size from 4K to 1P",
			 rc == -ERANGE ? "out-of-range" : "invalid", arg);
	return rc;
}

static const struct ul_opt mtest_opts[] = {
	{ "mtest-target", UL_OPT_CALL, .arg = "PCT|SIZE", .set = set_target, .def_text = "80%",
	  .help = "what each mtest run allocates: a share of budget + free swap, or a size",
	  .man = "The share counts the memory budget plus free swap, less what is not\n"
		 "available (MemAvailable counts reclaimable cache)." },
	{ "mtest-chunk", UL_OPT_SIZE, 4 * UL_KiB, UL_GiB, UL_MTEST_DEFAULT_CHUNK,
	  "mtest's allocation size", .arg = "SIZE", UL_OPT_AT(struct ul_mtest_opts, chunk_bytes) },
	{ NULL },
};

int ul_mtest_plan(uint64_t budget, uint64_t available, uint64_t swap_free, int64_t centi,
		  uint64_t explicit_bytes, uint64_t cap, struct ul_mtest_plan *out)
{
	uint64_t share;

	memset(out, 0, sizeof(*out));
	out->budget = budget;
	out->available = available < budget ? available : budget;
	out->swap_free = swap_free;
	out->base = budget + swap_free;
	out->in_use = budget - out->available;
	if (explicit_bytes) {
		if (cap && explicit_bytes > cap)
			return -E2BIG;
		out->target = explicit_bytes;
		return 0;
	}
	out->centi = centi;
	/* base / 10000 * centi loses < 10000 bytes; it cannot overflow. */
	share = out->base / 10000 * (uint64_t)centi + out->base % 10000 * (uint64_t)centi / 10000;
	if (share <= out->in_use)
		return -ENOSPC;
	out->target = share - out->in_use;
	if (cap && out->target > cap) {
		out->target = cap;
		out->capped = true;
	}
	return 0;
}

struct mtest_state {
	struct ul_engine *eng;
	const struct ul_mtest_opts *opts;
	struct ul_cell *cell; /* the round's */
	struct ul_mtest_plan plan;
	uint64_t chunk;
	struct ul_probe_ctx ctx;      /* the mtest01 probe's; ctx.arg = &size */
	struct ul_mtest01_size size;  /* what every run allocates */
	struct ul_whole_run *run;     /* the mtest01 probe, started */
	void *probe;		      /* our own deadline probe when no --deadline monitor runs */
	struct ul_engine_step step;   /* the round: its cell and progress */
	struct ul_breakdown_rec *why; /* each run's parts (NULL: none recorded) */
	int passes, alloc_failures, oom_kills, failures; /* of the round's run */
};

/* Size the runs; on refusal print why and return an engine result. */
static int plan_target(struct mtest_state *st)
{
	struct ul_engine *eng = st->eng;
	const struct ul_engine_config *cfg = eng->cfg;
	const struct ul_mtest_opts *o = st->opts;
	uint64_t budget = eng->run->params.mem_budget_bytes, available, swap_free, cap;
	struct ul_meminfo mi;
	char a[32], b[32];
	int rc;

	rc = ul_meminfo_read(&mi);
	if (rc)
		return ul_engine_fail_errno(rc, "mtest: cannot read /proc/meminfo");
	available = mi.available;
	swap_free = mi.swap_free;
	if (eng->have_cgroup) {
		struct ul_cgroup_stats cs;

		/* Inside the run's cgroup what is free is its limit minus
		 * what it already holds, and the swap it may use. */
		if (ul_cgroup_read(&eng->cgroup, &cs) == 0)
			available = cs.current_bytes < budget ? budget - cs.current_bytes : 0;
		if (eng->cgroup.swap_limited && cfg->swap_bytes && cfg->swap_bytes < swap_free)
			swap_free = cfg->swap_bytes;
	}
	cap = eng->mem_ceiling_bytes;
	if (cfg->mem_footprint_cap_bytes && (!cap || cfg->mem_footprint_cap_bytes < cap))
		cap = cfg->mem_footprint_cap_bytes;
	rc = ul_mtest_plan(budget, available, swap_free,
			   o->target_centi ? o->target_centi : UL_MTEST_DEFAULT_CENTI,
			   o->target_bytes, cap, &st->plan);
	if (rc == -E2BIG) {
		ul_fmt_size(a, sizeof(a), o->target_bytes);
		ul_fmt_size(b, sizeof(b), cap);
		ul_error("mtest: --mtest-target %s is more than this run may use (%s)", a, b);
		return UL_ENGINE_REFUSED;
	}
	if (rc) {
		ul_fmt_size(a, sizeof(a), st->plan.in_use);
		ul_error("mtest: more memory than the share asked for is already in use (%s of the "
			 "budget is not available)",
			 a);
		return UL_ENGINE_REFUSED;
	}
	return UL_ENGINE_OK;
}

/* The plan in the round's cell; mtest_runs (runs in this cell) is 1 since
 * runs became replicates, more in cells of earlier versions. */
static int record_plan(struct mtest_state *st, int runs)
{
	const struct ul_mtest_plan *p = &st->plan;
	struct ul_cell *c = st->cell;
	int rc = 0;

	rc |= ul_cell_set_metric(c, "mtest_runs", runs);
	rc |= ul_cell_set_metric(c, "mtest_chunk_bytes", (double)st->chunk);
	rc |= ul_cell_set_metric(c, "mtest_target_bytes", (double)p->target);
	rc |= ul_cell_set_metric(c, "mtest_target_centi", (double)p->centi);
	rc |= ul_cell_set_metric(c, "mtest_budget_bytes", (double)p->budget);
	rc |= ul_cell_set_metric(c, "mtest_available_bytes", (double)p->available);
	rc |= ul_cell_set_metric(c, "mtest_swap_free_bytes", (double)p->swap_free);
	rc |= ul_cell_set_metric(c, "mtest_in_use_bytes", (double)p->in_use);
	rc |= ul_cell_set_metric(c, "mtest_capped", p->capped ? 1 : 0);
	return rc ? -ENOMEM : 0;
}

/* Counts how an ended run went: the last value of its status series. */
static void count_run(struct mtest_state *st)
{
	const struct ul_series *s = ul_cell_find_series(st->cell, UL_MTEST_STATUS_SERIES);

	switch (s && s->n ? s->v[s->n - 1] : UL_MTEST_FAILED) {
	case UL_MTEST_PASS:
		st->passes++;
		break;
	case UL_MTEST_ALLOC_FAILED:
		st->alloc_failures++;
		break;
	case UL_MTEST_KILLED:
		st->oom_kills++;
		break;
	default:
		st->failures++;
		break;
	}
}

/*
 * Waits for run run_i (the round) until --sample-timeout from its start, the deadline
 * probe watched.  On a timeout or an interrupt the run was stopped and the
 * cell says why; *ended tells whether it ended by itself.
 */
static int wait_run(struct mtest_state *st, enum ul_measure_result r, int run_i, int err,
		    struct ul_child *exited, int64_t deadline, bool *ended)
{
	struct ul_engine *eng = st->eng;
	struct ul_cell *cell = st->cell;
	struct ul_child *probe =
		ul_engine_deadline_child(st->probe ? st->probe : ul_engine_deadline_state(eng));
	char limit[32];

	*ended = false;
	while (r == UL_MEASURE_CHILD_EXITED) {
		if (exited == probe && probe) {
			ul_engine_progress_done(eng);
			ul_warning("mtest: the deadline probe died during run %d", run_i + 1);
		}
		/* others are their owners' */
		r = ul_whole_wait(&eng->sup, st->run, deadline, &exited);
	}
	switch (r) {
	case UL_MEASURE_OK:
		*ended = true;
		return UL_ENGINE_OK;
	case UL_MEASURE_TIMEOUT:
		cell->outcome = UL_CELL_PROBE_FAILED;
		ul_fmt_duration(limit, sizeof(limit), eng->cfg->sample_timeout_ns);
		snprintf(cell->note, sizeof(cell->note),
			 "mtest run %d did not finish within %s (--sample-timeout)", run_i + 1,
			 limit);
		return UL_ENGINE_OK;
	case UL_MEASURE_INTERRUPTED:
		cell->outcome = UL_CELL_INTERRUPTED;
		snprintf(cell->note, sizeof(cell->note), "interrupted during mtest run %d",
			 run_i + 1);
		return UL_ENGINE_INTERRUPTED;
	default:
		ul_engine_progress_done(eng);
		ul_error_errno(err, "mtest: cannot start run %d", run_i + 1);
		return UL_ENGINE_ERROR;
	}
}

/* One mtest01 run of the probe: measured, then recorded and counted. */
static int one_run(struct mtest_state *st, int run_i)
{
	struct ul_engine *eng = st->eng;
	struct ul_child *exited = NULL;
	int64_t deadline = ul_now_ns() + eng->cfg->sample_timeout_ns;
	enum ul_measure_result r;
	struct ul_breakdown_sample why;
	const struct ul_child *run;
	int64_t elapsed = 0;
	bool ended;
	int err = 0, rc;

	ul_breakdown_begin_life(st->why); /* the run is forked from now */
	r = ul_whole_measure(&eng->sup, st->run, deadline, &err, &exited);
	rc = wait_run(st, r, run_i, err, exited, deadline, &ended);
	if (rc != UL_ENGINE_OK || !ended)
		return rc;
	run = ul_whole_child(st->run, &elapsed);
	ul_breakdown_end_life(st->why, run, elapsed, &why);
	if (ul_whole_result(st->run, st->cell) || ul_breakdown_push(st->cell, &why, false))
		return ul_engine_oom();
	count_run(st);
	return UL_ENGINE_OK;
}

/*
 * mtest allocates most of memory to make the system page.  A cell that
 * shows no paging at all (no swap in the run's cgroup, no major fault of
 * its processes, nothing swapped out system-wide) measured no pressure,
 * as resp's memory tests: flag it so it never passes for a result.
 * Evidence the memory monitor did not record counts as unknown.
 */
static int judge_pressure(struct ul_cell *cell)
{
	static const char *const paging[] = { "cg_swap_bytes", "cg_majflt", "swap_out_pages",
					      "probe_majflt" };
	bool known = false, paged = false;
	double v;

	if (cell->outcome != UL_CELL_OK)
		return 0;
	for (size_t i = 0; i < UL_ARRAY_SIZE(paging); i++)
		if (ul_cell_metric(cell, paging[i], &v)) {
			known = true;
			paged |= v > 0;
		}
	if (!known)
		return 0;
	if (!paged) {
		cell->flags |= UL_CELL_NO_PRESSURE;
		if (!cell->note[0]) /* the report prints it after "no-pressure:" */
			snprintf(cell->note, sizeof(cell->note),
				 "it paged nothing (no swap-out, no major fault): no memory "
				 "pressure was measured; raise --mtest-target or add swap");
	}
	return ul_cell_set_metric(cell, "pressure_reached", paged ? 1.0 : 0.0);
}

static int finish_cell(struct mtest_state *st, int runs_done)
{
	struct ul_cell *cell = st->cell;
	int rc = judge_pressure(cell);

	rc |= ul_cell_set_metric(cell, "mtest_runs_done", runs_done);
	rc |= ul_cell_set_metric(cell, "mtest_passes", st->passes);
	rc |= ul_cell_set_metric(cell, "mtest_alloc_failures", st->alloc_failures);
	rc |= ul_cell_set_metric(cell, "mtest_oom_kills", st->oom_kills);
	rc |= ul_cell_set_metric(cell, "mtest_other_failures", st->failures);
	if (cell->outcome == UL_CELL_OK && (st->alloc_failures || st->oom_kills || st->failures))
		snprintf(cell->note, sizeof(cell->note),
			 "%d of %d runs did not allocate the target: %d allocation failures, %d "
			 "killed (OOM), %d other",
			 runs_done - st->passes, runs_done, st->alloc_failures, st->oom_kills,
			 st->failures);
	return rc ? -ENOMEM : 0;
}

/* The window's hooks: our own deadline probe, if any, cut at the cell. */
static void probe_begin(void *arg, struct ul_cell *cell)
{
	struct mtest_state *st = arg;

	if (st->probe)
		ul_monitor_deadline.cell_begin(st->eng, st->probe, cell);
}

static int probe_end(void *arg, struct ul_cell *cell, int result)
{
	struct mtest_state *st = arg;

	if (st->probe && ul_monitor_deadline.cell_end(st->eng, st->probe, cell))
		ul_warning("mtest: cannot record the deadline probe");
	return result;
}

/* The measure: the round's run.  One that timed out, was interrupted or
 * failed to start records nothing: the series stay empty. */
static int measure_run(void *arg, struct ul_cell *cell, struct ul_running_load *rl)
{
	struct mtest_state *st = arg;

	(void)cell;
	(void)rl;
	return one_run(st, st->step.round);
}

/* Whether --tests leaves the suite's one test in. */
static bool wanted(const struct ul_engine_config *cfg, const struct ul_suite *suite)
{
	bool yes = !cfg->n_tests;

	for (size_t i = 0; i < cfg->n_tests; i++)
		yes |= ul_suite_has_test(suite, cfg->tests[i]);
	return yes;
}

/* Before any suite starts: a target this run cannot hold is refused up
 * front.  The run sizes again when it starts (memory may have changed). */
static int mtest_preflight(struct ul_engine *eng, const struct ul_suite *suite)
{
	struct mtest_state st = { .eng = eng, .opts = ul_engine_suite_opts(eng, suite) };

	return wanted(eng->cfg, suite) ? plan_target(&st) : UL_ENGINE_OK;
}

/*
 * One round: its own cell, the run measured in the window (the deadline
 * probe cut at the cell), counted, committed.  Returns an engine result;
 * a failed run is the cell's outcome, and the next round still runs, as
 * in every suite of replicates.
 */
static int run_round(struct mtest_state *st, const struct ul_suite *suite,
		     const struct ul_probe *probe)
{
	struct ul_engine *eng = st->eng;
	/* No load: the run is the cell's work (its unit: bytes touched). */
	const struct ul_engine_window w = {
		.begin = probe_begin, .measure = measure_run, .end = probe_end, .arg = st
	};
	const struct ul_series *b;
	char what[64], size[32];
	int result, committed;

	st->passes = st->alloc_failures = st->oom_kills = st->failures = 0;
	ul_fmt_size(size, sizeof(size), st->size.target);
	snprintf(what, sizeof(what), "allocating and touching %s", size);
	st->cell = ul_engine_new_cell_named(eng, suite->name, suite->tests[0].load, "bytes",
					    suite->probe, probe->whole->series);
	if (!st->cell)
		return UL_ENGINE_ERROR;
	result = UL_ENGINE_OK;
	if (ul_engine_cell_step(eng, st->cell, suite->name, &st->step, what))
		result = UL_ENGINE_ERROR; /* printed */
	else if (record_plan(st, 1))
		result = ul_engine_oom();
	if (result != UL_ENGINE_OK) { /* before the window: no half-made cell stays */
		ul_engine_drop_cell(eng, st->cell);
		st->cell = NULL;
		return result;
	}
	result = ul_engine_measure_cell(eng, st->cell, NULL, &w);
	ul_breakdown_cell_end(st->why, st->cell,
			      ul_cell_find_series(st->cell, probe->whole->series[0])->n);
	b = ul_cell_find_series(st->cell, UL_MTEST_BYTES_SERIES);
	for (size_t i = 0; b && i < b->n; i++)
		st->cell->load_units += (uint64_t)b->v[i];
	if (finish_cell(st, (int)ul_cell_find_series(st->cell, probe->whole->series[0])->n))
		result = ul_engine_oom();
	ul_engine_progress_done(eng);
	if (st->cell->note[0])
		ul_note("%s", st->cell->note);
	committed = ul_engine_commit_cell(eng, st->cell);
	return result == UL_ENGINE_OK ? committed : result;
}

/* The whole driver's tick while a run goes (its watch). */
static void poll_parts(void *arg, int64_t ran_ns)
{
	(void)ran_ns;
	ul_breakdown_poll(arg);
}

static int mtest_run(struct ul_engine *eng, const struct ul_suite *suite)
{
	const struct ul_engine_config *cfg = eng->cfg;
	struct mtest_state st = { .eng = eng, .opts = ul_engine_suite_opts(eng, suite) };
	const struct ul_probe *probe = ul_probe_find(suite->probe);
	int rounds = cfg->runs > 0 ? cfg->runs : UL_MTEST_DEFAULT_RUNS;
	int result, rc;

	if (!wanted(cfg, suite))
		return UL_ENGINE_OK;
	if (!probe || !probe->whole)
		UL_BUG("the mtest01 probe is not registered with its whole ops");
	st.chunk = st.opts->chunk_bytes ? st.opts->chunk_bytes : UL_MTEST_DEFAULT_CHUNK;
	result = plan_target(&st);
	if (result != UL_ENGINE_OK)
		return result;
	ul_engine_probe_ctx(eng, probe, &st.ctx);
	st.size = (struct ul_mtest01_size){ .target = st.plan.target, .chunk = st.chunk };
	st.ctx.arg = &st.size;
	rc = ul_whole_start(probe, &st.ctx, &st.run);
	if (rc)
		return ul_engine_fail_errno(-rc, "mtest: cannot start the %s probe", probe->name);

	/* The audio probe runs alongside unless --deadline chose another
	 * (then the deadline monitor runs it) or --deadline none. */
	if (!ul_engine_deadline_state(eng) && !ul_engine_deadline_off(eng)) {
		rc = ul_monitor_deadline.start(eng, &st.probe);
		if (rc) {
			st.probe = NULL;
			ul_whole_stop(&eng->sup, st.run);
			return rc == -EINTR ? UL_ENGINE_INTERRUPTED : UL_ENGINE_ERROR;
		}
	}
	/* Delay accounting on before the first run: it counts from then on.
	 * While a run goes, its exit records so far are taken every second. */
	st.why = ul_breakdown_open(eng->journal.fd >= 0 ? &eng->journal : NULL, cfg->cpus);
	ul_whole_set_watch(st.run, &(struct ul_whole_watch){ .tick_ns = st.why ? UL_NS_PER_SEC : 0,
							     .tick = poll_parts,
							     .arg = st.why });
	/* One test: its rounds one after the other, each a replicate. */
	st.step = (struct ul_engine_step){ .n = (size_t)rounds,
					   .rounds = rounds,
					   .test = suite->tests[0].load };
	for (; st.step.round < rounds && result == UL_ENGINE_OK; st.step.round++) {
		st.step.i = (size_t)st.step.round;
		result = run_round(&st, suite, probe);
	}
	if (st.probe)
		ul_monitor_deadline.stop(eng, st.probe);
	ul_whole_stop(&eng->sup, st.run);
	ul_breakdown_close(st.why, eng->journal.fd >= 0 ? &eng->journal : NULL);
	return result;
}

/* What report shows of it beyond the generic tables (report/suites.h):
 * its block per test, which prints the deadline probe too. */
static const struct ul_suite_report mtest_report = {
	.text_cell = ul_report_mtest_native,
	.flags = UL_RS_OWN_DEADLINE,
};

const struct ul_suite ul_suite_mtest = {
	.name = "mtest",
	.summary = "LTP mtest01 -p80 -w repeated --runs times, an audio deadline probe alongside",
	.probe = "mtest01",
	.tests = mtest_tests,
	.run_opts = "sample-timeout,deadline-rt",
	.format = "mtest",
	.metrics = mtest_metrics,
	.opts = mtest_opts,
	.opts_size = sizeof(struct ul_mtest_opts),
	.preflight = mtest_preflight,
	.run = mtest_run,
	.report = &mtest_report,
};

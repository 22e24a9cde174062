/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * The contest suite: Con Kolivas's kernel-compile-under-load benchmark.  A
 * reference job (by default a generated C tree built with make) is timed
 * whole under each of eight loads, in interleaved rounds.
 *
 * One cell per job: suite "contest", the load's name, probe "job".  Series
 * wall_ns, user_ns, sys_ns hold the job's elapsed time and the CPU of its
 * whole process tree (wait4 rusage: make and every compiler it reaped);
 * metrics hold CPU%, the load's LCPU% and Loads (see store_results()).
 *
 * Per cell: run the preparation (make clean), sync and (as root) drop the
 * page cache, start the load (it gets a private directory removed after
 * the cell), wait the lead time, run and time the job, stop the load.  A
 * load that fails to start or dies before the job ends invalidates the
 * cell (contest's known bug was to report such a run as loaded).  A job
 * that fails is recorded as probe-failed; when the very first job fails
 * the job itself is broken and the suite stops.
 */
#include "core/compat.h"
#include "core/log.h"
#include "core/parse.h"
#include "engine/engine.h"
#include "engine/suites/contest/internal.h"
#include "engine/suites/contest/srctree.h"
#include "load/load.h"
#include "probe/job.h"
#include "proc/scratch.h"
#include "report/html/sections.h"
#include "report/suites.h"

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/time.h>
#include <sys/wait.h>
#include <unistd.h>

/* Kolivas's loads in the seed's order of blocks. */
static const struct ul_suite_test contest_tests[] = {
	{ .load = "noload" },	 { .load = "process_load" }, { .load = "io_load" },
	{ .load = "mem_load" },	 { .load = "tarc_load" },    { .load = "tarx_load" },
	{ .load = "read_load" }, { .load = "lslr_load" },    { NULL },
};

static const struct ul_suite_metric contest_metrics[] = {
	{ .series = "wall_ns", .label = "Time", .unit = "ns", .direction = UL_LOWER_IS_BETTER },
	{ NULL },
};

/*
 * Loads may take long to be ready: read_load writes a budget-sized file
 * and tarx_load archives the tree in prepare(), at disk speed (24 GiB at
 * 300 MB/s is 80 s).  Set-up is not measured, so a generous bound only
 * delays the diagnosis of a load that hangs.
 */
#define CONTEST_READY_TIMEOUT_NS (30 * 60 * UL_NS_PER_SEC)

double ul_contest_loads_divisor(const char *load)
{
	static const struct {
		const char *load;
		double divisor;
	} table[] = {
		{ "process_load", 10000.0 },
		{ "mem_load", 1000.0 },
		{ "io_load", 100.0 },
		{ "read_load", 100.0 },
	};

	for (size_t i = 0; i < UL_ARRAY_SIZE(table); i++)
		if (!strcmp(table[i].load, load))
			return table[i].divisor;
	return 1.0;
}

static int set_metrics(struct ul_cell *cell, const char *const *names, const double *values,
		       size_t n)
{
	int rc = 0;

	for (size_t i = 0; i < n; i++)
		rc |= ul_cell_set_metric(cell, names[i], values[i]);
	return rc;
}

/*
 * A finished job's numbers.  CPU% = (user + sys) / wall x 100 as time(1)
 * prints it: up to 100 x CPUs for a parallel build.  LCPU% = the load's
 * CPU since it was released / how long it ran x 100, same scale; the load
 * runs the lead time and the stop longer than the job (contest's CPU% +
 * LCPU% can exceed 100).  Loads counts the load's work while the job ran
 * (cell->load_units, as Kolivas counted "MB written during the compile");
 * loads_total also counts the lead time and the stop.
 */
static int store_results(struct contest *ct, struct ul_cell *cell, const struct ul_child *job,
			 int64_t wall_ns, const struct ul_load_usage *lu, uint64_t total_units)
{
	int64_t user = ul_tv_to_ns(&job->ru.ru_utime), sys = ul_tv_to_ns(&job->ru.ru_stime);
	double div = ul_contest_loads_divisor(cell->load);
	static const char *const names[] = {
		"cpu_pct",    "loads",	    "loads_total", "loads_divisor",
		"job_majflt", "job_minflt", "job_nvcsw",   "job_nivcsw",
	};
	double values[] = {
		wall_ns > 0 ? (double)(user + sys) * 100.0 / (double)wall_ns : 0.0,
		(double)cell->load_units / div,
		(double)total_units / div,
		div,
		(double)job->ru.ru_majflt,
		(double)job->ru.ru_minflt,
		(double)job->ru.ru_nvcsw,
		(double)job->ru.ru_nivcsw,
	};
	int rc;

	if (ul_job_result(job, wall_ns, cell)) /* the probe's series */
		return -ENOMEM;
	rc = set_metrics(cell, names, values, UL_ARRAY_SIZE(values));
	if (lu->valid && lu->ran_ns > 0) {
		rc |= ul_cell_set_metric(cell, "load_cpu_pct",
					 (double)(lu->user_ns + lu->sys_ns) * 100.0 /
						 (double)lu->ran_ns);
		rc |= ul_cell_set_metric(cell, "load_user_ns", (double)lu->user_ns);
		rc |= ul_cell_set_metric(cell, "load_sys_ns", (double)lu->sys_ns);
		rc |= ul_cell_set_metric(cell, "load_ran_ns", (double)lu->ran_ns);
	}
	ct->jobs_ok++;
	ct->job_ns_sum += wall_ns;
	return rc ? -ENOMEM : 0;
}

/* "~12m left" from the mean successful job so far; "" before the first. */
static void time_left(const struct contest *ct, char *buf, size_t len)
{
	int64_t per, left;
	char d[32];

	buf[0] = '\0';
	if (!ct->jobs_ok)
		return;
	per = ct->job_ns_sum / ct->jobs_ok + (ct->o.lead_ns > 0 ? ct->o.lead_ns : 0);
	left = per * (int64_t)(ct->cells_total - ct->cells_done);
	/* Whole minutes past two (an estimate), else tens of seconds. */
	if (left >= 120 * UL_NS_PER_SEC)
		left = left / (60 * UL_NS_PER_SEC) * (60 * UL_NS_PER_SEC);
	else
		left = left / (10 * UL_NS_PER_SEC) * (10 * UL_NS_PER_SEC);
	ul_fmt_duration(d, sizeof(d), left);
	snprintf(buf, len, ", ~%s left", d);
}

/* Fill the cell after the job ran; returns an engine result. */
static int job_outcome(struct contest *ct, struct ul_cell *cell, enum run_result rr,
		       const struct ul_child *job, int spawn_err, const char *log)
{
	struct ul_engine *eng = ct->eng;
	char how[96], tail[200], d[32];

	switch (rr) {
	case RUN_EXITED:
		ct->jobs_run++;
		if (WIFEXITED(job->wstatus) && WEXITSTATUS(job->wstatus) == 0)
			return UL_ENGINE_OK;
		ul_wstatus_describe(job->wstatus, how, sizeof(how));
		ul_contest_log_tail(log, CONTEST_LOG_TAIL, tail, sizeof(tail));
		cell->outcome = UL_CELL_PROBE_FAILED;
		ul_contest_note(cell, "job '%s' failed (%s)%s%s", ct->job.text, how,
				*tail ? ": " : "", tail);
		ul_engine_progress_done(eng);
		ul_error("contest: under %s: %s", cell->load, cell->note);
		/* The first job of the suite failing means the job is broken, not loaded. */
		if (ct->jobs_run == 1) {
			ul_note("contest: stopping: the job must succeed once before loads "
				"are compared");
			return UL_ENGINE_ERROR;
		}
		return UL_ENGINE_OK;
	case RUN_SPAWN_FAILED:
		cell->outcome = UL_CELL_PROBE_FAILED;
		ul_contest_note(cell, "cannot start job '%s': %s", ct->job.text,
				strerror(-spawn_err));
		ul_engine_progress_done(eng);
		ul_error("contest: %s", cell->note);
		return UL_ENGINE_ERROR;
	case RUN_TIMEOUT:
		ul_fmt_duration(d, sizeof(d), ct->o.job_timeout_ns);
		cell->outcome = UL_CELL_PROBE_FAILED;
		ul_contest_note(cell, "job '%s' did not finish within %s", ct->job.text, d);
		ul_engine_progress_done(eng);
		ul_error("contest: under %s: %s", cell->load, cell->note);
		return UL_ENGINE_OK;
	case RUN_INTERRUPTED:
		cell->outcome = UL_CELL_INTERRUPTED;
		ul_contest_note(cell, "interrupted while the job ran");
		return UL_ENGINE_INTERRUPTED;
	case RUN_UNKILLABLE:
		cell->outcome = UL_CELL_PROBE_FAILED;
		ul_contest_note(cell, "the job could not be killed");
		ul_engine_progress_done(eng);
		ul_error("contest: %s", cell->note);
		return UL_ENGINE_ERROR;
	case RUN_LOAD_DIED:
		break; /* the caller words it: it knows the load */
	}
	return UL_ENGINE_OK;
}

/* The cell of one job, its series made first (series[0] is the primary). */
static struct ul_cell *new_cell(struct contest *ct, const struct ul_load *load)
{
	static const char *const series[] = { "wall_ns", "user_ns", "sys_ns", NULL };

	return ul_engine_new_cell_named(ct->eng, "contest", load->name, load->unit, "job", series);
}

/* One job under one load: what the hooks of its measured window share. */
struct contest_cell {
	struct contest *ct;
	const char *dir; /* the cell's private directory: the load's files, the logs */
	char left[48], prog[160];
	int round;
	bool dropped; /* the page cache was dropped before the load started */
	struct ul_load_usage lu;
	enum run_result rr;
	struct ul_child job;
	int64_t wall_ns;
	struct ul_breakdown_sample why; /* the job tree's parts of wall_ns */
};

/* Before the load: the job's preparation (untimed), then the caches flushed. */
static int cell_prepare(void *arg, struct ul_cell *cell)
{
	struct contest_cell *cc = arg;
	struct contest *ct = cc->ct;
	int result = UL_ENGINE_OK;

	if (ct->have_prep) {
		ul_engine_progress(ct->eng, "%s: preparing the job%s", cc->prog, cc->left);
		if (ul_contest_run_prep(ct, cell, cc->dir, &result))
			return result;
	}
	ul_engine_progress(ct->eng, "%s: flushing caches, starting the load%s", cc->prog, cc->left);
	cc->dropped = ul_contest_flush_caches(ct);
	return UL_ENGINE_OK;
}

/* The load's context: its own directory, and the tree it reads. */
static void cell_load_ctx(void *arg, const struct ul_load *load, struct ul_load_ctx *ctx)
{
	const struct contest_cell *cc = arg;
	const struct contest *ct = cc->ct;

	ctx->scratch_dir = cc->dir;
	if (!strcmp(load->name, "lslr_load"))
		ctx->src_dir = ct->o.lslr_dir;
	else if (ct->o.job_dir)
		ctx->src_dir = ct->job_dir; /* contest archived the tree it compiled */
	else
		ctx->src_dir = ct->tree[0] ? ct->tree : NULL;
}

/* After the lead time: the job, timed whole with the load watched. */
static int cell_measure(void *arg, struct ul_cell *cell, struct ul_running_load *rl)
{
	struct contest_cell *cc = arg;
	struct contest *ct = cc->ct;
	char log[PATH_MAX + 16];
	int err = 0;

	snprintf(log, sizeof(log), "%s/job.log", cc->dir);
	cc->rr = ul_contest_run_command(ct, &ct->job, ct->job_dir, log, ct->o.job_timeout_ns,
					ul_load_child(rl), cc->prog, cc->left, &cc->job,
					&cc->wall_ns, &err, &cc->why);
	if (cc->rr == RUN_LOAD_DIED) {
		ul_engine_load_died(cell, "while the job ran", rl);
		return UL_ENGINE_OK;
	}
	return job_outcome(ct, cell, cc->rr, &cc->job, err, log);
}

static int cell_end(void *arg, struct ul_cell *cell, int result)
{
	const struct contest_cell *cc = arg;

	(void)cell;
	ul_engine_progress(cc->ct->eng, "%s: stopping the load", cc->prog);
	return result;
}

/* The load stopped: a load death said, the job's numbers (they need the
 * load's CPU) and the cell's settings recorded. */
static int cell_stopped(void *arg, struct ul_cell *cell, int result)
{
	struct contest_cell *cc = arg;
	struct contest *ct = cc->ct;
	const struct ul_series *wall;
	double total = 0;

	if (cell->outcome == UL_CELL_LOAD_DIED) {
		ul_engine_progress_done(ct->eng);
		ul_error("contest: %s", cell->note);
	}
	ul_cell_metric(cell, "load_units_total", &total);
	if (cell->outcome == UL_CELL_OK && cc->rr == RUN_EXITED &&
	    (store_results(ct, cell, &cc->job, cc->wall_ns, &cc->lu, (uint64_t)total) ||
	     ul_breakdown_push(cell, &cc->why, false)))
		result = ul_engine_oom();
	wall = ul_cell_find_series(cell, "wall_ns");
	ul_breakdown_cell_end(ct->why, cell, wall ? wall->n : 0);
	if (ul_cell_set_metric(cell, "caches_dropped", cc->dropped ? 1.0 : 0.0) ||
	    ul_cell_set_metric(cell, UL_CELL_ROUND, cc->round + 1) ||
	    ul_cell_set_metric(cell, "lead_ns", (double)ct->o.lead_ns))
		result = ul_engine_oom();
	return result;
}

/* The tree's metrics, the cell's directory removed, the cell stored. */
static int finish_cell(struct contest *ct, struct ul_cell *cell, const char *dir, int result)
{
	int rc;

	if (ct->tree[0] && (ul_cell_set_metric(cell, "tree_bytes", (double)ct->tree_bytes) ||
			    ul_cell_set_metric(cell, "tree_seed", (double)ct->spec.seed) ||
			    ul_cell_set_metric(cell, "tree_units", ct->spec.units)))
		result = UL_ENGINE_ERROR;
	/* The load's files go now: the next load gets the whole disk reserve. */
	rc = ul_scratch_remove(dir);
	if (rc) {
		ul_error_errno(rc, "contest: cannot remove '%s'", dir);
		if (result == UL_ENGINE_OK)
			result = UL_ENGINE_ERROR;
	}
	ct->cells_done++;
	rc = ul_engine_commit_cell(ct->eng, cell);
	return rc && result == UL_ENGINE_OK ? rc : result;
}

/* One job under one load: preparation, flush, load, lead time, job, stop. */
static int run_cell(struct contest *ct, const struct ul_load *load, int round)
{
	struct ul_engine *eng = ct->eng;
	struct ul_cell *cell = new_cell(ct, load);
	char dir[PATH_MAX];
	struct contest_cell cc = { .ct = ct, .dir = dir, .round = round, .rr = RUN_EXITED };
	const struct ul_engine_window w = {
		.prepare = cell_prepare,
		.load_ctx = cell_load_ctx,
		.ready_timeout_ns = CONTEST_READY_TIMEOUT_NS,
		.lead_ns = ct->o.lead_ns,
		.what = "the job",
		.measure = cell_measure,
		.end = cell_end,
		.stopped = cell_stopped,
		.usage = &cc.lu,
		.arg = &cc,
	};
	int rc;

	if (!cell)
		return UL_ENGINE_ERROR;
	time_left(ct, cc.left, sizeof(cc.left));
	snprintf(cc.prog, sizeof(cc.prog), "[contest %zu/%zu] %s, round %d/%d", ct->cells_done + 1,
		 ct->cells_total, load->name, round + 1, ct->runs);
	rc = ul_contest_cell_dir(eng, cell, dir, sizeof(dir));
	if (rc) {
		ul_engine_drop_cell(eng, cell);
		return ul_engine_fail_errno(rc, "contest: cannot create a directory in '%s'",
					    eng->scratch);
	}
	return finish_cell(ct, cell, dir, ul_engine_measure_cell(eng, cell, load, &w));
}

static bool tar_selected(const char *const *tests, size_t n)
{
	for (size_t i = 0; i < n; i++)
		if (!strcmp(tests[i], "tarc_load") || !strcmp(tests[i], "tarx_load"))
			return true;
	return false;
}

/* Generate the reference tree into the scratch directory. */
static int make_tree(struct contest *ct)
{
	struct ul_engine *eng = ct->eng;
	int r;

	if (eng->cfg->quick)
		ul_srctree_spec_quick(&ct->spec);
	else
		ul_srctree_spec_default(&ct->spec);
	if (ct->o.tree_units)
		ct->spec.units = ct->o.tree_units;
	ct->spec.seed = ct->o.tree_seed;
	if ((size_t)snprintf(ct->tree, sizeof(ct->tree), "%s/tree", eng->scratch) >=
	    sizeof(ct->tree)) {
		ul_error("contest: the scratch directory's path is too long");
		return -1;
	}
	ul_engine_progress(eng, "[contest] generating the reference tree (%u units)",
			   ct->spec.units);
	r = ul_srctree_generate(ct->tree, &ct->spec, &ct->tree_bytes);
	if (r) {
		ul_engine_progress_done(eng);
		ul_error_errno(r, "contest: cannot generate the reference tree in '%s'", ct->tree);
		return -1;
	}
	return 0;
}

/* supported() and check() of every load with the context its cells will get. */
static int preflight(struct contest *ct, const char *const *tests, size_t n)
{
	int result = UL_ENGINE_OK;

	for (size_t i = 0; i < n; i++) {
		const struct ul_load *load = ul_load_find(tests[i]);
		struct ul_load_ctx ctx;
		char why[512] = "";

		if (!load)
			UL_BUG("contest test '%s' has no load", tests[i]);
		if (load->supported && load->supported(why, sizeof(why))) {
			ul_error("load '%s' cannot run here: %s", load->name, why);
			if (result == UL_ENGINE_OK)
				result = UL_ENGINE_UNSUPPORTED;
			continue;
		}
		ul_engine_load_ctx(ct->eng, load, &ctx);
		cell_load_ctx(&(struct contest_cell){ .ct = ct, .dir = ct->eng->scratch }, load,
			      &ctx);
		if (load->check && load->check(&ctx, why, sizeof(why))) {
			ul_error("load '%s': %s", load->name, why);
			result = UL_ENGINE_REFUSED;
		}
	}
	return result;
}

/* What the state holds beyond itself: the resolved commands' argv.
 * Idempotent: the run releases at its end, the engine again after. */
static void release(struct contest *ct)
{
	if (ct->job.argv_owned)
		free(ct->job.argv);
	if (ct->prep.argv_owned)
		free(ct->prep.argv);
	ct->job.argv_owned = ct->prep.argv_owned = false;
}

/* The engine's release of the suite's state (model/suite.h). */
static void contest_release(void *state)
{
	release(state);
}

/*
 * Before any suite of the run starts: the generated tree (the tar loads
 * archive it and their check() measures it), the job and its preparation
 * resolved, every load's supported() and check().
 */
static int contest_preflight(struct ul_engine *eng, const struct ul_suite *suite)
{
	const struct ul_engine_config *cfg = eng->cfg;
	struct contest *ct = ul_engine_suite_state(eng, suite); /* zeroed */
	const char *tests[UL_MAX_TESTS];
	size_t n;

	ct->eng = eng;
	ct->o = *(const struct ul_contest_opts *)ul_engine_suite_opts(eng, suite);
	/* --runs is shared with mtest (whose default differs): 0 = one round. */
	ct->runs = cfg->runs > 0 ? cfg->runs : 1;
	ct->drop_caches = !ct->o.no_drop_caches && geteuid() == 0;
	n = ul_suite_tests(suite, cfg, tests);
	if (!n)
		return UL_ENGINE_OK;
	if ((!ct->o.job || (!ct->o.job_dir && tar_selected(tests, n))) && make_tree(ct))
		return UL_ENGINE_ERROR;
	if (ct->o.job ? ul_contest_user_job(ct) : ul_contest_default_job(ct))
		return UL_ENGINE_ERROR;
	return preflight(ct, tests, n);
}

static int contest_run(struct ul_engine *eng, const struct ul_suite *suite)
{
	struct contest *ct = ul_engine_suite_state(eng, suite);
	const char *tests[UL_MAX_TESTS];
	size_t n = ul_suite_tests(suite, eng->cfg, tests);
	int result = UL_ENGINE_OK;

	if (!n)
		return UL_ENGINE_OK;
	if (ct->eng != eng)
		UL_BUG("contest runs without its preflight");
	ct->cells_total = n * (size_t)ct->runs;
	/* Delay accounting on before the first job: it counts from then on. */
	ct->why = ul_breakdown_open(eng->journal.fd >= 0 ? &eng->journal : NULL, eng->cfg->cpus);
	/* Interleaved rounds (noload, process_load, ..., then again), so slow
	 * drift (thermal, background jobs) does not land on one load. */
	for (int r = 0; r < ct->runs && result == UL_ENGINE_OK; r++)
		for (size_t i = 0; i < n && result == UL_ENGINE_OK; i++)
			result = run_cell(ct, ul_load_find(tests[i]), r);
	ul_engine_progress_done(eng);
	ul_breakdown_close(ct->why, eng->journal.fd >= 0 ? &eng->journal : NULL);
	ct->why = NULL;
	release(ct);
	return result;
}

/* What report shows of it beyond the generic tables (report/suites.h):
 * its seed table under its heading on the page. */
static const struct ul_suite_report contest_report = { .html_intro = ul_html_contest };

const struct ul_suite ul_suite_contest = {
	.name = "contest",
	.summary = "Kolivas's contest: a reference job (a compile) timed whole under eight loads",
	.probe = "job",
	.tests = contest_tests,
	.run_opts = "disk-reserve",
	.tests_any_load = true,
	.format = "contest",
	.opts = ul_contest_opt_table,
	.opts_size = sizeof(struct ul_contest_opts),
	.check_opts = ul_contest_check_opts,
	.preflight = contest_preflight,
	.run = contest_run,
	.state_size = sizeof(struct contest),
	.release = contest_release,
	.metrics = contest_metrics,
	.report = &contest_report,
};

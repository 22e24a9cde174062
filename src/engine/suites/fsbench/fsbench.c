/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * The fsbench suite: dbench's file-server replay (engine/suites/fsbench/fsbench.h), under
 * each --under load in turn, --runs rounds interleaved (every load of round
 * 1, then of round 2: A B A B), each round a cell of its own (a replicate,
 * metric "round"), with throughput from the bytes really moved,
 * per-operation latency and the per-client spread.
 * It plans the rounds and words their outcomes; a round itself is a run
 * of the fsbench probe (probe/fsbench.h), whose clients the whole
 * driver starts and stops and whose values the probe records.
 */
#include "core/compat.h"
#include "core/log.h"
#include "core/parse.h"
#include "engine/breakdown_record.h"
#include "engine/engine.h"
#include "engine/suites/fsbench/fsbench.h"
#include "dbench/loadfile.h"
#include "load/load.h"
#include "probe/fsbench.h"
#include "probe/probe.h"
#include "report/monitors.h"
#include "report/suites.h"

#include <errno.h>
#include <limits.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

/* The loads it runs under come from the run's --under (any registered
 * load, noload by default: ul_engine_under()); this is the default. */
static const struct ul_suite_test fsbench_tests[] = { { .load = "noload" }, { NULL } };

static const struct ul_suite_metric fsbench_metrics[] = {
	{ .series = UL_FSB_S_THROUGHPUT,
	  .label = "throughput",
	  .unit = "B/s",
	  .direction = UL_HIGHER_IS_BETTER },
	{ .series = "fsbench_ops_per_s",
	  .label = "ops/s",
	  .unit = "ops/s",
	  .direction = UL_HIGHER_IS_BETTER },
	{ .series = "fsbench_max_latency_ns",
	  .label = "max latency",
	  .unit = "ns",
	  .direction = UL_LOWER_IS_BETTER },
	{ NULL },
};

#define O(member) UL_OPT_AT(struct ul_fsbench_opts, member)

/* --duration DUR|once */
static int set_duration(void *base, const char *arg, char *err, size_t errlen)
{
	struct ul_fsbench_opts *o = base;
	int rc;

	o->once = !strcmp(arg, "once");
	if (o->once)
		return 0;
	rc = ul_parse_duration_ns(arg, UL_NS_PER_SEC, 24 * 3600 * UL_NS_PER_SEC, &o->duration_ns);
	if (rc)
		snprintf(err, errlen,
			 "%s value '%s' for --duration: expected 'once' or a duration "
			 "from 1s to 24h",
			 rc == -ERANGE ? "out-of-range" : "invalid", arg);
	return rc;
}

/* --warmup DUR: remembered as given, so 0 differs from "not given". */
static int set_warmup(void *base, const char *arg, char *err, size_t errlen)
{
	struct ul_fsbench_opts *o = base;
	int rc = ul_parse_duration_ns(arg, 0, 3600 * UL_NS_PER_SEC, &o->warmup_ns);

	if (rc)
		snprintf(err, errlen,
			 "%s value '%s' for --warmup: expected a duration from 0s "
			 "to 1h",
			 rc == -ERANGE ? "out-of-range" : "invalid", arg);
	o->warmup_set = !rc;
	return rc;
}

static const struct ul_opt fsbench_opts[] = {
	{ "clients", UL_OPT_COUNT, 1, UL_FSB_MAX_CLIENTS, 0, "clients replaying the trace",
	  .arg = "N", .def_text = "4 per CPU", O(clients) },
	{ "duration", UL_OPT_CALL, .arg = "DUR|once", .set = set_duration, .def_text = "60s",
	  .help = "measured time of each round, or one pass of the trace timed until the last "
		  "client ends",
	  .man = "With\n.B once\nevery client's end is recorded: seed 003's "
		 "\\(lqtermination pattern\\(rq." },
	{ "warmup", UL_OPT_CALL, .arg = "DUR", .set = set_warmup, .def_text = "duration / 5",
	  .help = "uncounted replay before the measured time, as dbench" },
	{ "loadfile", UL_OPT_STRING, .arg = "PATH|builtin", O(loadfile),
	  .def_text = UL_FSB_DEFAULT_LOADFILE " when Debian's dbench is installed, else "
					      "builtin",
	  .help = "the dbench 4 loadfile to replay; a malformed line is refused before "
		  "anything runs" },
	{ NULL },
};

/* A --loadfile is parsed now, so a malformed line stops the run before it starts. */
static int fsbench_check_opts(const void *opts, char *err, size_t errlen)
{
	const struct ul_fsbench_opts *o = opts;
	struct ul_fsb_trace t;
	char why[512];
	int rc;

	if (!o->loadfile || !strcmp(o->loadfile, "builtin"))
		return 0;
	ul_fsb_trace_init(&t);
	rc = ul_fsb_trace_load(&t, o->loadfile, why, sizeof(why));
	ul_fsb_trace_free(&t);
	if (rc)
		snprintf(err, errlen, "--loadfile: %s", why);
	return rc ? -EINVAL : 0;
}

struct fsb_suite {
	struct ul_engine *eng;
	const struct ul_fsbench_opts *o;
	struct ul_fsb_trace trace;
	struct ul_fsb_totals totals;
	struct ul_fsbench_spec spec; /* what every round replays: the probe's ctx.arg */
	struct ul_probe_ctx ctx;
	struct ul_whole_run *probe;  /* the fsbench probe, started */
	struct ul_child *load_child; /* the cell's load: its death ends the cell */
	struct ul_engine_step step;  /* the cell being measured */
	bool builtin;
	struct ul_breakdown_rec *why; /* each client's parts (NULL: none recorded) */
};

static int load_trace(struct fsb_suite *st)
{
	const struct ul_fsbench_opts *o = st->o;
	const char *path = o->loadfile;
	char err[512];
	int rc;

	if (path && !strcmp(path, "builtin"))
		path = NULL;
	else if (!path && access(UL_FSB_DEFAULT_LOADFILE, R_OK) == 0)
		path = UL_FSB_DEFAULT_LOADFILE;
	st->builtin = !path;
	if (!path)
		rc = ul_fsb_trace_generate(&st->trace, UL_FSB_GEN_SESSIONS);
	else
		rc = ul_fsb_trace_load(&st->trace, path, err, sizeof(err));
	if (rc == -ENOMEM || (rc && !path))
		return ul_engine_oom();
	if (rc) {
		ul_error("--loadfile: %s", err);
		return UL_ENGINE_REFUSED;
	}
	ul_fsb_trace_totals(&st->trace, &st->totals);
	return UL_ENGINE_OK;
}

/* Create the cell's series in order and record the plan. */
static int prepare_cell(struct fsb_suite *st, struct ul_cell *cell)
{
	const struct ul_fsbench_spec *p = &st->spec;
	int rc = ul_fsbench_make_series(cell, &st->totals);

	rc |= ul_cell_set_metric(cell, "fsbench_clients", p->clients);
	rc |= ul_cell_set_metric(cell, "fsbench_duration_ns", p->once ? 0 : (double)p->duration_ns);
	rc |= ul_cell_set_metric(cell, "fsbench_warmup_ns", (double)p->warmup_ns);
	rc |= ul_cell_set_metric(cell, "fsbench_builtin_trace", st->builtin);
	rc |= ul_cell_set_metric(cell, "fsbench_trace_ops", (double)st->trace.n);
	rc |= ul_cell_set_metric(cell, "fsbench_trace_read_bytes", (double)st->totals.read_bytes);
	rc |= ul_cell_set_metric(cell, "fsbench_trace_write_bytes", (double)st->totals.write_bytes);
	return rc ? -ENOMEM : 0;
}

/* The group driver's tick while a round goes (its watch). */
static void poll_parts(void *arg, int64_t ran_ns)
{
	(void)ran_ns;
	ul_breakdown_poll(arg);
}

/* One round: the probe's run, with the cell's load watched. */
static enum ul_measure_result measure_round(struct fsb_suite *st, struct ul_cell *cell, int *err)
{
	struct ul_engine *eng = st->eng;
	/* Every second the clients' exit records so far are taken (a round
	 * outlasts what the listener's socket holds). */
	const struct ul_whole_watch watch = { .tick_ns = st->why ? UL_NS_PER_SEC : 0,
					      .tick = poll_parts,
					      .arg = st->why,
					      .grace_ns = ul_engine_stop_grace(eng) };
	struct ul_child *ex = NULL;
	enum ul_measure_result r;

	ul_whole_set_watch(st->probe, &watch);
	ul_breakdown_begin_life(st->why); /* the clients are forked from now */
	r = ul_whole_measure(&eng->sup, st->probe, 0, err, &ex);
	while (r == UL_MEASURE_CHILD_EXITED && ex != st->load_child)
		r = ul_whole_wait(&eng->sup, st->probe, 0, &ex); /* a monitor's: its owner's */
	if (r == UL_MEASURE_CHILD_EXITED) {
		char how[96];

		ul_whole_cancel(&eng->sup, st->probe);
		ul_wstatus_describe(ex->wstatus, how, sizeof(how));
		cell->outcome = UL_CELL_LOAD_DIED;
		snprintf(cell->note, sizeof(cell->note), "load died during run %d (%.150s)",
			 st->step.round + 1, how);
	}
	return r;
}

/* Each client's life split into its parts, aligned with the per-client
 * series (fsbench_client_ops), its wall time in why_wall_ns.  0 or
 * -ENOMEM. */
static int push_parts(struct fsb_suite *st, struct ul_cell *cell)
{
	const struct ul_child *kids[UL_FSB_MAX_CLIENTS];
	size_t n = st->why ? ul_whole_children(st->probe, kids, UL_ARRAY_SIZE(kids)) : 0;

	for (size_t i = 0; i < n; i++) {
		struct ul_breakdown_sample s;

		ul_breakdown_end_life(st->why, kids[i], 0, &s);
		if (ul_breakdown_push(cell, &s, true))
			return -ENOMEM;
	}
	return 0;
}

/* The round of a cell (its window's measure) while rl runs; sets the
 * cell's outcome when it is not ok; returns an engine result.  "run R" in
 * notes is the round, as the notes said of in-cell runs before. */
static int one_round(void *arg, struct ul_cell *cell, struct ul_running_load *rl)
{
	struct fsb_suite *st = arg;
	int i = st->step.round, err = 0;
	const char *note = ul_whole_note(st->probe);
	enum ul_measure_result r;

	st->load_child = ul_load_child(rl); /* the round ends early when it dies */
	r = measure_round(st, cell, &err);
	st->load_child = NULL;
	switch (r) {
	case UL_MEASURE_OK:
		return ul_whole_result(st->probe, cell) || push_parts(st, cell) ? ul_engine_oom()
										: UL_ENGINE_OK;
	case UL_MEASURE_CHILD_EXITED: /* the load died */
		return UL_ENGINE_OK;
	case UL_MEASURE_INTERRUPTED:
		cell->outcome = UL_CELL_INTERRUPTED;
		snprintf(cell->note, sizeof(cell->note), "run %d: %s", i + 1, note);
		return UL_ENGINE_INTERRUPTED;
	case UL_MEASURE_TIMEOUT:
		note = "a pass did not finish within --sample-timeout";
		break;
	default:
		if (!note[0])
			return ul_engine_fail_errno(err, "fsbench: cannot set up the clients");
		break;
	}
	cell->outcome = UL_CELL_PROBE_FAILED;
	snprintf(cell->note, sizeof(cell->note), "run %d: %s", i + 1, note);
	return UL_ENGINE_OK;
}

/* One cell: the round of st->step under `load`, committed. */
static int run_cell(struct fsb_suite *st, const struct ul_load *load)
{
	struct ul_engine *eng = st->eng;
	const struct ul_engine_window w = { .measure = one_round, .arg = st };
	char what[UL_NAME_LEN + 16], when[32], how[64];
	const struct ul_series *clients;
	struct ul_cell *cell;
	int result;

	if (st->spec.once)
		snprintf(when, sizeof(when), "one pass");
	else
		ul_fmt_duration(when, sizeof(when), st->spec.warmup_ns + st->spec.duration_ns);
	snprintf(how, sizeof(how), "%d clients, %s", st->spec.clients, when);
	cell = ul_engine_begin_cell(eng, "fsbench", load, "fsbench", &st->step, how);
	if (!cell)
		return UL_ENGINE_ERROR;
	if (prepare_cell(st, cell)) {
		ul_engine_drop_cell(eng, cell);
		return ul_engine_oom();
	}
	result = ul_engine_measure_cell(eng, cell, load, &w);
	clients = ul_cell_find_series(cell, "fsbench_client_ops");
	ul_breakdown_cell_end(st->why, cell, clients ? clients->n : 0);
	ul_engine_progress_done(eng);
	snprintf(what, sizeof(what), "fsbench under %.*s", UL_NAME_LEN - 1, cell->load);
	return ul_engine_end_cell(eng, cell, result, what);
}

/* Before any suite runs: the --under loads' own checks. */
static int fsbench_preflight(struct ul_engine *eng, const struct ul_suite *suite)
{
	const char *const *under;
	size_t n = ul_engine_under(eng->cfg, &under);

	(void)suite;
	return ul_engine_preflight(eng, under, n);
}

/*
 * The derived values compare tests: operations per second of each round
 * that measured time (a round of no elapsed time has no rate, and no
 * made-up one), into out as the hook's contract says (model/suite.h).
 */
static size_t fsbench_metric_values(const struct ul_cell *cell, const struct ul_suite_metric *m,
				    int64_t *out, size_t room)
{
	const struct ul_series *ops = ul_cell_find_series(cell, "fsbench_ops");
	const struct ul_series *el = ul_cell_find_series(cell, "fsbench_elapsed_ns");
	const struct ul_series *s = ul_cell_find_series(cell, m->series);
	size_t n, have = 0;

	if (strcmp(m->series, "fsbench_ops_per_s")) {
		n = s && s->v ? s->n : 0;
		if (n && room)
			memcpy(out, s->v, (n < room ? n : room) * sizeof(*out));
		return n;
	}
	n = ops && el ? (ops->n < el->n ? ops->n : el->n) : 0;
	for (size_t i = 0; i < n; i++) {
		if (el->v[i] <= 0)
			continue;
		if (have < room)
			out[have] = (int64_t)((double)ops->v[i] * 1e9 / (double)el->v[i]);
		have++;
	}
	return have;
}

/* Settings of the rounds from the options, the run and the host. */
static void plan(struct fsb_suite *st)
{
	const struct ul_engine_config *cfg = st->eng->cfg;
	const struct ul_fsbench_opts *o = st->o;
	struct ul_fsbench_spec *p = &st->spec;
	int ncpu = st->eng->run->host.ncpu > 0 ? st->eng->run->host.ncpu : 1;

	p->trace = &st->trace;
	p->clients = o->clients ? o->clients : UL_FSBENCH_CLIENTS_PER_CPU * ncpu;
	if (p->clients > UL_FSB_MAX_CLIENTS)
		p->clients = UL_FSB_MAX_CLIENTS;
	p->once = o->once;
	p->duration_ns = o->duration_ns ? o->duration_ns : UL_FSBENCH_DEFAULT_DURATION_NS;
	p->warmup_ns = p->once ? 0 : o->warmup_set ? o->warmup_ns : p->duration_ns / 5;
	p->ready_ns = cfg->ready_timeout_ns;
	p->pass_ns = cfg->sample_timeout_ns;
	p->disk_reserve_bytes = cfg->disk_reserve_bytes;
}

/* The clients' directory, then the probe; an engine result. */
static int start_probe(struct fsb_suite *st, const struct ul_suite *suite)
{
	struct ul_engine *eng = st->eng;
	const struct ul_probe *probe = ul_probe_find(suite->probe);
	char root[PATH_MAX + 16];
	int rc;

	snprintf(root, sizeof(root), "%s/fsbench", eng->scratch);
	if ((mkdir(root, 0700) < 0 && errno != EEXIST) ||
	    (st->spec.root_fd = open(root, O_RDONLY | O_DIRECTORY | O_CLOEXEC)) < 0)
		return ul_engine_fail_errno(-errno, "fsbench: cannot create '%s'", root);
	ul_engine_probe_ctx(eng, probe, &st->ctx);
	st->ctx.arg = &st->spec;
	rc = ul_whole_start(probe, &st->ctx, &st->probe);
	if (rc == -ENOMEM)
		return ul_engine_oom();
	return rc ? ul_engine_fail_errno(rc, "fsbench: cannot start the probe") : UL_ENGINE_OK;
}

static int fsbench_run(struct ul_engine *eng, const struct ul_suite *suite)
{
	static const struct ul_fsbench_opts defaults;
	struct fsb_suite st = { .eng = eng, .spec.root_fd = -1 };
	const char *const *under;
	size_t n_under;
	int result;

	st.o = ul_engine_suite_opts(eng, suite);
	if (!st.o)
		st.o = &defaults;
	n_under = ul_engine_under(eng->cfg, &under);
	ul_fsb_trace_init(&st.trace);
	result = load_trace(&st);
	if (result == UL_ENGINE_OK) {
		plan(&st);
		result = start_probe(&st, suite);
	}
	/* Delay accounting on before the first client: it counts from then on. */
	if (result == UL_ENGINE_OK)
		st.why = ul_breakdown_open(eng->journal.fd >= 0 ? &eng->journal : NULL,
					   eng->cfg->cpus);
	/* Interleaved rounds (--runs): every load of round 1, then of round 2. */
	st.step.rounds = ul_engine_rounds(eng->cfg);
	st.step.n = n_under * (size_t)st.step.rounds;
	for (size_t i = 0; i < st.step.n && result == UL_ENGINE_OK; i++) {
		const struct ul_load *load = ul_load_find(under[i % n_under]);

		if (!load)
			UL_BUG("fsbench: --under '%s' has no load", under[i % n_under]);
		st.step.i = i;
		st.step.round = (int)(i / n_under);
		st.step.test = load->name;
		result = run_cell(&st, load);
	}
	ul_whole_stop(&eng->sup, st.probe);
	ul_breakdown_close(st.why, eng->journal.fd >= 0 ? &eng->journal : NULL);
	if (st.spec.root_fd >= 0)
		close(st.spec.root_fd);
	ul_fsb_trace_free(&st.trace);
	return result;
}

/* What report shows of it beyond the generic tables (report/suites.h):
 * its block per test. */
static const struct ul_suite_report fsbench_report = { .text_cell = ul_report_fsbench_native };

const struct ul_suite ul_suite_fsbench = {
	.name = "fsbench",
	.summary = "N clients replay a dbench 4 file-server trace: throughput, per-op latency, "
		   "client spread",
	.probe = "fsbench",
	.tests = fsbench_tests,
	.run_opts = "sample-timeout,disk-reserve,under",
	.format = "dbench",
	.opts = fsbench_opts,
	.opts_size = sizeof(struct ul_fsbench_opts),
	.check_opts = fsbench_check_opts,
	.preflight = fsbench_preflight,
	.run = fsbench_run,
	.metrics = fsbench_metrics,
	.metric_values = fsbench_metric_values,
	.report = &fsbench_report,
};

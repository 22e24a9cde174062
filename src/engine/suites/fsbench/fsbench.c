/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * The fsbench suite: dbench's file-server replay (engine/suites/fsbench/fsbench.h), under
 * each --under load in turn, --runs rounds per load, with throughput from
 * the bytes really moved, per-operation latency and the per-client spread.
 */
#include "core/compat.h"
#include "core/log.h"
#include "core/parse.h"
#include "engine/engine.h"
#include "engine/suites/fsbench/fsbench.h"
#include "engine/suites/fsbench/round.h"
#include "load/load.h"

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

/* Per-run series, in storage order; [0] is the cell's primary. */
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
static const char *const run_series[S_N] = {
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

struct fsb_suite {
	struct ul_engine *eng;
	const struct ul_fsbench_opts *o;
	struct ul_fsb_trace trace;
	struct ul_fsb_totals totals;
	struct ul_fsb_round_cfg rc;
	struct ul_fsb_round round;
	int runs;
	bool builtin;
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

static void op_series_name(char *buf, size_t len, int kind, int field)
{
	snprintf(buf, len, "fsop_%s_%s", ul_fsb_kind_name(kind), op_suffix[field]);
}

/* Create the cell's series in order and record the plan. */
static int prepare_cell(struct fsb_suite *st, struct ul_cell *cell)
{
	char name[UL_NAME_LEN];
	int rc = 0;

	for (int i = 0; i < S_N; i++)
		if (!ul_cell_series(cell, run_series[i]))
			return -ENOMEM;
	for (int k = 0; k < UL_FSB_N_KINDS; k++) {
		if (!st->totals.ops[k])
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
	rc |= ul_cell_set_metric(cell, "fsbench_clients", st->rc.clients);
	rc |= ul_cell_set_metric(cell, "fsbench_duration_ns",
				 st->rc.once ? 0 : (double)st->rc.duration_ns);
	rc |= ul_cell_set_metric(cell, "fsbench_warmup_ns", (double)st->rc.warmup_ns);
	rc |= ul_cell_set_metric(cell, "fsbench_builtin_trace", st->builtin);
	rc |= ul_cell_set_metric(cell, "fsbench_trace_ops", (double)st->trace.n);
	rc |= ul_cell_set_metric(cell, "fsbench_trace_read_bytes", (double)st->totals.read_bytes);
	rc |= ul_cell_set_metric(cell, "fsbench_trace_write_bytes", (double)st->totals.write_bytes);
	return rc ? -ENOMEM : 0;
}

static int push(struct ul_cell *cell, const char *name, int64_t v)
{
	return ul_series_push(ul_cell_series(cell, name), v);
}

/* Append one finished round to the cell's series. */
static int record_round(struct fsb_suite *st, struct ul_cell *cell)
{
	const struct ul_fsb_round *r = &st->round;
	const struct ul_fsb_stats *t = &r->total;
	uint64_t bytes = t->read_bytes + t->write_bytes, cmin = UINT64_MAX, cmax = 0, maxlat = 0;
	int64_t v[S_N];
	char name[UL_NAME_LEN];
	int rc = 0;

	for (int i = 0; i < st->rc.clients; i++) {
		cmin = r->client_ops[i] < cmin ? r->client_ops[i] : cmin;
		cmax = r->client_ops[i] > cmax ? r->client_ops[i] : cmax;
		rc |= push(cell, "fsbench_client_ops", (int64_t)r->client_ops[i]);
		rc |= push(cell, "fsbench_client_finish_ns", r->client_finish_ns[i]);
	}
	for (int k = 0; k < UL_FSB_N_KINDS; k++) {
		const struct ul_fsb_opstat *o = &t->op[k];
		int64_t f[O_N] = {
			(int64_t)o->count,
			(int64_t)o->sum_ns,
			(int64_t)o->max_ns,
			(int64_t)ul_hist_quantile(o->hist, o->count, 0.50),
			(int64_t)ul_hist_quantile(o->hist, o->count, 0.99),
			(int64_t)o->mismatches,
		};

		maxlat = o->max_ns > maxlat ? o->max_ns : maxlat;
		if (!st->totals.ops[k])
			continue;
		for (int j = 0; j < O_N; j++) {
			op_series_name(name, sizeof(name), k, j);
			rc |= push(cell, name, f[j]);
		}
	}
	v[S_TPUT] = r->elapsed_ns > 0 ? (int64_t)((double)bytes * 1e9 / (double)r->elapsed_ns) : 0;
	v[S_ELAPSED] = r->elapsed_ns;
	v[S_READ] = (int64_t)t->read_bytes;
	v[S_WRITE] = (int64_t)t->write_bytes;
	v[S_OPS] = (int64_t)t->ops;
	v[S_MISMATCH] = (int64_t)t->mismatches;
	v[S_MAXLAT] = (int64_t)maxlat;
	v[S_USER] = t->user_ns;
	v[S_SYS] = t->sys_ns;
	v[S_MAJFLT] = t->majflt;
	v[S_MINFLT] = t->minflt;
	v[S_CMIN] = (int64_t)cmin;
	v[S_CMAX] = (int64_t)cmax;
	for (int i = 0; i < S_N; i++)
		rc |= push(cell, run_series[i], v[i]);
	return rc ? -ENOMEM : 0;
}

/* Round i of a cell; sets the cell's outcome when it is not ok. */
static int one_round(struct fsb_suite *st, struct ul_cell *cell, int i)
{
	struct ul_engine *eng = st->eng;
	char when[32];

	if (st->rc.once)
		snprintf(when, sizeof(when), "one pass");
	else
		ul_fmt_duration(when, sizeof(when), st->rc.warmup_ns + st->rc.duration_ns);
	ul_engine_progress(eng, "[fsbench] %s: run %d/%d, %d clients, %s", cell->load, i + 1,
			   st->runs, st->rc.clients, when);
	if (ul_fsb_round_run(eng, &st->rc, &st->round))
		return ul_engine_fail("fsbench: cannot set up the clients");
	switch (st->round.outcome) {
	case UL_FSB_ROUND_OK:
		if (record_round(st, cell))
			return ul_engine_oom();
		return UL_ENGINE_OK;
	case UL_FSB_ROUND_INTERRUPTED:
		cell->outcome = UL_CELL_INTERRUPTED;
		snprintf(cell->note, sizeof(cell->note), "run %d: %s", i + 1, st->round.note);
		return UL_ENGINE_INTERRUPTED;
	case UL_FSB_ROUND_LOAD_DIED:
		cell->outcome = UL_CELL_LOAD_DIED;
		snprintf(cell->note, sizeof(cell->note), "load died during run %d (%.150s)", i + 1,
			 st->round.note);
		return UL_ENGINE_OK;
	default:
		cell->outcome = UL_CELL_PROBE_FAILED;
		snprintf(cell->note, sizeof(cell->note), "run %d: %s", i + 1, st->round.note);
		return UL_ENGINE_OK;
	}
}

/* The rounds of one cell while rl runs; sets its outcome; returns an engine
 * result (a ul_engine_window). */
static int rounds(void *arg, struct ul_cell *cell, struct ul_running_load *rl)
{
	struct fsb_suite *st = arg;
	int result = UL_ENGINE_OK;

	st->rc.load_child = ul_load_child(rl); /* a round ends early when it dies */
	for (int i = 0; i < st->runs && result == UL_ENGINE_OK; i++) {
		result = one_round(st, cell, i);
		if (cell->outcome != UL_CELL_OK)
			break;
	}
	st->rc.load_child = NULL;
	return result;
}

static int run_cell(struct fsb_suite *st, const struct ul_load *load)
{
	struct ul_engine *eng = st->eng;
	struct ul_cell *cell = ul_engine_new_cell(eng, "fsbench", load, "fsbench");
	const struct ul_engine_window w = { .measure = rounds, .arg = st };
	char what[UL_NAME_LEN + 16];
	int result;

	if (!cell)
		return UL_ENGINE_ERROR;
	if (prepare_cell(st, cell))
		return ul_engine_oom();
	result = ul_engine_measure_cell(eng, cell, load, &w);
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

/* The derived values compare tests: operations per second of each round. */
static size_t fsbench_metric_values(const struct ul_cell *cell, const struct ul_suite_metric *m,
				    const int64_t **v)
{
	static int64_t *buf;
	static size_t cap;
	const struct ul_series *ops = ul_cell_find_series(cell, "fsbench_ops");
	const struct ul_series *el = ul_cell_find_series(cell, "fsbench_elapsed_ns");
	const struct ul_series *s = ul_cell_find_series(cell, m->series);
	size_t n;

	if (strcmp(m->series, "fsbench_ops_per_s")) {
		*v = s ? s->v : NULL;
		return s ? s->n : 0;
	}
	n = ops && el ? (ops->n < el->n ? ops->n : el->n) : 0;
	if (n > cap) {
		int64_t *p = realloc(buf, n * sizeof(*p));

		if (!p)
			return 0;
		buf = p;
		cap = n;
	}
	for (size_t i = 0; i < n; i++)
		buf[i] = el->v[i] > 0 ? (int64_t)((double)ops->v[i] * 1e9 / (double)el->v[i]) : 0;
	*v = buf;
	return n;
}

/* Settings of the rounds from the options and the host. */
static void plan(struct fsb_suite *st)
{
	const struct ul_engine_config *cfg = st->eng->cfg;
	const struct ul_fsbench_opts *o = st->o;
	int ncpu = st->eng->run->host.ncpu > 0 ? st->eng->run->host.ncpu : 1;

	st->rc.trace = &st->trace;
	st->rc.clients = o->clients ? o->clients : UL_FSBENCH_CLIENTS_PER_CPU * ncpu;
	if (st->rc.clients > UL_FSB_MAX_CLIENTS)
		st->rc.clients = UL_FSB_MAX_CLIENTS;
	st->rc.once = o->once;
	st->rc.duration_ns = o->duration_ns ? o->duration_ns : UL_FSBENCH_DEFAULT_DURATION_NS;
	st->rc.warmup_ns = st->rc.once ? 0 : o->warmup_set ? o->warmup_ns : st->rc.duration_ns / 5;
	st->runs = cfg->mtest_runs > 0 ? cfg->mtest_runs : UL_FSBENCH_DEFAULT_RUNS;
}

static int fsbench_run(struct ul_engine *eng, const struct ul_suite *suite)
{
	static const struct ul_fsbench_opts defaults;
	struct fsb_suite st = { .eng = eng, .rc.root_fd = -1 };
	const char *const *under;
	char root[PATH_MAX + 16];
	size_t n_under;
	int result = UL_ENGINE_OK;

	st.o = ul_engine_suite_opts(eng, suite);
	if (!st.o)
		st.o = &defaults;
	n_under = ul_engine_under(eng->cfg, &under);
	ul_fsb_trace_init(&st.trace);
	result = load_trace(&st);
	if (result != UL_ENGINE_OK)
		goto out;
	plan(&st);
	st.round.client_ops = calloc((size_t)st.rc.clients, sizeof(*st.round.client_ops));
	st.round.client_finish_ns =
		calloc((size_t)st.rc.clients, sizeof(*st.round.client_finish_ns));
	snprintf(root, sizeof(root), "%s/fsbench", eng->scratch);
	if (!st.round.client_ops || !st.round.client_finish_ns) {
		result = ul_engine_oom();
		goto out;
	}
	if ((mkdir(root, 0700) < 0 && errno != EEXIST) ||
	    (st.rc.root_fd = open(root, O_RDONLY | O_DIRECTORY | O_CLOEXEC)) < 0) {
		result = (ul_error_errno(errno, "fsbench: cannot create '%s'", root),
			  UL_ENGINE_ERROR);
		goto out;
	}
	for (size_t i = 0; i < n_under && result == UL_ENGINE_OK; i++) {
		const struct ul_load *load = ul_load_find(under[i]);

		if (!load)
			UL_BUG("fsbench: --under '%s' has no load", under[i]);
		result = run_cell(&st, load);
	}
out:
	if (st.rc.root_fd >= 0)
		close(st.rc.root_fd);
	free(st.round.client_ops);
	free(st.round.client_finish_ns);
	ul_fsb_trace_free(&st.trace);
	return result;
}

const struct ul_suite ul_suite_fsbench = {
	.name = "fsbench",
	.summary = "N clients replay a dbench 4 file-server trace: throughput, per-op latency, "
		   "client spread",
	.probe = "fsbench",
	.tests = fsbench_tests,
	.format = "dbench",
	.opts = fsbench_opts,
	.opts_size = sizeof(struct ul_fsbench_opts),
	.check_opts = fsbench_check_opts,
	.preflight = fsbench_preflight,
	.run = fsbench_run,
	.metrics = fsbench_metrics,
	.metric_values = fsbench_metric_values,
};

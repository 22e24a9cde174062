/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * The micro suite: LMbench 2.0's summary measurements, rebuilt
 * (probe/micro/), each in its own supervised probe child while one load
 * runs (--under LOAD, noload by default).  One cell per measurement,
 * holding every batch: the primary series ("op_ps" or "bw_bytes_s"),
 * "batch_ns", and metrics (iterations per batch, clock overhead, cpu_mhz).
 */
#include "core/compat.h"
#include "core/log.h"
#include "core/parse.h"
#include "engine/engine.h"
#include "engine/suites/micro/micro.h"
#include "load/load.h"
#include "probe/micro/bench.h"
#include "probe/micro/run.h"
#include "probe/probe.h"
#include "report/lmbench2.h"
#include "report/suites.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>

/* No measurement may take longer than this plus 40 batches. */
#define MICRO_TIMEOUT_BASE_NS (60 * UL_NS_PER_SEC)

/* "cpu MHz" of the first CPU in /proc/cpuinfo; 0 when absent (some arches). */
static double cpu_mhz(void)
{
	FILE *f = fopen("/proc/cpuinfo", "re");
	char line[256];
	double mhz = 0;

	if (!f)
		return 0;
	while (fgets(line, sizeof(line), f))
		if (!strncmp(line, "cpu MHz", 7) &&
		    sscanf(strchr(line, ':') ? strchr(line, ':') + 1 : "", "%lf", &mhz) == 1)
			break;
	fclose(f);
	return mhz;
}

/* Copy the child's records into the cell, with the bench's table (for
 * the micro format) and the CPU clock; 0 or -ENOMEM. */
static int store_records(struct ul_cell *cell, const struct ul_probe *p,
			 const struct ul_micro_out *out, double mhz)
{
	if (ul_cell_set_metric(cell, "micro_table", (double)ul_micro_table_of(p->group)))
		return -ENOMEM;
	for (size_t i = 0; i < out->n; i++) {
		const struct ul_micro_rec *r = &out->rec[i];
		struct ul_series *s;

		if (r->is_metric) {
			if (ul_cell_set_metric(cell, r->name, r->metric))
				return -ENOMEM;
			continue;
		}
		s = ul_cell_series(cell, r->name);
		if (!s)
			return -ENOMEM;
		for (int k = 0; k < r->n; k++)
			if (ul_series_push(s, r->v[k]))
				return -ENOMEM;
	}
	return mhz > 0 && ul_cell_set_metric(cell, "cpu_mhz", mhz) ? -ENOMEM : 0;
}

struct micro_state {
	struct ul_engine *eng;
	struct ul_micro_env env;
	double mhz;
	struct ul_micro_out *out;
	const struct ul_probe *bench; /* the test being measured */
};

/* Run st->bench while rl runs; sets the cell's outcome (a ul_engine_window). */
static int measure(void *arg, struct ul_cell *cell, struct ul_running_load *rl)
{
	struct micro_state *st = arg;
	const struct ul_probe *b = st->bench;
	struct ul_engine *eng = st->eng;
	struct ul_micro_job *job;
	ul_nsec deadline = ul_now_ns() + MICRO_TIMEOUT_BASE_NS +
			   40 * (int64_t)st->env.mh.batches * st->env.mh.min_batch_ns;
	int err = 0, rc;

	rc = ul_micro_job_start(&eng->sup, b, &st->env, eng->have_cgroup ? eng->cgroup.procs : NULL,
				&job);
	if (rc) {
		cell->outcome = UL_CELL_PROBE_FAILED;
		snprintf(cell->note, sizeof(cell->note), "cannot start probe '%s': %s", b->name,
			 strerror(-rc));
		return UL_ENGINE_OK;
	}
	eng->probe_pid = ul_micro_job_child(job)->pid;
	for (;;) {
		struct ul_child *ex = NULL;
		enum ul_micro_wait_result r =
			ul_micro_job_wait(&eng->sup, job, deadline, st->out, &err, &ex);

		if (r == UL_MICRO_CHILD_EXITED && !(rl && ex == ul_load_child(rl)))
			continue; /* an orphan or a monitor's child */
		if (r == UL_MICRO_CHILD_EXITED) {
			ul_engine_load_died(cell, "while measured", rl);
		} else if (r == UL_MICRO_INTERRUPTED) {
			cell->outcome = UL_CELL_INTERRUPTED;
			snprintf(cell->note, sizeof(cell->note), "interrupted while measured");
		} else if (r == UL_MICRO_TIMEOUT) {
			cell->outcome = UL_CELL_PROBE_FAILED;
			snprintf(cell->note, sizeof(cell->note),
				 "probe '%s' gave no result in time", b->name);
		} else if (r == UL_MICRO_FAILED) {
			cell->outcome = UL_CELL_PROBE_FAILED;
			snprintf(cell->note, sizeof(cell->note), "probe '%s' failed: %s", b->name,
				 strerror(err));
		} else if (store_records(cell, b, st->out, st->mhz)) {
			ul_micro_job_stop(&eng->sup, job, 0);
			eng->probe_pid = 0;
			return ul_engine_oom();
		}
		break;
	}
	ul_micro_job_stop(&eng->sup, job, ul_engine_stop_grace(eng));
	eng->probe_pid = 0;
	return cell->outcome == UL_CELL_INTERRUPTED ? UL_ENGINE_INTERRUPTED : UL_ENGINE_OK;
}

static int run_test(struct micro_state *st, const struct ul_probe *b, const struct ul_load *load,
		    const struct ul_engine_step *step)
{
	struct ul_engine *eng = st->eng;
	const struct ul_engine_window w = { .measure = measure, .arg = st };
	char test[2 * UL_NAME_LEN + 8];
	struct ul_engine_step named = *step;
	struct ul_cell *cell;
	int result;

	snprintf(test, sizeof(test), "%s under %s", b->name, load->name);
	named.test = test;
	cell = ul_engine_begin_cell(eng, "micro", load, b->name, &named, "measuring");
	if (!cell)
		return UL_ENGINE_ERROR;
	st->bench = b;
	result = ul_engine_measure_cell(eng, cell, load, &w);
	return ul_engine_end_cell(eng, cell, result, NULL);
}

/* Does --tests ask for test t (every test when it names none), and can
 * it run (a "-2cpu" placement needs a second CPU)? */
static bool selected(const struct ul_engine_config *cfg, const struct ul_micro_env *env,
		     const struct ul_suite_test *t)
{
	if (env->place_cpu[1] < 0 && ul_micro_needs_two_cpus(t->probe))
		return false;
	for (size_t i = 0; i < cfg->n_tests; i++)
		if (ul_suite_test_matches(t, cfg->tests[i]))
			return true;
	return cfg->n_tests == 0;
}

/*
 * One replicate round: load by load (the tests of one --under load form
 * one summary row), each selected test once.  step->i counts the cells
 * done; step->round and rounds say the round.
 */
static int run_round(struct micro_state *st, const struct ul_suite *suite,
		     struct ul_engine_step *step)
{
	const struct ul_engine_config *cfg = st->eng->cfg;
	const char *const *under;
	size_t n_under = ul_engine_under(cfg, &under);
	int result = UL_ENGINE_OK;

	for (size_t u = 0; u < n_under && result == UL_ENGINE_OK; u++) {
		const struct ul_load *load = ul_load_find(under[u]);

		if (!load)
			UL_BUG("--under '%s' passed its check", under[u]);
		for (size_t i = 0; suite->tests[i].load && result == UL_ENGINE_OK; i++) {
			const struct ul_probe *p = ul_probe_find(suite->tests[i].probe);

			if (!selected(cfg, &st->env, &suite->tests[i]))
				continue;
			if (!p || p->kind != UL_PROBE_MICRO || !p->measure)
				UL_BUG("micro test '%s' has no micro probe", suite->tests[i].probe);
			result = run_test(st, p, load, step);
			step->i++;
		}
	}
	return result;
}

int ul_micro_suite_run(struct ul_engine *eng, const struct ul_suite *suite,
		       const struct ul_micro_suite_opts *o)
{
	struct micro_state st = { .eng = eng };
	const char *const *under;
	size_t n_under = ul_engine_under(eng->cfg, &under), per_round = 0;
	struct ul_engine_step step = { .rounds = ul_engine_rounds(eng->cfg) };
	int result = UL_ENGINE_OK;

	ul_micro_env_init(&st.env, eng->scratch, eng->cfg->quick);
	if (o->pinned) {
		st.env.place_cpu[0] = o->cpu;
		st.env.place_cpu[1] = ul_micro_next_cpu(o->cpu);
	}
	st.env.self_exe = eng->cfg->self_exe;
	if (o->batches)
		st.env.mh.batches = (int)o->batches;
	if (o->min_batch_ns)
		st.env.mh.min_batch_ns = o->min_batch_ns;
	for (size_t i = 0; suite->tests[i].load; i++)
		per_round += selected(eng->cfg, &st.env, &suite->tests[i]) ? n_under : 0;
	step.n = per_round * (size_t)step.rounds;
	st.mhz = cpu_mhz();
	st.out = calloc(1, sizeof(*st.out));
	if (!st.out)
		return ul_engine_oom();
	/* Interleaved rounds (--runs): every test of round 1, then of round 2. */
	for (; step.round < step.rounds && result == UL_ENGINE_OK; step.round++)
		result = run_round(&st, suite, &step);
	ul_engine_progress_done(eng);
	free(st.out);
	return result;
}

/* --cpu-pin CPU: an online CPU number. */
static int set_cpu_pin(void *base, const char *arg, char *err, size_t errlen)
{
	struct ul_micro_suite_opts *o = base;
	int ncpu = ul_online_cpus();
	int64_t cpu;

	if (ul_parse_count(arg, 0, ncpu > 0 ? ncpu - 1 : 0, &cpu)) {
		snprintf(err, errlen,
			 "invalid value '%.32s' for --cpu-pin: expected a CPU from 0 to %d", arg,
			 ncpu > 0 ? ncpu - 1 : 0);
		return -EINVAL;
	}
	o->pinned = true;
	o->cpu = (int)cpu;
	return 0;
}

static const struct ul_opt micro_opts[] = {
	{ "cpu-pin", UL_OPT_CALL, .arg = "CPU", .set = set_cpu_pin,
	  .def_text = "the lowest CPU the run may use",
	  .help = "CPU of micro's -1cpu tests and of the measuring end of its -2cpu tests (the "
		  "other ends: the next CPU)" },
	{ "batches", UL_OPT_COUNT, 1, UL_MH_MAX_BATCHES, 0, "timed batches per micro test",
	  .arg = "N", .def_text = "11, 5 with --quick",
	  UL_OPT_AT(struct ul_micro_suite_opts, batches) },
	{ "min-batch", UL_OPT_DURATION, UL_NS_PER_MS, 60 * UL_NS_PER_SEC, 0,
	  "shortest batch micro calibrates to", .arg = "DURATION",
	  .def_text = "100ms, 10ms with --quick",
	  UL_OPT_AT(struct ul_micro_suite_opts, min_batch_ns) },
	{ NULL },
};

/* The summary's order; --tests takes a name, the table ("proc") or an
 * alias.  Each row also says which columns of the lmbench2 layout the
 * test fills (report/lmbench2.h): TIME(COL) from its op_ps, BW(COL) from
 * its bw_bytes_s, MEMORY the memory table, NONE no column.  P() gives a
 * multi-process test its two placements, each a test of its own, both
 * selected by the test's plain name (ul_micro_ends); the summary shows
 * the -1cpu one, which every machine has. */
#define LM2(col_, series_)                                                                         \
	((const struct ul_lm2_source[]){ { UL_LM2_##col_, series_ }, { UL_LM2_NCOLS, NULL } })
#define TIME(col_) LM2(col_, "op_ps")
#define BW(col_) LM2(col_, "bw_bytes_s")
#define MEMORY                                                                                     \
	((const struct ul_lm2_source[]){ { UL_LM2_L1, "l1_ps" },                                   \
					 { UL_LM2_L2, "l2_ps" },                                   \
					 { UL_LM2_MAIN, "main_ps" },                               \
					 { UL_LM2_NCOLS, NULL } })
#define NONE NULL
#define T(probe_, groups_, lm2_)                                                                   \
	{                                                                                          \
		.load = "noload", .probe = probe_, .name = probe_, .groups = groups_,              \
		.format_row = lm2_                                                                 \
	}
#define P(name_, groups_, lm2_)                                                                    \
	T(name_ "-1cpu", groups_ "," name_, lm2_), T(name_ "-2cpu", groups_ "," name_, NONE)
static const struct ul_suite_test micro_tests[] = {
	T("lat-null", "proc,null", TIME(NULL_CALL)),
	T("lat-nullio", "proc", TIME(NULL_IO)),
	T("lat-stat", "proc", NONE),
	T("lm-stat", "proc", TIME(STAT)),
	T("lat-openclose", "proc", NONE),
	T("lm-openclose", "proc", TIME(OPEN_CLOSE)),
	T("lat-select", "proc", NONE),
	T("lm-select", "proc", TIME(SELECT_TCP)),
	T("lat-siginst", "proc", TIME(SIG_INST)),
	T("lat-sighndl", "proc", NONE),
	T("lm-sighndl", "proc", TIME(SIG_HNDL)),
	T("lat-fork", "proc", NONE),
	T("lm-fork", "proc", TIME(FORK)),
	T("lat-exec", "proc", NONE),
	T("lm-exec", "proc", TIME(EXEC)),
	T("lat-sh", "proc", NONE),
	T("lm-sh", "proc", TIME(SH)),
	P("ctx-2p0k", "ctx", TIME(CTX_2P0K)),
	P("ctx-2p16k", "ctx", TIME(CTX_2P16K)),
	P("ctx-2p64k", "ctx", TIME(CTX_2P64K)),
	P("ctx-8p16k", "ctx", TIME(CTX_8P16K)),
	P("ctx-8p64k", "ctx", TIME(CTX_8P64K)),
	P("ctx-16p16k", "ctx", TIME(CTX_16P16K)),
	P("ctx-16p64k", "ctx", TIME(CTX_16P64K)),
	P("lat-pipe", "lat", TIME(LAT_PIPE)),
	P("lat-unix", "lat", TIME(LAT_UNIX)),
	P("lat-udp", "lat", TIME(LAT_UDP)),
	P("lat-tcp", "lat", TIME(LAT_TCP)),
	P("lat-connect", "lat", TIME(LAT_CONNECT)),
	T("lat-create0k", "file", TIME(CREATE_0K)),
	T("lat-delete0k", "file", TIME(DELETE_0K)),
	T("lat-create10k", "file", TIME(CREATE_10K)),
	T("lat-delete10k", "file", TIME(DELETE_10K)),
	T("lat-mmap", "file", NONE),
	T("lm-mmap", "file", TIME(MMAP)),
	T("lat-protfault", "file", NONE),
	T("lm-protfault", "file", TIME(PROT_FAULT)),
	T("lat-pagefault", "file", NONE),
	T("lm-pagefault", "file", TIME(PAGE_FAULT)),
	P("bw-pipe", "bw", BW(BW_PIPE)),
	P("bw-unix", "bw", BW(BW_UNIX)),
	P("bw-tcp", "bw", NONE),
	P("lm-bw-tcp", "bw", BW(BW_TCP)),
	T("bw-file-rd", "bw", NONE),
	T("lm-file-rd", "bw", BW(BW_FILE)),
	T("bw-mmap-rd", "bw", BW(BW_MMAP)),
	T("bw-bcopy", "bw,bw-mem", BW(BW_BCOPY_LIBC)),
	T("bw-fcp", "bw,bw-mem", BW(BW_BCOPY_HAND)),
	T("bw-mem-rd", "bw,bw-mem", BW(BW_MEM_READ)),
	T("bw-mem-wr", "bw,bw-mem", BW(BW_MEM_WRITE)),
	T("lat-mem", "mem", NONE),
	T("lm-mem", "mem", MEMORY),
	{ NULL },
};
#undef P
#undef T
#undef NONE
#undef MEMORY
#undef BW
#undef TIME
#undef LM2

static const struct ul_suite_metric micro_metrics[] = {
	{ .series = "op_ps", .label = "time", .unit = "ps", .direction = UL_LOWER_IS_BETTER },
	{ .series = "bw_bytes_s",
	  .label = "bandwidth",
	  .unit = "bytes/s",
	  .direction = UL_HIGHER_IS_BETTER },
	{ .series = "l1_ps", .label = "L1", .unit = "ps", .direction = UL_LOWER_IS_BETTER },
	{ .series = "l2_ps", .label = "L2", .unit = "ps", .direction = UL_LOWER_IS_BETTER },
	{ .series = "l3_ps", .label = "L3", .unit = "ps", .direction = UL_LOWER_IS_BETTER },
	{ .series = "main_ps", .label = "main", .unit = "ps", .direction = UL_LOWER_IS_BETTER },
	{ NULL },
};

static int micro_preflight(struct ul_engine *eng, const struct ul_suite *suite)
{
	const char *const *under;
	size_t n = ul_engine_under(eng->cfg, &under);

	(void)suite;
	return ul_engine_preflight(eng, under, n);
}

static int micro_run(struct ul_engine *eng, const struct ul_suite *suite)
{
	static const struct ul_micro_suite_opts defaults;
	const struct ul_micro_suite_opts *o = ul_engine_suite_opts(eng, suite);

	return ul_micro_suite_run(eng, suite, o ? o : &defaults);
}

/* What report shows of it beyond the generic tables (report/suites.h):
 * its own table, besides the seed's summary. */
static const char *const micro_formats[] = { "micro", NULL };
static const struct ul_suite_report micro_report = { .formats = micro_formats };

const struct ul_suite ul_suite_micro = {
	.name = "micro",
	.summary = "LMbench 2.0's summary measurements, rebuilt, every batch kept, under any load",
	.probe = "lat-null",
	.tests = micro_tests,
	.run_opts = "disk-reserve,under",
	.format = "lmbench2",
	.opts = micro_opts,
	.opts_size = sizeof(struct ul_micro_suite_opts),
	.preflight = micro_preflight,
	.run = micro_run,
	.metrics = micro_metrics,
	.compare_format = "lmbench2",
	.report = &micro_report,
};

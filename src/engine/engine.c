/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * What every suite calls while it runs: preflight of its tests, item
 * contexts, new cells, cells committed, progress.  The measured window is
 * window.c; the run's own life (set-up and the guaranteed teardown) is
 * engine_run.c; each suite is engine/suites/<name>/.
 */
#include "core/compat.h"
#include "core/registry.h"
#include "engine/engine.h"
#include "engine/monitors/monitor.h"
#include "engine/round_hook.h"
#include "engine/round_setting.h"
#include "core/log.h"
#include "load/load.h"
#include "probe/probe.h"

#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

/* Every load and probe has its row of options in the fixed arrays of
 * struct ul_engine_config (engine.h). */
_Static_assert(0
#define UL_LOAD UL_REGISTRY_ONE
#include "load/loads.def"
#undef UL_LOAD
		       <= UL_MAX_ITEMS,
	       "loads.def lists more loads than UL_MAX_ITEMS");
_Static_assert(0
#define UL_PROBE UL_REGISTRY_ONE
#include "probe/probes.def"
#undef UL_PROBE
		       <= UL_MAX_ITEMS,
	       "probes.def lists more probes than UL_MAX_ITEMS");

/* Index of an item in its registry, for the per-item option arrays. */
static size_t load_index(const struct ul_load *load)
{
	for (size_t i = 0; i < ul_load_count(); i++)
		if (ul_load_at(i) == load)
			return i;
	UL_BUG("load '%s' is not registered", load->name);
}

static size_t probe_index(const struct ul_probe *probe)
{
	for (size_t i = 0; i < ul_probe_count(); i++)
		if (ul_probe_at(i) == probe)
			return i;
	UL_BUG("probe '%s' is not registered", probe->name);
}

const void *ul_engine_suite_opts(const struct ul_engine *eng, const struct ul_suite *suite)
{
	size_t i = ul_suite_index(suite);

	if (i >= UL_MAX_SUITES)
		UL_BUG("suite '%s' is not registered", suite->name);
	if (suite->opts && !eng->cfg->suite_opts[i])
		UL_BUG("suite '%s': its options were not parsed", suite->name);
	return eng->cfg->suite_opts[i];
}

const void *ul_engine_monitor_opts(const struct ul_engine *eng, const struct ul_monitor *mon)
{
	for (size_t i = 0; i < ul_monitor_count() && i < UL_MAX_MONITORS; i++)
		if (ul_monitor_at(i) == mon)
			return eng->cfg->monitor_opts[i];
	UL_BUG("monitor '%s' is not registered", mon->name);
}

void *ul_engine_suite_state(const struct ul_engine *eng, const struct ul_suite *suite)
{
	size_t i = ul_suite_index(suite);

	if (i >= UL_MAX_SUITES)
		UL_BUG("suite '%s' is not registered", suite->name);
	if (!suite->state_size || !eng->suite_state[i])
		UL_BUG("suite '%s' has no state in this run", suite->name);
	return eng->suite_state[i];
}

int ul_engine_fail(const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	ul_verror(0, fmt, ap);
	va_end(ap);
	return UL_ENGINE_ERROR;
}

int ul_engine_oom(void)
{
	ul_oom();
	return UL_ENGINE_ERROR;
}

int ul_engine_fail_errno(int err, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	ul_verror(err, fmt, ap);
	va_end(ap);
	return UL_ENGINE_ERROR;
}

static int preflight_loads(const struct ul_engine *eng, const char *suite, const char *const *loads,
			   size_t n);

int ul_engine_preflight_tests(struct ul_engine *eng, const struct ul_suite *suite)
{
	const char *tests[UL_MAX_TESTS];
	size_t n = ul_suite_tests(suite, eng->cfg, tests);

	return preflight_loads(eng, suite->name, tests, n);
}

void ul_engine_load_ctx(const struct ul_engine *eng, const struct ul_load *load,
			struct ul_load_ctx *ctx)
{
	memset(ctx, 0, sizeof(*ctx));
	ctx->scratch_dir = eng->scratch;
	ctx->self_exe = eng->cfg->self_exe;
	ctx->ncpu = eng->run->host.ncpu;
	ctx->mem_budget_bytes = eng->run->params.mem_budget_bytes;
	ctx->mem_ceiling_bytes = eng->mem_ceiling_bytes;
	/* --quick caps memory loads (auto and explicit sizes alike): a smoke
	 * run must not spend minutes filling 24 GiB. */
	if (eng->cfg->mem_footprint_cap_bytes &&
	    eng->cfg->mem_footprint_cap_bytes < ctx->mem_ceiling_bytes)
		ctx->mem_ceiling_bytes = eng->cfg->mem_footprint_cap_bytes;
	/* ... and the files sized by the budget (largewrite, io_load,
	 * read_load): their auto size is the budget. */
	if (eng->cfg->mem_footprint_cap_bytes &&
	    eng->cfg->mem_footprint_cap_bytes < ctx->mem_budget_bytes)
		ctx->mem_budget_bytes = eng->cfg->mem_footprint_cap_bytes;
	ctx->disk_reserve_bytes = eng->cfg->disk_reserve_bytes;
	ctx->cgroup_procs = eng->have_cgroup ? eng->cgroup.procs : NULL;
	memcpy(ctx->opt, eng->cfg->load_opt[load_index(load)], sizeof(ctx->opt));
}

void ul_engine_test_load_ctx(const struct ul_engine *eng, const char *suite,
			     const struct ul_load *load, struct ul_load_ctx *ctx)
{
	const struct ul_suite *s = suite ? ul_suite_find(suite) : NULL;
	const struct ul_suite_test *t = s ? ul_suite_test(s, load->name) : NULL;

	ul_engine_load_ctx(eng, load, ctx);
	for (size_t i = 0; t && t->opts && t->opts[i]; i++) {
		const char *eq = strchr(t->opts[i], '=');
		char name[64], err[256];

		/* Descriptor data: tests/unit/test_engine checks every entry. */
		if (!eq || (size_t)(eq - t->opts[i]) >= sizeof(name))
			UL_BUG("suite '%s' test '%s': malformed option '%s'", suite, load->name,
			       t->opts[i]);
		snprintf(name, sizeof(name), "%.*s", (int)(eq - t->opts[i]), t->opts[i]);
		if (ul_opt_set(load->opts, ctx->opt, name, eq + 1, err, sizeof(err)))
			UL_BUG("suite '%s' test '%s': %s", suite, load->name, err);
	}
}

void ul_engine_probe_ctx(const struct ul_engine *eng, const struct ul_probe *probe,
			 struct ul_probe_ctx *ctx)
{
	memset(ctx, 0, sizeof(*ctx));
	ctx->scratch_dir = eng->scratch;
	ctx->self_exe = eng->cfg->self_exe;
	ctx->ncpu = eng->run->host.ncpu;
	ctx->mem_budget_bytes = eng->run->params.mem_budget_bytes;
	ctx->cgroup_procs = eng->have_cgroup ? eng->cgroup.procs : NULL;
	memcpy(ctx->opt, eng->cfg->probe_opt[probe_index(probe)], sizeof(ctx->opt));
}

/* supported() and check() of each load, with its test's settings when `suite` names one. */
static int preflight_loads(const struct ul_engine *eng, const char *suite, const char *const *loads,
			   size_t n)
{
	int result = UL_ENGINE_OK;

	for (size_t i = 0; i < n; i++) {
		const struct ul_load *load = ul_load_find(loads[i]);
		struct ul_load_ctx ctx;
		char why[512];

		if (!load)
			UL_BUG("test '%s' has no load", loads[i]);
		why[0] = '\0';
		if (load->supported && load->supported(why, sizeof(why))) {
			ul_error("load '%s' cannot run here: %s", load->name, why);
			if (result == UL_ENGINE_OK)
				result = UL_ENGINE_UNSUPPORTED;
			continue;
		}
		ul_engine_test_load_ctx(eng, suite, load, &ctx);
		if (load->check && load->check(&ctx, why, sizeof(why))) {
			ul_error("load '%s': %s", load->name, why);
			result = UL_ENGINE_REFUSED;
		}
	}
	return result;
}

int ul_engine_preflight(const struct ul_engine *eng, const char *const *loads, size_t n)
{
	return preflight_loads(eng, NULL, loads, n);
}

int64_t ul_engine_stop_grace(const struct ul_engine *eng)
{
	return ul_sup_aborting(&eng->sup) ? 0 : eng->cfg->stop_grace_ns;
}

void ul_engine_drop_cell(struct ul_engine *eng, struct ul_cell *cell)
{
	struct ul_run *run = eng->run;

	if (!run->n_cells || cell != &run->cells[run->n_cells - 1])
		UL_BUG("cell %d is not the run's last: it cannot be taken back", cell->seq);
	ul_cell_release(cell);
	run->n_cells--;
}

struct ul_cell *ul_engine_new_cell_named(struct ul_engine *eng, const char *suite, const char *load,
					 const char *unit, const char *probe,
					 const char *const *series)
{
	struct ul_cell *cell = ul_run_add_cell(eng->run);

	if (!cell) {
		ul_oom();
		return NULL;
	}
	snprintf(cell->suite, sizeof(cell->suite), "%s", suite);
	snprintf(cell->load, sizeof(cell->load), "%s", load);
	snprintf(cell->probe, sizeof(cell->probe), "%s", probe);
	snprintf(cell->load_unit, sizeof(cell->load_unit), "%s", unit);
	cell->started_wall_ns = ul_wall_ns();
	for (size_t i = 0; series && series[i]; i++)
		if (!ul_cell_series(cell, series[i])) {
			ul_engine_drop_cell(eng, cell);
			ul_oom();
			return NULL;
		}
	ul_engine_journal_at(eng, cell); /* only a whole cell: the run is there now */
	return cell;
}

struct ul_cell *ul_engine_new_cell(struct ul_engine *eng, const char *suite,
				   const struct ul_load *load, const char *probe)
{
	return ul_engine_new_cell_named(eng, suite, load->name, load->unit, probe, NULL);
}

int ul_engine_rounds(const struct ul_engine_config *cfg)
{
	return cfg->runs > 0 ? cfg->runs : 1;
}

int ul_engine_each_test(struct ul_engine *eng, const struct ul_suite *suite,
			int (*run_test)(void *arg, const struct ul_load *load,
					const struct ul_engine_step *step),
			void *arg)
{
	const char *tests[UL_MAX_TESTS];
	size_t n = ul_suite_tests(suite, eng->cfg, tests);
	int rounds = ul_engine_rounds(eng->cfg), result = UL_ENGINE_OK;

	for (int r = 0; r < rounds && result == UL_ENGINE_OK; r++) {
		/* The setting first: the test hook sees the round's value. */
		result = ul_engine_round_setting(eng->cfg, r);
		if (result == UL_ENGINE_OK)
			result = ul_engine_round_hook(r);
		for (size_t i = 0; i < n && result == UL_ENGINE_OK; i++) {
			const struct ul_load *load = ul_load_find(tests[i]);
			const struct ul_engine_step step = {
				.i = (size_t)r * n + i,
				.n = (size_t)rounds * n,
				.round = r,
				.rounds = rounds,
				.test = tests[i],
			};

			if (!load)
				UL_BUG("%s test '%s' has no load", suite->name, tests[i]);
			result = run_test(arg, load, &step);
		}
	}
	return result;
}

void ul_engine_step_name(char *buf, size_t len, const char *suite,
			 const struct ul_engine_step *step)
{
	if (step->rounds > 1)
		snprintf(buf, len, "[%s %zu/%zu] %s, round %d/%d", suite, step->i + 1, step->n,
			 step->test, step->round + 1, step->rounds);
	else
		snprintf(buf, len, "[%s %zu/%zu] %s", suite, step->i + 1, step->n, step->test);
}

struct ul_cell *ul_engine_begin_cell(struct ul_engine *eng, const char *suite,
				     const struct ul_load *load, const char *probe,
				     const struct ul_engine_step *step, const char *what)
{
	struct ul_cell *cell = ul_engine_new_cell(eng, suite, load, probe);

	if (cell && ul_engine_cell_step(eng, cell, suite, step, what)) {
		ul_engine_drop_cell(eng, cell);
		return NULL;
	}
	return cell;
}

int ul_engine_cell_step(struct ul_engine *eng, struct ul_cell *cell, const char *suite,
			const struct ul_engine_step *step, const char *what)
{
	char name[160];

	if (ul_cell_set_metric(cell, UL_CELL_ROUND, step->round + 1) ||
	    (eng->cfg->round_sysctl[0] &&
	     ul_cell_set_metric(cell, UL_CELL_SETTING, ul_engine_round_side(step->round) + 1))) {
		ul_oom();
		return -ENOMEM;
	}
	ul_engine_step_name(name, sizeof(name), suite, step);
	ul_engine_progress(eng, "%s: %s", name, what);
	return 0;
}

int ul_engine_end_cell(struct ul_engine *eng, struct ul_cell *cell, int result, const char *what)
{
	int committed;

	if (cell->outcome == UL_CELL_LOAD_DIED || cell->outcome == UL_CELL_PROBE_FAILED) {
		ul_engine_progress_done(eng);
		if (what)
			ul_error("%s: %s", what, cell->note);
		else
			ul_error("%s", cell->note);
	}
	committed = ul_engine_commit_cell(eng, cell);
	return result == UL_ENGINE_OK ? committed : result;
}

int ul_engine_commit_cell(struct ul_engine *eng, struct ul_cell *cell)
{
	int rc;

	cell->finished_wall_ns = ul_wall_ns();
	if (cell->outcome != UL_CELL_OK && cell->outcome != UL_CELL_INTERRUPTED)
		eng->flagged++;
	rc = ul_engine_store_cell(eng, cell);
	if (rc)
		return UL_ENGINE_ERROR;
	return ul_sup_check_signals(&eng->sup) ? UL_ENGINE_INTERRUPTED : UL_ENGINE_OK;
}

void ul_engine_progress(const struct ul_engine *eng, const char *fmt, ...)
{
	char line[256];
	va_list ap;

	if (!eng->cfg->progress)
		return;
	va_start(ap, fmt);
	vsnprintf(line, sizeof(line), fmt, ap);
	va_end(ap);
	/* \r and clear-to-end-of-line: one line that updates in place. */
	fprintf(stderr, "\r%s\033[K", line);
	fflush(stderr);
}

void ul_engine_progress_done(const struct ul_engine *eng)
{
	if (eng->cfg->progress) {
		fputs("\r\033[K", stderr);
		fflush(stderr);
	}
}

size_t ul_engine_under(const struct ul_engine_config *cfg, const char *const **loads)
{
	static const char *const noload[] = { "noload" };

	*loads = cfg->n_under ? cfg->under : noload;
	return cfg->n_under ? cfg->n_under : 1;
}

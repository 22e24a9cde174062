/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * The run driver common to every suite: supervisor and scratch directory
 * set-up and guaranteed teardown, store bookkeeping, item contexts and
 * progress.  Suite-specific planning lives in engine/<suite>.c.
 */
#include "core/compat.h"
#include "engine/engine.h"
#include "core/log.h"
#include "core/sysinfo.h"
#include "load/load.h"
#include "probe/probe.h"
#include "proc/scratch.h"
#include "store/store.h"

#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

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

void ul_engine_load_ctx(const struct ul_engine *eng, const struct ul_load *load,
			struct ul_load_ctx *ctx)
{
	memset(ctx, 0, sizeof(*ctx));
	ctx->scratch_dir = eng->scratch;
	ctx->self_exe = eng->cfg->self_exe;
	ctx->ncpu = eng->run->host.ncpu;
	ctx->mem_budget_bytes = eng->run->params.mem_budget_bytes;
	ctx->mem_ceiling_bytes = eng->mem_ceiling_bytes;
	/* --quick keeps auto-sized memory loads small: a smoke run must not
	 * spend minutes filling 24 GiB.  An explicit size is still refused
	 * against the real ceiling by the load's check(). */
	if (eng->cfg->mem_footprint_cap_bytes && eng->cfg->mem_footprint_cap_bytes < ctx->mem_ceiling_bytes)
		ctx->mem_ceiling_bytes = eng->cfg->mem_footprint_cap_bytes;
	ctx->disk_reserve_bytes = eng->cfg->disk_reserve_bytes;
	memcpy(ctx->opt, eng->cfg->load_opt[load_index(load)], sizeof(ctx->opt));
}

void ul_engine_probe_ctx(const struct ul_engine *eng, const struct ul_probe *probe,
			 struct ul_probe_ctx *ctx)
{
	memset(ctx, 0, sizeof(*ctx));
	ctx->scratch_dir = eng->scratch;
	ctx->self_exe = eng->cfg->self_exe;
	ctx->ncpu = eng->run->host.ncpu;
	ctx->mem_budget_bytes = eng->run->params.mem_budget_bytes;
	memcpy(ctx->opt, eng->cfg->probe_opt[probe_index(probe)], sizeof(ctx->opt));
}

int ul_engine_commit_cell(struct ul_engine *eng, struct ul_cell *cell)
{
	int rc;

	cell->finished_wall_ns = ul_wall_ns();
	if (cell->outcome != UL_CELL_OK && cell->outcome != UL_CELL_INTERRUPTED)
		eng->flagged++;
	rc = eng->store->ops->add_cell(eng->store, eng->run, cell);
	if (rc)
		return ul_error("cannot store cell '%s/%s': %s", cell->suite, cell->load,
				eng->store->err);
	return 0;
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

static void compute_ceiling(struct ul_engine *eng)
{
	struct ul_meminfo mi;

	if (ul_meminfo_read(&mi) == 0)
		eng->mem_ceiling_bytes = (mi.available + mi.swap_free) / 10 * 9;
	else
		eng->mem_ceiling_bytes = eng->run->params.mem_budget_bytes / 2;
}

static int finish(struct ul_engine *eng, int result)
{
	struct ul_run *run = eng->run;
	int rc;

	switch (result) {
	case UL_ENGINE_OK:
	case UL_ENGINE_FLAGGED:
		run->status = UL_RUN_COMPLETE;
		break;
	case UL_ENGINE_INTERRUPTED:
		run->status = UL_RUN_INTERRUPTED;
		break;
	default:
		run->status = UL_RUN_FAILED;
		break;
	}
	run->finished_wall_ns = ul_wall_ns();
	rc = eng->store->ops->finish_run(eng->store, run);
	if (rc) {
		ul_error("cannot mark run %s as %s: %s", run->uuid, ul_run_status_name(run->status),
			 eng->store->err);
		if (result == UL_ENGINE_OK || result == UL_ENGINE_FLAGGED)
			result = UL_ENGINE_ERROR;
	}
	if (result == UL_ENGINE_OK && eng->flagged)
		result = UL_ENGINE_FLAGGED;
	return result;
}

int ul_engine_run(const struct ul_engine_config *cfg, struct ul_store *store, struct ul_run *run,
		  const struct ul_suite *const *suites, size_t n_suites)
{
	struct ul_engine eng = { .cfg = cfg, .store = store, .run = run };
	int result = UL_ENGINE_OK;
	int rc;

	eng.started_ns = ul_now_ns();
	compute_ceiling(&eng);
	rc = ul_sup_init(&eng.sup);
	if (rc)
		return ul_error_errno(rc, "cannot set up process supervision"), UL_ENGINE_ERROR;
	rc = ul_scratch_create(cfg->scratch_parent, eng.scratch, sizeof(eng.scratch));
	if (rc) {
		ul_sup_fini(&eng.sup);
		ul_error_errno(rc, "cannot create a scratch directory in '%s'", cfg->scratch_parent);
		return UL_ENGINE_ERROR;
	}
	run->started_wall_ns = ul_wall_ns();
	run->status = UL_RUN_RUNNING;
	rc = store->ops->begin_run(store, run);
	if (rc) {
		ul_error("cannot store the run: %s", store->err);
		result = UL_ENGINE_ERROR;
		goto out;
	}
	for (size_t i = 0; i < n_suites && result == UL_ENGINE_OK; i++)
		result = suites[i]->run(&eng, suites[i]);
	ul_engine_progress_done(&eng);
	result = finish(&eng, result);
out:
	/* Teardown order: every process first (they may hold files open in
	 * the scratch directory), then the directory. */
	ul_sup_fini(&eng.sup);
	rc = ul_scratch_remove(eng.scratch);
	if (rc) {
		ul_error_errno(rc, "cannot remove scratch directory '%s'", eng.scratch);
		if (result == UL_ENGINE_OK)
			result = UL_ENGINE_ERROR;
	}
	return result;
}

/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * A run's life, common to every suite (ul_engine_run): prepare (journal,
 * scratch directory, sandbox, memory ceiling, every suite's preflight),
 * measure (the run stored as running, the monitors on, each suite in
 * turn), and a teardown that always happens, in order, whatever stopped
 * the run.  What suites call per cell is in engine.c.
 */
#include "core/compat.h"
#include "engine/engine.h"
#include "core/file.h"
#include "core/log.h"
#include "core/parse.h"
#include "core/signals.h"
#include "core/sysinfo.h"
#include "proc/changes.h"
#include "store/store.h"

#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

/*
 * Every selected suite's preflight, before any of them starts: `run resp
 * contest` is refused up front, not after resp's cells.  The worst
 * refusal wins (unsupported over refused), every reason is printed.
 */
static int preflight_all(struct ul_engine *eng, const struct ul_suite *const *suites, size_t n)
{
	int result = UL_ENGINE_OK;

	for (size_t i = 0; i < n; i++) {
		int r = suites[i]->preflight ? suites[i]->preflight(eng, suites[i])
					     : ul_engine_preflight_tests(eng, suites[i]);

		if (r == UL_ENGINE_OK)
			continue;
		if (result == UL_ENGINE_OK || r == UL_ENGINE_UNSUPPORTED ||
		    r == UL_ENGINE_INTERRUPTED || r == UL_ENGINE_ERROR)
			result = r;
	}
	return result;
}

/* Each selected suite's state, zeroed, before any preflight.  0 or -ENOMEM. */
static int suite_states_alloc(struct ul_engine *eng, const struct ul_suite *const *suites, size_t n)
{
	for (size_t i = 0; i < n; i++) {
		size_t k = ul_suite_index(suites[i]);

		if (!suites[i]->state_size || k >= UL_MAX_SUITES || eng->suite_state[k])
			continue;
		eng->suite_state[k] = calloc(1, suites[i]->state_size);
		if (!eng->suite_state[k])
			return -ENOMEM;
	}
	return 0;
}

/* After the run, whatever happened: each suite releases its state. */
static void suite_states_free(struct ul_engine *eng)
{
	for (size_t k = 0; k < UL_MAX_SUITES; k++) {
		const struct ul_suite *suite = k < ul_suite_count() ? ul_suite_at(k) : NULL;

		if (!eng->suite_state[k])
			continue;
		if (suite && suite->release)
			suite->release(eng->suite_state[k]);
		free(eng->suite_state[k]);
		eng->suite_state[k] = NULL;
	}
}

uint64_t ul_engine_mem_ceiling(const struct ul_engine_config *cfg, bool in_cgroup,
			       uint64_t budget_bytes, const struct ul_meminfo *mi)
{
	uint64_t ceiling = mi ? (mi->available + mi->swap_free) / 10 * 9 : budget_bytes / 2;

	if (in_cgroup) {
		/* Unread meminfo: no swap is known to be free, so none is counted. */
		uint64_t swap = cfg->swap_bytes ? cfg->swap_bytes : mi ? mi->swap_free : 0;
		uint64_t inside = cfg->mem_limit_bytes + swap;

		if (inside < ceiling)
			ceiling = inside;
	}
	return ceiling;
}

/* The ceiling of this run, after our swap file is on; an unreadable
 * /proc/meminfo is said, with what the ceiling falls back to. */
static void compute_ceiling(struct ul_engine *eng)
{
	struct ul_meminfo mi;
	int rc = ul_meminfo_read(&mi);

	eng->mem_ceiling_bytes = ul_engine_mem_ceiling(
		eng->cfg, eng->have_cgroup, eng->run->params.mem_budget_bytes, rc ? NULL : &mi);
	if (rc)
		ul_warning("cannot read /proc/meminfo (%s): memory loads are capped at half the "
			   "memory budget%s",
			   rc == -EINVAL ? "a field is missing" : strerror(-rc),
			   eng->have_cgroup ? ", and inside --mem-limit as if no swap were free"
					    : "");
}

/* The journal, or NULL when none could be opened. */
static struct ul_journal *journal(struct ul_engine *eng)
{
	return eng->journal.fd >= 0 ? &eng->journal : NULL;
}

/* Undo one journalled change, reporting a failure; 0 or -1. */
static int undo(struct ul_engine *eng, const char *kind, const char *arg)
{
	int rc = ul_change_undo(journal(eng), kind, arg);

	if (rc)
		return ul_error_errno(rc, "cannot remove %s '%s' (run 'underload cleanup')", kind,
				      arg);
	return 0;
}

/*
 * --cpus: the scene's cpuset, made (journalled) after the memory cgroup,
 * which on v2 it may be; the supervisor moves in and its children inherit
 * it.  Pinned by affinity where no cpuset controller is mounted, and on v2
 * with a memory group too (what stays outside that group).
 */
static int cpuset_setup(struct ul_engine *eng, struct ul_journal *j)
{
	const struct ul_engine_config *cfg = eng->cfg;
	char name[16], why[512];
	int rc;

	snprintf(name, sizeof(name), "%.8s", eng->run->uuid);
	rc = ul_change_cpuset_create(j, name, cfg->cpus, eng->have_cgroup ? &eng->cgroup : NULL,
				     &eng->cpuset, why, sizeof(why));
	if (rc == -ENOENT) {
		ul_warning("--cpus %s: no cpuset cgroup controller is mounted; the scene is "
			   "pinned by CPU affinity instead, which its processes inherit",
			   cfg->cpus);
		rc = ul_cpus_pin(&cfg->cpu_set, &eng->saved_affinity);
		if (rc)
			return ul_error_errno(rc, "--cpus %s: cannot set the CPU affinity",
					      cfg->cpus);
		eng->cpus_pinned = true;
		return 0;
	}
	if (rc)
		return ul_error("--cpus %s: %s", cfg->cpus, why);
	eng->have_cpuset = true;
	if (ul_cpuset_enter(&eng->cpuset, why, sizeof(why)))
		return ul_error("--cpus %s: %s", cfg->cpus, why);
	/* A v2 memory group's cpuset holds only what joins that group (loads,
	 * probes); the rest of the scene (the sampler, helpers) inherits our
	 * affinity, as it inherits the cpuset we enter on v1. */
	if (eng->cpuset.shared) {
		rc = ul_cpus_pin(&cfg->cpu_set, &eng->saved_affinity);
		if (rc)
			return ul_error_errno(rc, "--cpus %s: cannot set the CPU affinity",
					      cfg->cpus);
		eng->cpus_pinned = true;
	}
	return 0;
}

/* Out of the cpuset (back where we were), then remove it; 0 or -1. */
static int cpuset_teardown(struct ul_engine *eng)
{
	int ret = 0, rc;

	if (eng->cpus_pinned) {
		(void)sched_setaffinity(0, sizeof(eng->saved_affinity), &eng->saved_affinity);
		eng->cpus_pinned = false;
	}
	if (!eng->have_cpuset)
		return 0;
	rc = ul_cpuset_leave(&eng->cpuset);
	if (rc)
		ret = ul_error_errno(rc, "cannot leave the cpuset %s", eng->cpuset.path);
	else if (!eng->cpuset.shared)
		ret = undo(eng, "cgroup", eng->cpuset.path);
	eng->have_cpuset = false;
	return ret;
}

/*
 * Swap file and memory cgroup, journalled before they are made so that
 * `underload cleanup` can undo them after a kill -9 of this process.
 */
static int sandbox_setup(struct ul_engine *eng)
{
	const struct ul_engine_config *cfg = eng->cfg;
	struct ul_journal *j = journal(eng);
	char why[512], size[32];
	int rc;

	if ((cfg->swap_bytes || cfg->mem_limit_bytes || cfg->cpus[0]) && !j)
		return ul_error(
			"--swap, --mem-limit and --cpus need the journal of system changes, "
			"which could not be opened");
	if (cfg->swap_bytes) {
		rc = ul_change_swap_create(j, eng->scratch, cfg->swap_bytes, cfg->swap_priority,
					   eng->run->uuid, eng->swap_path, sizeof(eng->swap_path),
					   why, sizeof(why));
		if (rc) {
			eng->swap_path[0] = '\0';
			ul_fmt_size(size, sizeof(size), cfg->swap_bytes);
			return ul_error("--swap %s: %s", size, why);
		}
	}
	if (cfg->mem_limit_bytes) {
		char name[16];

		snprintf(name, sizeof(name), "%.8s", eng->run->uuid);
		rc = ul_change_cgroup_create(j, name, cfg->mem_limit_bytes,
					     cfg->swap_bytes ? cfg->swap_bytes : UINT64_MAX,
					     &eng->cgroup, why, sizeof(why));
		if (rc) {
			ul_fmt_size(size, sizeof(size), cfg->mem_limit_bytes);
			return ul_error("--mem-limit %s: %s", size, why);
		}
		eng->have_cgroup = true;
	}
	return cfg->cpus[0] ? cpuset_setup(eng, j) : 0;
}

/* Undo the system changes in reverse order; processes must be gone. */
static int sandbox_teardown(struct ul_engine *eng)
{
	int ret = cpuset_teardown(eng);

	if (eng->have_cgroup) {
		ret |= undo(eng, "cgroup", eng->cgroup.path);
		eng->have_cgroup = false;
	}
	if (eng->swap_path[0]) {
		ret |= undo(eng, "swap", eng->swap_path);
		eng->swap_path[0] = '\0';
	}
	return ret;
}

static int finish(struct ul_engine *eng, int result, bool *stored)
{
	struct ul_run *run = eng->run;
	int rc, kept;

	switch (result) {
	case UL_ENGINE_OK:
	case UL_ENGINE_FLAGGED:
		run->status = UL_RUN_COMPLETE;
		break;
	case UL_ENGINE_INTERRUPTED:
		run->status = UL_RUN_INTERRUPTED;
		break;
	default:
		/* What was measured stays usable: a run that stored a good cell is partial. */
		run->status = eng->stored_cells ? UL_RUN_PARTIAL : UL_RUN_FAILED;
		break;
	}
	run->finished_wall_ns = ul_wall_ns();
	rc = eng->n_kept ? -EAGAIN : eng->store->ops->finish_run(eng->store, run);
	if (rc && rc != -EAGAIN)
		ul_error("cannot mark run %s as %s: %s", run->uuid, ul_run_status_name(run->status),
			 eng->store->err);
	kept = 0;
	if (eng->n_kept) {
		/* Kept cells first, so the stored run never ends before its cells are in. */
		kept = ul_engine_keep_finish(eng, true);
		if (!kept)
			rc = eng->store->ops->finish_run(eng->store, run);
		if (!kept && rc)
			kept = ul_engine_keep_finish(eng, false);
	} else if (rc) {
		kept = ul_engine_keep_finish(eng, false);
	}
	/* A recovery file holds the run's end as well: nothing for cleanup to repair. */
	*stored = rc == 0 || kept == 1;
	if (rc && (result == UL_ENGINE_OK || result == UL_ENGINE_FLAGGED))
		result = UL_ENGINE_ERROR;
	if (result == UL_ENGINE_OK && eng->flagged)
		result = UL_ENGINE_FLAGGED;
	return result;
}

static void hint_stale_journals(void)
{
	int n = 0;

	if (ul_journal_stale(NULL, &n) == 0 && n > 0)
		ul_note("%d earlier run%s left system changes behind: run 'underload cleanup'", n,
			n == 1 ? "" : "s");
}

/*
 * Everything a suite needs before the run is stored: the journal (its first
 * entry lets cleanup mark the run interrupted after a kill -9), the scratch
 * directory, the sandbox, the memory ceiling, and every suite's preflight.
 */
static int engine_prepare(struct ul_engine *eng, const struct ul_suite *const *suites,
			  size_t n_suites)
{
	const struct ul_engine_config *cfg = eng->cfg;
	char why[512];
	int rc;

	rc = ul_journal_open(&eng->journal);
	if (rc) {
		eng->journal.fd = -1;
		ul_warning("cannot open a journal of system changes: %s; after a kill -9 the "
			   "scratch directory would stay behind",
			   strerror(-rc));
	}
	if (cfg->store_uri && ul_change_run_begin(journal(eng), eng->run->uuid, cfg->store_uri))
		ul_warning("cannot journal the run: after a kill -9 it would stay 'running'");
	rc = ul_change_scratch_create(journal(eng), cfg->scratch_parent, eng->scratch,
				      sizeof(eng->scratch), why, sizeof(why));
	if (rc) {
		ul_error("--dir '%s': cannot create a scratch directory: %s", cfg->scratch_parent,
			 why);
		eng->scratch[0] = '\0';
		return UL_ENGINE_ERROR;
	}
	if (sandbox_setup(eng))
		return UL_ENGINE_ERROR;
	compute_ceiling(eng);
	rc = suite_states_alloc(eng, suites, n_suites);
	if (rc)
		return ul_engine_fail_errno(rc, "cannot allocate the suites' state");
	return preflight_all(eng, suites, n_suites);
}

/* Stores the run as running (*begun once it is) and runs every suite in
 * order with the monitors on, until one does not return OK. */
static int engine_measure(struct ul_engine *eng, const struct ul_suite *const *suites,
			  size_t n_suites, bool *begun)
{
	struct ul_run *run = eng->run;
	int result = UL_ENGINE_OK;

	run->started_wall_ns = ul_wall_ns();
	run->status = UL_RUN_RUNNING;
	if (eng->store->ops->begin_run(eng->store, run)) {
		ul_error("cannot store the run: %s", eng->store->err);
		return UL_ENGINE_ERROR;
	}
	*begun = true;
	if (ul_monitors_start(eng))
		return UL_ENGINE_ERROR;
	for (size_t i = 0; i < n_suites && result == UL_ENGINE_OK; i++)
		result = suites[i]->run(eng, suites[i]);
	ul_engine_progress_done(eng);
	ul_monitors_stop(eng);
	return result;
}

/*
 * Undoes what the run made, in order: every process first (they may hold
 * files open in the scratch directory or live in the cgroup), then the
 * system changes, then the directory, then the status, then the journal.
 * Returns the run's result, an interrupt or a teardown error folded in.
 */
static int engine_teardown(struct ul_engine *eng, int result, bool begun)
{
	const struct ul_engine_config *cfg = eng->cfg;
	bool stored = false;

	ul_sup_fini(&eng->sup);
	if (sandbox_teardown(eng) && result == UL_ENGINE_OK)
		result = UL_ENGINE_ERROR;
	if (eng->scratch[0] && undo(eng, "scratch", eng->scratch) && result == UL_ENGINE_OK)
		result = UL_ENGINE_ERROR;
	/* An interrupt at any time, teardown included, is never lost; it
	 * also explains an error it caused (a monitor's start cut short). */
	eng->sup.interrupts += ul_sup_take_signals();
	if (eng->sup.interrupts > 0 &&
	    (result == UL_ENGINE_OK || result == UL_ENGINE_FLAGGED || result == UL_ENGINE_ERROR))
		result = UL_ENGINE_INTERRUPTED;
	if (begun)
		result = finish(eng, result, &stored);
	/* Stored (or never begun): nothing for cleanup to repair.  A status
	 * that could not be stored stays pending, and cleanup repairs it. */
	if (cfg->store_uri && (!begun || stored))
		(void)ul_change_run_end(journal(eng), eng->run->uuid, cfg->store_uri);
	if (eng->journal.fd >= 0)
		ul_journal_finish(&eng->journal);
	free(eng->kept);
	suite_states_free(eng);
	/* Test seam: status stored, journal closed, signals still blocked (t0105). */
	ul_test_hold("UL_TEST_TEARDOWN_HOLD");
	return result;
}

/*
 * The store's question while a write waits for a lock (store.h): has the
 * run been interrupted?  While the supervisor runs, its signals are read
 * (and counted, as everywhere); in the teardown after it, a pending one is
 * only looked at, so that the teardown still counts it for the exit code.
 */
static bool store_wait_interrupted(void *arg)
{
	struct ul_engine *eng = arg;
	sigset_t pending, term;

	if (eng->sup.sigfd >= 0)
		return ul_sup_check_signals(&eng->sup);
	if (ul_sup_interrupted(&eng->sup))
		return true;
	ul_term_sigset(&term);
	return !sigpending(&pending) && sigandset(&pending, &pending, &term) == 0 &&
	       !sigisemptyset(&pending);
}

int ul_engine_run(const struct ul_engine_config *cfg, struct ul_store *store, struct ul_run *run,
		  const struct ul_suite *const *suites, size_t n_suites)
{
	struct ul_engine eng = { .cfg = cfg, .store = store, .run = run };
	bool begun = false;
	sigset_t saved_mask;
	int result, rc;

	/* Blocked from here to the stored status, teardown included: an
	 * interrupt during swapoff must not kill us half-way (ul_sup_fini()
	 * restores the mask it found, which keeps them blocked). */
	if (ul_sup_block_signals(&saved_mask))
		return ul_engine_fail("cannot block signals");
	eng.started_ns = ul_now_ns();
	eng.journal.fd = -1;
	hint_stale_journals();
	rc = ul_sup_init(&eng.sup);
	if (rc) {
		ul_sup_unblock_signals(&saved_mask);
		return ul_engine_fail_errno(rc, "cannot set up process supervision");
	}
	/* A Ctrl-C ends a wait for a locked store (the cells are kept). */
	store->interrupted = store_wait_interrupted;
	store->interrupted_arg = &eng;
	result = engine_prepare(&eng, suites, n_suites);
	if (result == UL_ENGINE_OK)
		result = engine_measure(&eng, suites, n_suites, &begun);
	result = engine_teardown(&eng, result, begun);
	store->interrupted = NULL;
	store->interrupted_arg = NULL;
	/* One that came after the status was stored still ends the command
	 * as interrupted; the run keeps the status it has. */
	if (ul_sup_unblock_signals(&saved_mask) > 0 &&
	    (result == UL_ENGINE_OK || result == UL_ENGINE_FLAGGED))
		result = UL_ENGINE_INTERRUPTED;
	return result;
}

/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * The engine: plans a run's suites and drives proc/, load/ and probe/ into
 * the result model, committing each finished cell to the store.  It owns
 * the supervisor and the scratch directory for the whole run, and is the
 * only layer below cmd/ that prints (errors with context, and progress on
 * a terminal).
 *
 * The suite descriptor and how to add a suite: model/suite.h.
 */
#ifndef UL_ENGINE_H
#define UL_ENGINE_H

#include "core/compat.h"
#include "core/clock.h"
#include "core/opt.h"
#include "model/model.h"
#include "model/suite.h"
#include "proc/supervise.h"
#include "engine/monitors/monitor.h"
#include "proc/cgroup/cgroup.h"
#include "proc/cgroup/cpuset.h"
#include "proc/journal.h"
#include "proc/sysctl.h"

#include <limits.h>

#define UL_MAX_TESTS 128 /* tests of one suite (micro has 68) or names in --tests */
#define UL_MAX_ITEMS 96	 /* loads or probes in a registry */
#define UL_MAX_SUITES 16 /* suites in the registry */
#define UL_MAX_UNDER 8	 /* loads in --under */

/* Every suite, from engine/suites/suites.def, NULL-terminated: what a
 * program installs with ul_suites_install() (model/suite.h) at start. */
extern const struct ul_suite *const ul_engine_suites[];

/* Exit classes of a run, mapped to exit codes by cmd/run.c. */
enum ul_engine_result {
	UL_ENGINE_OK = 0,
	UL_ENGINE_ERROR = 1,
	UL_ENGINE_REFUSED = 2,	   /* a load or probe refused its options before anything ran */
	UL_ENGINE_UNSUPPORTED = 3, /* nothing could run here */
	UL_ENGINE_FLAGGED = 4,	   /* finished, but some cell failed or was invalidated */
	UL_ENGINE_INTERRUPTED = 130,
};

/* Everything `underload run` decided, already validated. */
struct ul_engine_config {
	const char *scratch_parent;	 /* --dir */
	const char *self_exe;		 /* absolute path of this program */
	const char *store_uri;		 /* absolute, for the journal (cleanup repairs the
					   * run's status there); NULL: not journalled */
	const char *tests[UL_MAX_TESTS]; /* --tests, or n_tests == 0 for each suite's default */
	size_t n_tests;
	int64_t interval_ns;	     /* --interval */
	int min_points, max_points;  /* --min-points, --max-points */
	int64_t ci_target_centi;     /* --ci-target */
	int64_t sample_timeout_ns;   /* --sample-timeout: a probe answer later than this fails */
	int64_t ready_timeout_ns;    /* how long a load or probe may take to start */
	int64_t stop_grace_ns;	     /* SIGTERM -> SIGKILL grace */
	uint64_t disk_reserve_bytes; /* --disk-reserve */
	uint64_t mem_footprint_cap_bytes; /* --quick caps auto-sized memory loads; 0 = none */
	bool progress;			  /* progress lines on stderr */
	uint64_t mem_limit_bytes; /* --mem-limit: run the scene in a memory cgroup; 0 = none */
	uint64_t swap_bytes;	  /* --swap: a swap file for the run; 0 = none */
	int swap_priority;	  /* swapon priority of that file */
	char cpus[64];		  /* --cpus, canonical ("0-1"); "" = every CPU */
	cpu_set_t cpu_set;	  /* the same as a set */
	/* Per-item option values, indexed like the load / probe registries. */
	int64_t load_opt[UL_MAX_ITEMS][UL_OPT_MAX];
	int64_t probe_opt[UL_MAX_ITEMS][UL_OPT_MAX];
	/* Each suite's own options (its descriptor's table), indexed like the
	 * suite registry; NULL = not parsed (the suite then uses its defaults
	 * only if it has no table).  Read with ul_engine_suite_opts(). */
	const void *suite_opts[UL_MAX_SUITES];
	bool quick; /* --quick: suites pick their small profile */
	/* --under LIST: the loads the suites that take one (fsbench, micro)
	 * run under, each in turn; n_under 0 = noload.  The loads' registry
	 * names. */
	const char *under[UL_MAX_UNDER];
	size_t n_under;
	/* Monitors. */
	int64_t monitor_interval_ns;   /* --monitor-interval: /proc sampler period; 0 = off */
	uint64_t monitor_ring_records; /* sampler ring capacity; 0 = sized from the interval */
	/* Each monitor's options (its descriptor's table), indexed like the
	 * monitor registry; NULL = not parsed, the monitor's defaults.  Read
	 * with ul_engine_monitor_opts(). */
	const void *monitor_opts[UL_MAX_MONITORS];
	/* --runs: replicate rounds, a cell each (every suite; mtest's
	 * default is UL_MTEST_DEFAULT_RUNS); 0 = the suite's default */
	int runs;
	/* --round-sysctl NAME=A,B (sweep --within-run passes it): NAME written
	 * A or B before each round (engine/round_setting.h); "" = none */
	char round_sysctl[64];
	char round_values[2][UL_SYSCTL_VALUE_MAX];
};

struct ul_store;
struct ul_engine;
struct ul_load;
struct ul_load_ctx;
struct ul_probe;
struct ul_probe_ctx;

/* State shared by the suites of one run. */
struct ul_engine {
	const struct ul_engine_config *cfg;
	struct ul_store *store;
	struct ul_run *run;
	struct ul_sup sup;
	char scratch[PATH_MAX];	    /* the run's private scratch directory */
	uint64_t mem_ceiling_bytes; /* 90% of MemAvailable + SwapFree at start */
	int flagged;		    /* cells that failed or were invalidated */
	int stored_cells;	    /* cells with outcome ok stored (or kept for recovery) */
	size_t *kept;		    /* indexes in run->cells of cells the store refused (keep.c) */
	size_t n_kept, cap_kept;
	struct ul_monitor_set monitors;
	pid_t probe_pid; /* the suite's long-lived probe, 0 if none: monitors read its faults */
	struct ul_journal journal; /* what this run changed on the system (fd -1: none) */
	struct ul_cgroup cgroup;   /* valid when have_cgroup */
	bool have_cgroup;
	struct ul_cpuset cpuset; /* --cpus: valid when have_cpuset */
	bool have_cpuset;
	bool cpus_pinned; /* --cpus without a cpuset: affinity, saved_affinity before */
	cpu_set_t saved_affinity;
	char swap_path[PATH_MAX]; /* "" when no swap file is active */
	ul_nsec started_ns;
	/* The current cell's measured window (ul_engine_work_begin/end). */
	uint64_t work_units_at_begin;
	ul_nsec work_begin_ns;
	/* Each suite's state (its state_size bytes), by ul_suite_index();
	 * NULL for a suite without state or not selected. */
	void *suite_state[UL_MAX_SUITES];
};

/* The resp suite's tests (engine/suites/resp/resp.c), which the deadline suite shares. */
extern const struct ul_suite_test ul_resp_tests[];

/* True if --tests may name `name` for this suite: one of its tests, or
 * any registered load when the suite has tests_any_load. */
bool ul_suite_accepts_test(const struct ul_suite *suite, const char *name);
/* The tests this run asks of the suite, in order: those of --tests that
 * it accepts, else all its default tests.  Returns how many. */
size_t ul_suite_tests(const struct ul_suite *suite, const struct ul_engine_config *cfg,
		      const char *tests[UL_MAX_TESTS]);

/*
 * Run `suites` (validated names) into `run`, which the caller has filled
 * with label, argv, host and params; begins the run in the store, commits
 * every finished cell, finishes it with its final status.  Returns an
 * enum ul_engine_result.  Leaves no process and no scratch file behind.
 */
int ul_engine_run(const struct ul_engine_config *cfg, struct ul_store *store, struct ul_run *run,
		  const struct ul_suite *const *suites, size_t n_suites);

struct ul_meminfo;
/*
 * The memory loads' hard ceiling: 90% of what the host can give
 * (MemAvailable + SwapFree in mi), and in the run's memory cgroup never
 * more than --mem-limit plus the swap it may use (--swap, else SwapFree).
 * mi NULL means /proc/meminfo could not be read: half the memory budget,
 * and inside the cgroup no swap counted, since none is known to be free.
 */
uint64_t ul_engine_mem_ceiling(const struct ul_engine_config *cfg, bool in_cgroup,
			       uint64_t budget_bytes, const struct ul_meminfo *mi);

/* The --under loads (noload when none was given); returns how many. */
size_t ul_engine_under(const struct ul_engine_config *cfg, const char *const **loads);

/* The options a suite's table filled (its opts_size bytes), or NULL when
 * it has none. */
const void *ul_engine_suite_opts(const struct ul_engine *eng, const struct ul_suite *suite);
/* The options a monitor's table filled (its opts_size bytes), or NULL
 * when it has none or they were not parsed (a test's config): the
 * monitor then takes its defaults. */
const void *ul_engine_monitor_opts(const struct ul_engine *eng, const struct ul_monitor *mon);
/* The state the engine keeps for a selected suite (its state_size bytes,
 * zeroed before its preflight); a bug for a suite without state. */
void *ul_engine_suite_state(const struct ul_engine *eng, const struct ul_suite *suite);

/* Print "error: ..." and return UL_ENGINE_ERROR: `return ul_engine_fail(...)`. */
int ul_engine_fail(const char *fmt, ...) UL_PRINTF(1, 2);
/* Same with ": strerror(-err)" appended. */
int ul_engine_fail_errno(int err, const char *fmt, ...) UL_PRINTF(2, 3);
/* ul_oom(), then UL_ENGINE_ERROR: `return ul_engine_oom()`. */
int ul_engine_oom(void);

/*
 * The default preflight of a suite: the loads of its tests this run asks
 * for, through ul_engine_preflight().
 */
int ul_engine_preflight_tests(struct ul_engine *eng, const struct ul_suite *suite);
/*
 * For suites, before any cell: run every load's supported() and check()
 * on the run's settings so impossible sizes are refused up front (one line
 * each).  Returns UL_ENGINE_OK, UL_ENGINE_REFUSED or UL_ENGINE_UNSUPPORTED.
 */
int ul_engine_preflight(const struct ul_engine *eng, const char *const *loads, size_t n);
/* For suites: the SIGTERM -> SIGKILL grace, 0 once a second interrupt came. */
int64_t ul_engine_stop_grace(const struct ul_engine *eng);
/* For suites: append a cell named suite/load/probe, started now; NULL
 * (error printed, nothing appended) when out of memory. */
struct ul_cell *ul_engine_new_cell(struct ul_engine *eng, const char *suite,
				   const struct ul_load *load, const char *probe);
/* For suites: take back the cell just made (the run's last, never
 * committed) when it cannot be completed, say out of memory before its
 * window: the run keeps no half-made cell.  Its memory is freed. */
void ul_engine_drop_cell(struct ul_engine *eng, struct ul_cell *cell);
/* The same by names (a suite whose test is its own work: mtest01), with
 * the cell's series made first in this order (NULL-terminated, may be
 * NULL): series[0] is the primary measurement. */
struct ul_cell *ul_engine_new_cell_named(struct ul_engine *eng, const char *suite, const char *load,
					 const char *unit, const char *probe,
					 const char *const *series);
/* Where a cell stands in its suite's plan: the i-th (0-based) of the n
 * cells the suite runs, in replicate round `round` (0-based) of `rounds`
 * (--runs: every test once per round, rounds one after the other), and
 * the test's name for people ("cpuload", "lat-null under noload"). */
struct ul_engine_step {
	size_t i, n;
	int round, rounds;
	const char *test;
};
/* "[SUITE i/n] TEST", with ", round r/R" when rounds > 1: the start of
 * every progress line of the cell. */
void ul_engine_step_name(char *buf, size_t len, const char *suite,
			 const struct ul_engine_step *step);
/* The replicate rounds of a suite that runs one cell per test and round:
 * --runs, 1 when not given. */
int ul_engine_rounds(const struct ul_engine_config *cfg);
/*
 * For suites of one cell per test (resp, deadline): run_test(arg, load,
 * step) for every test this run asks of `suite`, in interleaved rounds
 * (--runs N: every test of round 1, then every test of round 2, ..., so
 * slow drift of the machine does not land on one test), until one returns
 * other than UL_ENGINE_OK.  Returns that result, or UL_ENGINE_OK.
 */
int ul_engine_each_test(struct ul_engine *eng, const struct ul_suite *suite,
			int (*run_test)(void *arg, const struct ul_load *load,
					const struct ul_engine_step *step),
			void *arg);
/*
 * For suites: the start of a cell, the same in every suite that runs one
 * cell per test: a new cell suite/load/probe started now, its replicate
 * round recorded as the metric "round" (1-based, as contest records it:
 * model.h, ul_cell_round), and the progress line "STEP: WHAT" (STEP from
 * ul_engine_step_name).  NULL (error printed, nothing appended) when
 * out of memory.
 */
struct ul_cell *ul_engine_begin_cell(struct ul_engine *eng, const char *suite,
				     const struct ul_load *load, const char *probe,
				     const struct ul_engine_step *step, const char *what);
/* Its second half, for a cell made with ul_engine_new_cell_named (mtest's,
 * whose test is no registered load): the round metric and the progress
 * line.  0, or -ENOMEM (printed; the caller drops the cell). */
int ul_engine_cell_step(struct ul_engine *eng, struct ul_cell *cell, const char *suite,
			const struct ul_engine_step *step, const char *what) UL_MUST_CHECK;
struct ul_running_load;
struct ul_load_ctx;
struct ul_load_usage;
/*
 * For suites: a cell's measured window, the same in every suite
 * (engine/window.c).  In order, each hook optional unless said:
 *  - prepare: untimed work before the load starts (contest: the job's
 *    preparation, the cache flush).  Anything but UL_ENGINE_OK, or a cell
 *    outcome other than ok, ends the cell there (nothing below runs);
 *  - the load starts (none when `load` is NULL: mtest's runs are the
 *    load), with the run's settings, then load_ctx's (contest: the cell's
 *    directory, the tree it reads), waiting ready_timeout_ns for it to be
 *    ready (0 = the run's --ready-timeout);
 *  - the monitors begin;
 *  - lead_ns with the load running and watched: a load that dies then
 *    makes the cell load-died and skips begin .. end ("load 'X' died
 *    before WHAT started", WHAT = `what`, default "the measurement");
 *  - begin; the load's work is counted from here; measure (required; its
 *    rl is NULL without a load); the count ends: cell->load_units is the
 *    work done since begin, metrics measured_ns and load_units_per_s;
 *  - end gets measure's result and returns the result to keep;
 *  - the monitors end; the load is stopped (all its units in the metric
 *    load_units_total, its CPU in *usage when usage is not NULL; a load
 *    found dead marks an ok cell load-died);
 *  - stopped (only when a load ran) gets the result so far and returns
 *    the result to keep (contest: the job's numbers, which need the
 *    load's CPU).
 * Returns the first result other than UL_ENGINE_OK of prepare, the start,
 * the lead, measure/end and the stop, as stopped leaves it.  A load that
 * does not start makes the cell load-failed (printed) with UL_ENGINE_OK.
 */
struct ul_engine_window {
	int (*prepare)(void *arg, struct ul_cell *cell);
	void (*load_ctx)(void *arg, const struct ul_load *load, struct ul_load_ctx *ctx);
	int64_t ready_timeout_ns;
	int64_t lead_ns;
	const char *what;
	void (*begin)(void *arg, struct ul_cell *cell);
	int (*measure)(void *arg, struct ul_cell *cell, struct ul_running_load *rl);
	int (*end)(void *arg, struct ul_cell *cell, int result);
	int (*stopped)(void *arg, struct ul_cell *cell, int result);
	struct ul_load_usage *usage;
	void *arg;
};
int ul_engine_measure_cell(struct ul_engine *eng, struct ul_cell *cell, const struct ul_load *load,
			   const struct ul_engine_window *w);
/* For measure hooks: the cell is load-died, its note "load 'X' died WHEN
 * (how its leader ended): the error it or a worker recorded (ENAME)", e.g.
 * "load '8ctx-mem' died while measured, after 0 points (exit status 1):
 * Cannot allocate memory (ENOMEM)". */
void ul_engine_load_died(struct ul_cell *cell, const char *when, struct ul_running_load *rl);
/*
 * For suites: the end of a measured cell.  A load that died or a probe that
 * failed is printed ("WHAT: note", or the note alone when what is NULL),
 * then the cell is committed.  Returns `result`, or when that is
 * UL_ENGINE_OK the commit's.
 */
int ul_engine_end_cell(struct ul_engine *eng, struct ul_cell *cell, int result, const char *what);
/*
 * For suites: store a finished cell (prints the error on failure).
 * UL_ENGINE_OK; UL_ENGINE_ERROR when it could not be stored; or, once it is
 * stored, UL_ENGINE_INTERRUPTED when an interrupt arrived at any time so
 * far (say while the load was being stopped): the run must stop there.
 */
int ul_engine_commit_cell(struct ul_engine *eng, struct ul_cell *cell) UL_MUST_CHECK;
/*
 * Store a finished cell (engine/keep.c).  A cell the store refuses is kept
 * and retried before each later one, with one warning; returns 0, or -1
 * only when it can be neither stored nor kept.
 */
int ul_engine_store_cell(struct ul_engine *eng, struct ul_cell *cell);
/*
 * Journal where the run is now (engine/journal_at.c): the cell just begun, its
 * test and round, so that a run whose machine goes down is reported
 * crashed there.  Best effort: a failure only loses that report.
 */
void ul_engine_journal_at(struct ul_engine *eng, const struct ul_cell *cell);
/*
 * At the end of a run: retry the kept cells; if some are still refused or
 * the run's end (`end_stored` false) was not stored, write the whole run to
 * a recovery file (beside the database, else in /var/tmp) and say where.
 * Returns 0 when the store holds everything, 1 when the recovery file holds
 * the run (import completes it), -1 when cells are lost.
 */
int ul_engine_keep_finish(struct ul_engine *eng, bool end_stored);
/* For suites: the ctx of a load with the run's settings and options. */
void ul_engine_load_ctx(const struct ul_engine *eng, const struct ul_load *load,
			struct ul_load_ctx *ctx);
/* The same for a test of `suite` (NULL: none): its descriptor's
 * per-test settings of the load (model/suite.h) override the run's. */
void ul_engine_test_load_ctx(const struct ul_engine *eng, const char *suite,
			     const struct ul_load *load, struct ul_load_ctx *ctx);
/* For suites: the ctx of a probe with the run's settings and options. */
void ul_engine_probe_ctx(const struct ul_engine *eng, const struct ul_probe *probe,
			 struct ul_probe_ctx *ctx);
/* Progress line on stderr when enabled: "[resp] cpuload 3/5 ~1m20s left". */
void ul_engine_progress(const struct ul_engine *eng, const char *fmt, ...) UL_PRINTF(2, 3);
void ul_engine_progress_done(const struct ul_engine *eng);

#endif

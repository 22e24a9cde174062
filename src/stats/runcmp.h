/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Comparing stored runs: labels (each one or several runs, pooled) against
 * a baseline label, test by test, for the metrics the suites declare.  It
 * pools the raw samples, calls ul_stats_compare() per row, applies Holm's
 * correction per suite, and keeps the result in one plain structure that
 * report/compare.c prints (text, json, csv) and nothing recomputes.
 *
 * Optional stopping: a cell carrying the metric "fixed_n" (resp writes it:
 * the points taken before its stopping rule looked at the data) contributes
 * only that prefix of its samples, so the test sees samples of a size fixed
 * in advance; see docs/underload.1, "compare".
 *
 * stats/ reads the model's plain structs here (no I/O, no engine).
 */
#ifndef UL_STATS_RUNCMP_H
#define UL_STATS_RUNCMP_H

#include "core/compat.h"
#include "model/model.h"
#include "stats/compare.h"
#include "stats/replicate.h"
#include "stats/tost.h"

/* The cell metric naming the fixed prefix of its primary series. */
#define UL_RUNCMP_FIXED_N "fixed_n"

struct ul_suite_metric;
struct ul_runcmp_parts;

/* One measurement compared per test, as a suite declares it (model/suite.h). */
struct ul_runcmp_metric {
	const char *suite;  /* cells of this suite */
	const char *series; /* holding the samples: "delay_ns" */
	const char *label;  /* "delay" */
	const char *unit;   /* of the values: "ns" */
	enum ul_cmp_better better;
	/* A count metric when set: `series` names the cell metric holding
	 * the count ("dl_missed"), this one its exposure ("dl_periods"); a
	 * replicate's value is their ratio, the rate.  NULL = samples. */
	const char *exposure;
	/* Optional, the suite's metric_values hook: the values of `src` in a
	 * cell when they are not simply its series.  NULL = the series. */
	size_t (*values)(const struct ul_cell *cell, const struct ul_suite_metric *src,
			 int64_t *out, size_t room);
	const struct ul_suite_metric *src;
};

/* A label and its runs (pooled), newest first. */
struct ul_runcmp_group {
	char label[128];
	const struct ul_run **runs;
	size_t n_runs;
};

/*
 * A side's crashes in one test.  A run whose machine went down under it
 * (status crashed) keeps the cells it finished, and stores one cell of
 * outcome crashed for the test it was in, which has no measurement.
 * `reached`: the side's runs with a cell of this test, any outcome;
 * `crashed`: of them, those that crashed in it ("crashed in 1 of 3
 * runs"); `pooled`: crashed runs (in this test or a later one) whose
 * finished cells of this test the row pools: a compared side keeps them,
 * and every row that does says so (the man page's COMPARE says why).
 */
struct ul_runcmp_crash {
	size_t reached, crashed, pooled;
};
void ul_runcmp_crashes(const struct ul_runcmp_group *g, const char *suite, const char *test,
		       struct ul_runcmp_crash *out);

/* What a row's verdict rests on (stats/replicate.h has the definitions). */
enum ul_runcmp_basis {
	UL_BASIS_REPLICATES = 0, /* >= 2 replicates a side: Welch on replicate values */
	UL_BASIS_LEARNED,	 /* a side of one replicate: the between-run variance learned */
	UL_BASIS_UNMEASURED,	 /* within-run points alone: any call is "unconfirmed" */
};

/* "replicates", "learned", "points". */
const char *ul_runcmp_basis_name(enum ul_runcmp_basis b);

struct ul_runcmp_row {
	const struct ul_runcmp_metric *metric;
	char test[UL_NAME_LEN];
	size_t cand;			 /* index of the candidate group (> 0) */
	size_t runs_base, runs_cand;	 /* runs that contributed cells */
	size_t prefix_base, prefix_cand; /* largest fixed prefix used per cell, 0 = all points */
	size_t cells_base, cells_cand;	 /* cells pooled */
	size_t disturbed_base, disturbed_cand; /* of them flagged disturbed (foreign CPU) */
	/* Do a label's own runs agree?  p of its newest run against its other
	 * runs (same test); NAN with fewer than 2 runs.  Below alpha, the
	 * runs differ among themselves: run-to-run noise the test between
	 * labels does not model, so its verdict deserves doubt. */
	double p_runs_base, p_runs_cand;
	bool tested; /* false: why says why, res is zero */
	char why[96];
	/* The row's result: n and medians of the pooled points, and the
	 * shift, CI, p, verdict and need_per_side (replicates, see
	 * need_floor) of the test named by `basis`. */
	struct ul_cmp_result res;
	enum ul_runcmp_basis basis;
	size_t reps_base, reps_cand; /* replicates: cells (runs with --per-run) */
	struct ul_rep_result rep;    /* REPLICATES, LEARNED: the replicate-level test */
	size_t learned_groups;	     /* LEARNED: groups of repeated runs the variance came from */
	double learned_cv;	     /* LEARNED: its relative S.D. */
	bool need_floor;    /* UNMEASURED: need_per_side is a lower bound (variance unknown) */
	size_t need_points; /* UNMEASURED: points a side the within-run test needs */
	/* Count metrics: totals, and the exact conditional rate test's p
	 * (with replicates the verdict needs it and Welch on rates). */
	double count_base, exposure_base, count_cand, exposure_cand, p_rate;
	double p_holm;	    /* NAN when not tested */
	bool holm_survives; /* the test of a difference still significant after Holm */
	/* With a margin (opts.margin_rel > 0) and a replicate-level test
	 * (REPLICATES, LEARNED): Schuirmann's TOST with that test's shift,
	 * standard error and df, margin_rel x |the baseline's replicate mean|.
	 * When it shows equivalence res.verdict is UL_VERDICT_EQUAL and
	 * verdict_diff keeps the test of a difference's call. */
	bool tost_done;
	struct ul_tost tost;
	enum ul_cmp_verdict verdict_diff;
	/* Crashes in this test, per side (ul_runcmp_crashes): never hidden
	 * by the pooling, which has no cell of them to pool. */
	struct ul_runcmp_crash crash[2]; /* base, cand */
};

/* What kind of fact an environment difference is (fingerprint/diff.h's classes). */
enum ul_runcmp_env_kind {
	UL_ENV_SETTING = 0, /* a setting or the hardware: runs that differ may not compare */
	UL_ENV_COMPARED,    /* the kernel, the usual thing compared */
	UL_ENV_STATE,	    /* a moment: uptime, load, page cache, top processes, doctor */
};

/* One environment property that differs between the compared groups. */
#define UL_RUNCMP_MAX_GROUPS 16
struct ul_runcmp_env {
	char what[48];			       /* "kernel release" */
	char value[UL_RUNCMP_MAX_GROUPS][160]; /* per group; several runs joined by " | " */
	bool unfair;			       /* makes the comparison unfair (warning, --strict) */
	enum ul_runcmp_env_kind kind;
	/* Shown by default (compare's text header; --env all shows every
	 * one): settings, hardware and the kernel, and a state only when a
	 * run's value crosses a threshold that matters, said in `note`. */
	bool shown;
	char note[192]; /* "below the memory budget (512 MiB) in 'b'"; "" = none */
};

/* "setting", "compared", "state". */
const char *ul_runcmp_env_kind_name(enum ul_runcmp_env_kind k);

/* What one observation is. */
enum ul_runcmp_unit {
	UL_RUNCMP_POINTS = 0, /* every (fixed-prefix) point of every run: the default */
	UL_RUNCMP_RUNS,	      /* the median of each run: robust to run-to-run noise, needs runs */
};

struct ul_runcmp {
	struct ul_cmp_opts opts;
	enum ul_runcmp_unit unit;
	const struct ul_runcmp_group *groups; /* [0] is the baseline; not owned */
	size_t n_groups;
	/* Earlier repeated runs of this host and configuration, one group per
	 * label, where a row with one replicate a side learns the between-run
	 * variance (ul_runcmp_build_hist); not owned. */
	const struct ul_runcmp_group *history;
	size_t n_history;
	struct ul_runcmp_row *rows;
	size_t n_rows;
	struct ul_runcmp_env *env; /* filled by the caller (cmd/), freed by ul_runcmp_free */
	size_t n_env;
	size_t n_unfair;
	/* The breakdown's parts compared alike (stats/runcmp_parts.h), which
	 * explain the rows' changes; NULL = none.  Not owned. */
	const struct ul_runcmp_parts *parts;
};

/*
 * Build the rows: for every metric, every test seen in any group (first
 * seen first), every candidate group.  `groups` must outlive `out`.
 * 0, -EINVAL (fewer than 2 groups or more than UL_RUNCMP_MAX_GROUPS) or
 * -ENOMEM; on error nothing is left allocated.
 */
int ul_runcmp_build(const struct ul_runcmp_group *groups, size_t n_groups,
		    const struct ul_runcmp_metric *metrics, size_t n_metrics,
		    const struct ul_cmp_opts *opts, struct ul_runcmp *out) UL_MUST_CHECK;
/* The same with the observation unit chosen (ul_runcmp_build uses points). */
int ul_runcmp_build_unit(const struct ul_runcmp_group *groups, size_t n_groups,
			 const struct ul_runcmp_metric *metrics, size_t n_metrics,
			 const struct ul_cmp_opts *opts, enum ul_runcmp_unit unit,
			 struct ul_runcmp *out) UL_MUST_CHECK;
/* The same, learning between-run variance from `history` (may be empty). */
int ul_runcmp_build_hist(const struct ul_runcmp_group *groups, size_t n_groups,
			 const struct ul_runcmp_metric *metrics, size_t n_metrics,
			 const struct ul_cmp_opts *opts, enum ul_runcmp_unit unit,
			 const struct ul_runcmp_group *history, size_t n_history,
			 struct ul_runcmp *out) UL_MUST_CHECK;
/* Append an environment difference; -ENOMEM. */
int ul_runcmp_add_env(struct ul_runcmp *c, const struct ul_runcmp_env *e) UL_MUST_CHECK;
void ul_runcmp_free(struct ul_runcmp *c);

/*
 * The pooled samples of one group for metric m of test: every ok cell,
 * each cut to its fixed prefix.  0 or -ENOMEM (out->v NULL).
 */
struct ul_runcmp_pooled {
	double *v; /* malloc'ed */
	size_t n;
	size_t runs;	  /* runs that contributed */
	size_t cells;	  /* cells that contributed */
	size_t disturbed; /* of them flagged disturbed */
	size_t prefix;	  /* largest prefix cut, 0 = none */
};
int ul_runcmp_pool(const struct ul_runcmp_group *g, const struct ul_runcmp_metric *m,
		   const char *test, struct ul_runcmp_pooled *out);
/* Like ul_runcmp_pool, but one value per contributing run: the median of
 * its pooled (fixed-prefix) points. */
int ul_runcmp_pool_runs(const struct ul_runcmp_group *g, const struct ul_runcmp_metric *m,
			const char *test, struct ul_runcmp_pooled *out);

/*
 * One value per replicate of the group for metric m of test: the median
 * of each ok cell's (fixed-prefix) points, or of each run's with
 * UL_RUNCMP_RUNS; for a count metric the rate count/exposure.  `runs`,
 * `cells`, `disturbed` as ul_runcmp_pool.  0 or -ENOMEM.
 */
int ul_runcmp_replicates(const struct ul_runcmp_group *g, const struct ul_runcmp_metric *m,
			 const char *test, enum ul_runcmp_unit unit, struct ul_runcmp_pooled *out);
/* Does cell c hold values of m (points, or a count and its exposure)? */
bool ul_runcmp_cell_has(const struct ul_cell *c, const struct ul_runcmp_metric *m);
/* A count metric's totals over the group's ok cells of test (0 when none). */
void ul_runcmp_count_totals(const struct ul_runcmp_group *g, const struct ul_runcmp_metric *m,
			    const char *test, double *count, double *exposure);

/* Internal to stats/runcmp*.c: decide one row from its pooled data. */
struct ul_runcmp_sides {
	struct ul_runcmp_pooled pts[2]; /* pooled points: base, cand */
	struct ul_runcmp_pooled rep[2]; /* replicate values */
	double count[2], exposure[2];	/* count metrics: totals */
};
int ul_runcmp_decide(const struct ul_runcmp *c, struct ul_runcmp_row *row,
		     const struct ul_runcmp_sides *s);

#endif

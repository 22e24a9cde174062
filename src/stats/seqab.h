/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * The sequential A/B of two labels, test by test (`sweep --until-decided`,
 * `vm --until-decided`): the runs of each label are paired in the order
 * they were measured (the i-th A with the i-th B, which the balanced blocks
 * A B B A ... make neighbours in time), each pair gives one difference per
 * test, the log ratio of B's run median to A's, and the confidence sequence
 * of stats/seq.h decides on those differences.
 *
 * Signs: a positive difference is always "worse" for the candidate B: the
 * log ratio for a lower-is-better metric (a delay), its negative for a
 * higher-is-better one.  Verdicts: "slower" (B worse), "faster" (B better),
 * "equal" (within +-margin), "open".
 *
 * Multiplicity: every row's sequence runs at alpha / rows (Bonferroni),
 * which keeps the chance of any wrong call at most alpha over all rows and
 * all looks; the stopping rule may then wait for every row.
 *
 * A pilot (opts.pilot_pairs): the first pairs run at the run's own points
 * a cell, the later ones at the points the pilot designed, so the two have
 * differences of another spread, and the sequence of stats/seq.h takes one
 * S.D. for all its values.  The sequence therefore restarts after the
 * pilot: a row's pilot differences have a sequence of their own at
 * pilot_alpha / rows, and the differences after the pilot a new one, from
 * nothing, at (alpha - pilot_alpha) / rows.  Each part is anytime-valid on
 * its own values (the part after the pilot given the pilot: its points are
 * then fixed, its differences i.i.d.), so by the union bound the chance
 * that either part ever excludes the true change is at most alpha, however
 * the looks stop.  Both parts' intervals hold at once, so a row may show
 * either: the part after the pilot once that is bounded (or the pilot's
 * is not, and it holds a difference), else the pilot's (frozen at its
 * end).  The restart is planned before any pair (the pilot's length is
 * fixed, not chosen by the data), which the union bound needs.
 *
 * Only sample metrics take part (a count metric's rate, zero in most runs,
 * has no log ratio).  A pair where either run lacks the test (it crashed
 * there, or the test failed) is left out of that row.  stats/ reads the
 * model's plain structs (no I/O).
 */
#ifndef UL_STATS_SEQAB_H
#define UL_STATS_SEQAB_H

#include "core/compat.h"
#include "stats/runcmp.h"
#include "stats/seq.h"

/* The default margin of "equal": +-5% (stated in the man page). */
#define UL_SEQAB_MARGIN_DEFAULT_PCT 5.0
/* Pairs beyond which the estimate of pairs still needed gives up. */
#define UL_SEQAB_NEED_MAX 1000

struct ul_seqab_opts {
	double alpha;	    /* family-wise, over all rows, looks and parts: 0.05 */
	double margin_pct;  /* equal within +-this %; 0: never say equal */
	double rho;	    /* stats/seq.h's; 0: UL_SEQ_RHO_DEFAULT */
	size_t pilot_pairs; /* the pilot's pairs, after which the sequence restarts; 0: none */
	double pilot_alpha; /* of alpha, what the pilot's part spends (0 <= it < alpha); 0: the
			     * pilot decides nothing, the part after it has all of alpha */
};

/* The parts of a row's sequence: the pilot's pairs, and the pairs after
 * them (all the pairs when there is no pilot). */
enum ul_seqab_part {
	UL_SEQAB_PILOT,
	UL_SEQAB_AFTER
};

struct ul_seqab_row {
	const struct ul_runcmp_metric *metric;
	char test[UL_NAME_LEN];
	size_t pairs;		 /* differences so far, both parts */
	size_t pilot_n;		 /* of them, the pilot's pairs' */
	enum ul_seqab_part part; /* the part seq is of */
	struct ul_seq_state seq; /* on the log scale, of that part's differences alone */
	double change_pct;	 /* exp(mean) - 1 in %, the candidate's change (+ = worse) */
	double lo_pct, hi_pct;	 /* the interval, the same way; +-inf while unbounded */
	size_t needed;		 /* pairs in all for a verdict at today's S.D.; 0 unknown
				  * (in the pilot: the pilot's and the part after it's) */
};

struct ul_seqab {
	struct ul_seqab_opts opts;
	double row_alpha; /* alpha / n_rows, over a row's parts */
	/* a row's alpha in each part: pilot_alpha / n_rows, the rest; no
	 * pilot: 0 and row_alpha */
	double part_alpha[2];
	struct ul_seqab_row *rows;
	size_t n_rows;
	size_t pairs; /* pairs of runs (the fewer side's runs) */
	size_t open;  /* rows without a verdict */
};

/*
 * The pairs read so far, row by row, for a caller that reads the runs one
 * pair at a time (cmd/decide.c looks after every pair): each pair's run
 * medians are taken once, when it is added, so a look costs one pair's
 * reading, not all of them.  Zero-initialised; ul_seqab_acc_free().
 */
struct ul_seqab_draft;
struct ul_seqab_acc {
	struct ul_seqab_draft *rows;
	size_t n_rows, cap;
	size_t pairs; /* pairs added */
};

/*
 * Add the next pair: run a of group ga (for its label) and run b of gb.
 * Rows are found as in ul_seqab_build(), a's run before b's; the metric
 * pointers are kept, so metrics[] must outlive the accumulator.  0 or
 * -ENOMEM (the accumulator is then as before the call, but for rows it
 * found).
 */
int ul_seqab_add_pair(struct ul_seqab_acc *acc, const struct ul_runcmp_group *ga,
		      const struct ul_run *a, const struct ul_runcmp_group *gb,
		      const struct ul_run *b, const struct ul_runcmp_metric *metrics,
		      size_t n_metrics) UL_MUST_CHECK;
/* Decide the pairs added so far into *out, as ul_seqab_build() would the
 * same runs: 0, -EINVAL (bad options) or -ENOMEM. */
int ul_seqab_decide(const struct ul_seqab_acc *acc, const struct ul_seqab_opts *opts,
		    struct ul_seqab *out) UL_MUST_CHECK;
void ul_seqab_acc_free(struct ul_seqab_acc *acc);

/*
 * The rows for every metric and every test the runs of a and b hold (in
 * the order first seen in a's oldest run, then b's).  a and b list their
 * runs newest first, as compare's groups do.  0, -EINVAL (bad options) or
 * -ENOMEM; on error nothing is left allocated.
 */
int ul_seqab_build(const struct ul_runcmp_group *a, const struct ul_runcmp_group *b,
		   const struct ul_runcmp_metric *metrics, size_t n_metrics,
		   const struct ul_seqab_opts *opts, struct ul_seqab *out) UL_MUST_CHECK;
void ul_seqab_free(struct ul_seqab *s);

/*
 * One row's two-part sequence: d[0..n-1] its differences in the order of
 * their pairs, the first n_pilot of them the pilot's.  The part after the
 * pilot (d[n_pilot..n-1], from nothing, at alpha_after) once it is
 * bounded, or holds a difference while the pilot's part is unbounded;
 * else the pilot's (d[0..n_pilot-1] at alpha_pilot; 0: it bounds
 * nothing, but its mean and S.D. are given).  *part says which.
 * Without a pilot, n_pilot 0: one sequence of all, at alpha_after.
 * -EINVAL for a bad alpha or rho.
 */
int ul_seqab_sequence(const double *d, size_t n, size_t n_pilot, double alpha_pilot,
		      double alpha_after, double rho, double margin, struct ul_seq_state *out,
		      enum ul_seqab_part *part) UL_MUST_CHECK;

/* "slower", "faster", "equal", "open". */
const char *ul_seqab_verdict_name(enum ul_seq_verdict v);

/*
 * The smallest change (in %, of either sign) the pairs so far could have
 * told from none: the widest row's half-width as a ratio; +inf while some
 * row is unbounded.  What a budget that ran out can still say.
 */
double ul_seqab_detectable_pct(const struct ul_seqab *s);

#endif

/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Variance components of a nested design, and the cheapest design that
 * reaches a precision (Kalibera and Jones, "Rigorous Benchmarking in
 * Reasonable Time", ISMM 2013).  Pure functions: no I/O.
 *
 * The design has three levels, numbered from the bottom: points (level 1)
 * in cells (level 2, the rounds of one run: `run --runs`) in runs (level
 * 3; for `underload vm` each boot is one run, so there "between runs" is
 * "between boots").  The model is x = mu + a_run + b_cell + e_point, the
 * three effects independent with variances s3, s2 and s1 (the
 * components).  Everything is on the raw scale (the values' own unit);
 * relative components are the S.D.s over the grand mean (a CV).
 *
 * Estimators: method of moments, level by level on unweighted means, as
 * Kalibera and Jones's S_i^2 and T_i^2 but exact for an unbalanced design
 * (cells of different sizes, runs of different numbers of cells):
 *   S1^2 = sum over cells of sum (x - cell mean)^2 / sum (n_j - 1):
 *          unbiased for s1;
 *   S2^2 = sum over runs of sum (cell mean - run mean)^2 / sum (k_r - 1),
 *          the run mean the unweighted mean of its cell means:
 *          E = s2 + s1 h2, h2 = the (k_r - 1)-weighted mean over runs of
 *          mean_j 1/n_j (independent means of unequal variances v_j have
 *          E[sum (m_j - mbar)^2] = (k - 1) mean v_j);
 *   S3^2 = the sample variance of the run means:
 *          E = s3 + s2 mean_r(1/k_r) + s1 mean_r(sum_j (1/n_j) / k_r^2);
 * so T1^2 = S1^2, T2^2 = S2^2 - h2 S1^2 and
 * T3^2 = S3^2 - mean(1/k_r) T2^2 - mean(sum_j (1/n_j) / k_r^2) S1^2 are
 * unbiased.  Balanced (n points, k cells) they are Kalibera and Jones's
 * T_i^2 = S_i^2 - S_(i-1)^2 / n_(i-1).  A negative estimate (sampling
 * noise around a small component) is reported as 0 (`truncated` says
 * so); the level above subtracts the untruncated value, which keeps it
 * unbiased.  The grand mean is the unweighted mean of the run means.
 *
 * The cheapest design.  With r1 points per cell, r2 cells per run, r3
 * runs, and c_i the machine time of one repetition at level i beyond the
 * levels below it (c1 a point; c2 a cell's set-up beyond its points; c3 a
 * run's beyond its cells), the cost and the variance of the grand mean are
 *   C = r3 (c3 + r2 (c2 + r1 c1)) = r3 A,
 *   V = (s3 + s2 / r2 + s1 / (r2 r1)) / r3 = B / r3.
 * C V = A B does not depend on r3: choose r1, r2 to minimise A B, then the
 * r3 that brings V down to the target.  By Cauchy-Schwarz,
 *   A B >= (sqrt(c3 s3) + sqrt(c2 s2) + sqrt(c1 s1))^2,
 * with equality when the terms are proportional, c3 / s3 = r2^2 c2 / s2 =
 * (r2 r1)^2 c1 / s1, that is
 *   r_i = sqrt(c_(i+1) s_i / (c_i s_(i+1)))   (i = 1, 2),
 * Kalibera and Jones's optimal counts, rounded up (at least 1).  (The
 * paper's text was not at hand to check; this derivation puts the
 * components T_i^2 in the formula.  S_i^2, the variance of level-i means,
 * also holds the levels below: with it the counts would come out larger
 * than the optimum whenever a lower level varies.)  A level whose
 * component is 0 (above the points) gets 1 repetition and its cost goes
 * to the level above (repeating it buys nothing); levels above the top
 * non-zero component get 1.  A level that costs nothing would be
 * repeated without end: it is capped at UL_VARCOMP_REPS_MAX (`capped`).
 * Then the top count r3 = ceil(B / V0), V0 = (precision |mean| / 1.96)^2:
 * the relative half-width of the normal 95% CI of the mean (with few runs
 * a t quantile would ask for a few more).
 */
#ifndef UL_STATS_VARCOMP_H
#define UL_STATS_VARCOMP_H

#include "core/compat.h"

#include <stdbool.h>
#include <stddef.h>

/* The levels, bottom up. */
enum ul_varcomp_level {
	UL_VARCOMP_POINTS = 0, /* within a cell */
	UL_VARCOMP_CELLS,      /* between the cells (rounds) of a run */
	UL_VARCOMP_RUNS,       /* between runs (between boots for vm runs) */
	UL_VARCOMP_LEVELS,
};

/* One cell's points; one run's cells. */
struct ul_varcomp_cell {
	const double *x;
	size_t n;
};
struct ul_varcomp_run {
	const struct ul_varcomp_cell *cells;
	size_t n_cells;
};

struct ul_varcomp {
	size_t runs, cells, points;	   /* what the estimates rest on (cells, runs with data) */
	double mean;			   /* the grand mean */
	double s2[UL_VARCOMP_LEVELS];	   /* S_i^2: unbiased variance at each level; NAN: no df */
	size_t df[UL_VARCOMP_LEVELS];	   /* its degrees of freedom */
	double comp[UL_VARCOMP_LEVELS];	   /* the components (T_i^2, >= 0); NAN: unknown */
	bool truncated[UL_VARCOMP_LEVELS]; /* the estimate was negative, reported as 0 */
	/* The share of each level in the variance of the grand mean as
	 * measured (the design these runs had), summing to 1; NAN if unknown. */
	double share[UL_VARCOMP_LEVELS];
};

/*
 * Estimate the components of runs[0..n_runs) (cells without points and
 * runs without cells are skipped).  0, or -EINVAL with no point at all,
 * -ENOMEM.  A component without degrees of freedom (no cell of 2 points,
 * no run of 2 cells, fewer than 2 runs) and those above it that need it
 * are NAN.
 */
int ul_varcomp_estimate(const struct ul_varcomp_run *runs, size_t n_runs,
			struct ul_varcomp *out) UL_MUST_CHECK;

/* The CV of a component: sqrt(comp) / |mean|; NAN when unknown. */
double ul_varcomp_cv(const struct ul_varcomp *v, enum ul_varcomp_level level);

#define UL_VARCOMP_REPS_MAX 100000

struct ul_varcomp_design {
	size_t reps[UL_VARCOMP_LEVELS]; /* points per cell, cells per run, runs */
	bool capped[UL_VARCOMP_LEVELS]; /* hit UL_VARCOMP_REPS_MAX */
	double cost;			/* its machine time, in the costs' unit */
	double half_width_rel;		/* the 95% CI half-width it reaches, / |mean| */
};

/*
 * The cheapest design reaching the relative half-width `precision` (0.02:
 * 2%) of the 95% CI of the mean, from components comp[] (all known, >= 0)
 * and costs cost[] (>= 0, each beyond the levels below), for a mean
 * `mean` != 0.  0 or -EINVAL (a NAN or negative input, precision <= 0,
 * mean 0).
 */
int ul_varcomp_design(const double comp[UL_VARCOMP_LEVELS], const double cost[UL_VARCOMP_LEVELS],
		      double mean, double precision, struct ul_varcomp_design *out) UL_MUST_CHECK;

#endif

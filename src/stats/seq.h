/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * An anytime-valid confidence sequence for the mean of paired differences
 * (for an A/B: the log ratio of B's replicate median to A's, one value a
 * pair of runs), for a sequential experiment that looks after every pair
 * and stops when the answer is known.
 *
 * The differences d_1..d_n are taken as i.i.d. N(mu, sigma^2), sigma
 * unknown.  For a candidate mu0 let y_i = d_i - mu0, S1 = sum y_i and
 * S2 = sum y_i^2.  The scale-invariant Bayes factor of "standardised effect
 * delta = (mu - mu0) / sigma ~ N(0, 1/rho)" against "delta = 0", under the
 * right-Haar prior 1/sigma on the scale, is
 *
 *	E_n(mu0) = sqrt(rho / (rho + n)) * (1 - S1^2 / ((rho + n) S2))^(-n/2),
 *
 * a test martingale for mu = mu0 in the filtration of the scale-invariant
 * data (Lai 1976, "On confidence sequences", Ann. Statist. 4; Perez-Ortiz,
 * Lardy, de Heide and Grunwald 2024, "E-statistics, group invariance and
 * anytime-valid testing", Ann. Statist. 52; Wang and Ramdas 2023,
 * "Anytime-valid t-tests and confidence sequences for Gaussian means with
 * unknown variance").  By Ville's inequality P(sup_n E_n(mu) >= 1/alpha)
 * <= alpha, so C_n = { mu0 : E_n(mu0) < 1/alpha } holds the true mean at
 * every n at once with probability >= 1 - alpha, however the stopping time
 * depends on the data.  C_n is an interval around the mean with a closed
 * form (seq.c).  For large n it approaches Robbins's two-sided normal-mixture
 * boundary with sigma known, |S_n| < sigma sqrt((n + rho) log((n + rho) /
 * (rho alpha^2))) (Robbins 1970, "Statistical methods related to the law of
 * the iterated logarithm", Ann. Math. Statist. 41; as given by Howard,
 * Ramdas, McAuliffe and Sekhon 2021, "Time-uniform, nonparametric,
 * nonasymptotic confidence sequences", Ann. Statist. 49).
 *
 * rho sets the effect size (in S.D.s) at which the sequence is tightest
 * soonest.  0.25 bounds the interval from fewer values than the
 * unit-information 1: by simulation (normal differences, S.D. 2-4%, alpha
 * 0.05/7), a 10% change was called after a median 5.5-7 pairs against 7-8,
 * and "equal within 5%" of an A/A after 8-18 against 9-18.
 * Pure functions: no I/O, no global state.
 */
#ifndef UL_STATS_SEQ_H
#define UL_STATS_SEQ_H

#include "core/compat.h"

#define UL_SEQ_RHO_DEFAULT 0.25

/* Where the confidence sequence stands against 0 and the margin. */
enum ul_seq_verdict {
	UL_SEQ_OPEN,   /* none of the below yet: keep measuring */
	UL_SEQ_ABOVE,  /* the whole interval above 0 (for a delay: slower) */
	UL_SEQ_BELOW,  /* the whole interval below 0 (faster) */
	UL_SEQ_WITHIN, /* the whole interval inside (-margin, +margin) (equal) */
};

struct ul_seq_state {
	size_t n;      /* differences so far */
	double mean;   /* their mean */
	double sd;     /* their sample S.D. (n-1); 0 for n < 2 */
	double half;   /* the interval's half-width; +inf while unbounded */
	double lo, hi; /* mean -/+ half */
	enum ul_seq_verdict verdict;
};

/*
 * The e-value E_n(mu0) above from the sums of y_i = d_i - mu0: n values,
 * s1 = sum y_i, s2 = sum y_i^2 (> 0).  For tests and the man page's
 * account; the interval below needs no search over mu0.
 */
double ul_seq_evalue(size_t n, double s1, double s2, double rho);

/*
 * The half-width of C_n around the mean, from n and ss = sum (d_i - mean)^2:
 * the mu0 with E_n(mu0) = 1/alpha.  +inf when no mu0 reaches it yet (few
 * values, or alpha small).  0 < alpha < 1, rho > 0.
 */
double ul_seq_halfwidth(size_t n, double ss, double alpha, double rho);

/*
 * The confidence sequence after n differences d[0..n-1], and its verdict
 * against 0 and `margin` (> 0; pass +inf or 0 to never say WITHIN).  ABOVE
 * or BELOW win over WITHIN when the interval is both (a change smaller
 * than the margin that is still certain).  -EINVAL for a bad alpha or rho.
 */
int ul_seq_update(const double *d, size_t n, double alpha, double rho, double margin,
		  struct ul_seq_state *out) UL_MUST_CHECK;

/*
 * How many differences in all the sequence would need, if the S.D. stayed
 * `sd` and the mean `mean`, to reach a verdict: the smaller of the n whose
 * half-width is below |mean| (a change) and below margin - |mean| (equal),
 * each only where it exists.  0 when neither is reached by max_n.
 */
size_t ul_seq_needed(double mean, double sd, double margin, double alpha, double rho, size_t max_n);

const char *ul_seq_verdict_name(enum ul_seq_verdict v);

#endif

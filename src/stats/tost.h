/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Equivalence: Schuirmann's two one-sided tests (TOST; D. J. Schuirmann,
 * "A comparison of the two one-sided tests procedure and the power
 * approach for assessing the equivalence of average bioavailability",
 * J. Pharmacokinet. Biopharm. 15(6), 1987).
 *
 * For a shift estimated with standard error se on df degrees of freedom
 * (Student's t, as the test behind the verdict: stats/replicate.h) and a
 * margin m > 0:
 *  - lower test, H0: shift <= -m:  t_lower = (shift + m) / se,
 *    p_lower = P(T_df >= t_lower);
 *  - upper test, H0: shift >= +m:  t_upper = (shift - m) / se,
 *    p_upper = P(T_df <= t_upper);
 *  - p = max(p_lower, p_upper): both reject at alpha exactly when p <= alpha,
 *    which is the same as the 1 - 2 alpha interval shift +- t(1-alpha, df) se
 *    lying inside (-m, +m) (a 90% interval for alpha 0.05): each one-sided
 *    test has level alpha, and the shift cannot be below -m and above +m at
 *    once, so the pair keeps level alpha without a correction.
 * se 0 (no spread): both tests reject exactly when |shift| < m.
 * Pure functions: no I/O, no global state.
 */
#ifndef UL_STATS_TOST_H
#define UL_STATS_TOST_H

#include "core/compat.h"

struct ul_tost {
	double margin;		 /* m, in the shift's unit */
	double t_lower, t_upper; /* the two statistics (+-INFINITY when se is 0) */
	double p_lower, p_upper; /* their one-sided p-values */
	double p;		 /* max(p_lower, p_upper) */
	double lo, hi;		 /* the 1 - 2 alpha interval of the shift */
	bool equivalent;	 /* p <= alpha: |shift| < m shown */
};

/*
 * The two one-sided tests at level alpha in (0, 0.5].  0, or -EDOM for a
 * margin that is not finite and positive, se < 0, df <= 0, an alpha out of
 * range or a shift that is not finite (out is then zeroed).
 */
int ul_tost_t(double shift, double se, double df, double margin, double alpha,
	      struct ul_tost *out) UL_MUST_CHECK;

#endif

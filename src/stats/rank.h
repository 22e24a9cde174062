/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Rank statistics used by stats/compare.c (private to src/stats): the
 * Mann-Whitney U test and the Hodges-Lehmann shift with its
 * distribution-free interval, on sorted samples.
 */
#ifndef UL_STATS_RANK_H
#define UL_STATS_RANK_H

#include "core/compat.h"

/* Samples below this size on both sides without ties get exact p-values (as R). */
#define UL_MWU_EXACT_MAX 50

struct ul_mwu {
	double u;     /* pairs with c > b, plus half the ties */
	double p;     /* two-sided */
	double p_min; /* the smallest p any ranking of these n could give */
	double sd;    /* of U under H0, tie-corrected (normal case) */
	bool exact;
	bool ties;
};

/* Mann-Whitney on sorted b[nb], c[nc] (nb, nc >= 1).  0 or -ENOMEM. */
int ul_mwu_test(const double *b, size_t nb, const double *c, size_t nc, struct ul_mwu *out);

struct ul_hl {
	double est; /* median of the differences c_j - b_i */
	bool has_ci;
	double lo, hi; /* [d(k), d(N-k+1)] */
	double coverage;
};

/* HL shift and its 1-alpha interval, with the null law `mwu` used (exact or normal). */
int ul_hl_shift(const double *b, size_t nb, const double *c, size_t nc, double alpha,
		const struct ul_mwu *mwu, struct ul_hl *out);

#endif

/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Schuirmann's two one-sided tests on a t-distributed shift (tost.h has
 * the definitions).
 */
#include "core/compat.h"
#include "stats/tost.h"
#include "stats/compare.h"

#include <errno.h>
#include <math.h>
#include <string.h>

/* Slack so that p == alpha exactly counts as significant (as compare.c). */
#define P_SLACK 1e-9

int ul_tost_t(double shift, double se, double df, double margin, double alpha, struct ul_tost *out)
{
	double q;

	memset(out, 0, sizeof(*out));
	if (!(margin > 0.0) || !isfinite(margin) || !(se >= 0.0) || !isfinite(se) || !(df > 0.0) ||
	    !(alpha > 0.0) || alpha > 0.5 || !isfinite(shift))
		return -EDOM;
	out->margin = margin;
	if (se == 0.0) { /* no spread: the shift is known exactly */
		out->t_lower = shift + margin > 0.0 ? INFINITY : -INFINITY;
		out->t_upper = shift - margin < 0.0 ? -INFINITY : INFINITY;
		out->p_lower = shift > -margin ? 0.0 : 1.0;
		out->p_upper = shift < margin ? 0.0 : 1.0;
		out->lo = out->hi = shift;
	} else {
		out->t_lower = (shift + margin) / se;
		out->t_upper = (shift - margin) / se;
		out->p_lower = ul_stats_t_cdf(-out->t_lower, df);
		out->p_upper = ul_stats_t_cdf(out->t_upper, df);
		q = ul_stats_t_quantile(1.0 - alpha, df);
		out->lo = shift - q * se;
		out->hi = shift + q * se;
	}
	out->p = fmax(out->p_lower, out->p_upper);
	out->equivalent = out->p <= alpha * (1.0 + P_SLACK);
	return 0;
}

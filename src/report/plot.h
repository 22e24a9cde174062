/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Plot maths for the HTML/SVG report: scales, ticks, log axes, colours,
 * units, box-plot statistics and the downsampling of long series.  Pure
 * functions of their arguments (no I/O, no allocation, no global state) so
 * every picture's geometry is unit-tested without a browser.
 */
#ifndef UL_REPORT_PLOT_H
#define UL_REPORT_PLOT_H

#include "core/compat.h"

/* Data [d0, d1] mapped onto pixels [p0, p1], linearly or by log10. */
struct ul_scale {
	double d0, d1, p0, p1;
	bool log;
};

/*
 * A scale over [lo, hi].  A degenerate range (lo == hi, or not finite) is
 * widened so the map stays defined; a log scale needs lo > 0 and falls back
 * to linear otherwise.  Pixels may run backwards (y axes: p0 > p1).
 */
void ul_scale_init(struct ul_scale *s, double lo, double hi, double p0, double p1, bool log);
/* Pixel of v; values outside the domain map outside [p0, p1] (no clamping);
 * on a log scale v <= 0 maps to p0. */
double ul_scale_map(const struct ul_scale *s, double v);

/* Whether [lo, hi] spans at least two decades (hi / lo >= 100, lo > 0): the
 * range where a log axis shows the bulk and the tail both. */
bool ul_plot_spans_decades(double lo, double hi);

/* The 1-2-5 step (a power of ten times 1, 2 or 5) giving about `want`
 * intervals over [lo, hi]; 1 for a degenerate range. */
double ul_plot_nice_step(double lo, double hi, unsigned want);
/*
 * Widens [*lo, *hi] outward to multiples of the nice step for `want`
 * intervals (so the frame starts and ends on a tick).  A degenerate range
 * becomes [v - 1, v + 1] (or [0, 1] around 0) first.
 */
void ul_plot_nice_range(double *lo, double *hi, unsigned want);
/*
 * Linear ticks: the multiples of the nice step for `want` intervals inside
 * [lo, hi] (inclusive, with a tolerance of 1e-9 step), at most `cap`.
 * Returns the count; *step receives the step (for the labels).
 */
size_t ul_plot_ticks(double lo, double hi, unsigned want, double *out, size_t cap, double *step);
/* The multiples of `step` (> 0) inside [lo, hi], at most `cap`. */
size_t ul_plot_ticks_at(double lo, double hi, double step, double *out, size_t cap);
/*
 * Log ticks inside [lo, hi] (lo > 0): every power of ten, and 2 and 5 times
 * each when the range spans fewer than three decades.  Returns the count
 * (0 if lo <= 0), at most `cap`.
 */
size_t ul_plot_log_ticks(double lo, double hi, double *out, size_t cap);
/* Widens [*lo, *hi] (0 < lo <= hi) outward to values 1, 2 or 5 times a
 * power of ten, so a log axis starts and ends on a tick. */
void ul_plot_log_range(double *lo, double *hi);
/*
 * A tick label: as many decimals as `step` needs (0.25 -> 2, 5 -> 0), no
 * "-0"; step <= 0 (log ticks) prints %g.  Returns buf.
 */
char *ul_plot_tick_label(double v, double step, char *buf, size_t len);

/* The i-th colour of the label palette ("#0072b2"...): Okabe and Ito's
 * colour-blind safe set without its yellow (unreadable on white); cycles. */
const char *ul_plot_colour(size_t i);

/*
 * The display unit of a series from its name's unit suffix and its largest
 * absolute value: "_ns" -> us, ms or s; "_ps" -> ps, ns or us; "_bytes_s"
 * -> MB/s (10^6, as LMbench); "_bytes" and "_kb" -> KiB, MiB or GiB;
 * anything else is shown as stored with an empty unit.  *div is what
 * a stored value is divided by.  Returns the unit name ("ms", "" ...).
 */
const char *ul_plot_unit(const char *series, double max_abs, double *div);

/* Length of the series name without the unit suffix ul_plot_unit() reads
 * ("delay_ns" -> 5), the whole length when it has none. */
size_t ul_plot_unit_stem(const char *series);

/* Tukey's box: quartiles (type 7), whiskers at the most extreme values
 * within 1.5 IQR of the box, and how many points lie beyond them. */
struct ul_box {
	double q1, median, q3, wlo, whi, min, max;
	size_t n, n_out;
};
/* From n >= 1 sorted values; -EINVAL for n == 0. */
int ul_plot_box(const double *sorted, size_t n, struct ul_box *out) UL_MUST_CHECK;

/*
 * Downsampling that keeps extremes: splits indices 0..n-1 into `buckets`
 * consecutive runs and keeps, in index order and without repeats, the
 * first, the smallest, the largest and the last index of each.  A spike
 * therefore always survives, whatever the zoom.  When n <= 4 * buckets
 * every index is kept.  `keep` must hold min(n, 4 * buckets) entries;
 * returns how many were written.  NaN values are never chosen as extremes.
 */
size_t ul_plot_downsample(const double *y, size_t n, size_t buckets, size_t *keep);

/*
 * Indices into n sorted values for an empirical CDF drawn with at most
 * about `points` vertices: every index when n <= points, else evenly
 * spaced ranks always including the first and the last.  `keep` holds
 * min(n, points + 1) entries; returns the count.
 */
size_t ul_plot_cdf_ranks(size_t n, size_t points, size_t *keep);

#endif

/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Plot maths for the HTML/SVG report (see plot.h): pure functions, unit
 * tested in tests/unit/test_plot.c.
 */
#include "core/compat.h"
#include "report/plot.h"
#include "stats/stats.h"

#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <string.h>

void ul_scale_init(struct ul_scale *s, double lo, double hi, double p0, double p1, bool log)
{
	if (!isfinite(lo) || !isfinite(hi)) {
		lo = 0;
		hi = 1;
	}
	if (lo > hi) {
		double t = lo;

		lo = hi;
		hi = t;
	}
	s->log = log && lo > 0;
	if (s->log) {
		lo = log10(lo);
		hi = log10(hi);
	}
	if (hi - lo < 1e-12 * (fabs(lo) + fabs(hi)) || hi == lo) {
		lo -= lo ? fabs(lo) * 0.5 : 1;
		hi += hi ? fabs(hi) * 0.5 : 1;
	}
	s->d0 = lo;
	s->d1 = hi;
	s->p0 = p0;
	s->p1 = p1;
}

double ul_scale_map(const struct ul_scale *s, double v)
{
	if (s->log)
		v = v > 0 ? log10(v) : s->d0;
	return s->p0 + (v - s->d0) / (s->d1 - s->d0) * (s->p1 - s->p0);
}

bool ul_plot_spans_decades(double lo, double hi)
{
	return lo > 0 && isfinite(hi) && hi / lo >= 100;
}

double ul_plot_nice_step(double lo, double hi, unsigned want)
{
	double raw, mag, f;

	if (!(hi > lo) || !isfinite(hi - lo))
		return 1;
	raw = (hi - lo) / (want ? want : 1);
	mag = pow(10, floor(log10(raw)));
	f = raw / mag;
	/* The smallest 1-2-5 multiple not below the raw step. */
	if (f <= 1 + 1e-9)
		return mag;
	if (f <= 2 + 1e-9)
		return 2 * mag;
	if (f <= 5 + 1e-9)
		return 5 * mag;
	return 10 * mag;
}

void ul_plot_nice_range(double *lo, double *hi, unsigned want)
{
	double step;

	if (!isfinite(*lo) || !isfinite(*hi)) {
		*lo = 0;
		*hi = 1;
	}
	if (*hi < *lo) {
		double t = *lo;

		*lo = *hi;
		*hi = t;
	}
	if (*hi == *lo) {
		double d = *lo ? fabs(*lo) * 0.1 : 1;

		*lo -= d;
		*hi += d;
	}
	step = ul_plot_nice_step(*lo, *hi, want);
	*lo = floor(*lo / step + 1e-9) * step;
	*hi = ceil(*hi / step - 1e-9) * step;
}

size_t ul_plot_ticks_at(double lo, double hi, double step, double *out, size_t cap)
{
	size_t n = 0;

	if (!(hi >= lo) || !isfinite(lo) || !isfinite(hi) || !(step > 0))
		return 0;
	for (double k = ceil(lo / step - 1e-9); n < cap && k * step <= hi + 1e-9 * step; k++) {
		double v = k * step;

		out[n++] = fabs(v) < 1e-12 * step ? 0 : v; /* no -0 */
	}
	return n;
}

size_t ul_plot_ticks(double lo, double hi, unsigned want, double *out, size_t cap, double *step)
{
	double st = ul_plot_nice_step(lo, hi, want);

	if (step)
		*step = st;
	return ul_plot_ticks_at(lo, hi, st, out, cap);
}

size_t ul_plot_log_ticks(double lo, double hi, double *out, size_t cap)
{
	static const double mult[] = { 1, 2, 5 };
	int e0, e1;
	bool fine;
	size_t n = 0;

	if (!(lo > 0) || !(hi >= lo) || !isfinite(hi))
		return 0;
	e0 = (int)floor(log10(lo) + 1e-9);
	e1 = (int)ceil(log10(hi) - 1e-9);
	fine = log10(hi / lo) < 3 - 1e-9;
	for (int e = e0; e <= e1; e++)
		for (size_t m = 0; m < (fine ? 3u : 1u); m++) {
			double v = mult[m] * pow(10, e);

			if (v >= lo * (1 - 1e-9) && v <= hi * (1 + 1e-9) && n < cap)
				out[n++] = v;
		}
	return n;
}

/* The largest (up = false) or smallest (up) 1-2-5 value below or above v > 0. */
static double step125(double v, bool up)
{
	static const double m[] = { 1, 2, 5, 10 };
	double mag = pow(10, floor(log10(v)));

	if (up) {
		for (size_t i = 0; i < 4; i++)
			if (m[i] * mag >= v * (1 - 1e-12))
				return m[i] * mag;
	}
	for (size_t i = 3; i-- > 0;)
		if (m[i] * mag <= v * (1 + 1e-12))
			return m[i] * mag;
	return mag;
}

void ul_plot_log_range(double *lo, double *hi)
{
	if (!(*lo > 0) || !(*hi >= *lo) || !isfinite(*hi))
		return;
	*lo = step125(*lo, false);
	*hi = step125(*hi, true);
}

char *ul_plot_tick_label(double v, double step, char *buf, size_t len)
{
	int dec = 0;

	if (step <= 0) {
		snprintf(buf, len, "%g", v);
		return buf;
	}
	if (step < 1)
		dec = (int)ceil(-log10(step) - 1e-9);
	if (dec > 9)
		dec = 9;
	if (fabs(v) < step * 1e-9)
		v = 0;
	snprintf(buf, len, "%.*f", dec, v);
	if (!strncmp(buf, "-0", 2) && strspn(buf + 1, "0.") == strlen(buf + 1))
		memmove(buf, buf + 1, strlen(buf)); /* "-0.00" -> "0.00" */
	return buf;
}

const char *ul_plot_colour(size_t i)
{
	static const char *const palette[] = {
		"#0072b2", "#d55e00", "#009e73", "#cc79a7", "#e69f00", "#56b4e9", "#000000",
	};

	return palette[i % UL_ARRAY_SIZE(palette)];
}

static bool has_suffix(const char *s, const char *suf)
{
	size_t a = strlen(s), b = strlen(suf);

	return a >= b && !strcmp(s + a - b, suf);
}

const char *ul_plot_unit(const char *series, double max_abs, double *div)
{
	double bytes = 1;

	*div = 1;
	if (has_suffix(series, "_ns")) {
		if (max_abs < 1e6) {
			*div = 1e3;
			return "\xc2\xb5s"; /* µs in UTF-8 */
		}
		if (max_abs < 1e10) {
			*div = 1e6;
			return "ms";
		}
		*div = 1e9;
		return "s";
	}
	if (has_suffix(series, "_ps")) { /* micro: picoseconds per operation */
		if (max_abs < 1e3)
			return "ps";
		*div = max_abs < 1e6 ? 1e3 : 1e6;
		return max_abs < 1e6 ? "ns" : "\xc2\xb5s";
	}
	if (has_suffix(series, "_bytes_s")) { /* micro: bandwidth, decimal as LMbench */
		*div = 1e6;
		return "MB/s";
	}
	if (has_suffix(series, "_kb"))
		bytes = 1024;
	else if (!has_suffix(series, "_bytes"))
		return "";
	max_abs *= bytes;
	if (max_abs < 1024.0 * 1024) {
		*div = 1024 / bytes;
		return "KiB";
	}
	if (max_abs < 1024.0 * 1024 * 1024 * 4) {
		*div = 1024 * 1024 / bytes;
		return "MiB";
	}
	*div = 1024.0 * 1024 * 1024 / bytes;
	return "GiB";
}

size_t ul_plot_unit_stem(const char *series)
{
	static const char *const suffixes[] = { "_ns", "_ps", "_bytes_s", "_bytes", "_kb" };
	size_t n = strlen(series);

	for (size_t i = 0; i < UL_ARRAY_SIZE(suffixes); i++)
		if (has_suffix(series, suffixes[i]) && n > strlen(suffixes[i]))
			return n - strlen(suffixes[i]);
	return n;
}

int ul_plot_box(const double *sorted, size_t n, struct ul_box *out)
{
	double iqr, lo_fence, hi_fence;

	if (!n)
		return -EINVAL;
	memset(out, 0, sizeof(*out));
	out->n = n;
	out->min = sorted[0];
	out->max = sorted[n - 1];
	out->q1 = ul_stats_quantile_sorted(sorted, n, 0.25);
	out->median = ul_stats_median_sorted(sorted, n);
	out->q3 = ul_stats_quantile_sorted(sorted, n, 0.75);
	iqr = out->q3 - out->q1;
	lo_fence = out->q1 - 1.5 * iqr;
	hi_fence = out->q3 + 1.5 * iqr;
	out->wlo = out->q1;
	out->whi = out->q3;
	for (size_t i = 0; i < n; i++) {
		if (sorted[i] < lo_fence || sorted[i] > hi_fence) {
			out->n_out++;
			continue;
		}
		if (sorted[i] < out->wlo)
			out->wlo = sorted[i];
		if (sorted[i] > out->whi)
			out->whi = sorted[i];
	}
	return 0;
}

/* Appends i to keep[] unless it is the last index kept (buckets are scanned in order). */
static void keep_index(size_t *keep, size_t *k, size_t i)
{
	if (!*k || keep[*k - 1] != i)
		keep[(*k)++] = i;
}

size_t ul_plot_downsample(const double *y, size_t n, size_t buckets, size_t *keep)
{
	size_t k = 0;

	if (!buckets || n <= 4 * buckets) {
		for (size_t i = 0; i < n; i++)
			keep[i] = i;
		return n;
	}
	for (size_t b = 0; b < buckets; b++) {
		size_t a = n * b / buckets, e = n * (b + 1) / buckets, lo = a, hi = a;

		for (size_t i = a; i < e; i++) {
			if (isnan(y[i]))
				continue;
			if (isnan(y[lo]) || y[i] < y[lo])
				lo = i;
			if (isnan(y[hi]) || y[i] > y[hi])
				hi = i;
		}
		keep_index(keep, &k, a);
		keep_index(keep, &k, lo < hi ? lo : hi);
		keep_index(keep, &k, lo < hi ? hi : lo);
		keep_index(keep, &k, e - 1);
	}
	return k;
}

size_t ul_plot_cdf_ranks(size_t n, size_t points, size_t *keep)
{
	size_t k = 0;

	if (n <= points || points < 2) {
		for (size_t i = 0; i < n; i++)
			keep[i] = i;
		return n;
	}
	for (size_t j = 0; j <= points; j++) {
		size_t i = (size_t)((double)(n - 1) * (double)j / (double)points + 0.5);

		keep_index(keep, &k, i);
	}
	return k;
}

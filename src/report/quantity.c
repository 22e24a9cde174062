/* SPDX-License-Identifier: GPL-2.0-or-later */
/* Numbers people read (report/quantity.h). */
#include "core/compat.h"
#include "report/quantity.h"
#include "core/escape.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define MICRO "\xc2\xb5" /* µ in UTF-8 */

static int has_suffix(const char *s, const char *suffix)
{
	size_t n = strlen(s), k = strlen(suffix);

	return n >= k && !strcmp(s + n - k, suffix);
}

const char *ul_series_unit(const char *series)
{
	if (has_suffix(series, "_ns"))
		return "ns";
	if (has_suffix(series, "_ps"))
		return "ps";
	if (has_suffix(series, "_bps") || has_suffix(series, "_bytes_s"))
		return "B/s";
	return NULL;
}

/* A prefix of a unit: values at or above `from` (in the recorded unit)
 * are divided by `div` and shown with `name`. */
struct prefix {
	double from, div;
	const char *name;
};

static const struct prefix time_ns[] = {
	{ 1e9, 1e9, "s" },
	{ 1e6, 1e6, "ms" },
	{ 1e3, 1e3, MICRO "s" },
	{ 0, 1, "ns" },
};
static const struct prefix time_ps[] = {
	{ 1e12, 1e12, "s" }, { 1e9, 1e9, "ms" }, { 1e6, 1e6, MICRO "s" },
	{ 1e3, 1e3, "ns" },  { 0, 1, "ps" },
};
static const struct prefix rate_bps[] = { { 0, 1e6, "MB/s" } };

static const struct unit_scale {
	const char *unit;
	const struct prefix *p;
	size_t n;
} scales[] = {
	{ "ns", time_ns, sizeof(time_ns) / sizeof(time_ns[0]) },
	{ "ps", time_ps, sizeof(time_ps) / sizeof(time_ps[0]) },
	{ "B/s", rate_bps, 1 },
	{ "bytes/s", rate_bps, 1 },
};

/* `v` rounded to 4 significant digits (what %.3e shows). */
static double round4(double v)
{
	char tmp[32];

	snprintf(tmp, sizeof(tmp), "%.3e", v);
	return strtod(tmp, NULL);
}

char *ul_fmt_quantity(char *buf, size_t len, double v, const char *unit)
{
	const struct unit_scale *u = NULL;
	const struct prefix *p;
	double r, x, a;

	for (size_t i = 0; unit && i < sizeof(scales) / sizeof(scales[0]); i++)
		if (!strcmp(unit, scales[i].unit))
			u = &scales[i];
	if (!isfinite(v)) {
		snprintf(buf, len, "-");
		return buf;
	}
	if (!u) { /* a count: never an exponent where a whole number reads better */
		snprintf(buf, len, fabs(v) >= 1000 ? "%.0f%s%s" : "%.4g%s%s", v,
			 unit && *unit ? " " : "", unit ? unit : "");
		return buf;
	}
	r = round4(v);
	p = &u->p[u->n - 1];
	for (size_t i = 0; i < u->n; i++)
		if (fabs(r) >= u->p[i].from) {
			p = &u->p[i];
			break;
		}
	if (r == 0) {
		snprintf(buf, len, "0 %s", p->name);
		return buf;
	}
	x = r / p->div;
	a = fabs(x);
	snprintf(buf, len, "%.*f %s", a >= 1000 ? 0 : a >= 100 ? 1 : a >= 10 ? 2 : 3, x, p->name);
	return buf;
}

const char *ul_fmt_unit_note(const char *unit)
{
	if (!unit)
		return "as recorded";
	if (!strcmp(unit, "ns") || !strcmp(unit, "ps"))
		return "ns, " MICRO "s, ms or s";
	if (!strcmp(unit, "B/s") || !strcmp(unit, "bytes/s"))
		return "MB/s (10^6 bytes/s)";
	return unit;
}

size_t ul_fmt_columns(const char *s)
{
	size_t n = 0;

	for (; *s; s++)
		n += ((unsigned char)*s & 0xc0) != 0x80;
	return n;
}

int ul_fmt_width(const char *s, int width)
{
	return width + (int)(strlen(s) - ul_fmt_columns(s));
}

void ul_csv_num(FILE *out, double v, bool last)
{
	char buf[40];

	if (isfinite(v))
		snprintf(buf, sizeof(buf), "%.17g", v);
	else
		buf[0] = '\0';
	ul_csv_field(out, buf, SIZE_MAX, last);
}

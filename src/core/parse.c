/* SPDX-License-Identifier: GPL-2.0-or-later */
/* Strict number, size, duration and percentage parsing; see parse.h. */
#include "core/compat.h"
#include "core/parse.h"

#include <ctype.h>
#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <strings.h>

/*
 * Parse leading decimal digits (with an optional fraction when frac_ok);
 * returns the end pointer, or NULL when no digit starts `s`.  Integer part and
 * fraction are kept apart so "1.5G" is exact.  An integer part beyond
 * UINT64_MAX sets *overflow and the digits are still consumed, so a caller
 * reports trailing junk as -EINVAL first and only then overflow as -ERANGE.
 */
static const char *parse_decimal(const char *s, bool frac_ok, uint64_t *whole, uint64_t *frac,
				 uint64_t *frac_den, bool *overflow)
{
	const char *p = s;

	*whole = 0;
	*frac = 0;
	*frac_den = 1;
	*overflow = false;
	if (!isdigit((unsigned char)*p))
		return NULL;
	while (isdigit((unsigned char)*p)) {
		uint64_t d = (uint64_t)(*p - '0');

		if (*whole > (UINT64_MAX - d) / 10)
			*overflow = true;
		else
			*whole = *whole * 10 + d;
		p++;
	}
	if (*p == '.' && frac_ok) {
		p++;
		if (!isdigit((unsigned char)*p))
			return NULL;
		while (isdigit((unsigned char)*p)) {
			if (*frac_den <= UINT64_MAX / 100) {
				*frac = *frac * 10 + (uint64_t)(*p - '0');
				*frac_den *= 10;
			}
			p++;
		}
	}
	return p;
}

/* GCC and Clang extension; __extension__ keeps -Wpedantic (warning_level=3) quiet. */
__extension__ typedef unsigned __int128 ul_u128;

/* whole*mul + frac*mul/frac_den without overflow; -ERANGE on overflow. */
static int scale(uint64_t whole, uint64_t frac, uint64_t frac_den, uint64_t mul, uint64_t *out)
{
	ul_u128 v = (ul_u128)whole * mul;

	v += (ul_u128)frac * mul / frac_den;
	if (v > UINT64_MAX)
		return -ERANGE;
	*out = (uint64_t)v;
	return 0;
}

int ul_parse_size(const char *s, uint64_t min, uint64_t max, uint64_t *out)
{
	static const struct {
		char c;
		uint64_t mul;
	} units[] = { { 'k', UL_KiB }, { 'm', UL_MiB }, { 'g', UL_GiB }, { 't', UL_GiB * 1024 } };
	uint64_t whole, frac, den, mul = 1, v;
	const char *p;
	bool ovf;
	int rc;

	if (!s)
		return -EINVAL;
	p = parse_decimal(s, true, &whole, &frac, &den, &ovf);
	if (!p)
		return -EINVAL;
	if (*p) {
		bool found = false;

		for (size_t i = 0; i < UL_ARRAY_SIZE(units); i++) {
			if (tolower((unsigned char)*p) == units[i].c) {
				mul = units[i].mul;
				found = true;
			}
		}
		if (found) {
			p++;
			if (!strcasecmp(p, "ib") || !strcasecmp(p, "b"))
				p += strlen(p);
		} else if (!strcasecmp(p, "b")) {
			p++;
		}
		if (*p)
			return -EINVAL;
	}
	if (den > 1 && mul == 1)
		return -EINVAL; /* fractional bytes */
	if (ovf)
		return -ERANGE;
	rc = scale(whole, frac, den, mul, &v);
	if (rc)
		return rc;
	if (v < min || v > max)
		return -ERANGE;
	*out = v;
	return 0;
}

int ul_parse_duration_ns(const char *s, int64_t min, int64_t max, int64_t *out)
{
	static const struct {
		const char *suffix;
		uint64_t mul;
	} units[] = {
		{ "ns", 1 },
		{ "us", 1000 },
		{ "ms", 1000000 },
		{ "s", 1000000000ULL },
		{ "m", 60000000000ULL },
		{ "min", 60000000000ULL },
		{ "h", 3600000000000ULL },
		{ "", 1000000000ULL },
	};
	uint64_t whole, frac, den, v;
	const char *p;
	bool ovf;

	if (!s)
		return -EINVAL;
	p = parse_decimal(s, true, &whole, &frac, &den, &ovf);
	if (!p)
		return -EINVAL;
	for (size_t i = 0; i < UL_ARRAY_SIZE(units); i++) {
		if (!strcmp(p, units[i].suffix)) {
			int rc = ovf ? -ERANGE : scale(whole, frac, den, units[i].mul, &v);

			if (rc)
				return rc;
			if (v > INT64_MAX || (int64_t)v < min || (int64_t)v > max)
				return -ERANGE;
			*out = (int64_t)v;
			return 0;
		}
	}
	return -EINVAL;
}

int ul_parse_count(const char *s, int64_t min, int64_t max, int64_t *out)
{
	uint64_t whole, frac, den;
	const char *p;
	bool ovf;

	if (!s)
		return -EINVAL;
	p = parse_decimal(s, false, &whole, &frac, &den, &ovf);
	if (!p || *p)
		return -EINVAL;
	if (ovf || whole > INT64_MAX || (int64_t)whole < min || (int64_t)whole > max)
		return -ERANGE;
	*out = (int64_t)whole;
	return 0;
}

int ul_parse_pct(const char *s, int64_t min_centi, int64_t max_centi, int64_t *out)
{
	uint64_t whole, frac, den, v;
	const char *p;
	bool ovf;
	int rc;

	if (!s)
		return -EINVAL;
	p = parse_decimal(s, true, &whole, &frac, &den, &ovf);
	if (!p)
		return -EINVAL;
	if (*p == '%')
		p++;
	if (*p)
		return -EINVAL;
	if (ovf)
		return -ERANGE;
	rc = scale(whole, frac, den, 100, &v);
	if (rc)
		return rc;
	if (v > INT64_MAX || (int64_t)v < min_centi || (int64_t)v > max_centi)
		return -ERANGE;
	*out = (int64_t)v;
	return 0;
}

void ul_fmt_size(char *buf, size_t len, uint64_t bytes)
{
	static const char suffix[] = "KMGT";
	int i = -1;

	while (bytes >= 1024 && bytes % 1024 == 0 && i < 3) {
		bytes /= 1024;
		i++;
	}
	if (i < 0)
		snprintf(buf, len, "%llu", (unsigned long long)bytes);
	else
		snprintf(buf, len, "%llu%c", (unsigned long long)bytes, suffix[i]);
}

void ul_fmt_duration(char *buf, size_t len, int64_t ns)
{
	if (ns == 0)
		snprintf(buf, len, "0s");
	else if (ns % 3600000000000LL == 0)
		snprintf(buf, len, "%lldh", (long long)(ns / 3600000000000LL));
	else if (ns % 60000000000LL == 0 && ns >= 60000000000LL)
		snprintf(buf, len, "%lldm", (long long)(ns / 60000000000LL));
	else if (ns % 1000000000LL == 0)
		snprintf(buf, len, "%llds", (long long)(ns / 1000000000LL));
	else if (ns % 1000000LL == 0)
		snprintf(buf, len, "%lldms", (long long)(ns / 1000000LL));
	else if (ns % 1000LL == 0)
		snprintf(buf, len, "%lldus", (long long)(ns / 1000LL));
	else
		snprintf(buf, len, "%lldns", (long long)ns);
}

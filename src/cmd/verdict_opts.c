/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * The verdict options compare, history and decide share (verdict_opts.h).
 */
#include "cmd/verdict_opts.h"
#include "model/suite.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

struct ul_fail_on ul_fail_on_parse(const char *word)
{
	struct ul_fail_on f = { 0 };

	if (word) {
		f.slower = !strcmp(word, "slower") || !strcmp(word, "changed");
		f.faster = !strcmp(word, "faster") || !strcmp(word, "changed");
	}
	return f;
}

int ul_opt_set_suite(void *suite, const char *arg, char *err, size_t errlen)
{
	if (!ul_suite_find(arg)) {
		snprintf(err, errlen, "--suite: unknown suite '%.64s'", arg);
		return -EINVAL;
	}
	*(const char **)suite = arg;
	return 0;
}

/* A bounded number's range, and how an error words it. */
struct bound {
	double lo, hi;	/* above lo, below hi */
	bool hi_closed; /* or up to hi too */
	bool percent;	/* "5%" as well as "5" */
	const char *what;
};

static const struct bound pct_open = { 0.0, 100.0, false, true, "a percentage in (0, 100)" };
static const struct bound alpha_range = { 0.0, 0.5, true, false, "a number in (0, 0.5]" };

/* The one parser of a bounded number: all of `arg` a number in b's range
 * into *v, or -EINVAL with err naming `opt`, the argument and the range. */
static int parse_bounded(const char *opt, const char *arg, const struct bound *b, double *v,
			 char *err, size_t errlen)
{
	double x;
	char *end;

	errno = 0;
	x = strtod(arg, &end);
	if (b->percent && end != arg && *end == '%')
		end++;
	if (errno || end == arg || *end || !(x > b->lo) ||
	    !(b->hi_closed ? x <= b->hi : x < b->hi)) {
		snprintf(err, errlen, "%s: '%.64s' is not %s", opt, arg, b->what);
		return -EINVAL;
	}
	*v = x;
	return 0;
}

int ul_parse_pct_open(const char *opt, const char *arg, double *rel, char *err, size_t errlen)
{
	double pct;
	int rc = parse_bounded(opt, arg, &pct_open, &pct, err, errlen);

	if (!rc)
		*rel = pct / 100.0;
	return rc;
}

int ul_parse_alpha(const char *opt, const char *arg, double *alpha, char *err, size_t errlen)
{
	return parse_bounded(opt, arg, &alpha_range, alpha, err, errlen);
}

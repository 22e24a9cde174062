/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * The verdict options compare and decide share (verdict_opts.h).
 */
#include "cmd/verdict_opts.h"

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

int ul_parse_pct_open(const char *opt, const char *arg, double *rel, char *err, size_t errlen)
{
	double pct;
	char *end;

	errno = 0;
	pct = strtod(arg, &end);
	if (end != arg && *end == '%')
		end++;
	if (errno || end == arg || *end || !(pct > 0.0) || !(pct < 100.0)) {
		snprintf(err, errlen, "%s: '%.64s' is not a percentage in (0, 100)", opt, arg);
		return -EINVAL;
	}
	*rel = pct / 100.0;
	return 0;
}

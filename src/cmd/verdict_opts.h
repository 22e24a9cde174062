/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * The verdict options compare, history and the sequential A/B
 * (cmd/decide.h) share: --fail-on's word, --suite, and the bounded numbers
 * (a percentage such as --margin's, a significance level).  One parser
 * each, so every command reads them alike.
 */
#ifndef UL_CMD_VERDICT_OPTS_H
#define UL_CMD_VERDICT_OPTS_H

#include "core/compat.h"

#include <stdbool.h>
#include <stddef.h>

struct ul_fail_on {
	bool slower; /* "slower" or "changed" */
	bool faster; /* "faster" or "changed" */
};

/* The verdicts --fail-on `word` names (the option's choices: "slower",
 * "faster", "changed"); NULL, no --fail-on: none. */
struct ul_fail_on ul_fail_on_parse(const char *word);

/* Does a row called slower (worse for the candidate) or faster trip it? */
static inline bool ul_fail_on_trips(struct ul_fail_on f, bool slower, bool faster)
{
	return (f.slower && slower) || (f.faster && faster);
}

/*
 * --suite NAME, a UL_OPT_CALL setter (core/opt.h) whose UL_OPT_AT target is
 * a const char *: NAME, a suite of the registry (model/suite.h).  0, or
 * -EINVAL with err "--suite: unknown suite 'NAME'".
 */
int ul_opt_set_suite(void *suite, const char *arg, char *err, size_t errlen);

/*
 * A percentage option's argument, "5" or "5%", strictly between 0 and 100,
 * into *rel as a fraction (0.05).  0, or -EINVAL with err naming `opt`
 * ("--margin") and the argument.
 */
int ul_parse_pct_open(const char *opt, const char *arg, double *rel, char *err, size_t errlen);

/*
 * A significance level's argument ("0.05"), 0 < A <= 0.5, into *alpha.  0,
 * or -EINVAL with err naming `opt` ("--alpha") and the argument.
 */
int ul_parse_alpha(const char *opt, const char *arg, double *alpha, char *err, size_t errlen);

#endif

/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * The bisection of an ordered range of steps (cmd/bisect.c: kernels), as
 * a pure state machine: it chooses the next step to measure and, from the
 * outcomes recorded so far, says when it is done.  Step 0 is the good
 * reference and step n-1 the bad one; the culprit is the first bad step
 * whose predecessor is good.
 *
 * Outcomes: good, bad, crash, skip.  A skip (the step could not be built
 * or measured, or its verdict stayed open) is never guessed at: the
 * neighbour nearest the middle is tried instead, and when only skipped
 * steps lie between the last good and the first bad step, the result is
 * "cannot tell" with that range.  A crash is its own outcome: when the bad
 * reference crashes too (bad_crashes), the crash is the regression and
 * counts as bad; otherwise it is reported (ul_bisect_crashed) and, like a
 * skip, tells nothing about the regression being measured.
 *
 * With consistent outcomes (all good steps before all bad ones) the
 * culprit is found after at most ceil(log2(n - 1)) measured steps.
 */
#ifndef UL_CMD_BISECT_LOGIC_H
#define UL_CMD_BISECT_LOGIC_H

#include "core/compat.h"

#include <stdbool.h>
#include <stddef.h>

enum ul_bisect_outcome {
	UL_BISECT_UNTESTED,
	UL_BISECT_GOOD,
	UL_BISECT_BAD,
	UL_BISECT_CRASH,
	UL_BISECT_SKIP,
};

struct ul_bisect {
	size_t n;			 /* steps, at least 2 */
	enum ul_bisect_outcome *outcome; /* per step; [0] good, [n-1] bad */
	bool bad_crashes;		 /* does the bad reference crash too? */
};

enum ul_bisect_state {
	UL_BISECT_NEXT,	 /* measure step `step` */
	UL_BISECT_FOUND, /* `step` is the culprit (lo = step - 1 is good) */
	UL_BISECT_UNSURE /* the culprit is one of lo+1..hi; all between were skipped */
};

struct ul_bisect_result {
	enum ul_bisect_state state;
	size_t step;
	size_t lo, hi; /* the last good and the first bad step */
};

/* n steps, 0 good and n-1 bad, the rest untested: 0 or -EINVAL (n < 2), -ENOMEM. */
int ul_bisect_init(struct ul_bisect *b, size_t n, bool bad_crashes);
void ul_bisect_free(struct ul_bisect *b);

/* Record step's outcome (a re-run records the stored ones first): 0 or -EINVAL. */
int ul_bisect_record(struct ul_bisect *b, size_t step, enum ul_bisect_outcome o);

/* What next, from the outcomes so far. */
void ul_bisect_next(const struct ul_bisect *b, struct ul_bisect_result *r);

/* Did step crash while the bad reference does not (a finding of its own)? */
bool ul_bisect_crashed(const struct ul_bisect *b, size_t step);

/* "good", "bad", "crash", "skip", "untested"; and back (-1: unknown name). */
const char *ul_bisect_outcome_name(enum ul_bisect_outcome o);
int ul_bisect_outcome_parse(const char *name);

#endif

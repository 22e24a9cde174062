/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * The bisection's state machine (bisect_logic.h): the range between the
 * last good and the first bad step, halved at its middle, a skipped
 * middle replaced by its nearest untested neighbour.
 */
#include "cmd/bisect_logic.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

static const char *const names[] = {
	[UL_BISECT_UNTESTED] = "untested", [UL_BISECT_GOOD] = "good", [UL_BISECT_BAD] = "bad",
	[UL_BISECT_CRASH] = "crash",	   [UL_BISECT_SKIP] = "skip",
};

int ul_bisect_init(struct ul_bisect *b, size_t n, bool bad_crashes)
{
	memset(b, 0, sizeof(*b));
	if (n < 2)
		return -EINVAL;
	b->outcome = calloc(n, sizeof(*b->outcome));
	if (!b->outcome)
		return -ENOMEM;
	b->n = n;
	b->bad_crashes = bad_crashes;
	b->outcome[0] = UL_BISECT_GOOD;
	b->outcome[n - 1] = UL_BISECT_BAD;
	return 0;
}

void ul_bisect_free(struct ul_bisect *b)
{
	free(b->outcome);
	b->outcome = NULL;
	b->n = 0;
}

int ul_bisect_record(struct ul_bisect *b, size_t step, enum ul_bisect_outcome o)
{
	if (step == 0 || step + 1 >= b->n || o == UL_BISECT_UNTESTED || o > UL_BISECT_SKIP)
		return -EINVAL; /* the references are not measured against themselves */
	b->outcome[step] = o;
	return 0;
}

/* The outcome as the search sees it: a crash is bad only when the bad reference crashes too. */
static enum ul_bisect_outcome seen(const struct ul_bisect *b, size_t i)
{
	enum ul_bisect_outcome o = b->outcome[i];

	if (o == UL_BISECT_CRASH)
		return b->bad_crashes ? UL_BISECT_BAD : UL_BISECT_SKIP;
	return o;
}

bool ul_bisect_crashed(const struct ul_bisect *b, size_t step)
{
	return step < b->n && b->outcome[step] == UL_BISECT_CRASH && !b->bad_crashes;
}

void ul_bisect_next(const struct ul_bisect *b, struct ul_bisect_result *r)
{
	size_t hi = b->n - 1, lo = 0, mid;

	/* The first bad step, and the last good one before it (outcomes
	 * that contradict, a good after a bad, leave the earliest change). */
	for (size_t i = 1; i < b->n; i++)
		if (seen(b, i) == UL_BISECT_BAD) {
			hi = i;
			break;
		}
	for (size_t i = 0; i < hi; i++)
		if (seen(b, i) == UL_BISECT_GOOD)
			lo = i;
	r->lo = lo;
	r->hi = hi;
	r->step = hi;
	r->state = UL_BISECT_FOUND;
	if (hi == lo + 1)
		return;
	/* The middle (rounded down: an odd range's larger half is the upper
	 * one, so n-1 candidates take ceil(log2(n-1)) steps), else the
	 * untested step nearest it, above first. */
	mid = lo + (hi - lo) / 2;
	for (size_t d = 0; d < hi - lo; d++) {
		size_t up = mid + d;

		if (up < hi && seen(b, up) == UL_BISECT_UNTESTED) {
			r->state = UL_BISECT_NEXT;
			r->step = up;
			return;
		}
		if (d && d < mid - lo && seen(b, mid - d) == UL_BISECT_UNTESTED) {
			r->state = UL_BISECT_NEXT;
			r->step = mid - d;
			return;
		}
	}
	r->state = UL_BISECT_UNSURE;
}

const char *ul_bisect_outcome_name(enum ul_bisect_outcome o)
{
	return o <= UL_BISECT_SKIP ? names[o] : "?";
}

int ul_bisect_outcome_parse(const char *name)
{
	for (size_t i = 0; i < sizeof(names) / sizeof(names[0]); i++)
		if (!strcmp(names[i], name))
			return (int)i;
	return -1;
}

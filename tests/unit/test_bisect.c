/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * The bisection's state machine (src/cmd/bisect_logic.c) driven by a fake
 * runner that answers from a table of outcomes: every culprit of every
 * range of 2..20 steps found in at most ceil(log2(n-1)) measured steps;
 * skipped steps replaced by a neighbour and "cannot tell" when they
 * surround the change; a crash bad only when the bad reference crashes
 * too; and a resume from recorded outcomes measuring nothing again.
 */
#include "unit.h"
#include "cmd/bisect_logic.h"

#include <errno.h>
#include <math.h>
#include <string.h>

#define MAX_STEPS 32

/* The fake runner: the truth per step, and which steps it was asked. */
struct fake {
	enum ul_bisect_outcome truth[MAX_STEPS];
	int asked[MAX_STEPS];
	int n_asked;
};

/* Steps < culprit good, the others bad. */
static void fake_sharp(struct fake *f, size_t n, size_t culprit)
{
	memset(f, 0, sizeof(*f));
	for (size_t i = 0; i < n; i++)
		f->truth[i] = i < culprit ? UL_BISECT_GOOD : UL_BISECT_BAD;
}

/* Run the bisection to its end with the fake: its result. */
static struct ul_bisect_result drive(struct ul_bisect *b, struct fake *f)
{
	struct ul_bisect_result r;

	for (int guard = 0; guard < 2 * MAX_STEPS; guard++) {
		ul_bisect_next(b, &r);
		if (r.state != UL_BISECT_NEXT)
			return r;
		ck_assert_int_gt(r.step, 0);
		ck_assert_int_lt(r.step, b->n - 1);
		ck_assert_int_eq(f->asked[r.step], 0); /* never measured twice */
		f->asked[r.step]++;
		f->n_asked++;
		ck_assert_int_eq(ul_bisect_record(b, r.step, f->truth[r.step]), 0);
	}
	ck_abort_msg("the bisection did not end");
	return r;
}

START_TEST(test_bisect_every_culprit)
{
	for (size_t n = 2; n <= 20; n++) {
		int bound = (int)ceil(log2((double)(n - 1)));

		for (size_t culprit = 1; culprit < n; culprit++) {
			struct ul_bisect b;
			struct fake f;
			struct ul_bisect_result r;

			fake_sharp(&f, n, culprit);
			ck_assert_int_eq(ul_bisect_init(&b, n, false), 0);
			r = drive(&b, &f);
			ck_assert_msg(r.state == UL_BISECT_FOUND && r.step == culprit,
				      "n %zu culprit %zu: state %d step %zu", n, culprit, r.state,
				      r.step);
			ck_assert_int_eq(r.lo, culprit - 1);
			ck_assert_msg(f.n_asked <= bound, "n %zu culprit %zu: %d steps > %d", n,
				      culprit, f.n_asked, bound);
			ul_bisect_free(&b);
		}
	}
}
END_TEST

START_TEST(test_bisect_skip_neighbour)
{
	struct ul_bisect b;
	struct fake f;
	struct ul_bisect_result r;

	/* 8 steps, culprit 5; the middle (3) cannot be measured. */
	fake_sharp(&f, 8, 5);
	f.truth[3] = UL_BISECT_SKIP;
	ck_assert_int_eq(ul_bisect_init(&b, 8, false), 0);
	ul_bisect_next(&b, &r);
	ck_assert_int_eq(r.state, UL_BISECT_NEXT);
	ck_assert_int_eq(r.step, 3);
	ck_assert_int_eq(ul_bisect_record(&b, 3, UL_BISECT_SKIP), 0);
	ul_bisect_next(&b, &r);
	ck_assert_int_eq(r.state, UL_BISECT_NEXT);
	ck_assert_int_eq(r.step, 4); /* the neighbour above */
	f.asked[3] = 1;
	r = drive(&b, &f);
	ck_assert_int_eq(r.state, UL_BISECT_FOUND);
	ck_assert_int_eq(r.step, 5);
	ul_bisect_free(&b);
}
END_TEST

START_TEST(test_bisect_skips_surround)
{
	struct ul_bisect b;
	struct fake f;
	struct ul_bisect_result r;

	/* Culprit 4, steps 3 and 4 unmeasurable: it is 3 or 4, no more. */
	fake_sharp(&f, 8, 4);
	f.truth[3] = f.truth[4] = UL_BISECT_SKIP;
	ck_assert_int_eq(ul_bisect_init(&b, 8, false), 0);
	r = drive(&b, &f);
	ck_assert_int_eq(r.state, UL_BISECT_UNSURE);
	ck_assert_int_eq(r.lo, 2);
	ck_assert_int_eq(r.hi, 5);
	ul_bisect_free(&b);

	/* Every step between the references skipped. */
	memset(&f, 0, sizeof(f));
	for (int i = 1; i < 5; i++)
		f.truth[i] = UL_BISECT_SKIP;
	ck_assert_int_eq(ul_bisect_init(&b, 6, false), 0);
	r = drive(&b, &f);
	ck_assert_int_eq(r.state, UL_BISECT_UNSURE);
	ck_assert_int_eq(r.lo, 0);
	ck_assert_int_eq(r.hi, 5);
	ck_assert_int_eq(f.n_asked, 4);
	ul_bisect_free(&b);
}
END_TEST

START_TEST(test_bisect_crash)
{
	struct ul_bisect b;
	struct fake f;
	struct ul_bisect_result r;

	/* The bad reference crashes too: a crash is bad, the first crash the culprit. */
	fake_sharp(&f, 8, 4);
	for (int i = 4; i < 8; i++)
		f.truth[i] = UL_BISECT_CRASH;
	ck_assert_int_eq(ul_bisect_init(&b, 8, true), 0);
	r = drive(&b, &f);
	ck_assert_int_eq(r.state, UL_BISECT_FOUND);
	ck_assert_int_eq(r.step, 4);
	ck_assert(!ul_bisect_crashed(&b, 4));
	ul_bisect_free(&b);

	/* It does not: step 3's crash is reported and tells nothing of the
	 * slowdown, which is still found (its neighbour measured instead). */
	fake_sharp(&f, 8, 5);
	f.truth[3] = UL_BISECT_CRASH;
	ck_assert_int_eq(ul_bisect_init(&b, 8, false), 0);
	r = drive(&b, &f);
	ck_assert_int_eq(r.state, UL_BISECT_FOUND);
	ck_assert_int_eq(r.step, 5);
	ck_assert(ul_bisect_crashed(&b, 3));
	ck_assert(!ul_bisect_crashed(&b, 5));
	ul_bisect_free(&b);

	/* A crash next to the change leaves it unsure. */
	fake_sharp(&f, 8, 4);
	f.truth[4] = UL_BISECT_CRASH;
	ck_assert_int_eq(ul_bisect_init(&b, 8, false), 0);
	r = drive(&b, &f);
	ck_assert_int_eq(r.state, UL_BISECT_UNSURE);
	ck_assert_int_eq(r.lo, 3);
	ck_assert_int_eq(r.hi, 5);
	ul_bisect_free(&b);
}
END_TEST

START_TEST(test_bisect_resume)
{
	struct ul_bisect b;
	struct fake f, again;
	struct ul_bisect_result r;

	/* A first run measures two steps and stops; the re-run records
	 * them (as read back from the store) and measures only the rest. */
	fake_sharp(&f, 12, 7);
	ck_assert_int_eq(ul_bisect_init(&b, 12, false), 0);
	for (int i = 0; i < 2; i++) {
		ul_bisect_next(&b, &r);
		ck_assert_int_eq(r.state, UL_BISECT_NEXT);
		f.asked[r.step]++;
		ck_assert_int_eq(ul_bisect_record(&b, r.step, f.truth[r.step]), 0);
	}
	again = f;
	memset(again.asked, 0, sizeof(again.asked));
	struct ul_bisect b2;

	ck_assert_int_eq(ul_bisect_init(&b2, 12, false), 0);
	for (size_t i = 1; i < 11; i++)
		if (b.outcome[i] != UL_BISECT_UNTESTED) {
			ck_assert_int_eq(ul_bisect_record(&b2, i, b.outcome[i]), 0);
			again.asked[i] = 1; /* measuring it again fails drive() */
		}
	r = drive(&b2, &again);
	ck_assert_int_eq(r.state, UL_BISECT_FOUND);
	ck_assert_int_eq(r.step, 7);
	ck_assert_int_le(again.n_asked + 2, (int)ceil(log2(11.0)));
	ul_bisect_free(&b);
	ul_bisect_free(&b2);
}
END_TEST

START_TEST(test_bisect_edges)
{
	struct ul_bisect b;
	struct ul_bisect_result r;

	ck_assert_int_eq(ul_bisect_init(&b, 1, false), -EINVAL);
	ck_assert_int_eq(ul_bisect_init(&b, 2, false), 0);
	ul_bisect_next(&b, &r);
	ck_assert_int_eq(r.state, UL_BISECT_FOUND);
	ck_assert_int_eq(r.step, 1);
	ck_assert_int_eq(ul_bisect_record(&b, 0, UL_BISECT_BAD), -EINVAL);
	ck_assert_int_eq(ul_bisect_record(&b, 1, UL_BISECT_GOOD), -EINVAL);
	ul_bisect_free(&b);
	ck_assert_int_eq(ul_bisect_outcome_parse("crash"), UL_BISECT_CRASH);
	ck_assert_int_eq(ul_bisect_outcome_parse("nope"), -1);
	ck_assert_str_eq(ul_bisect_outcome_name(UL_BISECT_SKIP), "skip");
}
END_TEST

Suite *ul_test_suite_bisect(void)
{
	Suite *s = suite_create("bisect");
	TCase *tc = tcase_create("bisect");

	tcase_add_test(tc, test_bisect_every_culprit);
	tcase_add_test(tc, test_bisect_skip_neighbour);
	tcase_add_test(tc, test_bisect_skips_surround);
	tcase_add_test(tc, test_bisect_crash);
	tcase_add_test(tc, test_bisect_resume);
	tcase_add_test(tc, test_bisect_edges);
	suite_add_tcase(s, tc);
	return s;
}

/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * The sequential A/B of two labels (src/stats/seqab.c) over made-up runs:
 * runs paired oldest first, the sign of "worse" for both kinds of metric,
 * a pair without the test left out, the family's alpha split over the
 * rows, and the verdicts slower, faster and equal.  The restart after a
 * pilot: each part's interval against the e-value inverted by bisection,
 * the pilot's spread left behind, and the whole two-part procedure's
 * error rate in A/A streams looked at after every pair.
 */
#include "unit.h"
#include "stats/seqab.h"
#include "stats/stats.h"

#include <errno.h>
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#define NRUNS 8

static const struct ul_runcmp_metric delay = { "resp", "delay_ns", "delay", "ns", UL_BETTER_LOWER };
static const struct ul_runcmp_metric ops = { "fsbench", "ops", "throughput", "ops/s",
					     UL_BETTER_HIGHER };

/* A run with one cell of `suite`/`test` whose points are all `v` (none: no cell). */
static void add_cell(struct ul_run *run, const char *suite, const char *series, const char *test,
		     int64_t v)
{
	struct ul_cell *c = ul_run_add_cell(run);
	struct ul_series *s;

	ck_assert_ptr_nonnull(c);
	snprintf(c->suite, sizeof(c->suite), "%s", suite);
	snprintf(c->load, sizeof(c->load), "%s", test);
	s = ul_cell_series(c, series);
	ck_assert_ptr_nonnull(s);
	for (int i = 0; i < 5; i++)
		ck_assert_int_eq(ul_series_push(s, v + (i % 3) - 1), 0);
}

/* A small deterministic wobble of about +-1%. */
static int64_t wobble(int64_t base, int i)
{
	static const int pct10[] = { 3, -7, 5, -2, 9, -4, 1, -8, 6, 0 };

	return base + base * pct10[i % 10] / 1000;
}

/* Side's runs, oldest at index NRUNS-1 of ptr (newest first, as compare's groups). */
struct side {
	struct ul_run run[NRUNS];
	const struct ul_run *ptr[NRUNS];
	struct ul_runcmp_group g;
};

static void side_init(struct side *s, const char *label)
{
	for (int i = 0; i < NRUNS; i++) {
		ul_run_init(&s->run[i]);
		snprintf(s->run[i].label, sizeof(s->run[i].label), "%s", label);
		s->ptr[NRUNS - 1 - i] = &s->run[i]; /* run[0] is the oldest */
	}
	s->g = (struct ul_runcmp_group){ .runs = s->ptr, .n_runs = NRUNS };
	snprintf(s->g.label, sizeof(s->g.label), "%s", label);
}

static void side_free(struct side *s)
{
	for (int i = 0; i < NRUNS; i++)
		ul_run_release(&s->run[i]);
}

START_TEST(test_seqab_verdicts_and_signs)
{
	static struct side a, b;
	const struct ul_runcmp_metric metrics[] = { delay, ops };
	const struct ul_seqab_opts o = { .alpha = 0.05, .margin_pct = 5 };
	struct ul_seqab s;

	side_init(&a, "A");
	side_init(&b, "B");
	for (int i = 0; i < NRUNS; i++) {
		/* spawnload 10% slower in B; noload the same; throughput 10% higher in B */
		add_cell(&a.run[i], "resp", "delay_ns", "spawnload", wobble(100000, i));
		add_cell(&b.run[i], "resp", "delay_ns", "spawnload", wobble(110000, i + 3));
		add_cell(&a.run[i], "resp", "delay_ns", "noload", wobble(50000, i));
		add_cell(&b.run[i], "resp", "delay_ns", "noload", wobble(50000, i + 5));
		add_cell(&a.run[i], "fsbench", "ops", "clients-2", wobble(8000, i));
		add_cell(&b.run[i], "fsbench", "ops", "clients-2", wobble(8800, i + 1));
	}
	ck_assert_int_eq(ul_seqab_build(&a.g, &b.g, metrics, 2, &o, &s), 0);
	ck_assert_uint_eq(s.n_rows, 3);
	ck_assert_uint_eq(s.pairs, NRUNS);
	ck_assert_double_eq_tol(s.row_alpha, 0.05 / 3, 1e-12);
	ck_assert_str_eq(s.rows[0].test, "spawnload");
	ck_assert_str_eq(ul_seqab_verdict_name(s.rows[0].seq.verdict), "slower");
	ck_assert_double_eq_tol(s.rows[0].change_pct, 10.0, 1.0);
	ck_assert(s.rows[0].lo_pct > 0 && s.rows[0].hi_pct > s.rows[0].lo_pct);
	ck_assert_uint_eq(s.rows[0].needed, NRUNS);
	ck_assert_str_eq(s.rows[1].test, "noload");
	ck_assert_str_eq(ul_seqab_verdict_name(s.rows[1].seq.verdict), "equal");
	ck_assert(s.rows[1].lo_pct > -5 && s.rows[1].hi_pct < 5);
	/* More throughput is better: B is faster, and its change is negative (less worse). */
	ck_assert_str_eq(s.rows[2].test, "clients-2");
	ck_assert_str_eq(ul_seqab_verdict_name(s.rows[2].seq.verdict), "faster");
	ck_assert(s.rows[2].change_pct < -8 && s.rows[2].change_pct > -10);
	ck_assert_uint_eq(s.open, 0);
	ck_assert(isfinite(ul_seqab_detectable_pct(&s)));
	ul_seqab_free(&s);
	side_free(&a);
	side_free(&b);
}
END_TEST

/* Runs pair oldest with oldest; a pair without the test is left out. */
START_TEST(test_seqab_pairing)
{
	static struct side a, b;
	const struct ul_seqab_opts o = { .alpha = 0.05, .margin_pct = 0 };
	struct ul_seqab s;
	double want = 0;
	size_t n = 0;

	side_init(&a, "A");
	side_init(&b, "B");
	for (int i = 0; i < NRUNS; i++) {
		/* A drifts upwards over time; B follows it 5.0-5.2% higher, run by run. */
		int64_t va = 1000000 + 100000 * i, vb = va + va * (50 + i % 3) / 1000;

		add_cell(&a.run[i], "resp", "delay_ns", "noload", va);
		if (i != 4) /* B's fifth run lacks the test (crashed there) */
			add_cell(&b.run[i], "resp", "delay_ns", "noload", vb);
		else
			add_cell(&b.run[i], "resp", "delay_ns", "cpuload", vb);
		if (i != 4) {
			want += log((double)vb / (double)va);
			n++;
		}
	}
	ck_assert_int_eq(ul_seqab_build(&a.g, &b.g, &delay, 1, &o, &s), 0);
	ck_assert_uint_eq(s.n_rows, 2);
	ck_assert_str_eq(s.rows[0].test, "noload");
	ck_assert_uint_eq(s.rows[0].pairs, NRUNS - 1);
	ck_assert_double_eq_tol(s.rows[0].seq.mean, want / (double)n, 1e-12);
	/* Paired in time the drift cancels: a steady +5% is called slower. */
	ck_assert_str_eq(ul_seqab_verdict_name(s.rows[0].seq.verdict), "slower");
	/* cpuload: B alone has it, no pair, no bound, no verdict. */
	ck_assert_str_eq(s.rows[1].test, "cpuload");
	ck_assert_uint_eq(s.rows[1].pairs, 0);
	ck_assert_int_eq(s.rows[1].seq.verdict, UL_SEQ_OPEN);
	ck_assert(isinf(ul_seqab_detectable_pct(&s)));
	ck_assert_uint_eq(s.open, 1);
	ul_seqab_free(&s);
	ck_assert_int_eq(ul_seqab_build(&a.g, &b.g, &delay, 1,
					&(struct ul_seqab_opts){ .alpha = 1.5 }, &s),
			 -EINVAL);
	side_free(&a);
	side_free(&b);
}
END_TEST

/*
 * The boundaries of each part.  Pilot d[0..5] (S.D. 10%), then six
 * differences after it (S.D. 0.19%); alpha 0.05 split 0.02 (pilot) and
 * 0.03 (after).  The expected ends were computed apart from seq.c's closed
 * form: by bisection (200 halvings, Python floats) on mu0 of
 * E_n(mu0) = sqrt(rho / (rho + n)) (1 - S1^2 / ((rho + n) S2))^(-n/2)
 * = 1/alpha, rho 0.25, over each part's own values:
 *	pilot, n 6, alpha 0.02:  [-0.23775109391245386, 0.26108442724578707]
 *	after, n 6, alpha 0.03:  [ 0.016396134959891444, 0.024603865040108558]
 *	all 12 as one sequence, alpha 0.05 (the old pooling): [-0.0608308, 0.0929975]
 */
static const double pilot_d[] = { 0.10, -0.08, 0.12, -0.05, 0.09, -0.11 };
static const double after_d[] = { 0.021, 0.019, 0.023, 0.018, 0.020, 0.022 };

START_TEST(test_seqab_parts_boundaries)
{
	double d[12];
	struct ul_seq_state st;
	enum ul_seqab_part part;
	const double rho = UL_SEQ_RHO_DEFAULT, margin = log(1.05);

	memcpy(d, pilot_d, sizeof(pilot_d));
	memcpy(d + 6, after_d, sizeof(after_d));
	/* The pilot's part, at its end. */
	ck_assert_int_eq(ul_seqab_sequence(d, 6, 6, 0.02, 0.03, rho, margin, &st, &part), 0);
	ck_assert_int_eq(part, UL_SEQAB_PILOT);
	ck_assert_uint_eq(st.n, 6);
	ck_assert_double_eq_tol(st.lo, -0.23775109391245386, 1e-9);
	ck_assert_double_eq_tol(st.hi, 0.26108442724578707, 1e-9);
	/* After it, its own values alone: a steady +2% is called. */
	ck_assert_int_eq(ul_seqab_sequence(d, 12, 6, 0.02, 0.03, rho, margin, &st, &part), 0);
	ck_assert_int_eq(part, UL_SEQAB_AFTER);
	ck_assert_uint_eq(st.n, 6);
	ck_assert_double_eq_tol(st.lo, 0.016396134959891444, 1e-9);
	ck_assert_double_eq_tol(st.hi, 0.024603865040108558, 1e-9);
	ck_assert_int_eq(st.verdict, UL_SEQ_ABOVE);
	/* One sequence of all twelve (no pilot, all of alpha) pools the pilot's
	 * spread and stays open. */
	ck_assert_int_eq(ul_seqab_sequence(d, 12, 0, 0, 0.05, rho, margin, &st, &part), 0);
	ck_assert_int_eq(part, UL_SEQAB_AFTER);
	ck_assert_double_eq_tol(st.lo, -0.0608308, 1e-6);
	ck_assert_double_eq_tol(st.hi, 0.0929975, 1e-6);
	ck_assert_int_eq(st.verdict, UL_SEQ_OPEN);
	/* One value after the pilot bounds nothing: the pilot's part, still
	 * valid, is shown; a pilot without alpha bounds nothing either. */
	ck_assert_int_eq(ul_seqab_sequence(d, 7, 6, 0.02, 0.03, rho, margin, &st, &part), 0);
	ck_assert_int_eq(part, UL_SEQAB_PILOT);
	ck_assert(isfinite(st.half));
	ck_assert_int_eq(ul_seqab_sequence(d, 6, 6, 0, 0.05, rho, margin, &st, &part), 0);
	ck_assert_int_eq(part, UL_SEQAB_PILOT);
	ck_assert(isinf(st.half));
	ck_assert_int_eq(st.verdict, UL_SEQ_OPEN);
	ck_assert_double_eq_tol(st.mean, 0.07 / 6, 1e-12);
	ck_assert_int_eq(ul_seqab_sequence(d, 7, 6, 0, 0.05, rho, margin, &st, &part), 0);
	ck_assert_int_eq(part, UL_SEQAB_AFTER);
	ck_assert(isinf(st.half));
	/*
	 * Why cmd/decide.c gives its 3-pair pilot no alpha: after n values the
	 * sequence is bounded only when alpha > (rho / (rho + n))^((n - 1) / 2)
	 * (n > q (rho + n) in seq.c; by hand), at n 3 and rho 1/4: 1/13.
	 */
	ck_assert(isinf(ul_seq_halfwidth(3, 0.01, 1.0 / 13 * 0.999, rho)));
	ck_assert(isfinite(ul_seq_halfwidth(3, 0.01, 1.0 / 13 * 1.001, rho)));
	ck_assert_int_eq(ul_seqab_sequence(d, 6, 7, 0, 0.05, rho, margin, &st, &part), -EINVAL);
	ck_assert_int_eq(ul_seqab_sequence(d, 6, 3, 1, 0.05, rho, margin, &st, &part), -EINVAL);
}
END_TEST

/*
 * The restart over runs: a pilot of 3 pairs whose B runs scatter by +-30%
 * (its second pair lacks the test: B crashed there), then 5 pairs B a
 * steady 5.0-5.2% slower.  With the pilot planned, the row's sequence
 * after it knows only the later pairs: their mean and S.D., called
 * slower; without it (one sequence, as before the restart) the pilot's
 * spread keeps the same runs open.
 */
START_TEST(test_seqab_restart_leaves_the_pilot)
{
	static struct side a, b;
	const struct ul_seqab_opts pilot = { .alpha = 0.05, .margin_pct = 5, .pilot_pairs = 3 };
	const struct ul_seqab_opts one = { .alpha = 0.05, .margin_pct = 5 };
	static const int scatter[] = { 300, -250, -280 };
	double later[NRUNS];
	size_t n = 0;
	struct ul_seqab s;

	side_init(&a, "A");
	side_init(&b, "B");
	for (int i = 0; i < NRUNS; i++) {
		int64_t va = 1000000,
			vb = i < 3 ? va + va * scatter[i] / 1000 : va + va * (50 + i % 3) / 1000;

		add_cell(&a.run[i], "resp", "delay_ns", "noload", va);
		add_cell(&b.run[i], "resp", "delay_ns", i == 1 ? "cpuload" : "noload", vb);
		if (i >= 3)
			later[n++] = log((double)vb / (double)va);
	}
	ck_assert_int_eq(ul_seqab_build(&a.g, &b.g, &delay, 1, &pilot, &s), 0);
	ck_assert(s.part_alpha[UL_SEQAB_PILOT] == 0);
	ck_assert_double_eq_tol(s.part_alpha[UL_SEQAB_AFTER], 0.05 / 2, 1e-15);
	ck_assert_str_eq(s.rows[0].test, "noload");
	ck_assert_uint_eq(s.rows[0].pairs, NRUNS - 1);
	ck_assert_uint_eq(s.rows[0].pilot_n, 2); /* by pair, not by count */
	ck_assert_int_eq(s.rows[0].part, UL_SEQAB_AFTER);
	ck_assert_uint_eq(s.rows[0].seq.n, n);
	ck_assert_double_eq_tol(s.rows[0].seq.mean, ul_stats_mean(later, n), 1e-12);
	ck_assert_double_eq_tol(s.rows[0].seq.sd, ul_stats_sd(later, n), 1e-12);
	ck_assert_str_eq(ul_seqab_verdict_name(s.rows[0].seq.verdict), "slower");
	ck_assert_uint_eq(s.rows[0].needed, s.rows[0].pairs);
	ul_seqab_free(&s);
	ck_assert_int_eq(ul_seqab_build(&a.g, &b.g, &delay, 1, &one, &s), 0);
	ck_assert_uint_eq(s.rows[0].seq.n, NRUNS - 1);
	ck_assert_str_eq(ul_seqab_verdict_name(s.rows[0].seq.verdict), "open");
	ul_seqab_free(&s);
	/* The pilot's part may not spend all of alpha. */
	ck_assert_int_eq(ul_seqab_build(&a.g, &b.g, &delay, 1,
					&(struct ul_seqab_opts){ .alpha = 0.05,
								 .pilot_pairs = 3,
								 .pilot_alpha = 0.05 },
					&s),
			 -EINVAL);
	side_free(&a);
	side_free(&b);
}
END_TEST

/* A reproducible N(0, 1) stream: splitmix64 and Box-Muller. */
static double uniform01(uint64_t *s)
{
	uint64_t z = (*s += 0x9e3779b97f4a7c15ULL);

	z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
	z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
	z ^= z >> 31;
	return ((double)(z >> 11) + 0.5) / 9007199254740992.0; /* (0, 1) */
}

static double normal01(uint64_t *s)
{
	return sqrt(-2.0 * log(uniform01(s))) * cos(2.0 * M_PI * uniform01(s));
}

/*
 * The whole two-part procedure in A/A streams (true change 0), looked at
 * after every pair up to 100, a stream wrong when any look calls slower
 * or faster.  The pilot's pairs have another S.D. than the later ones (the
 * design changed the points), both ways; and cmd/decide.c's plan (3 pairs,
 * no alpha in the pilot) as well as a split (10 pairs, 0.02 of 0.05).
 * Wrong in at most alpha of the streams, plus three binomial S.E.s of the
 * simulation.
 */
START_TEST(test_seqab_two_parts_aa_error)
{
	enum {
		STREAMS = 2000,
		LOOKS = 100
	};
	static const struct {
		size_t pilot;
		double pilot_alpha, sd_pilot, sd_after;
	} plan[] = { { 3, 0, 1.0, 0.25 }, { 3, 0, 0.25, 1.0 }, { 10, 0.02, 1.0, 0.3 } };
	const double alpha = 0.05;
	const double bound = STREAMS * alpha + 3 * sqrt(STREAMS * alpha * (1 - alpha));
	uint64_t seed = 4242;
	double d[LOOKS];

	for (size_t p = 0; p < UL_ARRAY_SIZE(plan); p++) {
		int wrong = 0;

		for (int s = 0; s < STREAMS; s++) {
			for (size_t n = 1; n <= LOOKS; n++) {
				struct ul_seq_state st;
				enum ul_seqab_part part;
				size_t n_pilot = n < plan[p].pilot ? n : plan[p].pilot;

				d[n - 1] =
					normal01(&seed) *
					(n <= plan[p].pilot ? plan[p].sd_pilot : plan[p].sd_after);
				ck_assert_int_eq(ul_seqab_sequence(
							 d, n, n_pilot, plan[p].pilot_alpha,
							 alpha - plan[p].pilot_alpha,
							 UL_SEQ_RHO_DEFAULT, log(1.05), &st, &part),
						 0);
				if (st.verdict == UL_SEQ_ABOVE || st.verdict == UL_SEQ_BELOW) {
					wrong++;
					break;
				}
			}
		}
		ck_assert_msg(wrong <= bound,
			      "plan %zu: wrong in %d of %d A/A streams (bound %.0f)", p, wrong,
			      STREAMS, bound);
	}
}
END_TEST

Suite *ul_test_suite_seqab(void)
{
	Suite *s = suite_create("seqab");
	TCase *tc = tcase_create("seqab");

	/* the A/A simulation: up to 600000 looks, seconds on a loaded machine or under ASan */
	tcase_set_timeout(tc, 60);
	tcase_add_test(tc, test_seqab_verdicts_and_signs);
	tcase_add_test(tc, test_seqab_pairing);
	tcase_add_test(tc, test_seqab_parts_boundaries);
	tcase_add_test(tc, test_seqab_restart_leaves_the_pilot);
	tcase_add_test(tc, test_seqab_two_parts_aa_error);
	suite_add_tcase(s, tc);
	return s;
}

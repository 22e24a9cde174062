/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * The suite registry's conformance: every suite's descriptor names
 * registered loads and probes, its per-test settings parse against the
 * load's table, its metrics have a unit and a direction, and every option
 * of `run` (its own and every suite's) has a unique long name and help.
 */
#include "unit.h"
#include "cmd/cmd.h"
#include "core/opt.h"
#include "core/optparse.h"
#include "engine/engine.h"
#include "load/load.h"
#include "probe/probe.h"
#include "report/format.h"
#include "report/suites.h"

#include <string.h>

START_TEST(test_suite_descriptors)
{
	ck_assert_uint_ge(ul_suite_count(), 4);
	ck_assert_uint_le(ul_suite_count(), UL_MAX_SUITES);
	for (size_t i = 0; i < ul_suite_count(); i++) {
		const struct ul_suite *s = ul_suite_at(i);
		size_t n = ul_suite_n_tests(s);

		ck_assert_ptr_eq(ul_suite_find(s->name), s);
		ck_assert_uint_eq(ul_suite_index(s), i);
		ck_assert_msg(s->summary && *s->summary, "%s: no summary", s->name);
		ck_assert_msg(s->run, "%s: no run()", s->name);
		ck_assert_msg(s->probe && ul_probe_find(s->probe), "%s: probe '%s' unregistered",
			      s->name, s->probe ? s->probe : "(null)");
		ck_assert_msg(!s->format || ul_format_find(s->format), "%s: format '%s'", s->name,
			      s->format);
		ck_assert_msg(n >= 1 && n <= UL_MAX_TESTS, "%s: %zu tests", s->name, n);
		ck_assert_msg(!s->opts == !s->opts_size, "%s: options without storage", s->name);
		for (size_t t = 0; t < n; t++) {
			const struct ul_suite_test *st = &s->tests[t];
			const struct ul_load *l = ul_load_find(st->load);
			const char *p = ul_suite_test_probe(s, st);

			ck_assert_int_eq(ul_suite_test_index(s, ul_suite_test_name(st)), (int)t);
			ck_assert_msg(ul_probe_find(p), "%s/%s: probe '%s'", s->name, st->load, p);
			/* A test is a registered load, or the suite's own work (mtest01). */
			ck_assert_msg(l || (n == 1 && !strcmp(st->load, s->probe)),
				      "%s: test '%s' is no load", s->name, st->load);
			for (size_t k = 0; st->opts && st->opts[k]; k++) {
				int64_t v[UL_OPT_MAX];
				const char *eq = strchr(st->opts[k], '=');
				char name[64], err[256];

				ck_assert_msg(l && eq, "%s/%s: '%s'", s->name, st->load,
					      st->opts[k]);
				snprintf(name, sizeof(name), "%.*s", (int)(eq - st->opts[k]),
					 st->opts[k]);
				ul_opt_defaults(l->opts, v);
				ck_assert_msg(!ul_opt_set(l->opts, v, name, eq + 1, err,
							  sizeof(err)),
					      "%s/%s: %s", s->name, st->load, err);
			}
		}
		for (size_t m = 0; s->metrics && s->metrics[m].series; m++) {
			const struct ul_suite_metric *mt = &s->metrics[m];

			ck_assert_msg(mt->label && mt->unit, "%s: metric %s", s->name, mt->series);
			ck_assert(mt->direction == UL_LOWER_IS_BETTER ||
				  mt->direction == UL_HIGHER_IS_BETTER);
			ck_assert_ptr_eq(ul_suite_metric(s, mt->series), mt);
		}
	}
}
END_TEST

/* A suite's presentation is its own: each format it names is registered
 * and leads back to it alone (the formats find their cells that way,
 * report/suites.h), and a state release comes with a state. */
START_TEST(test_suite_report_blocks)
{
	for (size_t i = 0; i < ul_suite_count(); i++) {
		const struct ul_suite *s = ul_suite_at(i);
		const char *named[8] = { s->format, s->compare_format };
		size_t n = 2;

		for (const char *const *f = s->report ? s->report->formats : NULL; f && *f; f++) {
			ck_assert_uint_lt(n, UL_ARRAY_SIZE(named));
			named[n++] = *f;
		}
		for (size_t k = 0; k < n; k++) {
			if (!named[k])
				continue;
			ck_assert_msg(ul_format_find(named[k]), "%s: format '%s' unregistered",
				      s->name, named[k]);
			ck_assert_str_eq(ul_report_format_suite(named[k]), s->name);
		}
		ck_assert_msg(!s->release || s->state_size, "%s: a release without state", s->name);
		ck_assert_ptr_eq(ul_report_suite(s->name),
				 s->report ? s->report : ul_report_suite("no-such"));
	}
	ck_assert_str_eq(ul_report_format_suite("text"), "");
	ck_assert_uint_eq(ul_report_suite("no-such")->flags, 0);
}
END_TEST

/* The lookups over an installed list: counted at the install, so a list
 * installed later is the one seen; names, positions and misses. */
START_TEST(test_suite_install)
{
	static const struct ul_suite a = { .name = "alpha" }, b = { .name = "beta" };
	static const struct ul_suite *const two[] = { &a, &b, NULL };
	static const struct ul_suite *const none[] = { NULL };
	char names[64];

	ul_suites_install(two);
	ck_assert_uint_eq(ul_suite_count(), 2);
	ck_assert_ptr_eq(ul_suite_at(1), &b);
	ck_assert_ptr_null(ul_suite_at(2));
	ck_assert_ptr_eq(ul_suite_find("beta"), &b);
	ck_assert_ptr_null(ul_suite_find("resp"));
	ck_assert_uint_eq(ul_suite_index(&b), 1);
	ck_assert_uint_eq(ul_suite_index(ul_engine_suites[0]), SIZE_MAX);
	ul_suite_names(names, sizeof(names));
	ck_assert_str_eq(names, "alpha, beta");
	ul_suite_names(names, 8); /* cut to fit */
	ck_assert_str_eq(names, "alpha, ");
	ul_suites_install(none);
	ck_assert_uint_eq(ul_suite_count(), 0);
	ck_assert_ptr_null(ul_suite_find("alpha"));
	ul_suites_install(ul_engine_suites);
	ck_assert_ptr_eq(ul_suite_find(ul_engine_suites[0]->name), ul_engine_suites[0]);
}
END_TEST

/* run's own options and every suite's: one namespace of long options. */
START_TEST(test_run_options_unique)
{
	const struct ul_cmd *run = ul_cmd_find("run");
	struct ul_opt_group g[UL_OPT_GROUPS_MAX];
	size_t n, total = 0;

	ck_assert_ptr_nonnull(run);
	ck_assert(run->opt_groups != NULL);
	n = run->opt_groups(g, UL_ARRAY_SIZE(g));
	ck_assert_uint_ge(n, 2); /* its own, then at least contest's */
	for (size_t a = 0; a < n; a++)
		for (size_t i = 0; g[a].opts[i].name; i++, total++) {
			const struct ul_opt *o = &g[a].opts[i];

			ck_assert_msg(o->help && *o->help, "--%s: no help", o->name);
			ck_assert_msg(o->type != UL_OPT_CALL || o->set, "--%s: no set()", o->name);
			ck_assert_msg(o->type == UL_OPT_CALL || o->size, "--%s: no target",
				      o->name);
			ck_assert_msg((o->type == UL_OPT_FLAG) == !o->arg, "--%s: argument name",
				      o->name);
			for (size_t b = 0; b <= a; b++)
				for (size_t j = 0; g[b].opts[j].name; j++)
					ck_assert_msg((b == a && j == i) ||
							      strcmp(g[b].opts[j].name, o->name),
						      "--%s twice", o->name);
		}
	ck_assert_uint_ge(total, 30);
}
END_TEST

Suite *ul_test_suite_suite(void)
{
	Suite *s = suite_create("suite");
	TCase *tc = tcase_create("suite");

	tcase_add_test(tc, test_suite_descriptors);
	tcase_add_test(tc, test_suite_report_blocks);
	tcase_add_test(tc, test_suite_install);
	tcase_add_test(tc, test_run_options_unique);
	suite_add_tcase(s, tc);
	return s;
}

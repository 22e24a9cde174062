/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * `underload compare`: labels (or runs) against a baseline, for every suite
 * with results: the seed-style cross-label tables, then one row per test
 * with the shift, its CI, p and a verdict (stats/runcmp.h computes, report/
 * compare.c prints).
 */
#include "core/compat.h"
#include "cmd/cmd.h"
#include "cmd/compare.h"
#include "cmd/verdict_opts.h"
#include "cmd/vm.h"
#include "core/escape.h"
#include "core/log.h"
#include "engine/engine.h"
#include "report/compare.h"
#include "report/format.h"
#include "report/suites.h"
#include "report/variance.h"
#include "stats/runcmp_parts.h"
#include "store/store.h"

#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static const char compare_help[] =
	"Compare labels (kernels or settings) against a baseline, for every suite with\n"
	"results: a summary first, one line per test and candidate (change, CI,\n"
	"verdict, Holm and what undermines it: disturbed or no-pressure cells,\n"
	"crashes), then the environment differences, the seed-style cross-label\n"
	"tables, and one row per test and\n"
	"candidate: replicates, n, medians, the relative change, the CI of the shift,\n"
	"the p-value and a verdict: faster, slower or no difference proven.  With 2 or\n"
	"more replicates (cells of the test) a side the verdict is Welch's t on their\n"
	"medians; with one, the run-to-run variance learned from earlier repeated runs\n"
	"of this host and configuration; without any, a call reads 'unconfirmed'.  A\n"
	"test a run's machine went down in reads 'CRASHED in K of N' (runs), whatever\n"
	"the others measured: a crash is a result (exit 0), never pooled silently.\n"
	"With --margin, a row is 'equal within +-PCT%' when two one-sided tests (TOST)\n"
	"show its shift inside the margin; without it nothing is ever called equal.\n"
	"With --fail-on, a row whose verdict (surviving Holm) is the one named makes\n"
	"the exit status 5: a CI job's regression gate.\n"
	"\n"
	"A LABEL pools every stored run with that label; a RUN (id, UUID, UUID prefix,\n"
	"'last') is that run alone (runs named with the same label are pooled).  A name\n"
	"that is both a label and a run is refused: write label:NAME or run:NAME.  With\n"
	"none named: every label, the newest run of each, oldest label first.  The\n"
	"first named (or --baseline) is the baseline.  With --host H, only runs of\n"
	"host H; with --host given twice or more, each label once per host, side by\n"
	"side as LABEL@HOST, the first host's first.\n"
	"\n";

static const char compare_epilog[] =
	"\n"
	"resp samples adaptively; only the first --min-points points of each cell (taken\n"
	"before the stopping rule looked at the data) enter the test.  See underload(1).\n";

/* The default significance level: a number, and the same words for --help. */
#define CMP_ALPHA 0.05
#define CMP_STR_(x) #x
#define CMP_STR(x) CMP_STR_(x)

struct cmp_args {
	const char *db;
	const char *baseline;
	const char *suite;
	const char *format;
	const char *test;
	const char *expect;
	const char *fail_on;
	const char *env;
	const char *color;
	struct ul_cmd_hosts hosts;
	bool strict;
	bool variance;	  /* --variance: the components and design instead */
	double precision; /* --precision, relative */
	enum ul_runcmp_unit unit;
	struct ul_cmp_opts opts;
	char **names;
	size_t n_names;
};

/* --margin PCT: "5" or "5%", a relative equivalence margin in (0, 100). */
static int set_margin(void *base, const char *arg, char *err, size_t errlen)
{
	return ul_parse_pct_open("--margin", arg, &((struct cmp_args *)base)->opts.margin_rel, err,
				 errlen);
}

/* --precision PCT: "2" or "2%", the CI half-width compare --variance
 * designs for, in (0, 100). */
static int set_precision(void *base, const char *arg, char *err, size_t errlen)
{
	return ul_parse_pct_open("--precision", arg, &((struct cmp_args *)base)->precision, err,
				 errlen);
}

static int set_alpha(void *base, const char *arg, char *err, size_t errlen)
{
	return ul_parse_alpha("--alpha", arg, &((struct cmp_args *)base)->opts.alpha, err, errlen);
}

#define A(member) UL_OPT_AT(struct cmp_args, member)

static const struct ul_opt compare_opts[] = {
	{ "baseline", UL_OPT_STRING, .arg = "X", A(baseline), .def_text = "the first",
	  .help = "the baseline label or run" },
	{ "suite", UL_OPT_CALL, .arg = "NAME", A(suite), .set = ul_opt_set_suite,
	  .help = "only this suite" },
	{ "test", UL_OPT_CHOICE, .arg = "mwu|welch", A(test), .def_str = "mwu",
	  .help = "the test of the pooled points when run-to-run variation is unknown (one "
		  "replicate a side): Mann-Whitney U with the Hodges-Lehmann shift, or Welch's "
		  "t on the difference of means; replicates are always compared by Welch's t" },
	{ "alpha", UL_OPT_CALL, .arg = "A", .set = set_alpha, .def_text = CMP_STR(CMP_ALPHA),
	  .help = "significance level, 0 < A <= 0.5; Holm's correction over each suite's rows "
		  "says which rows survive" },
	{ "margin", UL_OPT_CALL, .arg = "PCT", .set = set_margin, .def_text = "none",
	  .help = "equivalence margin in % of the baseline: a row whose shift two one-sided "
		  "tests (TOST) at alpha place inside +-PCT% (its 1 - 2 alpha interval inside "
		  "the margin) reads 'equal within +-PCT%'; without it no row is ever equal; "
		  "replicates (or a learned variance) are needed" },
	{ "variance", UL_OPT_FLAG, 0, 1, 0, A(variance),
	  .help = "instead of the comparison, each label's variance components per test "
		  "(within a cell: points; between the rounds of a run; between runs, for vm "
		  "runs between boots), each as a CV of the mean and a share of the variance "
		  "of the mean, and the cheapest design (points per cell, cells per run, runs) "
		  "reaching --precision (Kalibera and Jones 2013); needs 2 runs of --runs 2 "
		  "or more a label" },
	{ "precision", UL_OPT_CALL, .arg = "PCT", .set = set_precision, .def_text = "2",
	  .help = "with --variance: the half-width of the 95% CI of the mean, in % of the "
		  "mean, that the design reaches" },
	{ "per-run", UL_OPT_FLAG, 0, UL_RUNCMP_RUNS, UL_RUNCMP_POINTS, A(unit),
	  .help = "a replicate is a whole run (the median of its points) instead of a cell: "
		  "when the cells of one run are not independent of each other" },
	{ "strict", UL_OPT_FLAG, 0, 1, 0, A(strict),
	  .help = "exit 2 when the runs differ in a way that makes the comparison unfair "
		  "(probe options, memory budget or limit, tool version)" },
	{ "fail-on", UL_OPT_CHOICE, .arg = "slower|faster|changed", A(fail_on), .def_text = "none",
	  .help = "exit 5 when a row's verdict, surviving Holm, is slower, faster, or either "
		  "(changed): a CI gate; an unconfirmed call, no difference proven, equal or a "
		  "crash never fails it" },
	{ "expect", UL_OPT_STRING, .arg = "LIST", A(expect), .def_text = "none",
	  .help = "differences the comparison is about, never unfair: comma-separated patterns "
		  "on a fingerprint key (sysctl.vm.swappiness) or property (memory limit); "
		  "sweep passes its settings" },
	{ "env", UL_OPT_CHOICE, .arg = "default|all", A(env), .def_str = "default",
	  .help = "the environment differences the text header lists: settings, hardware, "
		  "the kernel, and states that cross a threshold that matters (free memory "
		  "below the memory budget, a doctor warning), or every one (all: uptime, "
		  "load, page cache, top processes ...); JSON has every one" },
	{ "color", UL_OPT_CHOICE, .arg = "auto|always|never", A(color), .def_str = "auto",
	  .help = "colour the summary's verdicts (slower red, faster green): auto only when "
		  "standard output is a terminal and NO_COLOR is unset or empty; never into a "
		  "pipe or file unless always" },
	UL_CMD_OPT_HOST(struct cmp_args, hosts,
			"; given twice or more, each label of each host is a group of its own, "
			"LABEL@HOST, and the machines' own differences (host, CPU, RAM, "
			"storage device) are expected"),
	{ "format", UL_OPT_CHOICE, .arg = "text|json|csv|lmbench2", A(format), .def_str = "text",
	  .help = "the seed tables and the comparison (text), the comparison rows only, "
		  "every number, for machines (json, csv), or micro's LMbench 2.0 summary with "
		  "one row per label, its runs pooled (lmbench2)" },
	UL_CMD_OPT_DB(struct cmp_args),
	{ NULL },
};

#undef A

extern const struct ul_cmd ul_cmd_desc_compare;

/* 0, -1 after --help, or UL_EXIT_USAGE. */
static int parse_args(int argc, char **argv, struct cmp_args *a)
{
	int first, rc;

	a->opts.alpha = CMP_ALPHA; /* set_alpha's target: no default applied */
	a->precision = 0.02;	   /* set_precision's */
	rc = ul_cmd_parse(&ul_cmd_desc_compare, a, argc, argv, &first);
	if (rc)
		return rc == UL_CMD_HELP_SHOWN ? -1 : rc;
	if (ul_cmp_test_parse(a->test, &a->opts.test))
		UL_BUG("--test '%s' passed the table's check", a->test);
	if (a->variance && !strcmp(a->format, "lmbench2")) {
		ul_error("compare --variance: --format lmbench2 has no variance; use text, json "
			 "or csv");
		return UL_EXIT_USAGE;
	}
	a->names = argv + first;
	a->n_names = (size_t)(argc - first);
	return 0;
}

static bool groups_have_suite(const struct ul_compare_state *st, const char *suite)
{
	for (size_t g = 0; g < st->n_groups; g++)
		for (size_t r = 0; r < st->groups[g].n_runs; r++)
			for (size_t i = 0; i < st->groups[g].runs[r]->n_cells; i++)
				if (!strcmp(st->groups[g].runs[r]->cells[i].suite, suite))
					return true;
	return false;
}

/* The suite's seed tables: one report over all runs, or one pooled run per label. */
static int seed_tables(const struct ul_compare_state *st, const struct ul_suite *suite,
		       const char *baseline_label)
{
	const char *name = suite->compare_format ? suite->compare_format : suite->format;
	const struct ul_format *fmt = name ? ul_format_find(name) : NULL;
	struct ul_report_opts ropts = { .baseline = baseline_label };
	int rc = 0;

	if (!fmt)
		return 0;
	if (fmt->write_runs && !st->cross_host) { /* its tables name runs by label only */
		const struct ul_run **all = NULL;
		size_t n = 0;

		for (size_t g = 0; g < st->n_groups; g++) {
			const struct ul_run **na =
				realloc(all, (n + st->groups[g].n_runs) * sizeof(*na));

			if (!na) {
				free(all);
				return -ENOMEM;
			}
			all = na;
			for (size_t r = 0; r < st->groups[g].n_runs; r++)
				all[n++] = st->groups[g].runs[r];
		}
		rc = fmt->write_runs(stdout, all, n, &ropts);
		free(all);
		return rc;
	}
	for (size_t g = 0; g < st->n_groups && !rc; g++) {
		struct ul_run pooled;

		rc = ul_compare_pool_run(&st->groups[g], suite->name, &pooled);
		if (!rc && pooled.n_cells) {
			rc = ul_report_compare_group_line(stdout, &st->groups[g]);
			if (!rc)
				rc = fmt->write_run(stdout, &pooled);
		}
		ul_run_release(&pooled);
	}
	return rc;
}

size_t ul_compare_pick_metrics(const struct ul_compare_state *st, const char *only,
			       struct ul_runcmp_metric *out)
{
	size_t n = 0;

	for (size_t i = 0; i < ul_suite_count(); i++) {
		const struct ul_suite *suite = ul_suite_at(i);

		if ((only && strcmp(only, suite->name)) || !suite->metrics ||
		    !groups_have_suite(st, suite->name))
			continue;
		for (const struct ul_suite_metric *m = suite->metrics; m->series; m++) {
			if (n == UL_COMPARE_MAX_METRICS)
				return n;
			out[n++] = (struct ul_runcmp_metric){
				.suite = suite->name,
				.series = m->series,
				.label = m->label,
				.unit = m->unit,
				.better = m->direction == UL_HIGHER_IS_BETTER ? UL_BETTER_HIGHER
									      : UL_BETTER_LOWER,
				.values = suite->metric_values,
				.src = m,
				.exposure = m->exposure,
			};
		}
	}
	return n;
}

/* --color: always, never, or auto: a terminal on standard output and no
 * NO_COLOR (https://no-color.org: set and not empty disables). */
static bool want_colour(const char *color)
{
	const char *no = getenv("NO_COLOR");

	if (!strcmp(color, "always") || !strcmp(color, "never"))
		return !strcmp(color, "always");
	return isatty(STDOUT_FILENO) && !(no && *no);
}

/* The verdict first (the summary), then who is compared and the
 * environment, then per suite the seed tables and the detailed rows. */
static int print_text(const struct ul_compare_state *st, const struct cmp_args *a,
		      const struct ul_runcmp *c)
{
	const char *bl = a->baseline && st->n_groups ? st->groups[0].label : NULL;
	int rc = 0;

	if (st->n_groups > 1) {
		rc = ul_report_compare_summary(stdout, c, want_colour(a->color));
		if (!rc && c->n_rows)
			putchar('\n');
		if (!rc)
			rc = ul_report_compare_header(stdout, c, !strcmp(a->env, "all"));
	}
	for (size_t i = 0; i < ul_suite_count() && !rc; i++) {
		const struct ul_suite *suite = ul_suite_at(i);

		if ((a->suite && strcmp(a->suite, suite->name)) ||
		    !groups_have_suite(st, suite->name))
			continue;
		if (st->n_groups > 1)
			printf("\n== %s ==\n", suite->name);
		rc = seed_tables(st, suite, bl);
		if (!rc && st->n_groups > 1)
			rc = ul_report_compare_table(stdout, c, suite->name);
	}
	return rc;
}

/* --format lmbench2: LMbench 2.0's summary with one row per label (and
 * load), each label's micro runs pooled as the seed's summary put one row
 * per host and run.  An exit code. */
static int lmbench2_by_label(const struct ul_compare_state *st, const struct cmp_args *a)
{
	const struct ul_format *fmt = ul_format_find("lmbench2");
	const char *suite = ul_report_format_suite("lmbench2"); /* micro */
	struct ul_run *pooled = calloc(st->n_groups ? st->n_groups : 1, sizeof(*pooled));
	const struct ul_run **rows = calloc(st->n_groups ? st->n_groups : 1, sizeof(*rows));
	size_t n = 0;
	int rc = 0;

	if (a->suite && strcmp(a->suite, suite)) {
		ul_error("compare --format lmbench2 shows the %s suite, not '%s'", suite, a->suite);
		free(pooled);
		free(rows);
		return UL_EXIT_USAGE;
	}
	if (!fmt || !pooled || !rows)
		rc = -ENOMEM;
	for (size_t g = 0; g < st->n_groups && !rc; g++) {
		rc = ul_compare_pool_run(&st->groups[g], suite, &pooled[n]);
		if (rc)
			break;
		if (!pooled[n].n_cells) {
			ul_run_release(&pooled[n]);
			continue;
		}
		rows[n] = &pooled[n];
		n++;
	}
	if (!rc && !n) {
		ul_error("compare --format lmbench2: no %s results among the compared runs", suite);
		rc = -ENOENT;
	} else if (!rc)
		rc = fmt->write_runs(stdout, rows, n, NULL);
	if (rc && rc != -ENOENT)
		ul_error("cannot write the lmbench2 summary: %s", strerror(-rc));
	for (size_t i = 0; i < n; i++)
		ul_run_release(&pooled[i]);
	free(pooled);
	free(rows);
	return rc ? UL_EXIT_ERROR : UL_EXIT_OK;
}

/*
 * A run whose machine went down under it is a finding, never pooled
 * silently: each is named with its label and the test it crashed in (that
 * test has no measurement; its finished tests are compared with the
 * label's other runs).  On stdout in the text format, else on stderr.
 */
static void crash_findings(const struct ul_compare_state *st, bool text)
{
	char where[256];
	bool in_test;

	for (size_t g = 0; g < st->n_groups; g++)
		for (size_t r = 0; r < st->groups[g].n_runs; r++) {
			const struct ul_run *run = st->groups[g].runs[r];

			if (run->status != UL_RUN_CRASHED)
				continue;
			in_test = ul_run_crash_phrase(run, where, sizeof(where)) >= 0;
			if (text)
				printf("crashed: %s: run %.8s crashed %s (its finished tests are "
				       "compared%s)\n",
				       ul_esc(st->groups[g].label), run->uuid, where,
				       in_test ? "; that test has no measurement" : "");
			else
				ul_warning("label '%s': run %.8s crashed %s",
					   ul_esc(st->groups[g].label), run->uuid, where);
		}
}

/*
 * Across hosts (--host twice or more) the machines are what is compared:
 * the facts that make one machine another (its name, CPU, microcode and
 * the vulnerabilities that follow from them, RAM, storage device,
 * virtualisation) are listed but expected, never unfair, so --strict
 * holds.  Their settings (sysctls, governor, THP, mount options and I/O
 * scheduler, probe options, memory budget and limit, tool version) still
 * make a comparison unfair: those are the user's to align.
 */
static const char cross_host_expect[] =
	"host,cpu.model,cpu.microcode,cpu.online,cpu.smt_control,cpu.hw_max_freq_khz,"
	"cpu.vulnerabilities.*,memory.ram_kb,storage.device,storage.source,storage.rotational,"
	"system.virtualization";

/* The environment section: the differences --expect names, and across
 * hosts the machines' own ones too.  0 or -ENOMEM. */
static int compare_env(const struct ul_compare_state *st, const struct cmp_args *a,
		       struct ul_runcmp *c)
{
	char *expect = NULL;
	int rc;

	if (!st->cross_host)
		return ul_compare_env(c, a->expect);
	if (asprintf(&expect, "%s%s%s", a->expect ? a->expect : "", a->expect ? "," : "",
		     cross_host_expect) < 0)
		return -ENOMEM;
	rc = ul_compare_env(c, expect);
	free(expect);
	return rc;
}

/*
 * compare --fail-on: the rows whose verdict is the one the gate names
 * (changed: slower or faster) and survives Holm, named on stderr.  A call
 * on within-run points alone (unconfirmed) never fails it: the gate
 * stands on the same ground as a bare verdict.  The count of such rows.
 */
static size_t gate_rows(const struct ul_runcmp *c, const char *fail_on)
{
	struct ul_fail_on gate = ul_fail_on_parse(fail_on);
	size_t n = 0;

	for (size_t i = 0; i < c->n_rows; i++) {
		const struct ul_runcmp_row *r = &c->rows[i];
		enum ul_cmp_verdict v = r->res.verdict;

		if (!r->tested || !r->holm_survives ||
		    !ul_fail_on_trips(gate, v == UL_VERDICT_SLOWER, v == UL_VERDICT_FASTER))
			continue;
		ul_error("compare --fail-on %s: %s %s %s: '%s' is %s than '%s'", fail_on,
			 r->metric->suite, r->metric->label, ul_esc(r->test),
			 ul_esc(c->groups[r->cand].label), ul_cmp_verdict_name(v),
			 ul_esc(c->groups[0].label));
		n++;
	}
	return n;
}

/* compare --variance: the components and the cheapest design. */
static int variance(const struct ul_compare_state *st, const struct cmp_args *a,
		    const struct ul_runcmp_metric *metrics, size_t nm)
{
	int rc = ul_report_variance(stdout, st->groups, st->n_groups, metrics, nm, a->precision,
				    a->format);

	if (rc)
		ul_error("cannot write the variance components: %s", strerror(-rc));
	return rc ? UL_EXIT_ERROR : UL_EXIT_OK;
}

static int run_compare(struct ul_compare_state *st, const struct cmp_args *a)
{
	struct ul_runcmp_metric metrics[UL_COMPARE_MAX_METRICS];
	struct ul_runcmp_parts parts = { 0 };
	struct ul_runcmp c;
	size_t nm = ul_compare_pick_metrics(st, a->suite, metrics);
	int rc, ret = UL_EXIT_OK;

	rc = ul_compare_vm_check(st->groups, st->n_groups, !strcmp(a->format, "text"));
	if (rc)
		return rc;
	crash_findings(st, !strcmp(a->format, "text"));
	if (!strcmp(a->format, "lmbench2"))
		return lmbench2_by_label(st, a);
	if (a->variance)
		return variance(st, a, metrics, nm);
	if (st->n_groups < 2) {
		memset(&c, 0, sizeof(c));
		c.opts = a->opts;
		c.groups = st->groups;
		c.n_groups = st->n_groups;
	} else if ((rc = ul_compare_pick_history(st)) != 0) {
		return rc;
	} else if (ul_runcmp_build_hist(st->groups, st->n_groups, metrics, nm, &a->opts, a->unit,
					st->history, st->n_history, &c) ||
		   compare_env(st, a, &c) || ul_runcmp_parts_build(&c, metrics, nm, &parts)) {
		ul_runcmp_free(&c);
		ul_oom();
		return UL_EXIT_ERROR;
	}
	if (parts.n_metrics) /* the rows' changes explained by the delay's parts */
		c.parts = &parts;
	if (!strcmp(a->format, "json"))
		rc = ul_report_compare_json(stdout, &c);
	else if (!strcmp(a->format, "csv"))
		rc = ul_report_compare_csv(stdout, &c);
	else
		rc = print_text(st, a, &c);
	if (rc) {
		ul_error("cannot write the comparison to standard output: %s", strerror(-rc));
		ret = UL_EXIT_ERROR;
	} else if (c.n_unfair && a->strict) {
		ul_error("compare --strict: the compared runs differ in %zu way%s that make the "
			 "comparison unfair (see the warnings)",
			 c.n_unfair, c.n_unfair == 1 ? "" : "s");
		ret = UL_EXIT_USAGE;
	} else if (a->fail_on && gate_rows(&c, a->fail_on)) {
		ret = UL_EXIT_GATE;
	}
	ul_runcmp_free(&c);
	ul_runcmp_parts_free(&parts);
	return ret;
}

int ul_cmd_compare(int argc, char **argv);
int ul_cmd_compare(int argc, char **argv)
{
	struct cmp_args a = { 0 };
	struct ul_compare_state st = { 0 };
	struct ul_store *store;
	int ret = parse_args(argc, argv, &a);

	if (ret)
		return ret < 0 ? UL_EXIT_OK : ret;
	ret = ul_cmd_open_store_settled(a.db, &store);
	if (ret)
		return ret;
	st.cross_host = a.hosts.n > 1;
	ret = ul_cmd_scope_open(store, &a.hosts, &st.sc);
	if (!ret)
		ret = ul_compare_select(&st, a.names, a.n_names, a.baseline);
	if (!ret)
		ret = run_compare(&st, &a);
	ul_compare_state_free(&st);
	ul_store_close(store);
	return ret;
}

const struct ul_cmd ul_cmd_desc_compare = {
	.name = "compare",
	.summary = "labels against a baseline: seed tables, shift, CI, p and a verdict per test",
	.operands = "[LABEL|RUN]...",
	.help = compare_help,
	.opts = compare_opts,
	.epilog = compare_epilog,
	.fn = ul_cmd_compare,
};

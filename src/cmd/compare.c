/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * `underload compare`: one report over every stored run of a suite that
 * compares labels (contest's cross-kernel table), newest runs first.
 */
#include "core/compat.h"
#include "cmd/cmd.h"
#include "core/log.h"
#include "report/format.h"
#include "store/store.h"

#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define COMPARE_SUITE "contest"

static const char compare_help[] =
	"usage: underload compare [--db PATH] [--format NAME] [--baseline LABEL]\n"
	"\n"
	"Print one table over every stored contest run: for each load, one row per\n"
	"label (kernel or setting) with its number of valid runs, mean Time, CPU%,\n"
	"Loads, LCPU% and Ratio, newest label first (contest's cross-kernel table).\n"
	"Runs with the same label are pooled.\n"
	"\n"
	"  --db PATH         results database (default: $XDG_DATA_HOME/underload/results.db)\n"
	"  --format NAME     a format that reports several runs (default: contest)\n"
	"  --baseline LABEL  Ratio = Time / this label's noload mean (default: each\n"
	"                    label's own noload mean)\n"
	"  -h, --help        this help\n";

/* Is `suite` one of the comma-separated names in `list`? */
static bool lists_suite(const char *list, const char *suite)
{
	size_t n = strlen(suite);

	for (const char *p = list; p && *p; p = strchr(p, ',') ? strchr(p, ',') + 1 : NULL)
		if (!strncmp(p, suite, n) && (p[n] == ',' || p[n] == '\0'))
			return true;
	return false;
}

/* A valid noload job of the suite under `label` in the loaded runs? */
static bool has_baseline(struct ul_run *runs, size_t n, const char *label)
{
	for (size_t r = 0; r < n; r++) {
		if (strcmp(runs[r].label, label))
			continue;
		for (size_t i = 0; i < runs[r].n_cells; i++) {
			const struct ul_cell *c = &runs[r].cells[i];

			if (!strcmp(c->suite, COMPARE_SUITE) && !strcmp(c->load, "noload") &&
			    c->outcome == UL_CELL_OK && c->n_series && c->series[0].n)
				return true;
		}
	}
	return false;
}

/* Load every run that lists the suite; *runs is malloc'ed, each run must be released. */
static int load_runs(struct ul_store *store, struct ul_run **out, size_t *nout)
{
	struct ul_run_summary *sum = NULL;
	struct ul_run *runs;
	size_t n = 0, k = 0;
	char ref[32];
	int rc;

	rc = store->ops->list_runs(store, &sum, &n);
	if (rc)
		return ul_error("cannot list runs: %s", store->err);
	runs = calloc(n ? n : 1, sizeof(*runs));
	if (!runs) {
		free(sum);
		return ul_error("out of memory");
	}
	for (size_t i = 0; i < n; i++) {
		if (!lists_suite(sum[i].suites, COMPARE_SUITE))
			continue;
		snprintf(ref, sizeof(ref), "%lld", (long long)sum[i].id);
		ul_run_init(&runs[k]);
		rc = store->ops->load_run(store, ref, &runs[k]);
		if (rc) {
			ul_error("cannot read run %s: %s", ref, store->err);
			ul_run_release(&runs[k]);
			for (size_t j = 0; j < k; j++)
				ul_run_release(&runs[j]);
			free(runs);
			free(sum);
			return -1;
		}
		k++;
	}
	free(sum);
	*out = runs;
	*nout = k;
	return 0;
}

int ul_cmd_compare(int argc, char **argv);
int ul_cmd_compare(int argc, char **argv)
{
	static const struct option opts[] = {
		{ "db", required_argument, NULL, 'd' },
		{ "format", required_argument, NULL, 'f' },
		{ "baseline", required_argument, NULL, 'b' },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};
	const char *db_opt = NULL, *fmt_name = "contest";
	struct ul_report_opts ropts = { .baseline = NULL };
	const struct ul_format *fmt;
	const struct ul_run **ptrs = NULL;
	struct ul_store *store;
	struct ul_run *runs = NULL;
	size_t n = 0;
	int c, ret;

	optind = 1;
	while ((c = getopt_long(argc, argv, "h", opts, NULL)) != -1) {
		switch (c) {
		case 'd':
			db_opt = optarg;
			break;
		case 'f':
			fmt_name = optarg;
			break;
		case 'b':
			if (!*optarg)
				return ul_usage_error("compare", "--baseline needs a label");
			ropts.baseline = optarg;
			break;
		case 'h':
			fputs(compare_help, stdout);
			return UL_EXIT_OK;
		default:
			return ul_usage_error("compare", "unknown option");
		}
	}
	if (optind != argc)
		return ul_usage_error("compare", "unexpected argument '%s'", argv[optind]);
	fmt = ul_format_find(fmt_name);
	if (!fmt || !fmt->write_runs) {
		char names[256];
		size_t off = 0;

		names[0] = '\0';
		for (size_t i = 0; i < ul_format_count() && off < sizeof(names); i++)
			if (ul_format_at(i)->write_runs)
				off += (size_t)snprintf(names + off, sizeof(names) - off, "%s%s",
							off ? ", " : "", ul_format_at(i)->name);
		return ul_usage_error("compare", "%s format '%s' for --format (formats that "
						 "compare runs: %s)",
				      fmt ? "single-run" : "unknown", fmt_name, names);
	}
	ret = ul_cmd_open_store(db_opt, &store);
	if (ret)
		return ret;
	if (load_runs(store, &runs, &n)) {
		ul_store_close(store);
		return UL_EXIT_ERROR;
	}
	if (ropts.baseline && !has_baseline(runs, n, ropts.baseline)) {
		ret = ul_usage_error("compare", "--baseline '%s': no stored %s run with that label "
						"has a valid noload job",
				     ropts.baseline, COMPARE_SUITE);
		goto out;
	}
	ptrs = calloc(n ? n : 1, sizeof(*ptrs));
	if (!ptrs) {
		ul_error("out of memory");
		ret = UL_EXIT_ERROR;
		goto out;
	}
	for (size_t i = 0; i < n; i++)
		ptrs[i] = &runs[i];
	if (fmt->write_runs(stdout, ptrs, n, &ropts)) {
		ul_error("cannot write format '%s' to standard output", fmt->name);
		ret = UL_EXIT_ERROR;
	}
out:
	free(ptrs);
	for (size_t i = 0; i < n; i++)
		ul_run_release(&runs[i]);
	free(runs);
	ul_store_close(store);
	return ret;
}

const struct ul_cmd ul_cmd_desc_compare = {
	.name = "compare",
	.summary = "one table over every stored contest run, one row per label",
	.help = compare_help,
	.fn = ul_cmd_compare,
};

/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * `underload list [runs|loads|probes|suites|formats] [-v]`: stored runs,
 * or the registries with each option's type, range and default.
 */
#include "core/compat.h"
#include "cmd/cmd.h"
#include "cmd/run.h"
#include "core/clock.h"
#include "core/escape.h"
#include "core/log.h"
#include "core/parse.h"
#include "core/opt.h"
#include "core/optparse.h"
#include "engine/engine.h"
#include "load/load.h"
#include "probe/probe.h"
#include "report/format.h"
#include "report/table.h"
#include "store/store.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include <limits.h>

static const char list_help[] =
	"Without a topic, list the runs in the store, newest first, one a line:\n"
	"id, uuid, label, host, start time (UTC), suites, status and stored tests.\n"
	"Status: running, complete, interrupted, failed, partial, or crashed (the\n"
	"machine went down under the run: a line under the table names the test\n"
	"and round it was in).\n"
	"Control characters in labels and host names are shown escaped (\\n, \\x1b).\n"
	"With a topic, list the registered items; -v adds every option with its\n"
	"type, range and default.\n"
	"\n";

static void print_opts(const struct ul_opt *opts)
{
	for (size_t i = 0; opts && opts[i].name; i++) {
		char lo[32], hi[32], def[32];

		ul_opt_fmt(&opts[i], opts[i].min, lo, sizeof(lo));
		ul_opt_fmt(&opts[i], opts[i].max, hi, sizeof(hi));
		ul_opt_fmt(&opts[i], opts[i].def, def, sizeof(def));
		printf("    %-16s %-8s %s..%s, default %s: %s\n", opts[i].name,
		       ul_opt_type_name(opts[i].type), lo, hi, def, opts[i].help);
	}
}

static int list_items(const char *topic, bool verbose)
{
	if (!strcmp(topic, "loads")) {
		for (size_t i = 0; i < ul_load_count(); i++) {
			const struct ul_load *l = ul_load_at(i);

			printf("%-12s %s (counts %s)\n", l->name, l->summary, l->unit);
			if (verbose)
				print_opts(l->opts);
		}
	} else if (!strcmp(topic, "probes")) {
		for (size_t i = 0; i < ul_probe_count(); i++) {
			const struct ul_probe *p = ul_probe_at(i);

			printf("%-12s %-8s %s\n", p->name, ul_probe_kind_name(p->kind), p->summary);
			if (verbose)
				print_opts(p->opts);
		}
	} else if (!strcmp(topic, "suites")) {
		for (size_t i = 0; i < ul_suite_count(); i++) {
			const struct ul_suite *s = ul_suite_at(i);
			char reads[256];

			printf("%-12s %s\n", s->name, s->summary);
			if (verbose) {
				printf("    probe: %s\n    tests:", s->probe);
				for (size_t t = 0; s->tests[t].load; t++)
					printf(" %s", ul_suite_test_name(&s->tests[t]));
				ul_run_opts_read_by(s->name, reads, sizeof(reads));
				printf("\n    run options only some suites read: %s\n",
				       *reads ? reads : "none");
				if (s->opts) {
					struct ul_opt_group g = { .opts = s->opts };

					ul_opt_print_help(stdout, &g, 1);
				}
			}
		}
	} else if (!strcmp(topic, "formats")) {
		for (size_t i = 0; i < ul_format_count(); i++) {
			const struct ul_format *f = ul_format_at(i);

			printf("%-12s %s", f->name, f->summary);
			if (verbose)
				printf(" (version %d)", f->version);
			putchar('\n');
		}
	} else {
		return ul_usage_error("list",
				      "unknown topic '%s' (known: runs, loads, probes, "
				      "suites, formats)",
				      topic);
	}
	return UL_EXIT_OK;
}

struct run_filter {
	const char *label, *suite;
	struct ul_cmd_hosts hosts;
	int64_t since_wall_ns; /* 0: any */
};

/* Whether `suites` (comma-separated) holds `name`. */
static bool has_suite(const char *suites, const char *name)
{
	size_t n = strlen(name);

	for (const char *p = suites; *p;) {
		const char *comma = strchr(p, ',');
		size_t len = comma ? (size_t)(comma - p) : strlen(p);

		if (len == n && !strncmp(p, name, n))
			return true;
		if (!comma)
			break;
		p = comma + 1;
	}
	return false;
}

static bool keep_run(const struct ul_run_summary *r, const struct run_filter *f)
{
	return (!f->label || !strcmp(r->label, f->label)) &&
	       ul_cmd_hosts_has(&f->hosts, r->hostname) &&
	       (!f->suite || has_suite(r->suites, f->suite)) &&
	       r->started_wall_ns >= f->since_wall_ns;
}

/* The columns of `list`: names left-aligned, counts right-aligned. */
enum {
	RUN_ID,
	RUN_UUID,
	RUN_LABEL,
	RUN_HOST,
	RUN_DATE,
	RUN_SUITES,
	RUN_STATUS,
	RUN_TESTS,
	RUN_COLS
};

static const char *const run_titles[RUN_COLS] = {
	"id", "uuid", "label", "host", "date (UTC)", "suites", "status", "tests",
};

static const bool run_left[RUN_COLS] = {
	[RUN_UUID] = true, [RUN_LABEL] = true,	[RUN_HOST] = true,
	[RUN_DATE] = true, [RUN_SUITES] = true, [RUN_STATUS] = true,
};

/* One run a row: every stored string escaped, so a label cannot break it. */
static void add_run(struct ul_table *t, const struct ul_run_summary *r)
{
	time_t secs = (time_t)(r->started_wall_ns / 1000000000);
	size_t row = ul_table_add_row(t, ' ');
	struct tm tm;
	char date[32] = "?";

	if (gmtime_r(&secs, &tm))
		strftime(date, sizeof(date), "%Y-%m-%d %H:%M:%S", &tm);
	ul_table_set(t, row, RUN_ID, "%lld", (long long)r->id);
	ul_table_set(t, row, RUN_UUID, "%.8s", ul_esc(r->uuid));
	ul_table_set(t, row, RUN_LABEL, "%s", ul_esc(r->label));
	ul_table_set(t, row, RUN_HOST, "%s", ul_esc(r->hostname));
	ul_table_set(t, row, RUN_DATE, "%s", date);
	ul_table_set(t, row, RUN_SUITES, "%s", ul_esc(r->suites));
	ul_table_set(t, row, RUN_STATUS, "%s", ul_run_status_name(r->status));
	ul_table_set(t, row, RUN_TESTS, "%d", r->n_cells);
}

/* Under the table, where each crashed run was: a crash is a result. */
static void print_crashes(struct ul_store *store, const struct ul_run_summary *runs, size_t n,
			  const struct run_filter *filter)
{
	char where[256];

	for (size_t i = 0; i < n; i++) {
		if (runs[i].status != UL_RUN_CRASHED || !keep_run(&runs[i], filter))
			continue;
		if (ul_cmd_crash_where(store, runs[i].uuid, where, sizeof(where)))
			snprintf(where, sizeof(where), "in an unknown test (%.200s)", store->err);
		printf("run %.8s (%s) crashed %s\n", ul_esc(runs[i].uuid), ul_esc(runs[i].label),
		       where);
	}
}

static int list_runs(const char *db_opt, const struct run_filter *filter)
{
	struct ul_run_summary *runs = NULL;
	struct ul_table table;
	struct ul_store *store;
	char db[PATH_MAX];
	size_t n = 0;
	int rc;

	rc = ul_cmd_db_path(db_opt, db, sizeof(db));
	if (rc)
		return rc;
	/* Runs whose machine went down are marked before they are listed. */
	if (access(db, F_OK) == 0)
		ul_cmd_settle_crashed(db, NULL);
	rc = ul_cmd_open_store(db, &store);
	if (rc)
		return rc;
	rc = store->ops->list_runs(store, &runs, &n);
	if (rc) {
		ul_error("cannot list runs: %s", store->err);
		ul_store_close(store);
		return UL_EXIT_ERROR;
	}
	ul_table_init(&table, RUN_COLS, run_left, false);
	ul_table_add_titles(&table, run_titles);
	for (size_t i = 0; i < n; i++)
		if (keep_run(&runs[i], filter))
			add_run(&table, &runs[i]);
	rc = ul_table_print(stdout, &table);
	ul_table_free(&table);
	if (!rc)
		print_crashes(store, runs, n, filter);
	free(runs);
	ul_store_close(store);
	if (rc) {
		ul_error("cannot list runs: %s", strerror(-rc));
		return UL_EXIT_ERROR;
	}
	return UL_EXIT_OK;
}

/* --since: an ISO date (UTC) or an age ("3d", "12h", "30m") before now. */
static int parse_since(const char *text, int64_t *out_ns)
{
	struct tm tm = { 0 };
	const char *end;
	int64_t ns, days;
	size_t len = strlen(text);

	for (const char *const *f = (const char *const[]){ "%Y-%m-%dT%H:%M:%S", "%Y-%m-%dT%H:%M",
							   "%Y-%m-%d", NULL };
	     *f; f++) {
		memset(&tm, 0, sizeof(tm));
		end = strptime(text, *f, &tm);
		if (end && !*end) {
			time_t t = timegm(&tm);

			/* Past 2262 the ns count overflows: later than any run. */
			*out_ns = t > INT64_MAX / UL_NS_PER_SEC ? INT64_MAX
								: (int64_t)t * UL_NS_PER_SEC;
			return 0;
		}
	}
	if (len > 1 && text[len - 1] == 'd') {
		char num[32];

		if (len - 1 >= sizeof(num))
			return -1;
		memcpy(num, text, len - 1);
		num[len - 1] = '\0';
		if (ul_parse_count(num, 0, 100000, &days))
			return -1;
		*out_ns = ul_wall_ns() - days * 86400 * UL_NS_PER_SEC;
		return 0;
	}
	if (ul_parse_duration_ns(text, 0, INT64_C(100000) * 86400 * UL_NS_PER_SEC, &ns))
		return -1;
	*out_ns = ul_wall_ns() - ns;
	return 0;
}

struct list_args {
	const char *db;
	struct run_filter filter;
	bool verbose;
};

static int set_since(void *base, const char *arg, char *err, size_t errlen)
{
	struct list_args *a = base;

	if (!parse_since(arg, &a->filter.since_wall_ns))
		return 0;
	snprintf(err, errlen,
		 "--since '%s': expected YYYY-MM-DD, YYYY-MM-DDTHH:MM[:SS] (UTC) or "
		 "an age such as 3d, 12h, 30m",
		 arg);
	return -EINVAL;
}

#define L(member) UL_OPT_AT(struct list_args, member)
static const struct ul_opt list_opts[] = {
	UL_CMD_OPT_DB(struct list_args),
	{ "label", UL_OPT_STRING, .arg = "L", L(filter.label),
	  .help = "only runs labelled exactly L" },
	{ "suite", UL_OPT_STRING, .arg = "S", L(filter.suite), .help = "only runs of suite S" },
	{ "since", UL_OPT_CALL, .arg = "WHEN", .set = set_since,
	  .help = "only runs started at or after WHEN: YYYY-MM-DD[THH:MM[:SS]] (UTC), or an age "
		  "such as 3d, 12h, 30m" },
	UL_CMD_OPT_HOST(struct list_args, filter.hosts, ""),
	{ "verbose", UL_OPT_FLAG, 0, 1, 0, .short_name = 'v', L(verbose), .help = "show options",
	  .flags = UL_OPTF_NO_DEFAULT },
	{ NULL },
};

extern const struct ul_cmd ul_cmd_desc_list;

int ul_cmd_list(int argc, char **argv);
int ul_cmd_list(int argc, char **argv)
{
	struct list_args a = { 0 };
	int first, rc = ul_cmd_parse(&ul_cmd_desc_list, &a, argc, argv, &first);

	if (rc)
		return rc == UL_CMD_HELP_SHOWN ? UL_EXIT_OK : rc;
	if (argc - first > 1)
		return ul_usage_error("list", "at most one topic");
	if (first == argc || !strcmp(argv[first], "runs"))
		return list_runs(a.db, &a.filter);
	if (a.filter.label || a.filter.suite || a.filter.hosts.n || a.filter.since_wall_ns)
		return ul_usage_error("list",
				      "--label, --suite, --since and --host filter runs only");
	return list_items(argv[first], a.verbose);
}

const struct ul_cmd ul_cmd_desc_list = {
	.name = "list",
	.summary = "list stored runs, or the loads, probes, suites and formats",
	.operands = "[runs|loads|probes|suites|formats]",
	.help = list_help,
	.opts = list_opts,
	.fn = ul_cmd_list,
};

/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * `underload list [runs|loads|probes|suites|formats] [-v]`: stored runs,
 * or the registries with each option's type, range and default.
 */
#include "core/compat.h"
#include "cmd/cmd.h"
#include "core/log.h"
#include "core/opt.h"
#include "engine/engine.h"
#include "load/load.h"
#include "probe/probe.h"
#include "report/format.h"
#include "store/store.h"

#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

static const char list_help[] =
	"usage: underload list [--db PATH] [runs]\n"
	"       underload list loads|probes|suites|formats [-v]\n"
	"\n"
	"Without a topic, list the runs in the store, newest first:\n"
	"id, uuid, label, host, start time (UTC), suites, status and stored tests.\n"
	"With a topic, list the registered items; -v adds every option with its\n"
	"type, range and default.\n"
	"\n"
	"  --db PATH      results database (default: $XDG_DATA_HOME/underload/results.db)\n"
	"  -v, --verbose  show options\n"
	"  -h, --help     this help\n";

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

			printf("%-12s %s\n", p->name, p->summary);
			if (verbose)
				print_opts(p->opts);
		}
	} else if (!strcmp(topic, "suites")) {
		for (size_t i = 0; i < ul_suite_count(); i++) {
			const struct ul_suite *s = ul_suite_at(i);

			printf("%-12s %s\n", s->name, s->summary);
			if (verbose) {
				printf("    tests:");
				for (size_t t = 0; s->default_tests[t]; t++)
					printf(" %s", s->default_tests[t]);
				putchar('\n');
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
		return ul_usage_error("list", "unknown topic '%s' (known: runs, loads, probes, "
					      "suites, formats)", topic);
	}
	return UL_EXIT_OK;
}

static int list_runs(const char *db_opt)
{
	struct ul_run_summary *runs = NULL;
	struct ul_store *store;
	size_t n = 0;
	int rc;

	rc = ul_cmd_open_store(db_opt, &store);
	if (rc)
		return rc;
	rc = store->ops->list_runs(store, &runs, &n);
	if (rc) {
		ul_error("cannot list runs: %s", store->err);
		ul_store_close(store);
		return UL_EXIT_ERROR;
	}
	printf("%-5s %-8s  %-24s %-16s %-20s %-12s %-11s %s\n", "id", "uuid", "label", "host",
	       "date (UTC)", "suites", "status", "tests");
	for (size_t i = 0; i < n; i++) {
		time_t t = (time_t)(runs[i].started_wall_ns / 1000000000);
		struct tm tm;
		char date[32];

		gmtime_r(&t, &tm);
		strftime(date, sizeof(date), "%Y-%m-%d %H:%M:%S", &tm);
		printf("%-5lld %.8s  %-24s %-16s %-20s %-12s %-11s %d\n", (long long)runs[i].id,
		       runs[i].uuid, runs[i].label, runs[i].hostname, date, runs[i].suites,
		       ul_run_status_name(runs[i].status), runs[i].n_cells);
	}
	free(runs);
	ul_store_close(store);
	return UL_EXIT_OK;
}

int ul_cmd_list(int argc, char **argv);
int ul_cmd_list(int argc, char **argv)
{
	static const struct option opts[] = {
		{ "db", required_argument, NULL, 'd' },
		{ "verbose", no_argument, NULL, 'v' },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};
	const char *db = NULL;
	bool verbose = false;
	int c;

	optind = 1;
	while ((c = getopt_long(argc, argv, "vh", opts, NULL)) != -1) {
		switch (c) {
		case 'd':
			db = optarg;
			break;
		case 'v':
			verbose = true;
			break;
		case 'h':
			fputs(list_help, stdout);
			return UL_EXIT_OK;
		default:
			return ul_usage_error("list", "unknown option");
		}
	}
	if (argc - optind > 1)
		return ul_usage_error("list", "at most one topic");
	if (optind == argc || !strcmp(argv[optind], "runs"))
		return list_runs(db);
	return list_items(argv[optind], verbose);
}

const struct ul_cmd ul_cmd_desc_list = {
	.name = "list",
	.summary = "list stored runs, or the loads, probes, suites and formats",
	.help = list_help,
	.fn = ul_cmd_list,
};

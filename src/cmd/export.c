/* SPDX-License-Identifier: GPL-2.0-or-later */
/* `underload export [RUN|LABEL]... --format json|csv [-o FILE]`: runs for another store or a spreadsheet. */
#include "core/compat.h"
#include "cmd/cmd.h"
#include "core/log.h"
#include "store/exchange.h"
#include "store/store.h"

#include <errno.h>
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

static const char export_help[] =
	"usage: underload export [--db PATH] [--format json|csv] [-o FILE] [RUN|LABEL]...\n"
	"\n"
	"Write stored runs, every raw sample included, oldest first.  Each argument\n"
	"is a run (numeric id, UUID, unique UUID prefix or 'last') or else a label\n"
	"(every run with that label); without one, every run.\n"
	"\n"
	"  --db PATH        results database (default: $XDG_DATA_HOME/underload/results.db)\n"
	"  --format json    (default) the exchange format 'underload import' reads: whole\n"
	"                   runs with their cells, series and metrics\n"
	"  --format csv     one RFC 4180 row per raw sample: run_uuid, label, host, suite,\n"
	"                   test, probe, metric, unit, index, value\n"
	"  -o, --output FILE  write FILE (replaced atomically when it is a regular\n"
	"                   file) instead of standard output\n"
	"  -h, --help       this help\n";

/* The UUIDs to export, in id order, without repeats. */
struct pick {
	struct ul_run_summary *all; /* list_runs: newest first */
	size_t n_all;
	bool *chosen;
};

static int choose(struct ul_store *st, struct pick *p, char **args, int n)
{
	for (int i = 0; i < n; i++) {
		struct ul_run_summary rs;
		bool any = false;
		int rc = st->ops->find_run(st, args[i], &rs);

		for (size_t k = 0; k < p->n_all; k++) {
			bool hit = rc ? !strcmp(p->all[k].label, args[i])
				      : !strcmp(p->all[k].uuid, rs.uuid);

			p->chosen[k] |= hit;
			any |= hit;
		}
		if (!any) {
			if (rc && rc != -ENOENT && rc != -EINVAL)
				return ul_error("%s", st->err), UL_EXIT_ERROR;
			return ul_usage_error("export", "'%s' is neither a stored run nor a label",
					      args[i]);
		}
	}
	if (!n)
		for (size_t k = 0; k < p->n_all; k++)
			p->chosen[k] = true;
	return UL_EXIT_OK;
}

/* Load the chosen runs oldest first (so an import into an empty store keeps their ids). */
static int load_chosen(struct ul_store *st, const struct pick *p, struct ul_run **runs, size_t *n)
{
	*runs = calloc(p->n_all ? p->n_all : 1, sizeof(**runs));
	*n = 0;
	if (!*runs)
		return ul_error("out of memory"), UL_EXIT_ERROR;
	for (size_t k = p->n_all; k-- > 0;) {
		int ret;

		if (!p->chosen[k])
			continue;
		ret = ul_cmd_load_run(st, p->all[k].uuid, &(*runs)[*n]);
		(*n)++;
		if (ret)
			return ret;
	}
	return UL_EXIT_OK;
}

static int write_runs(FILE *f, bool csv, struct ul_run *runs, size_t n)
{
	const struct ul_run **v = calloc(n ? n : 1, sizeof(*v));
	int rc;

	if (!v)
		return -ENOMEM;
	for (size_t i = 0; i < n; i++)
		v[i] = &runs[i];
	rc = csv ? ul_exchange_write_csv(f, v, n) : ul_exchange_write_json(f, v, n);
	free(v);
	return rc;
}

struct export_out {
	bool csv;
	struct ul_run *runs;
	size_t n;
};

static int write_export(FILE *f, const void *arg)
{
	const struct export_out *o = arg;

	return write_runs(f, o->csv, o->runs, o->n);
}

/* -o FILE: as every output file (ul_cmd_write_file): a regular file or a new
 * path is replaced atomically, a FIFO or a device (/dev/stdout) written in place. */
static int write_output(const char *path, bool csv, struct ul_run *runs, size_t n)
{
	const struct export_out o = { csv, runs, n };

	if (!path)
		return write_runs(stdout, csv, runs, n) ? ul_error("cannot write the export"), UL_EXIT_ERROR
							: UL_EXIT_OK;
	return ul_cmd_write_file(path, write_export, &o) ? UL_EXIT_ERROR : UL_EXIT_OK;
}

static int do_export(const char *db_opt, bool csv, const char *out, char **args, int nargs)
{
	struct pick p = { 0 };
	struct ul_run *runs = NULL;
	struct ul_store *st;
	size_t n = 0;
	int ret = ul_cmd_open_store(db_opt, &st);

	if (ret)
		return ret;
	if (st->ops->list_runs(st, &p.all, &p.n_all)) {
		ul_error("cannot list runs: %s", st->err);
		ul_store_close(st);
		return UL_EXIT_ERROR;
	}
	p.chosen = calloc(p.n_all ? p.n_all : 1, sizeof(*p.chosen));
	ret = p.chosen ? choose(st, &p, args, nargs) : (ul_error("out of memory"), UL_EXIT_ERROR);
	if (!ret)
		ret = load_chosen(st, &p, &runs, &n);
	if (!ret)
		ret = write_output(out, csv, runs, n);
	for (size_t i = 0; i < n; i++)
		ul_run_release(&runs[i]);
	free(runs);
	free(p.chosen);
	free(p.all);
	ul_store_close(st);
	return ret;
}

int ul_cmd_export(int argc, char **argv);
int ul_cmd_export(int argc, char **argv)
{
	static const struct option opts[] = {
		{ "db", required_argument, NULL, 'd' },
		{ "format", required_argument, NULL, 'f' },
		{ "output", required_argument, NULL, 'o' },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};
	const char *db_opt = NULL, *out = NULL;
	bool csv = false;
	int c;

	optind = 1;
	while ((c = getopt_long(argc, argv, "o:h", opts, NULL)) != -1) {
		switch (c) {
		case 'd':
			db_opt = optarg;
			break;
		case 'f':
			if (strcmp(optarg, "json") && strcmp(optarg, "csv"))
				return ul_usage_error("export", "--format '%s': expected json or csv",
						      optarg);
			csv = !strcmp(optarg, "csv");
			break;
		case 'o':
			if (!*optarg)
				return ul_usage_error("export", "-o needs a file name");
			out = optarg;
			break;
		case 'h':
			fputs(export_help, stdout);
			return UL_EXIT_OK;
		default:
			return ul_usage_error("export", "unknown option");
		}
	}
	return do_export(db_opt, csv, out, argv + optind, argc - optind);
}

const struct ul_cmd ul_cmd_desc_export = {
	.name = "export",
	.summary = "write stored runs as JSON (for import elsewhere) or CSV (one row per sample)",
	.help = export_help,
	.fn = ul_cmd_export,
};

/* SPDX-License-Identifier: GPL-2.0-or-later */
/* `underload export [RUN|LABEL]... --format json|csv [-o FILE]`: runs for another store or a spreadsheet. */
#include "core/compat.h"
#include "cmd/cmd.h"
#include "cmd/outfile.h"
#include "core/log.h"
#include "store/exchange.h"
#include "store/store.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

static const char export_help[] =
	"Write stored runs, every raw sample included, oldest first.  Each argument\n"
	"is a run (numeric id, UUID, unique UUID prefix or 'last') or a label (every\n"
	"run with that label); one that is both is refused: write label:NAME or\n"
	"run:NAME.  Without one, every run.  With --host, only runs of that host.\n"
	"\n";

struct export_args {
	const char *db, *format, *output;
	struct ul_cmd_hosts hosts;
};

#define A(member) UL_OPT_AT(struct export_args, member)

static const struct ul_opt export_opts[] = {
	UL_CMD_OPT_DB(struct export_args),
	{ "format", UL_OPT_CHOICE, .arg = "json|csv", A(format), .def_str = "json",
	  .help = "whole runs with their cells, series and metrics in the exchange format "
		  "'underload import' reads (json), or one RFC 4180 row per raw sample with the "
		  "columns run_uuid, label, host, suite, test, probe, metric, unit, index, value "
		  "(csv; control characters in stored strings written as \\n, \\r, \\t, \\xNN or "
		  "\\uNNNN, a backslash doubled)" },
	{ "output", UL_OPT_STRING, .short_name = 'o', .arg = "FILE", A(output),
	  .help = "write FILE (replaced atomically when it is a regular file) instead of "
		  "standard output" },
	UL_CMD_OPT_HOST(struct export_args, hosts, ": RUN and LABEL name runs of them"),
	{ NULL },
};

#undef A

extern const struct ul_cmd ul_cmd_desc_export;

/* The UUIDs to export, in id order, without repeats. */
struct pick {
	struct ul_cmd_scope sc;
	const struct ul_run_summary *all; /* the scope's runs: newest first */
	size_t n_all;
	bool *chosen;
};

static int choose(struct pick *p, char **args, int n)
{
	for (int i = 0; i < n; i++) {
		struct ul_cmd_named nm;
		int ret = ul_cmd_name(&p->sc, "export", args[i], &nm);

		if (ret)
			return ret;
		for (size_t k = 0; k < p->n_all; k++)
			p->chosen[k] |= nm.is_label ? !strcmp(p->all[k].label, nm.label)
						    : !strcmp(p->all[k].uuid, nm.run.uuid);
	}
	if (!n && ul_cmd_scope_check_any(&p->sc, "export"))
		return UL_EXIT_USAGE;
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
	if (!*runs) {
		ul_oom();
		return UL_EXIT_ERROR;
	}
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

/* -o FILE: as every output file (cmd/outfile.h): a regular file or a new
 * path is replaced atomically, a FIFO or a device written in place. */
static int write_output(const char *path, bool csv, struct ul_run *runs, size_t n)
{
	const struct export_out o = { csv, runs, n };

	if (!path) {
		if (!write_runs(stdout, csv, runs, n))
			return UL_EXIT_OK;
		if (!ul_stdout_gone())
			ul_error("cannot write the export");
		return UL_EXIT_ERROR;
	}
	return ul_outfile_write(path, write_export, &o) ? UL_EXIT_ERROR : UL_EXIT_OK;
}

static int do_export(const struct export_args *a, bool csv, char **args, int nargs)
{
	const char *out = a->output;
	struct pick p = { 0 };
	struct ul_run *runs = NULL;
	struct ul_store *st;
	size_t n = 0;
	int ret = ul_cmd_open_store(a->db, &st);

	if (ret)
		return ret;
	/* Now the store is known (never an output); refused before any work. */
	if (out && ul_outfile_check(out)) {
		ul_store_close(st);
		return UL_EXIT_USAGE;
	}
	ret = ul_cmd_scope_open(st, &a->hosts, &p.sc);
	p.all = p.sc.sum;
	p.n_all = p.sc.n;
	p.chosen = calloc(p.n_all ? p.n_all : 1, sizeof(*p.chosen));
	if (!ret)
		ret = p.chosen ? choose(&p, args, nargs) : (ul_oom(), UL_EXIT_ERROR);
	if (!ret)
		ret = load_chosen(st, &p, &runs, &n);
	if (!ret)
		ret = write_output(out, csv, runs, n);
	for (size_t i = 0; i < n; i++)
		ul_run_release(&runs[i]);
	free(runs);
	free(p.chosen);
	ul_cmd_scope_free(&p.sc);
	ul_store_close(st);
	return ret;
}

int ul_cmd_export(int argc, char **argv);
int ul_cmd_export(int argc, char **argv)
{
	struct export_args a;
	int first, ret;

	ret = ul_cmd_parse(&ul_cmd_desc_export, &a, argc, argv, &first);
	if (ret)
		return ret == UL_CMD_HELP_SHOWN ? UL_EXIT_OK : ret;
	if (a.output && !*a.output)
		return ul_usage_error("export", "-o needs a file name");
	return do_export(&a, !strcmp(a.format, "csv"), argv + first, argc - first);
}

const struct ul_cmd ul_cmd_desc_export = {
	.name = "export",
	.summary = "write stored runs as JSON (for import elsewhere) or CSV (one row per sample)",
	.operands = "[RUN|LABEL]...",
	.help = export_help,
	.opts = export_opts,
	.fn = ul_cmd_export,
};

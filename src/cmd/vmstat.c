/* SPDX-License-Identifier: GPL-2.0-or-later */
/* `underload vmstat RUN`: a stored run's monitor samples in vmstat(8)'s layout, with PSI. */
#include "core/compat.h"
#include "cmd/cmd.h"
#include "core/log.h"
#include "report/monitors.h"
#include "store/store.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static const char vmstat_help[] =
	"Print what the sampler monitor recorded during a stored run, cell by cell,\n"
	"in vmstat(8)'s layout (rates per interval between samples, as vmstat\n"
	"computes them), followed by a PSI view: the kernel's 10 s averages and\n"
	"the time stalled in each interval.  RUN is a numeric id, a UUID or a\n"
	"unique UUID prefix (4 characters or more), or 'last'.\n"
	"\n";

struct vmstat_args {
	const char *db, *cell;
};

static const struct ul_opt vmstat_opts[] = {
	UL_CMD_OPT_DB(struct vmstat_args),
	{ "cell", UL_OPT_STRING, 0, 4096, .arg = "TEST", UL_OPT_AT(struct vmstat_args, cell),
	  .help = "only the cells of this test: a load name (cpuload), SUITE/TEST (resp/cpuload) "
		  "or a cell number as in the JSON output" },
	{ NULL },
};

extern const struct ul_cmd ul_cmd_desc_vmstat;

/* Whether `sel` names this cell: "cpuload", "resp/cpuload" or its seq. */
static bool cell_matches(const struct ul_cell *c, const char *sel)
{
	char both[2 * UL_NAME_LEN + 2], *end;
	long seq;

	if (!sel)
		return true;
	if (!strcmp(c->load, sel))
		return true;
	snprintf(both, sizeof(both), "%s/%s", c->suite, c->load);
	if (!strcmp(both, sel))
		return true;
	errno = 0;
	seq = strtol(sel, &end, 10);
	return !errno && *sel && !*end && seq == c->seq;
}

static int print_cells(const struct ul_run *run, const char *sel)
{
	size_t matched = 0, printed = 0;

	for (size_t i = 0; i < run->n_cells; i++) {
		const struct ul_cell *c = &run->cells[i];
		int rc;

		if (!cell_matches(c, sel))
			continue;
		if (matched++)
			fputc('\n', stdout);
		rc = ul_report_vmstat(stdout, c);
		if (rc == -ENOENT) {
			printf("%s/%s: no sampler records (%s)\n", c->suite, c->load,
			       c->outcome == UL_CELL_OK
				       ? "the sampler was off: --monitor-interval 0"
				       : ul_cell_outcome_name(c->outcome));
			continue;
		}
		if (rc) {
			ul_error("cannot write the samples: %s", strerror(-rc));
			return UL_EXIT_ERROR;
		}
		printed++;
	}
	if (!matched && sel)
		return ul_usage_error("vmstat", "run %lld has no cell '%s'", (long long)run->id,
				      sel);
	if (!printed) {
		ul_error("run %lld has no sampler records", (long long)run->id);
		return UL_EXIT_ERROR;
	}
	return UL_EXIT_OK;
}

int ul_cmd_vmstat(int argc, char **argv);
int ul_cmd_vmstat(int argc, char **argv)
{
	struct vmstat_args a;
	const char *db_opt, *sel;
	struct ul_store *store;
	struct ul_run run;
	int first, ret;

	ret = ul_cmd_parse(&ul_cmd_desc_vmstat, &a, argc, argv, &first);
	if (ret)
		return ret == UL_CMD_HELP_SHOWN ? UL_EXIT_OK : ret;
	db_opt = a.db;
	sel = a.cell;
	if (argc - first != 1)
		return ul_usage_error("vmstat", "expected exactly one RUN");
	ret = ul_cmd_open_store(db_opt, &store);
	if (ret)
		return ret;
	ret = ul_cmd_load_run(store, argv[first], &run);
	if (ret == UL_EXIT_OK)
		ret = print_cells(&run, sel);
	ul_run_release(&run);
	ul_store_close(store);
	return ret;
}

const struct ul_cmd ul_cmd_desc_vmstat = {
	.name = "vmstat",
	.summary = "show a stored run's system samples in vmstat's layout, with PSI",
	.operands = "RUN",
	.help = vmstat_help,
	.opts = vmstat_opts,
	.fn = ul_cmd_vmstat,
};

/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * The dbench format: what Debian's dbench 4.00 prints at the end of a run,
 * for every round of every fsbench cell: the operation table (count,
 * average and maximum latency in ms, dbench's short names and order) and
 * `Throughput X MB/sec  N clients  N procs  max_latency=Y ms` (MB = 10^6
 * bytes, %g as dbench).  Differences, on purpose: the bytes are those
 * really read and written, max_latency is the slowest single operation,
 * and with several rounds or loads each block gets a heading line, a
 * load's rounds (its replicate cells) together.
 */
#include "core/compat.h"
#include "dbench/loadfile.h"
#include "report/common.h"
#include "report/format.h"
#include "report/suites.h"

#include <stdio.h>
#include <string.h>

extern const struct ul_format ul_format_dbench;
/* The suite this format prints: the one whose descriptor names it. */
#define DBENCH_SUITE ul_report_format_suite(ul_format_dbench.name)

/* dbench 4.00's table order and names. */
static const struct {
	int kind;
	const char *name;
} dbench_ops[] = {
	{ UL_FSB_NTCREATEX, "NTCreateX" },
	{ UL_FSB_CLOSE, "Close" },
	{ UL_FSB_RENAME, "Rename" },
	{ UL_FSB_UNLINK, "Unlink" },
	{ UL_FSB_DELTREE, "Deltree" },
	{ UL_FSB_RMDIR, "Rmdir" },
	{ UL_FSB_MKDIR, "Mkdir" },
	{ UL_FSB_QUERY_PATH_INFORMATION, "Qpathinfo" },
	{ UL_FSB_QUERY_FILE_INFORMATION, "Qfileinfo" },
	{ UL_FSB_QUERY_FS_INFORMATION, "Qfsinfo" },
	{ UL_FSB_SET_FILE_INFORMATION, "Sfileinfo" },
	{ UL_FSB_FIND_FIRST, "Find" },
	{ UL_FSB_WRITEX, "WriteX" },
	{ UL_FSB_READX, "ReadX" },
	{ UL_FSB_LOCKX, "LockX" },
	{ UL_FSB_UNLOCKX, "UnlockX" },
	{ UL_FSB_FLUSH, "Flush" },
};

/* Value `i` of the cell's series `kind`_`field`, or -1 when absent. */
static int64_t op_value(const struct ul_cell *c, int kind, const char *field, size_t i)
{
	char name[UL_NAME_LEN];
	const struct ul_series *s;

	snprintf(name, sizeof(name), "fsop_%s_%s", ul_fsb_kind_name(kind), field);
	s = ul_cell_find_series(c, name);
	return s && i < s->n ? s->v[i] : -1;
}

static int64_t run_value(const struct ul_cell *c, const char *name, size_t i)
{
	const struct ul_series *s = ul_cell_find_series(c, name);

	return s && i < s->n ? s->v[i] : 0;
}

static void dbench_round(FILE *out, const struct ul_cell *c, size_t r)
{
	double clients = 0, mb_s;

	fputs(" Operation      Count    AvgLat    MaxLat\n", out);
	fputs(" ----------------------------------------\n", out);
	for (size_t k = 0; k < UL_ARRAY_SIZE(dbench_ops); k++) {
		int64_t n = op_value(c, dbench_ops[k].kind, "count", r);
		int64_t sum = op_value(c, dbench_ops[k].kind, "sum_ns", r);
		int64_t max = op_value(c, dbench_ops[k].kind, "max_ns", r);

		if (n <= 0)
			continue;
		fprintf(out, " %-12s %7u %9.03f %9.03f\n", dbench_ops[k].name, (unsigned)n,
			(double)sum / (double)n / 1e6, (double)max / 1e6);
	}
	fputc('\n', out);
	ul_cell_metric(c, "fsbench_clients", &clients);
	mb_s = (double)run_value(c, "fsbench_throughput_bps", r) / 1e6;
	fprintf(out, "Throughput %g MB/sec  %d clients  %d procs  max_latency=%.03f ms\n", mb_s,
		(int)clients, (int)clients,
		(double)run_value(c, "fsbench_max_latency_ns", r) / 1e6);
}

/* The rounds of an fsbench cell: values of its primary series (one since
 * rounds are replicate cells; several in cells of earlier versions). */
static size_t rounds_of(const struct ul_cell *c)
{
	const struct ul_series *p = ul_report_primary(c);

	return p ? p->n : 0;
}

/*
 * The blocks of the test of run->cells[j], its replicate cells in run
 * order (= round order), headed "run R of N" counting the test's rounds
 * over its cells when `headed`; a cell that is not ok ends with its note.
 * *printed says whether anything was written before.
 */
static void dbench_test(FILE *out, const struct ul_run *run, size_t j, bool headed, bool *printed)
{
	const struct ul_cell *first = &run->cells[j];
	size_t n = 0, r = 0;

	for (size_t i = j; i < run->n_cells; i++)
		n += ul_report_same_test(first, &run->cells[i]) ? rounds_of(&run->cells[i]) : 0;
	for (size_t i = j; i < run->n_cells; i++) {
		const struct ul_cell *c = &run->cells[i];

		if (!ul_report_same_test(first, c))
			continue;
		for (size_t k = 0; k < rounds_of(c); k++) {
			if (headed)
				fprintf(out, "%sfsbench under %s, run %zu of %zu:\n",
					*printed ? "\n" : "", c->load, ++r, n);
			dbench_round(out, c, k);
			*printed = true;
		}
		if (c->outcome != UL_CELL_OK) {
			fprintf(out, "fsbench under %s: %s: ", c->load,
				ul_cell_outcome_name(c->outcome));
			ul_report_put_clean(out, c->note, sizeof(c->note));
			fputc('\n', out);
			*printed = true;
		}
	}
}

static int dbench_write_run(FILE *out, const struct ul_run *run)
{
	size_t cells = 0, rounds = 0;
	bool printed = false;

	for (size_t i = 0; i < run->n_cells; i++)
		if (!strcmp(run->cells[i].suite, DBENCH_SUITE)) {
			cells++;
			rounds += rounds_of(&run->cells[i]);
		}
	/* test by test (a load's rounds together), as the run measured them interleaved */
	for (size_t i = 0; i < run->n_cells; i++)
		if (!strcmp(run->cells[i].suite, DBENCH_SUITE) && ul_report_first_of_test(run, i))
			dbench_test(out, run, i, cells > 1 || rounds > 1, &printed);
	return ul_report_finish(out);
}

const struct ul_format ul_format_dbench = {
	.name = "dbench",
	.summary = "the fsbench suite as dbench 4 prints it: operation table and Throughput line",
	.version = 1,
	.write_run = dbench_write_run,
};

/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * The "lmbench2" format: the micro suite in the layout of LMbench 2.0's
 * summary (seed 004; seed-systems.md section 5.4), one row per run and
 * several runs of a label one under the other, as in the seed.  Titled as
 * underload's micro summary: these are not LMbench results.
 *
 * A row per run, --under load and replicate round (--runs; Description
 * then ends "#R", the round): Host = its hostname, OS = its label
 * (uname -r by default, as the seed's "Linux 2.4.18" was the kernel),
 * Description = "ARCH under LOAD", Mhz = the cells' cpu_mhz metric.  Each value is the median of the
 * batches of the cell measuring it (its outcome ok; the memory table their
 * minimum, as lat_mem_rd keeps its fastest repetition): times in us, the
 * memory table in ns, bandwidths in MB/s of 10^6 bytes (lmbench3's MB:
 * lib_timing.c and bw_mem.c define it as 1000*1000).  A column whose
 * definition in LMbench differs from underload's native measurement takes
 * the "lm-" probe that measures it LMbench's way (stat, open/close,
 * select, signal handler, fork, exec, sh, mmap, prot fault, page fault,
 * TCP bandwidth, file reread, the memory table); the others take the native probe, which
 * already does LMbench's work.  Each micro test's row in the suite's table
 * names the columns it fills (engine/suites/micro/micro.c); ul_lm2_source()
 * reads them back per column.  Two-process
 * columns take the "-1cpu" placement (both ends on one CPU), which exists
 * on every machine; the micro format shows both.  RPC columns stay
 * blank (no portmapper-free RPC path).  As LMbench 3's getsummary, a table
 * prints only the rows with a value in it, and is left out without any.  Page fault is shown with decimals
 * (the seed printed whole us, "2.00000").  Version 2: the "lm-" and "-1cpu" sources,
 * MB of 10^6 bytes (version 1 divided by 2^20); version 3: selct TCP from
 * lm-select, Prot Fault from lm-protfault, TCP bandwidth from
 * lm-bw-tcp-1cpu, File reread from lm-file-rd; version 4: the memory table
 * the minimum of the batches; the layout is unchanged (tests/golden/lmbench2-seed.txt).
 */
#include "core/compat.h"
#include "model/suite.h"
#include "report/common.h"
#include "report/format.h"
#include "report/suites.h"
#include "report/lmbench2.h"
#include "stats/stats.h"

#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

extern const struct ul_format ul_format_lmbench2;
/* The suite this format prints: the one whose descriptor names it. */
#define LM2_SUITE ul_report_format_suite(ul_format_lmbench2.name)

void ul_lm2_num(char *buf, size_t len, double v, int width)
{
	char tmp[64];

	if (!(v > 0)) {
		snprintf(buf, len, "%*s", width, "");
	} else if (v >= 1e4) {
		bool mega = v >= 1e7;

		snprintf(tmp, sizeof(tmp), "%.1f", mega ? v / 1e6 : v / 1e3);
		snprintf(buf, len, "%*.*s%s", width - 1, width - 1, tmp, mega ? "M" : "K");
	} else if (v >= 10) {
		snprintf(tmp, sizeof(tmp), "%.1f", v);
		snprintf(buf, len, "%*.*s", width, width, tmp);
	} else if (v < 0.001) {
		snprintf(buf, len, "%*.*e", width, width > 6 ? width - 6 : 0, v);
	} else {
		snprintf(buf, len, "%*.*f", width, width > 2 ? width - 2 : 0, v);
	}
}

static void put_num(FILE *out, const char *sep, double v, int width)
{
	char buf[64];

	ul_lm2_num(buf, sizeof(buf), v, width);
	fprintf(out, "%s%s", sep, buf);
}

static void put_host(FILE *out, const struct ul_lm2_row *r)
{
	fprintf(out, "%-9.9s %13.13s", r->host, r->os);
}

static void put_cols(FILE *out, const struct ul_lm2_row *r, enum ul_lm2_col first,
		     const int *widths, size_t n)
{
	for (size_t i = 0; i < n; i++)
		put_num(out, " ", r->v[first + i], widths[i]);
	fputc('\n', out);
}

static const char lm2_title[] =
	"\n"
	"                 U N D E R L O A D   M I C R O   S U M M A R Y\n"
	"                 ---------------------------------------------\n"
	"         (in the layout of LMbench 2.0's summary; measured by underload)\n"
	"\n";

static const char lm2_basic[] = "Basic system parameters\n"
				"----------------------------------------------------\n"
				"Host                 OS Description              Mhz\n"
				"                                                    \n"
				"--------- ------------- ----------------------- ----\n";

static const char lm2_proc[] =
	"\nProcessor, Processes - times in microseconds - smaller is better\n"
	"----------------------------------------------------------------\n"
	"Host                 OS  Mhz null null      open selct sig  sig  fork exec sh  \n"
	"                             call  I/O stat clos TCP   inst hndl proc proc proc\n"
	"--------- ------------- ---- ---- ---- ---- ---- ----- ---- ---- ---- ---- ----\n";

static const char lm2_ctx[] =
	"\nContext switching - times in microseconds - smaller is better\n"
	"-------------------------------------------------------------\n"
	"Host                 OS 2p/0K 2p/16K 2p/64K 8p/16K 8p/64K 16p/16K 16p/64K\n"
	"                        ctxsw  ctxsw  ctxsw ctxsw  ctxsw   ctxsw   ctxsw\n"
	"--------- ------------- ----- ------ ------ ------ ------ ------- -------\n";

static const char lm2_lat[] =
	"\n*Local* Communication latencies in microseconds - smaller is better\n"
	"-------------------------------------------------------------------\n"
	"Host                 OS 2p/0K  Pipe AF     UDP  RPC/   TCP  RPC/ TCP\n"
	"                        ctxsw       UNIX         UDP         TCP conn\n"
	"--------- ------------- ----- ----- ---- ----- ----- ----- ----- ----\n";

static const char lm2_fs[] =
	"\nFile & VM system latencies in microseconds - smaller is better\n"
	"--------------------------------------------------------------\n"
	"Host                 OS   0K File      10K File      Mmap    Prot    Page\t\n"
	"                        Create Delete Create Delete  Latency Fault   Fault \n"
	"--------- ------------- ------ ------ ------ ------  ------- -----   ----- \n";

static const char lm2_bw[] =
	"\n*Local* Communication bandwidths in MB/s - bigger is better\n"
	"-----------------------------------------------------------\n"
	"Host                OS  Pipe AF    TCP  File   Mmap  Bcopy  Bcopy  Mem   Mem\n"
	"                             UNIX      reread reread (libc) (hand) read write\n"
	"--------- ------------- ---- ---- ---- ------ ------ ------ ------ ---- -----\n";

static const char lm2_mem[] = "\nMemory latencies in nanoseconds - smaller is better\n"
			      "    (WARNING - may not be correct, check graphs)\n"
			      "---------------------------------------------------\n"
			      "Host                 OS   Mhz  L1 $   L2 $    Main mem    Guesses\n"
			      "--------- -------------  ---- ----- ------    --------    -------\n";

/* getsummary's same(): within 20% of the larger. */
static bool lm2_same(double a, double b)
{
	double hi = a > b ? a : b, lo = a > b ? b : a;

	return hi <= 0 || (hi - lo) / hi * 100 <= 20;
}

static void put_mem_row(FILE *out, const struct ul_lm2_row *r)
{
	static const int w[] = { 5, 6, 6 };
	double l1 = r->v[UL_LM2_L1], l2 = r->v[UL_LM2_L2], mem = r->v[UL_LM2_MAIN];

	put_host(out, r);
	fprintf(out, "  %4d", (int)lround(r->mhz > 0 ? r->mhz : 0));
	for (size_t i = 0; i < UL_ARRAY_SIZE(w); i++)
		put_num(out, " ", r->v[UL_LM2_L1 + i], w[i]);
	if (l1 > 0 && l2 > 0 && mem > 0) {
		if (!lm2_same(l1, l2) && lm2_same(l2, mem))
			fputs("    No L2 cache?", out);
		else if (lm2_same(l1, l2))
			fputs("    No L1 cache?", out);
	}
	fputc('\n', out);
}

/* Does row r have a value in columns [first, last]? */
static bool lm2_has(const struct ul_lm2_row *r, enum ul_lm2_col first, enum ul_lm2_col last)
{
	for (int c = first; c <= (int)last; c++)
		if (r->v[c] > 0)
			return true;
	return false;
}

/* The header of a table and which rows it prints: rows with a value in
 * [first, last], as getsummary's resultsq(); no such row, no table. */
static bool lm2_table(FILE *out, const char *header, const struct ul_lm2_row *rows, size_t n,
		      enum ul_lm2_col first, enum ul_lm2_col last)
{
	for (size_t i = 0; i < n; i++)
		if (lm2_has(&rows[i], first, last)) {
			fputs(header, out);
			return true;
		}
	return false;
}

int ul_lm2_write(FILE *out, const struct ul_lm2_row *rows, size_t n)
{
	static const int proc_w[] = { 4, 4, 4, 4, 5, 4, 4, 4, 4, 4 };
	static const int ctx_w[] = { 5, 6, 6, 6, 6, 7, 7 };
	static const int lat_w[] = { 5, 4, 5, 5, 5, 5, 4 }; /* after 2p/0K */
	static const int bw_w[] = { 4, 4, 4, 6, 6, 6, 6, 4, 5 };

	fputs(lm2_title, out);
	fputs(lm2_basic, out);
	for (size_t i = 0; i < n; i++) {
		put_host(out, &rows[i]);
		fprintf(out, " %23.23s %4.0f\n", rows[i].desc, rows[i].mhz > 0 ? rows[i].mhz : 0);
	}
	if (lm2_table(out, lm2_proc, rows, n, UL_LM2_NULL_CALL, UL_LM2_SH))
		for (size_t i = 0; i < n; i++) {
			if (!lm2_has(&rows[i], UL_LM2_NULL_CALL, UL_LM2_SH))
				continue;
			put_host(out, &rows[i]);
			fprintf(out, " %4.0f", rows[i].mhz > 0 ? rows[i].mhz : 0);
			put_cols(out, &rows[i], UL_LM2_NULL_CALL, proc_w, UL_ARRAY_SIZE(proc_w));
		}
	if (lm2_table(out, lm2_ctx, rows, n, UL_LM2_CTX_2P0K, UL_LM2_CTX_16P64K))
		for (size_t i = 0; i < n; i++) {
			if (!lm2_has(&rows[i], UL_LM2_CTX_2P0K, UL_LM2_CTX_16P64K))
				continue;
			put_host(out, &rows[i]);
			put_cols(out, &rows[i], UL_LM2_CTX_2P0K, ctx_w, UL_ARRAY_SIZE(ctx_w));
		}
	if (lm2_table(out, lm2_lat, rows, n, UL_LM2_LAT_PIPE, UL_LM2_LAT_CONNECT))
		for (size_t i = 0; i < n; i++) {
			if (!lm2_has(&rows[i], UL_LM2_LAT_PIPE, UL_LM2_LAT_CONNECT))
				continue;
			put_host(out, &rows[i]);
			put_num(out, " ", rows[i].v[UL_LM2_CTX_2P0K], 5);
			put_cols(out, &rows[i], UL_LM2_LAT_PIPE, lat_w, UL_ARRAY_SIZE(lat_w));
		}
	if (lm2_table(out, lm2_fs, rows, n, UL_LM2_CREATE_0K, UL_LM2_PAGE_FAULT))
		for (size_t i = 0; i < n; i++) {
			const struct ul_lm2_row *r = &rows[i];

			if (!lm2_has(r, UL_LM2_CREATE_0K, UL_LM2_PAGE_FAULT))
				continue;
			put_host(out, r);
			for (int c = UL_LM2_CREATE_0K; c <= UL_LM2_DELETE_10K; c++)
				put_num(out, " ", r->v[c], 6);
			put_num(out, "  ", r->v[UL_LM2_MMAP], 7);
			put_num(out, " ", r->v[UL_LM2_PROT_FAULT], 5);
			put_num(out, " ", r->v[UL_LM2_PAGE_FAULT], 7);
			fputc('\n', out);
		}
	if (lm2_table(out, lm2_bw, rows, n, UL_LM2_BW_PIPE, UL_LM2_BW_MEM_WRITE))
		for (size_t i = 0; i < n; i++) {
			if (!lm2_has(&rows[i], UL_LM2_BW_PIPE, UL_LM2_BW_MEM_WRITE))
				continue;
			put_host(out, &rows[i]);
			put_cols(out, &rows[i], UL_LM2_BW_PIPE, bw_w, UL_ARRAY_SIZE(bw_w));
		}
	if (lm2_table(out, lm2_mem, rows, n, UL_LM2_L1, UL_LM2_MAIN))
		for (size_t i = 0; i < n; i++)
			if (lm2_has(&rows[i], UL_LM2_L1, UL_LM2_MAIN))
				put_mem_row(out, &rows[i]);
	return ul_report_finish(out);
}

/* The memory table is the minimum of the batches (lat_mem_rd alone of
 * LMbench's summary keeps the fastest of its repetitions,
 * save_minimum()); every other column their median. */
static bool lm2_minimum(enum ul_lm2_col col)
{
	return col >= UL_LM2_L1;
}

/* The factor from a column's series to its unit: the memory table's ps
 * to ns; the others' ps to us, or bytes/s to MB/s (10^6 bytes, as
 * lmbench3). */
static double lm2_factor(enum ul_lm2_col col)
{
	return col >= UL_LM2_L1 ? 1e-3 : 1e-6;
}

/* The columns of the suite's test whose probe is `probe` (its row's
 * format_row), or NULL when it fills none. */
static const struct ul_lm2_source *lm2_columns(const char *probe)
{
	const struct ul_suite *suite = ul_suite_find(LM2_SUITE);

	for (size_t i = 0; suite && suite->tests[i].load; i++)
		if (!strcmp(ul_suite_test_probe(suite, &suite->tests[i]), probe))
			return suite->tests[i].format_row;
	return NULL;
}

const char *ul_lm2_source(enum ul_lm2_col col, const char **series)
{
	const struct ul_suite *suite = ul_suite_find(LM2_SUITE);

	for (size_t i = 0; suite && suite->tests[i].load; i++) {
		const struct ul_lm2_source *src = suite->tests[i].format_row;

		for (; src && src->col != UL_LM2_NCOLS; src++)
			if (src->col == col) {
				if (series)
					*series = src->series;
				return ul_suite_test_probe(suite, &suite->tests[i]);
			}
	}
	return NULL;
}

/* The median (or, minimum = true, the minimum) of a series, NAN when it
 * has no samples or cannot be summarised. */
static double series_value(const struct ul_series *s, bool minimum)
{
	struct ul_summary sum;

	if (!s || !s->n || ul_stats_summarize_i64(s->v, s->n, &sum))
		return NAN;
	return minimum ? sum.min : sum.median;
}

/* The row of a run's cells measured under the load of `first`, in its
 * replicate round (--runs: "under LOAD #R", one row per round, as the
 * seed gave one row per run). */
static void lm2_row_of(const struct ul_run *run, const struct ul_cell *first, struct ul_lm2_row *r)
{
	bool rounds = ul_report_has_rounds(run, LM2_SUITE);
	char load[UL_NAME_LEN + 16];

	memset(r, 0, sizeof(*r));
	snprintf(r->host, sizeof(r->host), "%s", run->host.hostname);
	snprintf(r->os, sizeof(r->os), "%s", run->label);
	snprintf(r->desc, sizeof(r->desc), "%s under %s", run->host.arch,
		 ul_report_round_name(load, sizeof(load), first->load, first, rounds));
	for (size_t i = 0; i < run->n_cells; i++) {
		const struct ul_cell *c = &run->cells[i];
		double mhz;

		if (strcmp(c->suite, LM2_SUITE) || strcmp(c->load, first->load) ||
		    ul_cell_round(c) != ul_cell_round(first))
			continue;
		if (r->mhz <= 0 && ul_cell_metric(c, "cpu_mhz", &mhz))
			r->mhz = mhz;
		if (c->outcome != UL_CELL_OK)
			continue;
		for (const struct ul_lm2_source *src = lm2_columns(c->probe);
		     src && src->col != UL_LM2_NCOLS; src++)
			if (!(r->v[src->col] > 0))
				r->v[src->col] = series_value(ul_cell_find_series(c, src->series),
							      lm2_minimum(src->col)) *
						 lm2_factor(src->col);
	}
}

/* Is cell i the first micro cell of its load and round in the run? */
static bool first_of_load(const struct ul_run *run, size_t i)
{
	if (strcmp(run->cells[i].suite, LM2_SUITE))
		return false;
	for (size_t j = 0; j < i; j++)
		if (!strcmp(run->cells[j].suite, LM2_SUITE) &&
		    !strcmp(run->cells[j].load, run->cells[i].load) &&
		    ul_cell_round(&run->cells[j]) == ul_cell_round(&run->cells[i]))
			return false;
	return true;
}

/* Several runs: by label, then by start time (the seed listed a kernel's runs together). */
static int lm2_cmp(const void *a, const void *b)
{
	const struct ul_run *x = *(const struct ul_run *const *)a;
	const struct ul_run *y = *(const struct ul_run *const *)b;
	int c = strcmp(x->label, y->label);

	if (c)
		return c;
	return x->started_wall_ns < y->started_wall_ns ? -1
						       : x->started_wall_ns > y->started_wall_ns;
}

/* One row per run and load (a run under --under A,B gives two). */
static int lm2_write_runs(FILE *out, const struct ul_run *const *runs, size_t n,
			  const struct ul_report_opts *opts)
{
	const struct ul_run **sorted = calloc(n ? n : 1, sizeof(*sorted));
	struct ul_lm2_row *rows = NULL;
	size_t n_rows = 0, cap = 0;
	int rc = -ENOMEM;

	(void)opts;
	if (!sorted)
		return rc;
	memcpy(sorted, runs, n * sizeof(*sorted));
	qsort(sorted, n, sizeof(*sorted), lm2_cmp);
	for (size_t r = 0; r < n; r++)
		cap += sorted[r]->n_cells;
	rows = calloc(cap ? cap : 1, sizeof(*rows));
	if (rows) {
		for (size_t r = 0; r < n; r++)
			for (size_t i = 0; i < sorted[r]->n_cells; i++)
				if (first_of_load(sorted[r], i))
					lm2_row_of(sorted[r], &sorted[r]->cells[i],
						   &rows[n_rows++]);
		rc = ul_lm2_write(out, rows, n_rows);
	}
	free(sorted);
	free(rows);
	return rc;
}

static int lm2_write_run(FILE *out, const struct ul_run *run)
{
	return lm2_write_runs(out, &run, 1, NULL);
}

const struct ul_format ul_format_lmbench2 = {
	.name = "lmbench2",
	.summary =
		"the micro suite in LMbench 2.0's six-table summary layout (not LMbench results)",
	.version = 4,
	.write_run = lm2_write_run,
	.write_runs = lm2_write_runs,
};

/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * The native block of an fsbench cell (under the text format's table):
 * each per-run figure as median, min and max across --runs, then one row
 * per operation kind.  Pure function of the model.
 */
#include "core/compat.h"
#include "dbench/loadfile.h"
#include "report/common.h"
#include "report/monitors.h"
#include "stats/stats.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static const struct ul_series *ser(const struct ul_cell *c, const char *name)
{
	return ul_cell_find_series(c, name);
}

/* Median, min, max of f(run) over the rounds; false when there are none. */
static bool spread(const struct ul_cell *c, size_t n, double (*f)(const struct ul_cell *, size_t),
		   double out[3])
{
	double *v = calloc(n ? n : 1, sizeof(*v));
	struct ul_summary s;
	bool ok;

	if (!v)
		return false;
	for (size_t i = 0; i < n; i++)
		v[i] = f(c, i);
	ok = n && ul_stats_summarize(v, n, &s) == 0;
	if (ok) {
		out[0] = s.median;
		out[1] = s.min;
		out[2] = s.max;
	}
	free(v);
	return ok;
}

static double at(const struct ul_cell *c, const char *name, size_t i)
{
	const struct ul_series *s = ser(c, name);

	return s && i < s->n ? (double)s->v[i] : 0;
}

static double elapsed_s(const struct ul_cell *c, size_t i)
{
	return at(c, "fsbench_elapsed_ns", i) / 1e9;
}

static double f_mbs(const struct ul_cell *c, size_t i)
{
	return at(c, "fsbench_throughput_bps", i) / 1e6;
}

static double f_ops(const struct ul_cell *c, size_t i)
{
	double e = elapsed_s(c, i);

	return e > 0 ? at(c, "fsbench_ops", i) / e : 0;
}

static double f_ratio(const struct ul_cell *c, size_t i)
{
	double hi = at(c, "fsbench_client_max_ops", i);

	return hi > 0 ? at(c, "fsbench_client_min_ops", i) / hi : 0;
}

static double f_user(const struct ul_cell *c, size_t i)
{
	return at(c, "fsbench_user_ns", i) / 1e9;
}

static double f_sys(const struct ul_cell *c, size_t i)
{
	return at(c, "fsbench_sys_ns", i) / 1e9;
}

static double f_elapsed(const struct ul_cell *c, size_t i)
{
	return elapsed_s(c, i);
}

static double f_cpu(const struct ul_cell *c, size_t i)
{
	double e = elapsed_s(c, i);

	return e > 0 ? 100 * (f_user(c, i) + f_sys(c, i)) / e : 0;
}

static double f_majflt(const struct ul_cell *c, size_t i)
{
	return at(c, "fsbench_majflt", i);
}

static double f_minflt(const struct ul_cell *c, size_t i)
{
	return at(c, "fsbench_minflt", i);
}

static double f_mismatch(const struct ul_cell *c, size_t i)
{
	return at(c, "fsbench_mismatches", i);
}

static double f_maxlat(const struct ul_cell *c, size_t i)
{
	return at(c, "fsbench_max_latency_ns", i) / 1e6;
}

static const struct {
	const char *label;
	double (*f)(const struct ul_cell *, size_t);
	int decimals;
} rows[] = {
	{ "MB/s (read+written)", f_mbs, 3 },	{ "operations/s", f_ops, 1 },
	{ "client min/max ops", f_ratio, 3 },	{ "max latency ms", f_maxlat, 3 },
	{ "status mismatches", f_mismatch, 0 }, { "elapsed s", f_elapsed, 2 },
	{ "clients' user s", f_user, 2 },	{ "clients' sys s", f_sys, 2 },
	{ "clients' CPU %", f_cpu, 1 },		{ "major faults", f_majflt, 0 },
	{ "minor faults", f_minflt, 0 },
};

static void header(FILE *out, const struct ul_cell *c, size_t n)
{
	double clients = 0, dur = 0, warm = 0, builtin = 0, ops = 0, rd = 0, wr = 0;

	ul_cell_metric(c, "fsbench_clients", &clients);
	ul_cell_metric(c, "fsbench_duration_ns", &dur);
	ul_cell_metric(c, "fsbench_warmup_ns", &warm);
	ul_cell_metric(c, "fsbench_builtin_trace", &builtin);
	ul_cell_metric(c, "fsbench_trace_ops", &ops);
	ul_cell_metric(c, "fsbench_trace_read_bytes", &rd);
	ul_cell_metric(c, "fsbench_trace_write_bytes", &wr);
	fprintf(out, "fsbench under %s: %.0f clients, %zu run%s of ", c->load, clients, n,
		n == 1 ? "" : "s");
	if (dur > 0)
		fprintf(out, "%.0f s after a %.0f s warm-up", dur / 1e9, warm / 1e9);
	else
		fputs("one pass", out);
	fprintf(out, "; %s trace of %.0f ops a pass (%.1f MB read, %.1f MB written)\n",
		builtin ? "built-in" : "loadfile", ops, rd / 1e6, wr / 1e6);
}

static void op_table(FILE *out, const struct ul_cell *c, size_t n)
{
	double total_s = 0;

	for (size_t i = 0; i < n; i++)
		total_s += elapsed_s(c, i);
	fprintf(out, "  %-24s %10s %9s %9s %9s %10s %9s\n", "operation (ms)", "ops/s", "mean",
		"p50", "p99", "max", "mismatch");
	for (int k = 0; k < UL_FSB_N_KINDS; k++) {
		char name[UL_NAME_LEN];
		double count = 0, sum = 0, max = 0, mism = 0, p50[3], p99[3];
		const struct ul_series *s;

		snprintf(name, sizeof(name), "fsop_%s_count", ul_fsb_kind_name(k));
		if (!(s = ser(c, name)))
			continue;
		for (size_t i = 0; i < n; i++) {
			char f[UL_NAME_LEN];

			count += at(c, name, i);
			snprintf(f, sizeof(f), "fsop_%s_sum_ns", ul_fsb_kind_name(k));
			sum += at(c, f, i);
			snprintf(f, sizeof(f), "fsop_%s_max_ns", ul_fsb_kind_name(k));
			max = at(c, f, i) > max ? at(c, f, i) : max;
			snprintf(f, sizeof(f), "fsop_%s_mismatches", ul_fsb_kind_name(k));
			mism += at(c, f, i);
		}
		if (count <= 0)
			continue;
		p50[0] = p99[0] = 0;
		for (int q = 0; q < 2; q++) {
			double *v = calloc(n, sizeof(*v));
			struct ul_summary sm;
			char f[UL_NAME_LEN];

			snprintf(f, sizeof(f), "fsop_%s_%s", ul_fsb_kind_name(k),
				 q ? "p99_ns" : "p50_ns");
			for (size_t i = 0; v && i < n; i++)
				v[i] = at(c, f, i);
			if (v && ul_stats_summarize(v, n, &sm) == 0)
				(q ? p99 : p50)[0] = sm.median;
			free(v);
		}
		fprintf(out, "  %-24s %10.1f %9.3f %9.3f %9.3f %10.3f %9.0f\n", ul_fsb_kind_name(k),
			total_s > 0 ? count / total_s : 0, sum / count / 1e6, p50[0] / 1e6,
			p99[0] / 1e6, max / 1e6, mism);
	}
}

int ul_report_fsbench_native(FILE *out, const struct ul_cell *c)
{
	const struct ul_series *p = ul_report_primary(c);
	size_t n = p ? p->n : 0;

	header(out, c, n);
	if (!n) {
		fprintf(out, "  no finished run: %s", ul_cell_outcome_name(c->outcome));
		if (c->note[0]) {
			fputs(": ", out);
			ul_report_put_clean(out, c->note, sizeof(c->note));
		}
		fputc('\n', out);
		return ferror(out) ? -EIO : 0;
	}
	fprintf(out, "  %-24s %10s %10s %10s\n", "per run", "median", "min", "max");
	for (size_t r = 0; r < UL_ARRAY_SIZE(rows); r++) {
		double v[3];

		if (!spread(c, n, rows[r].f, v))
			continue;
		fprintf(out, "  %-24s ", rows[r].label);
		for (int j = 0; j < 3; j++) {
			fprintf(out, "%10.*f", rows[r].decimals, v[j]);
			fputc(j < 2 ? ' ' : '\n', out);
		}
	}
	op_table(out, c, n);
	return ferror(out) ? -EIO : 0;
}

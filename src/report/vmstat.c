/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * The sampler's records of a cell in vmstat(8)'s layout with a PSI view,
 * and the short monitor summary the native text format prints per cell.
 */
#include "core/compat.h"
#include "core/sysmon.h"
#include "report/common.h"
#include "report/monitors.h"
#include "report/suites.h"

#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <string.h>

/* procps-ng vmstat's default (not --wide) header and row, byte for byte. */
static const char vmstat_head1[] =
	"procs -----------memory---------- ---swap-- -----io---- -system-- ------cpu-----";
static const char vmstat_head2[] =
	" r  b   swpd   free   buff  cache   si   so    bi    bo   in   cs us sy id wa st";
#define VMSTAT_ROW                                                                                 \
	"%2llu %2llu %6llu %6llu %6llu %6llu %4llu %4llu %5llu %5llu %4llu %4llu "                 \
	"%2llu %2llu %2llu %2llu %2llu\n"

/* The PSI view: group headers centred in dashes over these widths. */
#define PSI_ROW "%8.2f %5s %6s %5s %6s %6s %6s %5s %6s %6s %6s\n"

struct cols {
	const struct ul_series *t, *flags;
	const struct ul_series *f[UL_SYSMON_NFIELDS]; /* NULL: not recorded */
	size_t n;
};

/* The cell's sampler series, all of the stamp's length; false if none. */
static bool load_cols(const struct ul_cell *cell, struct cols *c)
{
	memset(c, 0, sizeof(*c));
	c->t = ul_cell_find_series(cell, UL_SYSMON_SERIES_T);
	if (!c->t || !c->t->n)
		return false;
	c->n = c->t->n;
	c->flags = ul_cell_find_series(cell, UL_SYSMON_SERIES_FLAGS);
	if (c->flags && c->flags->n != c->n)
		c->flags = NULL;
	for (int i = 0; i < UL_SYSMON_NFIELDS; i++) {
		const struct ul_series *s =
			ul_cell_find_series(cell, ul_sysmon_series_name((enum ul_sysmon_field)i));

		c->f[i] = s && s->n == c->n ? s : NULL;
	}
	return true;
}

/* later - earlier in seconds (stored timestamps are untrusted). */
static double ts_diff_s(int64_t later, int64_t earlier)
{
	return ul_report_diff(later, earlier) / 1e9;
}

static uint64_t val(const struct cols *c, enum ul_sysmon_field f, size_t i)
{
	return c->f[f] && c->f[f]->v[i] > 0 ? (uint64_t)c->f[f]->v[i] : 0;
}

/* Counter increase over interval i (samples i-1 .. i); a counter that
 * went backwards (idle ticks can, briefly) counts as no increase. */
static uint64_t delta(const struct cols *c, enum ul_sysmon_field f, size_t i)
{
	uint64_t a = val(c, f, i - 1), b = val(c, f, i);

	return b > a ? b - a : 0;
}

static unsigned long long per_sec(double amount, double secs)
{
	return (unsigned long long)llround(amount / secs);
}

/* Sources present in every sample of the cell (the low bits of mon_flags). */
static unsigned have_all(const struct cols *c)
{
	unsigned have = ~0u;

	if (!c->flags)
		return 0;
	for (size_t i = 0; i < c->n; i++)
		have &= (unsigned)c->flags->v[i];
	return have & ((1u << UL_SYSMON_NSRC) - 1);
}

static void vmstat_row(FILE *out, const struct cols *c, size_t i, double secs, double page_kb)
{
	unsigned long long use, gue, sys, idl, iow, sto, div, half;

	use = delta(c, UL_SYSMON_CPU_USER, i) + delta(c, UL_SYSMON_CPU_NICE, i);
	gue = delta(c, UL_SYSMON_CPU_GUEST, i) + delta(c, UL_SYSMON_CPU_GUEST_NICE, i);
	sys = delta(c, UL_SYSMON_CPU_SYSTEM, i) + delta(c, UL_SYSMON_CPU_IRQ, i) +
	      delta(c, UL_SYSMON_CPU_SOFTIRQ, i);
	idl = delta(c, UL_SYSMON_CPU_IDLE, i);
	iow = delta(c, UL_SYSMON_CPU_IOWAIT, i);
	sto = delta(c, UL_SYSMON_CPU_STEAL, i);
	/* As vmstat: the divisor includes guest time (inside user), which
	 * is then taken out of us. */
	div = use + sys + idl + iow + sto;
	if (!div) {
		div = 1;
		idl = 1;
	}
	use = use >= gue ? use - gue : 0;
	half = div / 2;
	fprintf(out, VMSTAT_ROW, (unsigned long long)val(c, UL_SYSMON_PROCS_RUNNING, i),
		(unsigned long long)val(c, UL_SYSMON_PROCS_BLOCKED, i),
		(unsigned long long)(val(c, UL_SYSMON_SWAP_TOTAL, i) >=
						     val(c, UL_SYSMON_SWAP_FREE, i)
					     ? val(c, UL_SYSMON_SWAP_TOTAL, i) -
						       val(c, UL_SYSMON_SWAP_FREE, i)
					     : 0),
		(unsigned long long)val(c, UL_SYSMON_MEM_FREE, i),
		(unsigned long long)val(c, UL_SYSMON_BUFFERS, i),
		(unsigned long long)(val(c, UL_SYSMON_CACHED, i) +
				     val(c, UL_SYSMON_SRECLAIMABLE, i)),
		per_sec((double)delta(c, UL_SYSMON_PSWPIN, i) * page_kb, secs),
		per_sec((double)delta(c, UL_SYSMON_PSWPOUT, i) * page_kb, secs),
		per_sec((double)delta(c, UL_SYSMON_PGPGIN, i), secs),
		per_sec((double)delta(c, UL_SYSMON_PGPGOUT, i), secs),
		per_sec((double)delta(c, UL_SYSMON_INTR, i), secs),
		per_sec((double)delta(c, UL_SYSMON_CTXT, i), secs), (100 * use + half) / div,
		(100 * sys + half) / div, (100 * idl + half) / div, (100 * iow + half) / div,
		(100 * sto + half) / div);
}

/* A group header: label centred in dashes over `width` columns. */
static void dashes(FILE *out, const char *label, int width, bool last)
{
	int len = (int)strlen(label), left = (width - len) / 2, right = width - len - left;

	fprintf(out, "%.*s%s%.*s%s", left, "--------------------------------", label, right,
		"--------------------------------", last ? "\n" : " ");
}

/* One PSI cell: avg10 of sample i, or the stall (us -> ms) of interval i. */
static void psi_avg(char *buf, size_t len, const struct cols *c, unsigned have,
		    enum ul_sysmon_src src, enum ul_sysmon_field f, size_t i)
{
	if (have & (1u << src))
		snprintf(buf, len, "%.2f", (double)val(c, f, i) / 100.0);
	else
		snprintf(buf, len, "-");
}

static void psi_stall(char *buf, size_t len, const struct cols *c, unsigned have,
		      enum ul_sysmon_src src, enum ul_sysmon_field f, size_t i)
{
	if (have & (1u << src))
		snprintf(buf, len, "%lld", (long long)llround((double)delta(c, f, i) / 1000.0));
	else
		snprintf(buf, len, "-");
}

static void psi_view(FILE *out, const struct cols *c, unsigned have)
{
	const unsigned psi = (1u << UL_SYSMON_PSI_CPU) | (1u << UL_SYSMON_PSI_MEMORY) |
			     (1u << UL_SYSMON_PSI_IO);

	if (!(have & psi)) {
		fputs("PSI: not recorded (no /proc/pressure on this kernel, or psi=0)\n", out);
		return;
	}
	fputs("PSI: avg10 = the kernel's 10 s average (%), stall = time stalled in the interval "
	      "(ms), some/full\n",
	      out);
	dashes(out, "time", 8, false);
	dashes(out, "cpu", 12, false);
	dashes(out, "memory", 26, false);
	dashes(out, "io", 26, true);
	fprintf(out, "%8s %5s %6s %5s %6s %6s %6s %5s %6s %6s %6s\n", "s", "avg10", "stall",
		"avg10", "full10", "stall", "fstall", "avg10", "full10", "stall", "fstall");
	for (size_t i = 1; i < c->n; i++) {
		char v[10][24];

		if (c->t->v[i] <= c->t->v[i - 1])
			continue;
		psi_avg(v[0], 24, c, have, UL_SYSMON_PSI_CPU, UL_SYSMON_PSI_CPU_SOME_AVG10, i);
		psi_stall(v[1], 24, c, have, UL_SYSMON_PSI_CPU, UL_SYSMON_PSI_CPU_SOME_US, i);
		psi_avg(v[2], 24, c, have, UL_SYSMON_PSI_MEMORY, UL_SYSMON_PSI_MEM_SOME_AVG10, i);
		psi_avg(v[3], 24, c, have, UL_SYSMON_PSI_MEMORY, UL_SYSMON_PSI_MEM_FULL_AVG10, i);
		psi_stall(v[4], 24, c, have, UL_SYSMON_PSI_MEMORY, UL_SYSMON_PSI_MEM_SOME_US, i);
		psi_stall(v[5], 24, c, have, UL_SYSMON_PSI_MEMORY, UL_SYSMON_PSI_MEM_FULL_US, i);
		psi_avg(v[6], 24, c, have, UL_SYSMON_PSI_IO, UL_SYSMON_PSI_IO_SOME_AVG10, i);
		psi_avg(v[7], 24, c, have, UL_SYSMON_PSI_IO, UL_SYSMON_PSI_IO_FULL_AVG10, i);
		psi_stall(v[8], 24, c, have, UL_SYSMON_PSI_IO, UL_SYSMON_PSI_IO_SOME_US, i);
		psi_stall(v[9], 24, c, have, UL_SYSMON_PSI_IO, UL_SYSMON_PSI_IO_FULL_US, i);
		fprintf(out, PSI_ROW, ts_diff_s(c->t->v[i], c->t->v[0]), v[0], v[1], v[2], v[3],
			v[4], v[5], v[6], v[7], v[8], v[9]);
	}
}

int ul_report_vmstat(FILE *out, const struct ul_cell *cell)
{
	struct cols c;
	double page_bytes = 4096, interval_ns = 0;
	size_t intervals = 0;
	unsigned have;

	if (!load_cols(cell, &c))
		return -ENOENT;
	(void)ul_cell_metric(cell, "mon_page_bytes", &page_bytes);
	for (size_t i = 1; i < c.n; i++)
		intervals += c.t->v[i] > c.t->v[i - 1];
	fprintf(out, "%s/%s: %zu samples, %zu interval%s", cell->suite, cell->load, c.n, intervals,
		intervals == 1 ? "" : "s");
	if (ul_cell_metric(cell, "mon_interval_ns", &interval_ns) && interval_ns > 0)
		fprintf(out,
			" (sampler every %g s; the first and last samples are the "
			"cell's bounds)",
			interval_ns / 1e9);
	fputc('\n', out);
	fprintf(out, "%s\n%s\n", vmstat_head1, vmstat_head2);
	for (size_t i = 1; i < c.n; i++) {
		if (c.t->v[i] > c.t->v[i - 1])
			vmstat_row(out, &c, i, ts_diff_s(c.t->v[i], c.t->v[i - 1]),
				   page_bytes / 1024.0);
	}
	have = have_all(&c);
	psi_view(out, &c, have);
	return ul_report_finish(out);
}

void ul_report_cell_monitors(FILE *out, const struct ul_cell *cell, const char *indent)
{
	double in, outmb, majflt, mem, io, cpu, periods, missed, met, p99, stall, cpupct;

	if (ul_cell_metric(cell, "swap_in_mib", &in) &&
	    ul_cell_metric(cell, "swap_out_mib", &outmb)) {
		fprintf(out, "%sswap in %.1f MiB, out %.1f MiB", indent, in, outmb);
		if (ul_cell_metric(cell, "system_majflt", &majflt))
			fprintf(out, "; major faults %.0f", majflt);
		if (ul_cell_metric(cell, "psi_memory_some_pct", &mem) &&
		    ul_cell_metric(cell, "psi_io_some_pct", &io)) {
			fprintf(out, "; PSI some: memory %.1f%%, io %.1f%%", mem, io);
			if (ul_cell_metric(cell, "psi_cpu_some_pct", &cpu))
				fprintf(out, ", cpu %.1f%%", cpu);
		}
		fputc('\n', out);
	}
	/* The deadline and mtest suites print the probe in their own blocks. */
	if (!(ul_report_suite_flags(cell->suite) & UL_RS_OWN_DEADLINE) &&
	    ul_cell_metric(cell, "dl_periods", &periods) &&
	    ul_cell_metric(cell, "dl_missed", &missed) &&
	    ul_cell_metric(cell, "dl_met_pct", &met)) {
		fprintf(out, "%sdeadline probe: %.0f of %.0f periods missed (%.1f%% met)", indent,
			missed, periods, met);
		if (ul_cell_metric(cell, "dl_lat_p99_ns", &p99))
			fprintf(out, ", latency p99 %.3f ms", p99 / 1e6);
		if (ul_cell_metric(cell, "dl_max_stall_ns", &stall))
			fprintf(out, ", longest stall %.1f ms", stall / 1e6);
		if (ul_cell_metric(cell, "dl_cpu_pct", &cpupct))
			fprintf(out, ", %.1f%% of desired CPU", cpupct);
		fputc('\n', out);
	}
}

/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * The doctor's window: a fixed CPU loop timed again and again while the
 * machine's busy time and steal (/proc/stat) and each process's CPU time
 * (/proc/PID/stat) are measured from one end of the window to the other.
 */
#include "core/compat.h"
#include "core/clock.h"
#include "core/procstat.h"
#include "core/sysmon.h"
#include "doctor/doctor.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#define LOOP_NS (10 * UL_NS_PER_MS) /* one repetition of the fixed loop */
#define MAX_LOOPS 1024

static volatile uint64_t sink;

/* The fixed work: a linear congruential step the compiler cannot fold away. */
static void fixed_loop(uint64_t n)
{
	uint64_t x = sink | 1;

	for (uint64_t i = 0; i < n; i++)
		x = x * 6364136223846793005ull + 1442695040888963407ull;
	sink = x;
}

/* The fastest of five timings of n iterations: what preemption did not stretch. */
static int64_t fastest(uint64_t n)
{
	int64_t best = INT64_MAX;

	for (int i = 0; i < 5; i++) {
		int64_t t0 = ul_now_ns(), dt;

		fixed_loop(n);
		dt = ul_now_ns() - t0;
		if (dt < best)
			best = dt;
	}
	return best;
}

/* Iterations that take about LOOP_NS on this CPU when nothing interrupts. */
static uint64_t calibrate(void)
{
	uint64_t n = 1 << 12;
	int64_t dt;

	while ((dt = fastest(n)) < LOOP_NS / 8 && n < (1ull << 40))
		n *= 4;
	return dt > 0 ? (uint64_t)((double)n * LOOP_NS / (double)dt) : n;
}

static int by_double(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;

	return (x > y) - (x < y);
}

double ul_doctor_spread_pct(double *v, size_t n)
{
	double med;

	if (n < 3)
		return 0.0;
	qsort(v, n, sizeof(*v), by_double);
	med = v[n / 2];
	return med > 0 ? 100.0 * (v[(n * 9) / 10] - v[n / 10]) / med : 0.0;
}

/* Time the fixed loop until window_ns has passed. */
static void time_loops(int64_t window_ns, struct ul_doctor_sample *s)
{
	static double t[MAX_LOOPS];
	uint64_t n = calibrate();
	int64_t end = ul_now_ns() + window_ns;

	s->loops = 0;
	while (s->loops < MAX_LOOPS && ul_now_ns() < end) {
		int64_t t0 = ul_now_ns();

		fixed_loop(n);
		t[s->loops++] = (double)(ul_now_ns() - t0);
	}
	s->clock_spread_pct = ul_doctor_spread_pct(t, s->loops);
	s->loop_median_ns = s->loops ? t[s->loops / 2] : 0.0;
}

/* Keep p among the UL_DOCTOR_MAX_BUSY busiest (sorted, most first). */
static void keep_busy(struct ul_doctor_sample *s, pid_t pid, double pct)
{
	size_t i = s->n_busy;

	if (i == UL_DOCTOR_MAX_BUSY && pct <= s->busy[i - 1].cpu_pct)
		return;
	if (i < UL_DOCTOR_MAX_BUSY)
		s->n_busy++;
	else
		i--;
	while (i > 0 && s->busy[i - 1].cpu_pct < pct) {
		s->busy[i] = s->busy[i - 1];
		i--;
	}
	memset(&s->busy[i], 0, sizeof(s->busy[i]));
	s->busy[i].pid = pid;
	s->busy[i].cpu_pct = pct;
}

static void name_busy(struct ul_doctor_sample *s)
{
	for (size_t i = 0; i < s->n_busy; i++) {
		char path[64];
		FILE *f;

		snprintf(path, sizeof(path), "/proc/%d/comm", (int)s->busy[i].pid);
		snprintf(s->busy[i].comm, sizeof(s->busy[i].comm), "?");
		f = fopen(path, "re");
		if (f && fgets(s->busy[i].comm, sizeof(s->busy[i].comm), f))
			s->busy[i].comm[strcspn(s->busy[i].comm, "\n")] = '\0';
		if (f)
			fclose(f);
	}
}

/*
 * Every other process's CPU between the snapshots, in % of one CPU: all
 * the machine's busy time by /proc/stat (so processes that came and went
 * within the window count too) less this process's own; and the busiest
 * of those still there at the end, by their own CPU (not their reaped
 * children's, which may have run before the window).
 */
static void other_cpu(const struct ul_procstat *a, size_t na, const struct ul_procstat *b,
		      size_t nb, const struct ul_sysmon_sample *ma,
		      const struct ul_sysmon_sample *mb, struct ul_doctor_sample *s)
{
	static const enum ul_sysmon_field busy[] = { UL_SYSMON_CPU_USER, UL_SYSMON_CPU_NICE,
						     UL_SYSMON_CPU_SYSTEM, UL_SYSMON_CPU_IRQ,
						     UL_SYSMON_CPU_SOFTIRQ };
	double per_tick =
		100.0 * (double)UL_NS_PER_SEC / (double)sysconf(_SC_CLK_TCK) / (double)s->window_ns;
	const struct ul_procstat *self_a = ul_procstat_find(a, na, getpid());
	const struct ul_procstat *self_b = ul_procstat_find(b, nb, getpid());
	double total = 0, self = 0;

	for (size_t i = 0; i < UL_ARRAY_SIZE(busy); i++)
		total += (double)(mb->v[busy[i]] - ma->v[busy[i]]);
	if (self_a && self_b)
		self = (double)(self_b->own_ticks - self_a->own_ticks);
	s->other_cpu_pct = total > self ? (total - self) * per_tick : 0.0;
	s->n_busy = 0;
	for (size_t i = 0; i < nb; i++) {
		const struct ul_procstat *old = ul_procstat_find(a, na, b[i].pid);
		uint64_t ticks = b[i].own_ticks;

		if (b[i].pid == getpid())
			continue;
		/* A pid new (or reused) within the window spent all its CPU in it. */
		if (old && old->starttime == b[i].starttime)
			ticks = ticks >= old->own_ticks ? ticks - old->own_ticks : 0;
		if (ticks)
			keep_busy(s, b[i].pid, (double)ticks * per_tick);
	}
	name_busy(s);
}

/* Steal as a share of every CPU tick of /proc/stat between two samples. */
static void steal(const struct ul_sysmon_sample *a, const struct ul_sysmon_sample *b,
		  struct ul_doctor_sample *s)
{
	double total = 0;

	s->have_steal = (a->have & b->have & (1u << UL_SYSMON_STAT)) != 0;
	for (int f = UL_SYSMON_CPU_USER; f <= UL_SYSMON_CPU_STEAL; f++)
		total += (double)(b->v[f] - a->v[f]);
	s->steal_pct =
		s->have_steal && total > 0
			? 100.0 * (double)(b->v[UL_SYSMON_CPU_STEAL] - a->v[UL_SYSMON_CPU_STEAL]) /
				  total
			: 0.0;
}

int ul_doctor_sample(int64_t window_ns, struct ul_doctor_sample *s)
{
	struct ul_procstat *a = NULL, *b = NULL;
	struct ul_sysmon_sample ma, mb;
	struct ul_sysmon mon;
	size_t na = 0, nb = 0;
	int64_t t0;
	int rc;

	memset(s, 0, sizeof(*s));
	rc = ul_sysmon_open(&mon);
	if (rc)
		return rc;
	ul_sysmon_read(&mon, &ma);
	rc = ul_procstat_all(&a, &na);
	t0 = ul_now_ns();
	if (!rc)
		time_loops(window_ns, s);
	if (!rc)
		rc = ul_procstat_all(&b, &nb);
	s->window_ns = ul_now_ns() - t0;
	ul_sysmon_read(&mon, &mb);
	ul_sysmon_close(&mon);
	if (!rc) {
		other_cpu(a, na, b, nb, &ma, &mb, s);
		steal(&ma, &mb, s);
	}
	free(a);
	free(b);
	return rc;
}

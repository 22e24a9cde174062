/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * The doctor's CPU checks, from the window's sample: other busy processes,
 * steal time (a hypervisor giving our CPUs to someone else), and the
 * clock's noise (the spread of a fixed loop's times).
 */
#include "core/compat.h"
#include "doctor/doctor.h"

#include <stdio.h>
#include <string.h>

/* Others' CPU, in % of one CPU: a blocker from half a CPU (every seed
 * table's noload baseline moves), a warning from a tenth. */
#define BUSY_BLOCKER_PCT 50.0
#define BUSY_WARN_PCT 10.0
/* Steal, % of all CPU time. */
#define STEAL_BLOCKER_PCT 10.0
#define STEAL_WARN_PCT 2.0
/* The fixed loop's (p90 - p10) / median: a quiet machine stays under 2%. */
#define CLOCK_BLOCKER_PCT 20.0
#define CLOCK_WARN_PCT 5.0

static enum ul_doctor_severity grade(double v, double warn, double blocker)
{
	return v >= blocker ? UL_DOCTOR_BLOCKER : v >= warn ? UL_DOCTOR_WARN : UL_DOCTOR_INFO;
}

static void busy(const struct ul_doctor_opts *o, const struct ul_doctor_sample *s,
		 struct ul_doctor_finding *f)
{
	char top[200] = "";
	size_t off = 0;

	(void)o;
	for (size_t i = 0; i < s->n_busy && off < sizeof(top); i++)
		off += (size_t)snprintf(top + off, sizeof(top) - off, "%s%s[%d] %.0f%%",
					i ? ", " : "", s->busy[i].comm, (int)s->busy[i].pid,
					s->busy[i].cpu_pct);
	f->severity = grade(s->other_cpu_pct, BUSY_WARN_PCT, BUSY_BLOCKER_PCT);
	snprintf(f->what, sizeof(f->what), "other processes used %.0f%% of a CPU over %.1f s%s%s%s",
		 s->other_cpu_pct, (double)s->window_ns / UL_NS_PER_SEC, top[0] ? " (" : "", top,
		 top[0] ? ")" : "");
	if (f->severity != UL_DOCTOR_INFO)
		snprintf(f->todo, sizeof(f->todo),
			 "stop them or wait until they finish: their CPU use moves every "
			 "baseline");
}

static void steal(const struct ul_doctor_opts *o, const struct ul_doctor_sample *s,
		  struct ul_doctor_finding *f)
{
	(void)o;
	if (!s->have_steal) {
		snprintf(f->what, sizeof(f->what), "steal time unknown (/proc/stat unreadable)");
		return;
	}
	f->severity = grade(s->steal_pct, STEAL_WARN_PCT, STEAL_BLOCKER_PCT);
	snprintf(f->what, sizeof(f->what), "steal time %.1f%% of CPU time", s->steal_pct);
	if (f->severity != UL_DOCTOR_INFO)
		snprintf(f->todo, sizeof(f->todo),
			 "the hypervisor gives these CPUs to others: measure on dedicated CPUs "
			 "or at a quieter time");
}

static void clock_noise(const struct ul_doctor_opts *o, const struct ul_doctor_sample *s,
			struct ul_doctor_finding *f)
{
	(void)o;
	f->severity = grade(s->clock_spread_pct, CLOCK_WARN_PCT, CLOCK_BLOCKER_PCT);
	snprintf(f->what, sizeof(f->what),
		 "a fixed CPU loop's times spread %.1f%% (p10-p90 over the median of %zu loops "
		 "of %.1f ms)",
		 s->clock_spread_pct, s->loops, s->loop_median_ns / UL_NS_PER_MS);
	if (f->severity != UL_DOCTOR_INFO)
		snprintf(f->todo, sizeof(f->todo),
			 "find what interrupts the CPU (busy processes, frequency changes, a "
			 "noisy neighbour) before measuring");
}

const struct ul_doctor_check ul_doctor_check_busy = { "busy", busy };
const struct ul_doctor_check ul_doctor_check_steal = { "steal", steal };
const struct ul_doctor_check ul_doctor_check_clock = { "clock", clock_noise };

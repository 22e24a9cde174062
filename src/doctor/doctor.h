/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * `underload doctor`: what on this machine would ruin a comparison, found
 * by checks listed once in checks.def (doctor/FILE.c defines
 * ul_doctor_check_IDENT).  Each check gives one finding: a severity, what
 * it saw and what to do.
 *
 * The checks share one sample (doctor/sample.c): a window (2 s for the
 * command, UL_DOCTOR_RUN_WINDOW_NS before a run) in which a fixed CPU loop
 * is timed over and over (its spread is the clock's noise) while the CPU
 * time of every other process and /proc/stat's steal are measured.
 * Nothing is changed on the machine; nothing is printed by the checks.
 */
#ifndef UL_DOCTOR_H
#define UL_DOCTOR_H

#include "core/compat.h"
#include "fingerprint/fingerprint.h"

#include <jansson.h>
#include <stdio.h>

#define UL_DOCTOR_WINDOW_NS (2 * UL_NS_PER_SEC)
/* Before every run: long enough to see a busy process, short enough not
 * to slow every run (the clock's spread over it is a coarser figure). */
#define UL_DOCTOR_RUN_WINDOW_NS (300 * UL_NS_PER_MS)
#define UL_DOCTOR_MAX_BUSY 5

enum ul_doctor_severity {
	UL_DOCTOR_INFO = 0, /* fine, or worth knowing */
	UL_DOCTOR_WARN,	    /* results will be noisier or biased */
	UL_DOCTOR_BLOCKER,  /* do not measure now: `run --strict` refuses */
};

struct ul_doctor_opts {
	const char *dir;   /* where the run's scratch files go (--dir) */
	int64_t window_ns; /* the sample's length */
	bool swap_planned; /* the run adds its own swap (--swap): no swap is fine */
};

/* What the window measured (sample.c). */
struct ul_doctor_sample {
	int64_t window_ns;			    /* as measured */
	double other_cpu_pct;			    /* CPU of every other process, % of one CPU */
	struct ul_fp_busy busy[UL_DOCTOR_MAX_BUSY]; /* the busiest of them, most first */
	size_t n_busy;
	bool have_steal;
	double steal_pct; /* of all CPU time in the window */
	size_t loops;	  /* timed repetitions of the fixed loop */
	double loop_median_ns;
	double clock_spread_pct; /* (p90 - p10) / median of the loop's times */
};

struct ul_doctor_finding {
	const char *check; /* the check's name */
	enum ul_doctor_severity severity;
	char what[256]; /* what was seen, with numbers */
	char todo[256]; /* what to do; "" when nothing */
};

struct ul_doctor_check {
	const char *name;
	/* Fill f (check and severity are preset to the name and info). */
	void (*check)(const struct ul_doctor_opts *o, const struct ul_doctor_sample *s,
		      struct ul_doctor_finding *f);
};

size_t ul_doctor_check_count(void);
const struct ul_doctor_check *ul_doctor_check_at(size_t i);

#define UL_DOCTOR_MAX_FINDINGS 16

struct ul_doctor_report {
	struct ul_doctor_sample sample;
	struct ul_doctor_finding f[UL_DOCTOR_MAX_FINDINGS];
	size_t n;
	enum ul_doctor_severity worst;
};

/* Take the sample and run every check; 0 or -errno (/proc unreadable). */
int ul_doctor_run(const struct ul_doctor_opts *o, struct ul_doctor_report *r) UL_MUST_CHECK;
/* Measure the window (sample.c); 0 or -errno. */
int ul_doctor_sample(int64_t window_ns, struct ul_doctor_sample *s) UL_MUST_CHECK;

const char *ul_doctor_severity_name(enum ul_doctor_severity s);
/* One finding as "SEVERITY: WHAT; TODO" (the form stored and printed). */
void ul_doctor_finding_text(const struct ul_doctor_finding *f, char *buf, size_t len);
/* The findings as the fingerprint's "doctor" section {check: text}; NULL without memory. */
json_t *ul_doctor_json(const struct ul_doctor_report *r);
/* One line a finding: "SEVERITY  CHECK  WHAT; TODO"; 0 or -EIO. */
int ul_doctor_print(FILE *out, const struct ul_doctor_report *r);

/*
 * A stored run's findings: the "doctor" object of its fingerprint
 * ({check: "SEVERITY: what; todo"}), or NULL when none was recorded.
 * ul_doctor_text_severity() reads the severity back from such a text.
 */
const json_t *ul_doctor_stored(const json_t *fingerprint);
enum ul_doctor_severity ul_doctor_text_severity(const char *text);

/* ---- pure helpers, for the checks and the unit tests ---- */

/* (p90 - p10) / median of n times, in %; sorts v.  0 for n < 3. */
double ul_doctor_spread_pct(double *v, size_t n);

#endif

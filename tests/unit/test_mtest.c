/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Unit tests for the monitors, the deadline probe and the mtest suite: /proc
 * parsing, the sampler's records per cell, the deadline probe's miss
 * accounting against a real SIGSTOP stall, the vmstat/mtest/deadline
 * layouts against golden files, mtest's sizing and its child, and a tiny
 * mtest run through the whole engine into a store.
 */
#include "unit.h"
#include "core/clock.h"
#include "core/sysinfo.h"
#include "core/sysmon.h"
#include "core/optparse.h"
#include "engine/deadline.h"
#include "engine/engine.h"
#include "engine/suites/mtest/mtest.h"
#include "probe/deadline.h"
#include "proc/scratch.h"
#include "proc/supervise.h"
#include "report/format.h"
#include "report/monitors.h"
#include "store/store.h"

#include <errno.h>
#include <signal.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <unistd.h>

#ifndef UL_SOURCE_ROOT
#error "the test build must define UL_SOURCE_ROOT"
#endif
#define GOLDEN_DIR UL_SOURCE_ROOT "/tests/golden/"
#define MS UL_NS_PER_MS

static char suite_dir[4096];

static void suite_dir_create(void)
{
	ck_assert_int_eq(ul_scratch_create("/tmp", suite_dir, sizeof(suite_dir)), 0);
}

static void suite_dir_remove(void)
{
	ck_assert_int_eq(ul_scratch_remove(suite_dir), 0);
}

static void sleep_ms(int ms)
{
	ul_sleep_until_ns(ul_now_ns() + (ul_nsec)ms * MS);
}

/* Renders with fn(out, arg) into a malloc'd NUL-terminated buffer. */
static char *render_cell(int (*fn)(FILE *, const struct ul_cell *), const struct ul_cell *cell,
			 int *rc)
{
	char *buf = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&buf, &len);

	ck_assert_ptr_nonnull(f);
	*rc = fn(f, cell);
	ck_assert_int_eq(fclose(f), 0);
	return buf;
}

static char *render_run(const char *format, const struct ul_run *run)
{
	const struct ul_format *fmt = ul_format_find(format);
	char *buf = NULL;
	size_t len = 0;
	FILE *f;

	ck_assert_msg(fmt != NULL, "format '%s' is not registered", format);
	f = open_memstream(&buf, &len);
	ck_assert_ptr_nonnull(f);
	ck_assert_int_eq(fmt->write_run(f, run), 0);
	ck_assert_int_eq(fclose(f), 0);
	return buf;
}

static char *slurp(const char *path)
{
	FILE *f = fopen(path, "rb");
	char *buf;
	long n;

	if (!f)
		return NULL;
	ck_assert_int_eq(fseek(f, 0, SEEK_END), 0);
	n = ftell(f);
	ck_assert_int_eq(fseek(f, 0, SEEK_SET), 0);
	buf = malloc((size_t)n + 1);
	ck_assert_ptr_nonnull(buf);
	ck_assert_int_eq(fread(buf, 1, (size_t)n, f), (size_t)n);
	buf[n] = '\0';
	fclose(f);
	return buf;
}

/* Output against tests/golden/NAME; UPDATE_GOLDEN=1 rewrites it instead
 * (review the diff).  A mismatch names the first differing line. */
static void check_golden(const char *name, const char *got)
{
	char path[4096];
	const char *update = getenv("UPDATE_GOLDEN");
	const char *a, *b, *la, *lb;
	size_t line = 1;
	char *want;

	snprintf(path, sizeof(path), "%s%s", GOLDEN_DIR, name);
	if (update && !strcmp(update, "1")) {
		FILE *f = fopen(path, "wb");

		ck_assert_ptr_nonnull(f);
		ck_assert_int_ge(fputs(got, f), 0);
		ck_assert_int_eq(fclose(f), 0);
		return;
	}
	want = slurp(path);
	ck_assert_msg(want != NULL, "missing golden file %s", path);
	for (a = want, b = got, la = want, lb = got; *a && *a == *b; a++, b++)
		if (*a == '\n') {
			line++;
			la = a + 1;
			lb = b + 1;
		}
	if (*a || *b)
		ck_abort_msg("%s differs at line %zu:\n want: '%.*s'\n  got: '%.*s'", name, line,
			     (int)strcspn(la, "\n"), la, (int)strcspn(lb, "\n"), lb);
	free(want);
}

/* ---- /proc parsing ---------------------------------------------------- */

START_TEST(test_sysmon_parse)
{
	struct ul_sysmon_sample s;

	memset(&s, 0, sizeof(s));
	ck_assert_int_eq(ul_sysmon_parse(UL_SYSMON_STAT,
					 "cpu  10 2 30 400 5 6 7 8 9 1\n"
					 "cpu0 5 1 15 200 2 3 3 4 4 0\n"
					 "intr 12345 1 2 3\nctxt 999\nbtime 1\nprocesses 77\n"
					 "procs_running 3\nprocs_blocked 1\n",
					 &s),
			 0);
	ck_assert_uint_eq(s.v[UL_SYSMON_CPU_USER], 10);
	ck_assert_uint_eq(s.v[UL_SYSMON_CPU_IDLE], 400);
	ck_assert_uint_eq(s.v[UL_SYSMON_CPU_GUEST_NICE], 1);
	ck_assert_uint_eq(s.v[UL_SYSMON_INTR], 12345);
	ck_assert_uint_eq(s.v[UL_SYSMON_CTXT], 999);
	ck_assert_uint_eq(s.v[UL_SYSMON_PROCS_RUNNING], 3);
	ck_assert_uint_eq(s.v[UL_SYSMON_PROCS_BLOCKED], 1);

	ck_assert_int_eq(ul_sysmon_parse(UL_SYSMON_VMSTAT,
					 "nr_free_pages 5\npgpgin 100\npgpgout 200\npswpin 3\n"
					 "pswpout 4\npgfault 55\npgmajfault 6\npgmajfault_s 9\n",
					 &s),
			 0);
	ck_assert_uint_eq(s.v[UL_SYSMON_PGPGIN], 100);
	ck_assert_uint_eq(s.v[UL_SYSMON_PSWPOUT], 4);
	ck_assert_uint_eq(s.v[UL_SYSMON_PGMAJFAULT], 6);
	ck_assert_uint_eq(s.v[UL_SYSMON_PGFAULT], 55);

	ck_assert_int_eq(ul_sysmon_parse(UL_SYSMON_MEMINFO,
					 "MemTotal:       1000 kB\nMemFree:         200 kB\n"
					 "MemAvailable:    600 kB\nBuffers:          10 kB\n"
					 "Cached:          300 kB\nSwapCached:        7 kB\n"
					 "SReclaimable:     20 kB\nSwapTotal:       500 kB\n"
					 "SwapFree:        450 kB\n",
					 &s),
			 0);
	ck_assert_uint_eq(s.v[UL_SYSMON_CACHED], 300); /* not SwapCached */
	ck_assert_uint_eq(s.v[UL_SYSMON_SRECLAIMABLE], 20);
	ck_assert_uint_eq(s.v[UL_SYSMON_SWAP_FREE], 450);

	ck_assert_int_eq(ul_sysmon_parse(UL_SYSMON_LOADAVG, "1.08 0.5 12.75 3/111 2433\n", &s), 0);
	ck_assert_uint_eq(s.v[UL_SYSMON_LOAD1], 108);
	ck_assert_uint_eq(s.v[UL_SYSMON_LOAD5], 50);
	ck_assert_uint_eq(s.v[UL_SYSMON_LOAD15], 1275);
	ck_assert_uint_eq(s.v[UL_SYSMON_NR_RUNNING], 3);
	ck_assert_uint_eq(s.v[UL_SYSMON_NR_THREADS], 111);

	ck_assert_int_eq(ul_sysmon_parse(UL_SYSMON_PSI_MEMORY,
					 "some avg10=1.25 avg60=0.00 avg300=0.00 total=4706\n"
					 "full avg10=0.50 avg60=0.00 avg300=0.00 total=2858\n",
					 &s),
			 0);
	ck_assert_uint_eq(s.v[UL_SYSMON_PSI_MEM_SOME_AVG10], 125);
	ck_assert_uint_eq(s.v[UL_SYSMON_PSI_MEM_SOME_US], 4706);
	ck_assert_uint_eq(s.v[UL_SYSMON_PSI_MEM_FULL_AVG10], 50);
	ck_assert_uint_eq(s.v[UL_SYSMON_PSI_MEM_FULL_US], 2858);
	/* cpu before 5.13 has no full line */
	ck_assert_int_eq(ul_sysmon_parse(UL_SYSMON_PSI_CPU,
					 "some avg10=0.00 avg60=0.00 avg300=0.00 total=17\n", &s),
			 0);
	ck_assert_uint_eq(s.v[UL_SYSMON_PSI_CPU_SOME_US], 17);

	ck_assert_int_eq(ul_sysmon_parse(UL_SYSMON_STAT, "intr 1\n", &s), -EINVAL);
	ck_assert_int_eq(ul_sysmon_parse(UL_SYSMON_LOADAVG, "garbage", &s), -EINVAL);
	ck_assert_int_eq(ul_sysmon_parse(UL_SYSMON_PSI_IO, "some avg10=x total=1\n", &s), -EINVAL);
	ck_assert_str_eq(ul_sysmon_series_name(UL_SYSMON_PSWPIN), "mon_pswpin");
	ck_assert_ptr_null(ul_sysmon_series_name(UL_SYSMON_NFIELDS));
}
END_TEST

START_TEST(test_sysmon_read)
{
	const unsigned basic = (1u << UL_SYSMON_STAT) | (1u << UL_SYSMON_VMSTAT) |
			       (1u << UL_SYSMON_MEMINFO) | (1u << UL_SYSMON_LOADAVG);
	struct ul_sysmon m;
	struct ul_sysmon_sample a, b;

	ck_assert_int_eq(ul_sysmon_open(&m), 0);
	ck_assert_uint_eq(ul_sysmon_read(&m, &a) & basic, basic);
	sleep_ms(30);
	ck_assert_uint_eq(ul_sysmon_read(&m, &b) & basic, basic);
	ck_assert_int_gt(b.t_ns, a.t_ns);
	ck_assert_uint_gt(a.v[UL_SYSMON_MEM_TOTAL], 0);
	ck_assert_uint_ge(a.v[UL_SYSMON_MEM_TOTAL], a.v[UL_SYSMON_MEM_FREE]);
	ck_assert_uint_ge(b.v[UL_SYSMON_CTXT], a.v[UL_SYSMON_CTXT]);
	ck_assert_uint_ge(b.v[UL_SYSMON_PROCS_RUNNING], 1); /* we are running */
	if (access("/proc/pressure/memory", R_OK) == 0 && m.fd[UL_SYSMON_PSI_MEMORY] >= 0) {
		char buf[256];
		FILE *f = fopen("/proc/pressure/memory", "r");

		/* Present and readable (psi=0 makes reads fail): must be parsed. */
		if (f && fgets(buf, sizeof(buf), f))
			ck_assert(b.have & (1u << UL_SYSMON_PSI_MEMORY));
		if (f)
			fclose(f);
	}
	ul_sysmon_close(&m);
}
END_TEST

/* ---- the deadline probe ----------------------------------------------- */

START_TEST(test_deadline_parse)
{
	struct ul_deadline_spec s;
	char err[160];

	ck_assert_int_eq(ul_deadline_parse("audio", &s, err, sizeof(err)), 0);
	ck_assert_int_eq(s.period_ns, 50 * MS); /* interbench's Audio: 20 Hz, 5% */
	ck_assert_int_eq(s.work_ns, 2500 * (MS / 1000));
	ck_assert_str_eq(s.name, "audio");
	ck_assert_int_eq(ul_deadline_parse("audio-50hz", &s, err, sizeof(err)), 0);
	ck_assert_int_eq(s.period_ns, 20 * MS);
	ck_assert_int_eq(s.work_ns, 1 * MS);
	ck_assert_str_eq(s.name, "audio-50hz");
	ck_assert_int_eq(ul_deadline_parse("video", &s, err, sizeof(err)), 0);
	ck_assert_int_eq(s.period_ns, 16666667);
	ck_assert_int_eq(s.work_ns, 6666666);
	ck_assert_int_eq(ul_deadline_parse("10ms:2ms", &s, err, sizeof(err)), 0);
	ck_assert_int_eq(s.period_ns, 10 * MS);
	ck_assert_int_eq(s.work_ns, 2 * MS);
	ck_assert_str_eq(s.name, "custom");
	ck_assert_int_eq(ul_deadline_parse("20ms:5%", &s, err, sizeof(err)), 0);
	ck_assert_int_eq(s.work_ns, 1 * MS);
	ck_assert_int_ne(ul_deadline_parse("radio", &s, err, sizeof(err)), 0);
	ck_assert_int_ne(ul_deadline_parse("10ms:10ms", &s, err, sizeof(err)), 0);
	ck_assert_int_ne(ul_deadline_parse("10ms:0", &s, err, sizeof(err)), 0);
	ck_assert_int_ne(ul_deadline_parse("0:1ms", &s, err, sizeof(err)), 0);
	ck_assert_int_ne(ul_deadline_parse("20s:1ms", &s, err, sizeof(err)), 0);
	ck_assert_int_ne(ul_deadline_parse(":1ms", &s, err, sizeof(err)), 0);
	ck_assert_int_ne(ul_deadline_parse("10ms:", &s, err, sizeof(err)), 0);
	ck_assert_int_ne(ul_deadline_parse("10ms:100%", &s, err, sizeof(err)), 0);
	/* A refused share (out of range, malformed) is refused, nothing computed
	 * from it (UBSan: an overflow on an unset value, found by fuzzing). */
	ck_assert_int_eq(ul_deadline_parse("9:444%", &s, err, sizeof(err)), -ERANGE);
	ck_assert_int_eq(ul_deadline_parse("10s:2ms%", &s, err, sizeof(err)), -EINVAL);
	ck_assert_ptr_nonnull(strstr(err, "work '2ms%'"));
}
END_TEST

START_TEST(test_deadline_missed_math)
{
	const int64_t P = 20 * MS;

	ck_assert_uint_eq(ul_deadline_missed(0, 1 * MS, P), 0);
	ck_assert_uint_eq(ul_deadline_missed(0, P, P), 0); /* done at the deadline: met */
	ck_assert_uint_eq(ul_deadline_missed(0, P + 1, P), 1);
	ck_assert_uint_eq(ul_deadline_missed(0, 2 * P, P), 1);
	ck_assert_uint_eq(ul_deadline_missed(0, 2 * P + 1, P), 2);
	/* a 200 ms stall after waking on time at 50 Hz: this period and 9 more */
	ck_assert_uint_eq(ul_deadline_missed(0, 201 * MS, P), 10);
	ck_assert_uint_eq(ul_deadline_missed(5 * MS, 5 * MS + 1000 * MS, P), 49);
}
END_TEST

static void snap_invariants(const struct ul_deadline_snap *s)
{
	ck_assert_uint_eq(s->periods, s->met + s->missed);
	ck_assert_uint_le(s->served, s->periods);
	ck_assert_uint_eq(s->recs, s->served + s->synthetic);
	ck_assert_uint_eq(s->periods, s->served + s->synthetic);
}

/*
 * The probe's accounting against a real stall: SIGSTOP it for 200 ms at
 * 50 Hz; about 10 periods are missed (8..12 leaves room for where in a
 * period the stop lands and for scheduling noise; this checks accounting,
 * not speed), the skipped ones get synthetic latency records, and the
 * longest stall and the largest latency show the stop.
 */
START_TEST(test_deadline_sigstop)
{
	struct ul_deadline_spec spec;
	struct ul_deadline_snap a, b;
	struct ul_deadline *d;
	struct ul_deadline_rec *recs;
	struct ul_sup sup;
	uint64_t lost = 0, missed, stalled;
	int64_t max_lat = 0, max_stall = 0;
	size_t n, event = 0;
	char why[256], err[64];
	int64_t stop_t0, stopped_ns, expect;

	ck_assert_int_eq(ul_deadline_parse("audio-50hz", &spec, err, sizeof(err)), 0);
	ck_assert_int_eq(ul_sup_init(&sup), 0);
	ck_assert_msg(ul_deadline_start(&sup, &spec, NULL, 60, 5 * UL_NS_PER_SEC, &d, why,
					sizeof(why)) == 0,
		      "%s", why);
	sleep_ms(200);
	ul_deadline_snapshot(d, &a);
	snap_invariants(&a);
	ck_assert_uint_gt(a.periods, 3); /* it runs */
	stop_t0 = ul_now_ns();
	ck_assert_int_eq(kill(ul_deadline_child(d)->pid, SIGSTOP), 0);
	sleep_ms(200);
	ck_assert_int_eq(kill(ul_deadline_child(d)->pid, SIGCONT), 0);
	/* How long it really was stopped: on a busy machine this test's own
	 * 200 ms sleep can last much longer. */
	stopped_ns = ul_now_ns() - stop_t0;
	sleep_ms(100);
	ul_deadline_snapshot(d, &b);
	snap_invariants(&b);
	recs = calloc(b.recs - a.recs, sizeof(*recs));
	ck_assert_ptr_nonnull(recs);
	n = ul_deadline_records(d, a.recs, b.recs, recs, &lost);
	ck_assert_uint_eq(lost, 0);
	ck_assert_uint_eq(n, b.recs - a.recs);
	for (size_t i = 0; i < n; i++) {
		max_lat = recs[i].lat_ns > max_lat ? recs[i].lat_ns : max_lat;
		if (recs[i].stall_ns > max_stall) {
			max_stall = recs[i].stall_ns;
			event = i;
		}
		ck_assert_int_ge(recs[i].lat_ns, 0);
	}
	ck_assert_int_ge(max_lat, 150 * MS);
	ck_assert_int_ge(max_stall, 150 * MS);
	/* The stop is one event: the period it delayed (late), then the
	 * synthetic records of the periods it swallowed.  Counting that event
	 * alone keeps misses of a busy test machine out of the range. */
	stalled = 1;
	for (size_t i = event + 1; i < n && recs[i].stall_ns < 0; i++)
		stalled++;
	/* At least the periods the stop lasted; at most those of the stall the
	 * probe saw (it also includes waiting for a CPU after SIGCONT). */
	expect = stopped_ns / spec.period_ns;
	ck_assert_msg((int64_t)stalled + 2 >= expect &&
			      (int64_t)stalled <= max_stall / spec.period_ns + 2,
		      "a %lld ms stop (stall %lld ms) at 50 Hz missed %llu periods",
		      (long long)(stopped_ns / MS), (long long)(max_stall / MS),
		      (unsigned long long)stalled);
	missed = b.missed - a.missed;
	ck_assert_uint_ge(missed, stalled);
	ck_assert_uint_ge(b.synthetic - a.synthetic, stalled - 1);
	free(recs);
	ck_assert_int_eq(ul_deadline_stop(&sup, d, UL_NS_PER_SEC), 0);
	ck_assert_uint_eq(sup.n_children, 0);
	ul_sup_fini(&sup);
}
END_TEST

/* The probe wants 40% of a CPU with video; the CPU time it got per served
 * period is the work asked for (accounting of the CPU-time work unit). */
START_TEST(test_deadline_work_is_cpu_time)
{
	struct ul_deadline_spec spec;
	struct ul_deadline_snap s;
	struct ul_deadline *d;
	struct ul_sup sup;
	char why[256], err[64];

	ck_assert_int_eq(ul_deadline_parse("10ms:2ms", &spec, err, sizeof(err)), 0);
	ck_assert_int_eq(ul_sup_init(&sup), 0);
	ck_assert_msg(ul_deadline_start(&sup, &spec, NULL, 10, 5 * UL_NS_PER_SEC, &d, why,
					sizeof(why)) == 0,
		      "%s", why);
	sleep_ms(150);
	ul_deadline_snapshot(d, &s);
	snap_invariants(&s);
	ck_assert_uint_gt(s.served, 0);
	ck_assert_int_ge(s.work_cpu_ns, (int64_t)s.served * spec.work_ns);
	ck_assert_int_eq(ul_deadline_stop(&sup, d, UL_NS_PER_SEC), 0);
	ul_sup_fini(&sup);
}
END_TEST

/* ---- the sampler monitor ------------------------------------------------ */

extern const struct ul_monitor ul_monitor_sampler;

/* Every cell gets the sampler's records: its two bounds plus what the
 * child stamped in between, all series the same length, stamps rising. */
START_TEST(test_sampler_records_every_cell)
{
	static struct ul_engine_config cfg;
	struct ul_engine eng;
	struct ul_run run;
	void *state = NULL;

	memset(&cfg, 0, sizeof(cfg));
	cfg.monitor_interval_ns = 20 * MS;
	cfg.ready_timeout_ns = 5 * UL_NS_PER_SEC;
	ul_run_init(&run);
	memset(&eng, 0, sizeof(eng));
	eng.cfg = &cfg;
	eng.run = &run;
	ck_assert_int_eq(ul_sup_init(&eng.sup), 0);
	ck_assert(ul_monitor_sampler.enabled(&eng));
	ck_assert_int_eq(ul_monitor_sampler.start(&eng, &state), 0);
	for (int c = 0; c < 3; c++) {
		struct ul_cell *cell = ul_run_add_cell(&run);
		const struct ul_series *t, *flags, *s;
		double v;

		ck_assert_ptr_nonnull(cell);
		snprintf(cell->load, sizeof(cell->load), "cell%d", c);
		ck_assert_int_eq(ul_monitor_sampler.cell_begin(&eng, state, cell), 0);
		sleep_ms(150);
		ck_assert_int_eq(ul_monitor_sampler.cell_end(&eng, state, cell), 0);
		t = ul_cell_find_series(cell, UL_SYSMON_SERIES_T);
		flags = ul_cell_find_series(cell, UL_SYSMON_SERIES_FLAGS);
		ck_assert_ptr_nonnull(t);
		ck_assert_ptr_nonnull(flags);
		ck_assert_uint_ge(t->n, 3);
		ck_assert(ul_cell_metric(cell, "mon_sampler_samples", &v));
		ck_assert_double_ge(v, 1);
		ck_assert_double_eq(v + 2, (double)t->n);
		ck_assert(flags->v[0] & UL_SYSMON_BOUNDARY);
		ck_assert(flags->v[t->n - 1] & UL_SYSMON_BOUNDARY);
		ck_assert(!(flags->v[1] & UL_SYSMON_BOUNDARY));
		for (size_t i = 1; i < t->n; i++)
			ck_assert_int_gt(t->v[i], t->v[i - 1]);
		for (int f = 0; f < UL_SYSMON_NFIELDS; f++) {
			s = ul_cell_find_series(cell,
						ul_sysmon_series_name((enum ul_sysmon_field)f));
			ck_assert_ptr_nonnull(s);
			ck_assert_uint_eq(s->n, t->n);
		}
		s = ul_cell_find_series(cell, "mon_mem_total_kb");
		ck_assert_int_gt(s->v[1], 0);
		ck_assert(ul_cell_metric(cell, "swap_in_mib", &v));
		ck_assert(ul_cell_metric(cell, "mon_stride", &v));
		ck_assert_double_eq(v, 1); /* 150 ms at 20 ms: far from the ring's capacity */
	}
	ul_monitor_sampler.stop(&eng, state);
	ck_assert_uint_eq(eng.sup.n_children, 0);
	ul_sup_fini(&eng.sup);
	ul_run_release(&run);
}
END_TEST

/*
 * A cell far longer than the ring holds (16 records at 2 ms, 600 ms) is
 * thinned, never lapped: the records cover the whole cell in time order,
 * from its start to its end, and never exceed the capacity.
 */
START_TEST(test_sampler_thins_long_cells)
{
	struct ul_engine_config cfg;
	struct ul_engine eng;
	struct ul_run run;
	struct ul_cell *cell;
	const struct ul_series *t;
	void *state = NULL;
	double stride, from_child;

	memset(&cfg, 0, sizeof(cfg));
	cfg.monitor_interval_ns = 2 * MS;
	cfg.monitor_ring_records = 16;
	cfg.ready_timeout_ns = 5 * UL_NS_PER_SEC;
	ul_run_init(&run);
	memset(&eng, 0, sizeof(eng));
	eng.cfg = &cfg;
	eng.run = &run;
	ck_assert_int_eq(ul_sup_init(&eng.sup), 0);
	ck_assert_int_eq(ul_monitor_sampler.start(&eng, &state), 0);
	for (int c = 0; c < 2; c++) {
		cell = ul_run_add_cell(&run);
		ck_assert_ptr_nonnull(cell);
		ck_assert_int_eq(ul_monitor_sampler.cell_begin(&eng, state, cell), 0);
		sleep_ms(c == 0 ? 600 : 20);
		ck_assert_int_eq(ul_monitor_sampler.cell_end(&eng, state, cell), 0);
		t = ul_cell_find_series(cell, UL_SYSMON_SERIES_T);
		ck_assert_ptr_nonnull(t);
		ck_assert(ul_cell_metric(cell, "mon_stride", &stride));
		ck_assert(ul_cell_metric(cell, "mon_sampler_samples", &from_child));
		ck_assert_double_le(from_child, 16);
		for (size_t i = 1; i < t->n; i++)
			ck_assert_int_gt(t->v[i], t->v[i - 1]);
		if (c == 0) {
			/* 600 ms / 2 ms = 300 ticks into 16 slots: thinned (a busy
			 * machine may skip ticks, so not always the full 8x). */
			ck_assert_double_ge(stride, 2);
			ck_assert_double_ge(from_child, 4);
			/* Covered from start to end: lapping would have lost the
			 * oldest records, thinning keeps the first of the range.
			 * (Halves, not exact steps: a busy machine delays ticks.) */
			int64_t span = t->v[t->n - 1] - t->v[0];

			ck_assert_int_lt(t->v[1] - t->v[0], span / 2);
			ck_assert_int_gt(t->v[t->n - 2] - t->v[0], span / 2);
		} else {
			ck_assert_double_eq(stride, 1); /* the next cell starts afresh */
		}
	}
	ul_monitor_sampler.stop(&eng, state);
	ck_assert_uint_eq(eng.sup.n_children, 0);
	ul_sup_fini(&eng.sup);
	ul_run_release(&run);
}
END_TEST

/* ---- vmstat layout -------------------------------------------------------- */

static void push_field(struct ul_cell *cell, enum ul_sysmon_field f, const int64_t *v, size_t n)
{
	struct ul_series *s = ul_cell_series(cell, ul_sysmon_series_name(f));

	ck_assert_ptr_nonnull(s);
	for (size_t i = 0; i < n; i++)
		ck_assert_int_eq(ul_series_push(s, v[i]), 0);
}

/*
 * A cell of four samples, 0 s, 2 s, 3 s and 3.5 s, with counters chosen so
 * each column's arithmetic can be checked by hand: e.g. interval 1 has
 * 256 pages swapped in over 2 s with 4 KiB pages = 512 KiB/s.
 */
static void synthetic_vmstat_cell(struct ul_cell *cell, bool psi)
{
	static const int64_t t[] = { 1000 * MS, 3000 * MS, 4000 * MS, 4500 * MS };
	static const int64_t user[] = { 1000, 1100, 1150, 1150 }, nice[] = { 0, 0, 10, 10 };
	static const int64_t sys[] = { 500, 550, 560, 560 }, idle[] = { 8000, 8030, 8200, 8300 };
	static const int64_t iow[] = { 10, 30, 40, 40 }, irq[] = { 0, 0, 0, 0 };
	static const int64_t steal[] = { 0, 0, 0, 0 }, guest[] = { 0, 0, 0, 0 };
	static const int64_t intr[] = { 100000, 100800, 101500, 101750 };
	static const int64_t ctxt[] = { 50000, 52000, 53500, 53600 };
	static const int64_t run[] = { 1, 3, 2, 1 }, blk[] = { 0, 1, 0, 0 };
	static const int64_t pswpin[] = { 10, 266, 266, 300 }, pswpout[] = { 0, 512, 1024, 1024 };
	static const int64_t pgpgin[] = { 1000, 3000, 3500, 3500 };
	static const int64_t pgpgout[] = { 500, 2500, 4500, 4600 };
	static const int64_t free_kb[] = { 900000, 800000, 700000, 750000 };
	static const int64_t buf_kb[] = { 1000, 1000, 900, 900 };
	static const int64_t cached[] = { 200000, 150000, 100000, 100000 };
	static const int64_t srecl[] = { 20000, 20000, 19000, 19000 };
	static const int64_t stot[] = { 1048576, 1048576, 1048576, 1048576 };
	static const int64_t sfree[] = { 1048576, 1046528, 1044480, 1044616 };
	static const int64_t mavg[] = { 0, 1250, 3000, 2500 }, mfavg[] = { 0, 500, 1000, 900 };
	static const int64_t msome[] = { 0, 300000, 700000, 750000 };
	static const int64_t mfull[] = { 0, 100000, 300000, 300500 };
	static const int64_t cavg[] = { 10, 20, 30, 40 }, csome[] = { 0, 1000, 2000, 2400 };
	static const int64_t iavg[] = { 0, 100, 0, 0 }, ifavg[] = { 0, 50, 0, 0 };
	static const int64_t isome[] = { 0, 20000, 20000, 20001 },
			     ifull[] = { 0, 10000, 10000, 10000 };
	const size_t n = UL_ARRAY_SIZE(t);
	struct ul_series *s;
	int64_t flags[4];
	unsigned have = (1u << UL_SYSMON_STAT) | (1u << UL_SYSMON_VMSTAT) |
			(1u << UL_SYSMON_MEMINFO) | (1u << UL_SYSMON_LOADAVG);

	if (psi)
		have |= (1u << UL_SYSMON_PSI_CPU) | (1u << UL_SYSMON_PSI_MEMORY) |
			(1u << UL_SYSMON_PSI_IO);
	for (size_t i = 0; i < n; i++)
		flags[i] = have | (i == 0 || i == n - 1 ? UL_SYSMON_BOUNDARY : 0);
	snprintf(cell->suite, sizeof(cell->suite), "mtest");
	snprintf(cell->load, sizeof(cell->load), "mtest01");
	s = ul_cell_series(cell, UL_SYSMON_SERIES_T);
	for (size_t i = 0; i < n; i++)
		ck_assert_int_eq(ul_series_push(s, t[i]), 0);
	s = ul_cell_series(cell, UL_SYSMON_SERIES_FLAGS);
	for (size_t i = 0; i < n; i++)
		ck_assert_int_eq(ul_series_push(s, flags[i]), 0);
	push_field(cell, UL_SYSMON_CPU_USER, user, n);
	push_field(cell, UL_SYSMON_CPU_NICE, nice, n);
	push_field(cell, UL_SYSMON_CPU_SYSTEM, sys, n);
	push_field(cell, UL_SYSMON_CPU_IDLE, idle, n);
	push_field(cell, UL_SYSMON_CPU_IOWAIT, iow, n);
	push_field(cell, UL_SYSMON_CPU_IRQ, irq, n);
	push_field(cell, UL_SYSMON_CPU_SOFTIRQ, irq, n);
	push_field(cell, UL_SYSMON_CPU_STEAL, steal, n);
	push_field(cell, UL_SYSMON_CPU_GUEST, guest, n);
	push_field(cell, UL_SYSMON_CPU_GUEST_NICE, guest, n);
	push_field(cell, UL_SYSMON_INTR, intr, n);
	push_field(cell, UL_SYSMON_CTXT, ctxt, n);
	push_field(cell, UL_SYSMON_PROCS_RUNNING, run, n);
	push_field(cell, UL_SYSMON_PROCS_BLOCKED, blk, n);
	push_field(cell, UL_SYSMON_PSWPIN, pswpin, n);
	push_field(cell, UL_SYSMON_PSWPOUT, pswpout, n);
	push_field(cell, UL_SYSMON_PGPGIN, pgpgin, n);
	push_field(cell, UL_SYSMON_PGPGOUT, pgpgout, n);
	push_field(cell, UL_SYSMON_MEM_FREE, free_kb, n);
	push_field(cell, UL_SYSMON_BUFFERS, buf_kb, n);
	push_field(cell, UL_SYSMON_CACHED, cached, n);
	push_field(cell, UL_SYSMON_SRECLAIMABLE, srecl, n);
	push_field(cell, UL_SYSMON_SWAP_TOTAL, stot, n);
	push_field(cell, UL_SYSMON_SWAP_FREE, sfree, n);
	push_field(cell, UL_SYSMON_PSI_CPU_SOME_AVG10, cavg, n);
	push_field(cell, UL_SYSMON_PSI_CPU_SOME_US, csome, n);
	push_field(cell, UL_SYSMON_PSI_MEM_SOME_AVG10, mavg, n);
	push_field(cell, UL_SYSMON_PSI_MEM_FULL_AVG10, mfavg, n);
	push_field(cell, UL_SYSMON_PSI_MEM_SOME_US, msome, n);
	push_field(cell, UL_SYSMON_PSI_MEM_FULL_US, mfull, n);
	push_field(cell, UL_SYSMON_PSI_IO_SOME_AVG10, iavg, n);
	push_field(cell, UL_SYSMON_PSI_IO_FULL_AVG10, ifavg, n);
	push_field(cell, UL_SYSMON_PSI_IO_SOME_US, isome, n);
	push_field(cell, UL_SYSMON_PSI_IO_FULL_US, ifull, n);
	ck_assert_int_eq(ul_cell_set_metric(cell, "mon_page_bytes", 4096), 0);
	ck_assert_int_eq(ul_cell_set_metric(cell, "mon_interval_ns", 1e9), 0);
}

START_TEST(test_vmstat_golden)
{
	struct ul_run run;
	struct ul_cell *cell;
	char *out;
	int rc;

	ul_run_init(&run);
	cell = ul_run_add_cell(&run);
	synthetic_vmstat_cell(cell, true);
	out = render_cell(ul_report_vmstat, cell, &rc);
	ck_assert_int_eq(rc, 0);
	/* procps-ng's header lines exactly. */
	ck_assert_ptr_nonnull(strstr(out,
				     "\nprocs -----------memory---------- ---swap-- -----io---- "
				     "-system-- ------cpu-----\n r  b   swpd   free   buff  "
				     "cache   si   so    bi    bo   in   cs us sy id wa st\n"));
	/* Interval 1 (2 s) by hand: r 3 b 1, swpd 2048, free 800000, buff
	 * 1000, cache 170000, si 256*4/2 = 512, so 512*4/2 = 1024, bi 1000,
	 * bo 1000, in 400, cs 1000, cpu 100/50/30/20 of 200 ticks. */
	ck_assert_ptr_nonnull(strstr(out, "\n 3  1   2048 800000   1000 170000  512 1024  1000  "
					  "1000  400 1000 50 25 15 10  0\n"));
	check_golden("vmstat-synthetic.txt", out);
	free(out);
	ul_run_release(&run);

	ul_run_init(&run);
	cell = ul_run_add_cell(&run);
	synthetic_vmstat_cell(cell, false);
	out = render_cell(ul_report_vmstat, cell, &rc);
	ck_assert_int_eq(rc, 0);
	ck_assert_ptr_nonnull(strstr(out, "PSI: not recorded"));
	free(out);
	ul_run_release(&run);

	ul_run_init(&run);
	cell = ul_run_add_cell(&run);
	out = render_cell(ul_report_vmstat, cell, &rc);
	ck_assert_int_eq(rc, -ENOENT);
	free(out);
	ul_run_release(&run);
}
END_TEST

/* ---- mtest ----------------------------------------------------------------- */

START_TEST(test_mtest_plan)
{
	struct ul_mtest_plan p;

	/* 80% of (1000 + 500) MiB = 1200, less the 100 MiB not available. */
	ck_assert_int_eq(ul_mtest_plan(1000 * UL_MiB, 900 * UL_MiB, 500 * UL_MiB, 8000, 0, 0, &p),
			 0);
	ck_assert_uint_eq(p.base, 1500 * UL_MiB);
	ck_assert_uint_eq(p.in_use, 100 * UL_MiB);
	ck_assert_uint_eq(p.target, 1100 * UL_MiB);
	ck_assert(!p.capped);
	/* Available above the budget (MemAvailable vs a cgroup limit) is the budget. */
	ck_assert_int_eq(ul_mtest_plan(512 * UL_MiB, 20 * UL_GiB, 0, 5000, 0, 0, &p), 0);
	ck_assert_uint_eq(p.in_use, 0);
	ck_assert_uint_eq(p.target, 256 * UL_MiB);
	/* The cap lowers and says so. */
	ck_assert_int_eq(ul_mtest_plan(1000 * UL_MiB, 900 * UL_MiB, 500 * UL_MiB, 8000, 0,
				       64 * UL_MiB, &p),
			 0);
	ck_assert_uint_eq(p.target, 64 * UL_MiB);
	ck_assert(p.capped);
	/* Already more in use than the share. */
	ck_assert_int_eq(ul_mtest_plan(1000 * UL_MiB, 100 * UL_MiB, 0, 5000, 0, 0, &p), -ENOSPC);
	/* Explicit sizes win, but not over the cap. */
	ck_assert_int_eq(ul_mtest_plan(1000 * UL_MiB, 100 * UL_MiB, 0, 5000, 3 * UL_MiB, 0, &p), 0);
	ck_assert_uint_eq(p.target, 3 * UL_MiB);
	ck_assert_int_eq(ul_mtest_plan(1000 * UL_MiB, 900 * UL_MiB, 0, 0, 2 * UL_GiB, UL_GiB, &p),
			 -E2BIG);
	/* No 32-bit wrap (the seed's counter went negative past 2 GiB). */
	ck_assert_int_eq(ul_mtest_plan(64 * UL_GiB, 64 * UL_GiB, 64 * UL_GiB, 8000, 0, 0, &p), 0);
	ck_assert_uint_eq(p.target, 128 * UL_GiB * 4 / 5); /* floor of the exact 80% */
}
END_TEST

struct child_case {
	struct ul_mtest_child c;
	rlim_t as_limit; /* 0: none */
};

static int limited_child(void *arg)
{
	struct child_case *cc = arg;

	if (cc->as_limit) {
		struct rlimit rl = { cc->as_limit, cc->as_limit };

		if (setrlimit(RLIMIT_AS, &rl))
			return 99;
	}
	return ul_mtest_child_main(&cc->c);
}

static void run_child(struct child_case *cc, struct ul_child *child)
{
	struct ul_spawn_opts so = { .name = "mtest01", .fn = limited_child, .arg = cc };
	struct ul_sup sup;
	struct ul_child *ex = NULL;

	ck_assert_int_eq(ul_sup_init(&sup), 0);
	memset(child, 0, sizeof(*child));
	child->pidfd = -1;
	ck_assert_int_eq(ul_spawn(&sup, &so, child), 0);
	while (!child->reaped)
		ck_assert_int_eq(ul_sup_wait(&sup, -1, ul_now_ns() + 20 * UL_NS_PER_SEC, &ex),
				 UL_WAIT_CHILD_EXITED);
	ul_sup_fini(&sup);
}

/* Exact bytes (no chunk too many, a last partial chunk), every page touched. */
START_TEST(test_mtest_child_exact)
{
	struct child_case cc = { 0 };
	struct ul_child child;
	long page = sysconf(_SC_PAGESIZE);

	cc.c.bytes = mmap(NULL, sizeof(*cc.c.bytes), PROT_READ | PROT_WRITE,
			  MAP_SHARED | MAP_ANONYMOUS, -1, 0);
	ck_assert_ptr_ne(cc.c.bytes, MAP_FAILED);
	cc.c.target = 3 * UL_MiB + 12345;
	cc.c.chunk = UL_MiB;
	run_child(&cc, &child);
	ck_assert(WIFEXITED(child.wstatus));
	ck_assert_int_eq(WEXITSTATUS(child.wstatus), UL_MTEST_PASS);
	ck_assert_uint_eq(atomic_load(cc.c.bytes), 3 * UL_MiB + 12345);
	/* Every page written: at least one minor fault per page allocated. */
	ck_assert_int_ge(child.ru.ru_minflt, (long)((3 * UL_MiB) / (uint64_t)page));
	munmap(cc.c.bytes, sizeof(*cc.c.bytes));
}
END_TEST

/* malloc() failing is an outcome: exit status 1 with the bytes reached. */
START_TEST(test_mtest_child_alloc_failure)
{
	struct child_case cc = { 0 };
	struct ul_child child;
	uint64_t got;

#if defined(__SANITIZE_ADDRESS__)
	return; /* ASan reserves terabytes of address space: RLIMIT_AS cannot be used */
#endif

	cc.c.bytes = mmap(NULL, sizeof(*cc.c.bytes), PROT_READ | PROT_WRITE,
			  MAP_SHARED | MAP_ANONYMOUS, -1, 0);
	ck_assert_ptr_ne(cc.c.bytes, MAP_FAILED);
	cc.c.target = 4 * UL_GiB;
	cc.c.chunk = UL_MiB;
	cc.as_limit = 256 * UL_MiB; /* the address space runs out long before */
	run_child(&cc, &child);
	ck_assert(WIFEXITED(child.wstatus));
	ck_assert_int_eq(WEXITSTATUS(child.wstatus), UL_MTEST_ALLOC_FAILED);
	got = atomic_load(cc.c.bytes);
	ck_assert_uint_gt(got, 0);
	ck_assert_uint_lt(got, 256 * UL_MiB);
	ck_assert_uint_eq(got % UL_MiB, 0);
	munmap(cc.c.bytes, sizeof(*cc.c.bytes));
}
END_TEST

static void push(struct ul_cell *cell, const char *name, const int64_t *v, size_t n)
{
	struct ul_series *s = ul_cell_series(cell, name);

	ck_assert_ptr_nonnull(s);
	for (size_t i = 0; i < n; i++)
		ck_assert_int_eq(ul_series_push(s, v[i]), 0);
}

/*
 * Ten runs whose means are the seed's first block (2.4.12-ac3): bytes
 * 8 x 128 MiB + 2 x 129 MiB = 1282 MiB in all, 1038 major faults ...
 */
static void seed_mtest_cell(struct ul_cell *cell)
{
	int64_t bytes[10], user[10], sys[10], elapsed[10], cpu[10], majflt[10], minflt[10],
		status[10];

	for (int i = 0; i < 10; i++) {
		bytes[i] = (int64_t)(i < 8 ? 128 : 129) * (int64_t)UL_MiB;
		user[i] = i % 2 ? 2546000000 - 10000000 : 2546000000 + 10000000;
		sys[i] = 1370000000;
		elapsed[i] = 4798000000;
		cpu[i] = 8910;
		majflt[i] = i < 8 ? 104 : 103;
		minflt[i] = 32702 + (i % 2 ? -5 : 5);
		status[i] = UL_MTEST_PASS;
	}
	snprintf(cell->suite, sizeof(cell->suite), "mtest");
	snprintf(cell->load, sizeof(cell->load), "mtest01");
	snprintf(cell->probe, sizeof(cell->probe), "mtest01");
	push(cell, "mtest_elapsed_ns", elapsed, 10);
	push(cell, "mtest_bytes", bytes, 10);
	push(cell, "mtest_user_ns", user, 10);
	push(cell, "mtest_sys_ns", sys, 10);
	push(cell, "mtest_cpu_centi", cpu, 10);
	push(cell, "mtest_majflt", majflt, 10);
	push(cell, "mtest_minflt", minflt, 10);
	push(cell, "mtest_status", status, 10);
}

/* The seed's own block (seed 002, 2.4.12-ac3) byte for byte. */
START_TEST(test_mtest_format_seed)
{
	static const char seed[] = "Averages for 10 mtest01 runs\n"
				   "bytes allocated:                    134427443.2\n"
				   "User time (seconds):                2.546\n"
				   "System time (seconds):              1.370\n"
				   "Elapsed (wall clock) time:          4.798\n"
				   "Percent of CPU this job got:        89.1%\n"
				   "Major (requiring I/O) page faults:  103.8\n"
				   "Minor (reclaiming a frame) faults:  32702\n";
	struct ul_run run;
	struct ul_cell *cell;
	char *out;

	ul_run_init(&run);
	cell = ul_run_add_cell(&run);
	seed_mtest_cell(cell);
	out = render_run("mtest", &run);
	ck_assert_str_eq(out, seed);
	check_golden("mtest-seed.txt", out);
	free(out);

	/* With the deadline probe alongside, its dropouts follow the block. */
	ck_assert_int_eq(ul_cell_set_metric(cell, "dl_periods", 1500), 0);
	ck_assert_int_eq(ul_cell_set_metric(cell, "dl_missed", 12), 0);
	ck_assert_int_eq(ul_cell_set_metric(cell, "dl_met_pct", 99.2), 0);
	ck_assert_int_eq(ul_cell_set_metric(cell, "dl_max_stall_ns", 340.25e6), 0);
	ck_assert_int_eq(ul_cell_set_metric(cell, "dl_profile", 1), 0);
	out = render_run("mtest", &run);
	ck_assert_int_eq(strncmp(out, seed, sizeof(seed) - 1), 0);
	ck_assert_str_eq(out + sizeof(seed) - 1, "audio dropouts: 12 of 1500 periods missed "
						 "(99.2% met), longest stall 340.2 ms\n");
	free(out);
	ul_run_release(&run);
}
END_TEST

/* The native block: S.D., min and max beside each mean. */
START_TEST(test_mtest_native)
{
	struct ul_run run;
	struct ul_cell *cell;
	char *out;
	int rc;

	ul_run_init(&run);
	cell = ul_run_add_cell(&run);
	seed_mtest_cell(cell);
	/* 80% of (256 MiB + 122 MiB free swap) less 174.35 MiB in use */
	ck_assert_int_eq(ul_cell_set_metric(cell, "mtest_target_bytes", 134270976), 0);
	ck_assert_int_eq(ul_cell_set_metric(cell, "mtest_target_centi", 8000), 0);
	ck_assert_int_eq(ul_cell_set_metric(cell, "mtest_budget_bytes", 268435456), 0);
	ck_assert_int_eq(ul_cell_set_metric(cell, "mtest_swap_free_bytes", 127926272), 0);
	ck_assert_int_eq(ul_cell_set_metric(cell, "mtest_in_use_bytes", 182818406), 0);
	ck_assert_int_eq(ul_cell_set_metric(cell, "mtest_chunk_bytes", 1048576), 0);
	out = render_cell(ul_report_mtest_native, cell, &rc);
	ck_assert_int_eq(rc, 0);
	/* user: 2.556 and 2.536 alternating: S.D. sqrt(10 * 0.01^2 / 9) = 0.0105 */
	ck_assert_ptr_nonnull(strstr(out, "\nUser time (seconds):                       2.546 "
					  "       0.011        2.536        2.556\n"));
	ck_assert_ptr_nonnull(strstr(out, "\nbytes allocated:                     134427443.2 "
					  "    442118.5  134217728.0  135266304.0\n"));
	ck_assert_ptr_nonnull(strstr(out, "\nMajor (requiring I/O) page faults:         103.8 "
					  "         0.4          103          104\n"));
	ck_assert_ptr_nonnull(strstr(out, "mtest01: 10 runs of 134270976 bytes in 1048576-byte "
					  "chunks (80.00% of budget 268435456 + free swap "
					  "127926272, less 182818406 in use)\n"));
	ck_assert_ptr_nonnull(strstr(out, "outcomes: 10 passed, 0 allocation failures, 0 killed "
					  "(OOM), 0 other failures\n"));
	check_golden("mtest-native.txt", out);
	free(out);
	ul_run_release(&run);
}
END_TEST

static void dl_cell(struct ul_run *run, const char *load, double mean, double missed,
		    enum ul_cell_outcome outcome)
{
	struct ul_cell *c = ul_run_add_cell(run);
	int64_t lat[] = { 50000, 60000, 70000 };

	ck_assert_ptr_nonnull(c);
	snprintf(c->suite, sizeof(c->suite), "deadline");
	snprintf(c->load, sizeof(c->load), "%s", load);
	snprintf(c->probe, sizeof(c->probe), "deadline");
	c->outcome = outcome;
	if (outcome != UL_CELL_OK) {
		snprintf(c->note, sizeof(c->note), "load '%s' died while measured", load);
		return;
	}
	push(c, "dl_lat_ns", lat, 3);
	ck_assert_int_eq(ul_cell_set_metric(c, "dl_period_ns", 20e6), 0);
	ck_assert_int_eq(ul_cell_set_metric(c, "dl_work_ns", 1e6), 0);
	ck_assert_int_eq(ul_cell_set_metric(c, "dl_profile", 1), 0);
	ck_assert_int_eq(ul_cell_set_metric(c, "dl_rt", 0), 0);
	ck_assert_int_eq(ul_cell_set_metric(c, "dl_periods", 250), 0);
	ck_assert_int_eq(ul_cell_set_metric(c, "dl_missed", missed), 0);
	ck_assert_int_eq(ul_cell_set_metric(c, "dl_met_pct", 100 * (250 - missed) / 250), 0);
	ck_assert_int_eq(ul_cell_set_metric(c, "dl_cpu_pct", 100 - missed / 5), 0);
	ck_assert_int_eq(ul_cell_set_metric(c, "dl_lat_mean_ns", mean), 0);
	ck_assert_int_eq(ul_cell_set_metric(c, "dl_lat_sd_ns", mean / 4), 0);
	ck_assert_int_eq(ul_cell_set_metric(c, "dl_lat_p99_ns", mean * 3), 0);
	ck_assert_int_eq(ul_cell_set_metric(c, "dl_lat_max_ns", mean * 5), 0);
	ck_assert_int_eq(ul_cell_set_metric(c, "dl_max_stall_ns", mean * 6), 0);
}

START_TEST(test_deadline_format)
{
	struct ul_run run;
	char *out;

	ul_run_init(&run);
	dl_cell(&run, "noload", 52000, 0, UL_CELL_OK);
	dl_cell(&run, "cpuload", 4125000, 25, UL_CELL_OK);
	dl_cell(&run, "spawnload", 0, 0, UL_CELL_LOAD_DIED);
	out = render_run("deadline", &run);
	/* a run of underload 0.1: code 1 at 50 Hz was its "audio" */
	ck_assert_ptr_nonnull(strstr(out,
				     "deadline probe: audio-50hz, period 20.000 ms (50.0 Hz), work "
				     "1.000 ms (5.0% of a CPU), SCHED_OTHER\n"));
	ck_assert_ptr_nonnull(strstr(out, "\n   cpuload     4.125     1.031    12.375    20.625  "
					  "    24.8       25    90.0    95.0\n"));
	ck_assert_ptr_nonnull(strstr(out, "\n spawnload  load-died: load 'spawnload' died"));
	check_golden("deadline-synthetic.txt", out);
	free(out);
	ul_run_release(&run);
}
END_TEST

static ssize_t failing_write(void *cookie, const char *buf, size_t len)
{
	(void)cookie;
	(void)buf;
	(void)len;
	errno = ENOSPC;
	return -1;
}

START_TEST(test_formats_report_eio)
{
	static const cookie_io_functions_t io = { .write = failing_write };
	static const char *const names[] = { "mtest", "deadline" };
	struct ul_run run;

	ul_run_init(&run);
	seed_mtest_cell(ul_run_add_cell(&run));
	dl_cell(&run, "noload", 52000, 0, UL_CELL_OK);
	for (size_t i = 0; i < UL_ARRAY_SIZE(names); i++) {
		FILE *out = fopencookie(NULL, "w", io);

		ck_assert_ptr_nonnull(out);
		ck_assert_msg(ul_format_find(names[i])->write_run(out, &run) == -EIO,
			      "format '%s' hid a write error", names[i]);
		fclose(out);
	}
	ul_run_release(&run);
}
END_TEST

/* ---- a tiny mtest run through the engine ----------------------------------- */

/*
 * Two runs of 4 MiB (plus a partial chunk) through ul_engine_run into a
 * store: two replicate cells, rounds 1 and 2, each with one run of exact
 * bytes, rusage recorded, the sampler's records and the audio probe's,
 * nothing left running.
 */
START_TEST(test_mtest_engine_tiny)
{
	static struct ul_engine_config cfg;
	static struct ul_mtest_opts mopts;
	const struct ul_suite *suites[1] = { ul_suite_find("mtest") };
	char db[4200], err[256], exe[4096];
	struct ul_store *store;
	struct ul_run run;
	const struct ul_cell *cell;
	const struct ul_series *s;
	double v;
	ssize_t n;

	ck_assert_ptr_nonnull(suites[0]);
	setenv("UL_JOURNAL_DIR", suite_dir, 1);
	n = readlink("/proc/self/exe", exe, sizeof(exe) - 1);
	ck_assert_int_gt(n, 0);
	exe[n] = '\0';
	memset(&cfg, 0, sizeof(cfg));
	cfg.scratch_parent = suite_dir;
	cfg.self_exe = exe;
	cfg.interval_ns = 100 * MS;
	cfg.min_points = cfg.max_points = 1;
	cfg.sample_timeout_ns = 60 * UL_NS_PER_SEC;
	cfg.ready_timeout_ns = 10 * UL_NS_PER_SEC;
	cfg.stop_grace_ns = UL_NS_PER_SEC;
	cfg.monitor_interval_ns = 20 * MS;
	cfg.runs = 2;
	ul_opt_apply_defaults(suites[0]->opts, &mopts);
	mopts.target_bytes = 4 * UL_MiB + 4096 + 7;
	cfg.suite_opts[ul_suite_index(suites[0])] = &mopts;
	snprintf(db, sizeof(db), "%s/results.db", suite_dir);
	ck_assert_int_eq(ul_store_open(db, &store, err, sizeof(err)), 0);
	ul_run_init(&run);
	ck_assert_int_eq(ul_run_new_uuid(&run), 0);
	ck_assert_int_eq(ul_host_read(&run.host), 0);
	snprintf(run.label, sizeof(run.label), "unit");
	snprintf(run.suites, sizeof(run.suites), "mtest");
	run.params.mem_budget_bytes = run.host.mem_total_bytes;

	ck_assert_int_eq(ul_engine_run(&cfg, store, &run, suites, 1), UL_ENGINE_OK);
	ck_assert_uint_eq(run.n_cells, 2);
	for (int r = 0; r < 2; r++) {
		cell = &run.cells[r];
		ck_assert_int_eq(cell->outcome, UL_CELL_OK);
		ck_assert_int_eq(ul_cell_round(cell), r + 1);
		ck_assert_str_eq(cell->series[0].name, "mtest_elapsed_ns");
		s = ul_cell_find_series(cell, "mtest_bytes");
		ck_assert_ptr_nonnull(s);
		ck_assert_uint_eq(s->n, 1);
		ck_assert_int_eq(s->v[0], 4 * UL_MiB + 4096 + 7);
		ck_assert_uint_eq(cell->load_units, 4 * UL_MiB + 4096 + 7);
		s = ul_cell_find_series(cell, "mtest_minflt");
		ck_assert_int_ge(s->v[0], (int64_t)(4 * UL_MiB / (uint64_t)sysconf(_SC_PAGESIZE)));
		s = ul_cell_find_series(cell, "mtest_status");
		ck_assert_int_eq(s->v[0], UL_MTEST_PASS);
		ck_assert(ul_cell_metric(cell, "mtest_target_bytes", &v));
		ck_assert_double_eq(v, 4 * UL_MiB + 4096 + 7);
		/* The sampler and the default audio probe recorded this cell. */
		s = ul_cell_find_series(cell, UL_SYSMON_SERIES_T);
		ck_assert_ptr_nonnull(s);
		ck_assert_uint_ge(s->n, 2);
		ck_assert(ul_cell_metric(cell, "dl_periods", &v));
		ck_assert(ul_cell_metric(cell, "dl_profile", &v));
		ck_assert_double_eq(v, 1);
		ck_assert_ptr_nonnull(ul_cell_find_series(cell, "dl_lat_ns"));
	}
	ul_run_release(&run);
	ul_store_close(store);
	unlink(db);
	unsetenv("UL_JOURNAL_DIR");
}
END_TEST

Suite *ul_test_suite_mtest(void)
{
	Suite *s = suite_create("mtest");
	TCase *tc = tcase_create("mtest");

	tcase_set_timeout(tc, 30);
	tcase_add_unchecked_fixture(tc, suite_dir_create, suite_dir_remove);
	tcase_add_test(tc, test_sysmon_parse);
	tcase_add_test(tc, test_sysmon_read);
	tcase_add_test(tc, test_deadline_parse);
	tcase_add_test(tc, test_deadline_missed_math);
	tcase_add_test(tc, test_deadline_sigstop);
	tcase_add_test(tc, test_deadline_work_is_cpu_time);
	tcase_add_test(tc, test_sampler_records_every_cell);
	tcase_add_test(tc, test_sampler_thins_long_cells);
	tcase_add_test(tc, test_vmstat_golden);
	tcase_add_test(tc, test_mtest_plan);
	tcase_add_test(tc, test_mtest_child_exact);
	tcase_add_test(tc, test_mtest_child_alloc_failure);
	tcase_add_test(tc, test_mtest_format_seed);
	tcase_add_test(tc, test_mtest_native);
	tcase_add_test(tc, test_deadline_format);
	tcase_add_test(tc, test_formats_report_eio);
	tcase_add_test(tc, test_mtest_engine_tiny);
	suite_add_tcase(s, tc);
	return s;
}

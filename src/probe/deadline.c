/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * The deadline probe (see deadline.h for every definition): the periodic
 * child with its shared-memory records, and its supervisor-side driver.
 */
#include "core/compat.h"
#include "probe/deadline.h"
#include "probe/probe.h"
#include "core/parse.h"
#include "proc/supervise.h"

#include <errno.h>
#include <sched.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/wait.h>
#include <unistd.h>

/* SCHED_FIFO priority for --deadline-rt: above normal tasks, below the
 * kernel's threaded interrupt handlers (50), in the range desktop sound
 * servers get from rtkit. */
#define DL_RT_PRIORITY 10
/* Bounds of the record ring. */
#define DL_MIN_RECS 1024
#define DL_MAX_BYTES (64 * UL_MiB)

/*
 * Shared between the probe child (the only writer) and the supervisor.
 * The counters change together under a seqlock (seq odd while the child
 * updates them), so a snapshot never pairs `missed` of one period with
 * `periods` of another.  rec[] slots are written before `recs` publishes
 * them.
 */
struct dl_shared {
	_Atomic uint64_t seq;
	_Atomic uint64_t periods, met, missed, served, recs, synthetic;
	_Atomic int64_t work_cpu_ns;
	_Atomic int rt_obtained, rt_errno, locked;
	uint64_t cap;
	struct ul_deadline_rec rec[];
};

struct ul_deadline {
	struct ul_deadline_spec spec;
	struct dl_shared *sh;
	size_t map_len;
	struct ul_child child; /* registered until reaped */
	int ready[2];	       /* ul_spawn()'s report pipe: [0] ours, [1] the child's */
	const char *cgroup_procs;
};

/* --- profiles --- */

/*
 * The named profiles.  audio and video are interbench's: Audio wakes every
 * 50 ms (20 Hz) for 5% of a CPU, Video 60 times a second for 40%, so the
 * deadline format's table reads like interbench's.  audio-50hz is the
 * 20 ms / 1 ms task underload 0.1 called "audio" (a player filling small
 * buffers), kept so runs made with it can be repeated.
 */
const struct ul_deadline_profile ul_deadline_profiles[3] = {
	{ "audio", UL_NS_PER_SEC / 20, UL_NS_PER_SEC / 20 / 20 },
	{ "video", (UL_NS_PER_SEC + 30) / 60, (UL_NS_PER_SEC + 30) / 60 * 2 / 5 },
	{ "audio-50hz", UL_NS_PER_SEC / 50, UL_NS_PER_SEC / 50 / 20 },
};

int ul_deadline_parse(const char *text, struct ul_deadline_spec *out, char *err, size_t errlen)
{
	const char *colon = strchr(text, ':');
	char period[64];
	int64_t p, w, centi;
	size_t n;
	int rc;

	memset(out, 0, sizeof(*out));
	for (size_t i = 0; i < UL_ARRAY_SIZE(ul_deadline_profiles); i++) {
		const struct ul_deadline_profile *pr = &ul_deadline_profiles[i];

		if (!strcmp(text, pr->name)) {
			snprintf(out->name, sizeof(out->name), "%s", pr->name);
			out->period_ns = pr->period_ns;
			out->work_ns = pr->work_ns;
			return 0;
		}
	}
	n = colon ? (size_t)(colon - text) : 0;
	if (!colon || n == 0 || n >= sizeof(period) || !colon[1]) {
		snprintf(err, errlen,
			 "expected audio, video, audio-50hz or PERIOD:WORK (e.g. 10ms:2ms or "
			 "20ms:5%%)");
		return -EINVAL;
	}
	memcpy(period, text, n);
	period[n] = '\0';
	rc = ul_parse_duration_ns(period, UL_NS_PER_MS, 10 * UL_NS_PER_SEC, &p);
	if (rc) {
		snprintf(err, errlen, "period '%s': expected a duration from 1ms to 10s", period);
		return rc;
	}
	if (colon[strlen(colon) - 1] == '%') {
		/* centi is unset when the share is refused: no product then
		 * (it overflowed on stack garbage; tests/fuzz/regress/options). */
		rc = ul_parse_pct(colon + 1, 1, 9999, &centi);
		w = rc ? 0 : p / 10000 * centi + p % 10000 * centi / 10000;
	} else {
		rc = ul_parse_duration_ns(colon + 1, 1, p - 1, &w);
	}
	if (rc || w <= 0 || w >= p) {
		snprintf(err, errlen,
			 "work '%s': expected a duration or a share above 0 and below the period",
			 colon + 1);
		return rc ? rc : -ERANGE;
	}
	snprintf(out->name, sizeof(out->name), "custom");
	out->period_ns = p;
	out->work_ns = w;
	return 0;
}

/* --- accounting --- */

uint64_t ul_deadline_missed(int64_t due, int64_t done, int64_t period_ns)
{
	if (done <= due + period_ns)
		return 0;
	/* Periods k+m with deadline due + (m+1)P before done: m+1 < (done-due)/P. */
	return (uint64_t)((done - due + period_ns - 1) / period_ns - 1);
}

/* --- the probe child --- */

static int64_t thread_cpu_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
	return ul_ts_to_ns(&ts);
}

/* Spin until this thread used work_ns of CPU; returns what it used. */
static int64_t do_work(int64_t work_ns)
{
	int64_t start = thread_cpu_ns(), used;

	do {
		/* A little arithmetic between clock reads, so most of the
		 * work is user time like a codec's, not the clock syscall. */
		for (volatile unsigned i = 0; i < 256; i++)
			;
		used = thread_cpu_ns() - start;
	} while (used < work_ns);
	return used;
}

static void put_rec(struct dl_shared *sh, uint64_t idx, int64_t lat_ns, int64_t stall_ns)
{
	struct ul_deadline_rec *r = &sh->rec[idx % sh->cap];

	r->lat_ns = lat_ns;
	r->stall_ns = stall_ns;
}

/*
 * Publish one served period under the seqlock: n deadlines missed (0: met),
 * `skipped` of them recorded synthetically, cpu ns of work, recs records in
 * all so far (their slots already written).
 */
static void publish(struct dl_shared *sh, uint64_t n, uint64_t skipped, int64_t cpu, uint64_t recs)
{
	uint64_t s = atomic_load_explicit(&sh->seq, memory_order_relaxed);

	atomic_store_explicit(&sh->seq, s + 1, memory_order_relaxed);
	atomic_thread_fence(memory_order_release);
	atomic_fetch_add_explicit(&sh->periods, n ? n : 1, memory_order_relaxed);
	atomic_fetch_add_explicit(&sh->met, n ? 0 : 1, memory_order_relaxed);
	atomic_fetch_add_explicit(&sh->missed, n, memory_order_relaxed);
	atomic_fetch_add_explicit(&sh->served, 1, memory_order_relaxed);
	atomic_fetch_add_explicit(&sh->synthetic, skipped, memory_order_relaxed);
	atomic_fetch_add_explicit(&sh->work_cpu_ns, cpu, memory_order_relaxed);
	atomic_store_explicit(&sh->recs, recs, memory_order_relaxed);
	atomic_store_explicit(&sh->seq, s + 2, memory_order_release);
}

/* The child's set-up: SCHED_FIFO when asked, the records locked in memory
 * when the limit allows, each noted in sh; then the ready byte.  0 or 1. */
static int dl_child_ready(const struct ul_deadline *d)
{
	struct dl_shared *sh = d->sh;
	char ready = 1;

	if (d->spec.rt) {
		struct sched_param sp = { .sched_priority = DL_RT_PRIORITY };

		if (sched_setscheduler(0, SCHED_FIFO, &sp))
			atomic_store(&sh->rt_errno, errno);
		else
			atomic_store(&sh->rt_obtained, 1);
	}
	/* Paging the records in under memory pressure would be a stall we
	 * caused ourselves; lock them when the limit allows. */
	if (mlock(sh, d->map_len) == 0)
		atomic_store(&sh->locked, 1);
	if (write(d->ready[1], &ready, 1) != 1)
		return 1;
	close(d->ready[1]);
	return 0;
}

static int dl_main(void *arg)
{
	struct ul_deadline *d = arg; /* our copy of the supervisor's memory */
	struct dl_shared *sh = d->sh;
	const int64_t P = d->spec.period_ns, W = d->spec.work_ns;
	uint64_t k = 0, recs = 0;
	int64_t t0, prev_done = 0;

	if (dl_child_ready(d))
		return 1;

	t0 = ul_now_ns() + P;
	for (;;) {
		int64_t due = t0 + (int64_t)k * P, woke, done, cpu, stall, start;
		uint64_t n, skipped;

		ul_sleep_until_ns(due);
		woke = ul_now_ns();
		cpu = do_work(W);
		done = ul_now_ns();

		start = due > prev_done ? due : prev_done;
		stall = done - start - W;
		n = ul_deadline_missed(due, done, P);
		skipped = n > 1 ? n - 1 : 0;
		put_rec(sh, recs, woke - due, stall > 0 ? stall : 0);
		/* Coordinated omission: the skipped periods could not start
		 * before `done`; more than a ring's worth is counted, not kept. */
		for (uint64_t m = 1; m <= skipped; m++)
			if (skipped - m < sh->cap)
				put_rec(sh, recs + m, done - (due + (int64_t)m * P), -1);

		recs += 1 + skipped;
		publish(sh, n, skipped, cpu, recs);

		k += n ? n : 1;
		prev_done = done;
	}
}

/* --- supervisor side --- */

static void dl_free(struct ul_deadline *d)
{
	if (d->ready[0] >= 0)
		close(d->ready[0]);
	if (d->ready[1] >= 0)
		close(d->ready[1]);
	if (d->sh)
		munmap(d->sh, d->map_len);
	free(d);
}

/*
 * Map d's shared records: room for capacity_s seconds of periods, within
 * [DL_MIN_RECS, DL_MAX_BYTES].  0, or -errno with the reason in `why`.
 */
static int dl_map(struct ul_deadline *d, int64_t capacity_s, char *why, size_t len)
{
	uint64_t cap = (uint64_t)(capacity_s > 0 ? capacity_s : 1) * (uint64_t)UL_NS_PER_SEC /
		       (uint64_t)d->spec.period_ns;
	int rc;

	if (cap < DL_MIN_RECS)
		cap = DL_MIN_RECS;
	if (cap > DL_MAX_BYTES / sizeof(struct ul_deadline_rec))
		cap = DL_MAX_BYTES / sizeof(struct ul_deadline_rec);
	d->map_len = sizeof(struct dl_shared) + cap * sizeof(struct ul_deadline_rec);
	/* Populated now, in the supervisor: no first-touch faults while
	 * measuring, and the pages are charged outside any run cgroup. */
	d->sh = mmap(NULL, d->map_len, PROT_READ | PROT_WRITE,
		     MAP_SHARED | MAP_ANONYMOUS | MAP_POPULATE, -1, 0);
	if (d->sh == MAP_FAILED) {
		rc = -errno;
		d->sh = NULL;
		snprintf(why, len, "deadline probe: cannot map %zu bytes: %s", d->map_len,
			 strerror(-rc));
		return rc;
	}
	d->sh->cap = cap;
	return 0;
}

int ul_deadline_start(struct ul_sup *sup, const struct ul_deadline_spec *spec,
		      const char *cgroup_procs, int64_t capacity_s, int64_t ready_timeout_ns,
		      struct ul_deadline **out, char *why, size_t len)
{
	struct ul_spawn_opts so = { .name = "deadline", .fn = dl_main };
	struct ul_deadline *d;
	unsigned char byte;
	int rc;

	*out = NULL;
	if (spec->period_ns <= 0 || spec->work_ns <= 0 || spec->work_ns >= spec->period_ns) {
		snprintf(why, len, "deadline probe: work must be above 0 and below the period");
		return -EINVAL;
	}
	d = calloc(1, sizeof(*d));
	if (!d) {
		snprintf(why, len, "deadline probe: %s", strerror(ENOMEM));
		return -ENOMEM;
	}
	d->spec = *spec;
	d->ready[0] = d->ready[1] = -1;
	d->child.pidfd = -1;
	rc = dl_map(d, capacity_s, why, len);
	if (rc)
		goto fail;
	so.arg = d;
	so.report_pipe = d->ready;
	so.cgroup_procs = cgroup_procs;
	rc = ul_spawn(sup, &so, &d->child);
	if (rc) {
		snprintf(why, len, "deadline probe: cannot start: %s", strerror(-rc));
		goto fail;
	}

	rc = ul_spawn_wait_ready(sup, &d->child, d->ready[0], ul_now_ns() + ready_timeout_ns,
				 &byte);
	if (!rc) {
		*out = d;
		return 0;
	}
	rc = ul_spawn_not_ready(sup, &d->child, rc, "deadline probe", ready_timeout_ns, why, len);
	if (rc != -ETIMEDOUT && rc != -EINTR)
		rc = -ECHILD;
	if (!d->child.reaped && ul_sup_stop(sup, &d->child, 0) == -ETIME)
		return rc; /* still registered: d must stay valid (leaked on purpose) */
fail:
	dl_free(d);
	return rc;
}

void ul_deadline_snapshot(const struct ul_deadline *d, struct ul_deadline_snap *s)
{
	struct dl_shared *sh = d->sh;
	uint64_t s1, s2;

	do {
		s1 = atomic_load_explicit(&sh->seq, memory_order_acquire);
		s->periods = atomic_load_explicit(&sh->periods, memory_order_relaxed);
		s->met = atomic_load_explicit(&sh->met, memory_order_relaxed);
		s->missed = atomic_load_explicit(&sh->missed, memory_order_relaxed);
		s->served = atomic_load_explicit(&sh->served, memory_order_relaxed);
		s->recs = atomic_load_explicit(&sh->recs, memory_order_relaxed);
		s->synthetic = atomic_load_explicit(&sh->synthetic, memory_order_relaxed);
		s->work_cpu_ns = atomic_load_explicit(&sh->work_cpu_ns, memory_order_relaxed);
		atomic_thread_fence(memory_order_acquire);
		s2 = atomic_load_explicit(&sh->seq, memory_order_relaxed);
	} while ((s1 & 1) || s1 != s2);
}

/*
 * A record is taken as intact when the published count shows it was not
 * lapped before and after the copy.  The child writes a stall's synthetic
 * records before publishing them, so a record within that many of being
 * lapped could change unnoticed; callers read each cell at its end, and
 * the ring holds an hour of periods, far from that edge.
 */
size_t ul_deadline_records(const struct ul_deadline *d, uint64_t from, uint64_t to,
			   struct ul_deadline_rec *out, uint64_t *lost)
{
	struct dl_shared *sh = d->sh;
	size_t n = 0;

	for (uint64_t i = from; i < to; i++) {
		struct ul_deadline_rec r;

		if (atomic_load_explicit(&sh->recs, memory_order_acquire) - i > sh->cap) {
			(*lost)++; /* overwritten (or being overwritten) by newer periods */
			continue;
		}
		r = sh->rec[i % sh->cap];
		if (atomic_load_explicit(&sh->recs, memory_order_acquire) - i > sh->cap) {
			(*lost)++;
			continue;
		}
		out[n++] = r;
	}
	return n;
}

bool ul_deadline_is_rt(const struct ul_deadline *d, int *refused_errno)
{
	if (refused_errno)
		*refused_errno = atomic_load(&d->sh->rt_errno);
	return atomic_load(&d->sh->rt_obtained) != 0;
}

bool ul_deadline_locked(const struct ul_deadline *d)
{
	return atomic_load(&d->sh->locked) != 0;
}

const struct ul_deadline_spec *ul_deadline_spec_of(const struct ul_deadline *d)
{
	return &d->spec;
}

struct ul_child *ul_deadline_child(struct ul_deadline *d)
{
	return &d->child;
}

int ul_deadline_stop(struct ul_sup *sup, struct ul_deadline *d, int64_t grace_ns)
{
	int rc = d->child.reaped ? -ECHILD : 0;

	if (!d->child.reaped && ul_sup_stop(sup, &d->child, grace_ns) == -ETIME)
		return -ETIME; /* still registered: d must stay valid (leaked on purpose) */
	dl_free(d);
	return rc;
}

/* The registry's entry: its ops are probe/deadline_ops.c, which the
 * deadline monitor drives (engine/monitors/deadline.c); its profile is
 * `run --deadline`. */
const struct ul_probe ul_probe_deadline = {
	.name = "deadline",
	.summary = "a periodic task (interbench audio/video): wake-up latency, deadlines met",
	.unit = "ns",
	.kind = UL_PROBE_PERIODIC,
	.direction = UL_LOWER_IS_BETTER,
	.periodic = &ul_deadline_periodic_ops,
};

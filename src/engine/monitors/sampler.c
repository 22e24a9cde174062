/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * The sampler monitor: a child that records /proc/stat, vmstat, meminfo,
 * loadavg and PSI every --monitor-interval into a shared ring, copied into
 * each cell's mon_* series at its end, with the cell's swap and PSI summary.
 */
#include "core/compat.h"
#include "core/clock.h"
#include "core/log.h"
#include "engine/engine.h"
#include "engine/monitors/monitor.h"
#include "core/sysmon.h"
#include "proc/supervise.h"

#include <errno.h>
#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

/*
 * The ring lives in a MAP_SHARED anonymous mapping made before the fork.
 * Single writer (the child), single reader (the supervisor).  The records
 * the current cell may need are [tail, head); the child fills rec[head %
 * cap] (a slot outside that range, since head - tail < cap) and only then
 * publishes head + 1 with release order.
 *
 * A cell longer than cap records is never lapped: when [tail, head) is full
 * the child thins it, keeping every other record, and doubles its stride
 * (it then records every stride-th tick), so the whole cell stays covered at
 * a coarser step; the cell's "mon_stride" says by how much.  Thinning moves
 * records the reader may be copying, so it is bracketed by gen (odd while
 * it runs, a seqlock): the reader copies, then re-checks gen and copies
 * again if it moved.  The reader starts a cell by bumping `reset`; the child
 * then restarts the range at its head and the stride at 1 (within a tick).
 */
struct ring {
	_Atomic uint64_t head;	     /* records written so far */
	_Atomic uint64_t tail;	     /* first record of the current range */
	_Atomic uint64_t gen;	     /* odd while the child thins the range */
	_Atomic uint64_t reset;	     /* bumped by the reader at each cell start */
	_Atomic uint64_t reset_seen; /* the last reset the child acted on */
	_Atomic uint32_t stride;     /* a record every stride ticks of interval_ns */
	_Atomic int err;	     /* the child's ul_sysmon_open() error, 0 if none */
	uint64_t cap;		     /* even */
	int64_t interval_ns;
	struct ul_sysmon_sample rec[];
};

/* Enough records for 6 h at the interval before any thinning, within a
 * bound on the mapping (each record is ~380 bytes; pages are committed only
 * as the child reaches them): 65,536 records are 11 min at 10 ms, 18 h at
 * 1 s; longer cells are thinned, never lapped. */
#define RING_HOURS 6
#define RING_MIN 1024
#define RING_MAX 65536

struct sampler {
	struct ring *ring;
	size_t map_len;
	struct ul_child child; /* registered until reaped */
	bool spawned;
	struct ul_sysmon reader; /* the supervisor's own, for the cell boundaries */
	struct ul_sysmon_sample begin;
	bool begun;
	bool warned_dead;
};

/* Child: keep every other record of the full range [tail, tail + cap). */
static void ring_thin(struct ring *ring, uint64_t tail, uint64_t *head)
{
	uint64_t gen = atomic_load_explicit(&ring->gen, memory_order_relaxed);

	atomic_store_explicit(&ring->gen, gen + 1, memory_order_relaxed);
	atomic_thread_fence(memory_order_release);
	for (uint64_t j = 1; j < ring->cap / 2; j++)
		ring->rec[(tail + j) % ring->cap] = ring->rec[(tail + 2 * j) % ring->cap];
	*head = tail + ring->cap / 2;
	atomic_store_explicit(&ring->head, *head, memory_order_release);
	atomic_store_explicit(&ring->stride, atomic_load(&ring->stride) * 2, memory_order_relaxed);
	atomic_store_explicit(&ring->gen, gen + 2, memory_order_release);
}

static int sampler_main(void *arg)
{
	struct ring *ring = ((struct sampler *)arg)->ring;
	struct ul_sysmon m;
	uint64_t head = 0, tail = 0, seen_reset = 0, tick = 0;
	ul_nsec next;
	int rc;

	rc = ul_sysmon_open(&m);
	if (rc) {
		atomic_store(&ring->err, -rc);
		return 1;
	}
	next = ul_now_ns();
	for (;; tick++) {
		uint64_t reset = atomic_load_explicit(&ring->reset, memory_order_acquire);
		ul_nsec now;

		if (reset != seen_reset) {
			seen_reset = reset;
			tail = head;
			tick = 0;
			atomic_store_explicit(&ring->stride, 1, memory_order_relaxed);
			atomic_store_explicit(&ring->tail, tail, memory_order_release);
			atomic_store_explicit(&ring->reset_seen, reset, memory_order_release);
		}
		if (tick % atomic_load_explicit(&ring->stride, memory_order_relaxed) == 0) {
			if (head - tail == ring->cap)
				ring_thin(ring, tail, &head);
			ul_sysmon_read(&m, &ring->rec[head % ring->cap]);
			atomic_store_explicit(&ring->head, ++head, memory_order_release);
		}
		/* Absolute deadlines keep the period exact; if we were stopped
		 * or starved past some ticks, skip them rather than burst. */
		next += ring->interval_ns;
		now = ul_now_ns();
		while (next <= now)
			next += ring->interval_ns;
		ul_sleep_until_ns(next);
	}
}

static bool sampler_enabled(const struct ul_engine *eng)
{
	return eng->cfg->monitor_interval_ns > 0;
}

static void sampler_free(struct ul_engine *eng, struct sampler *sm)
{
	if (sm->spawned && !sm->child.reaped && ul_sup_stop(&eng->sup, &sm->child, 0) == -ETIME)
		return; /* still registered: its record must outlive us (leaked on purpose) */
	ul_sysmon_close(&sm->reader);
	if (sm->ring)
		munmap(sm->ring, sm->map_len);
	free(sm);
}

/* Wait until the child published its first record (or died). */
static int wait_first(struct ul_engine *eng, struct sampler *sm)
{
	ul_nsec deadline = ul_now_ns() + eng->cfg->ready_timeout_ns;

	while (atomic_load_explicit(&sm->ring->head, memory_order_acquire) == 0) {
		struct ul_child *ex = NULL;
		ul_nsec now = ul_now_ns();

		if (sm->child.reaped) {
			int err = atomic_load(&sm->ring->err);

			return err ? -err : -ECHILD;
		}
		if (now >= deadline)
			return -ETIMEDOUT;
		if (ul_sup_wait(&eng->sup, -1, now + 2 * UL_NS_PER_MS, &ex) == UL_WAIT_INTERRUPTED)
			return -EINTR;
	}
	return 0;
}

static int sampler_start(struct ul_engine *eng, void **state)
{
	int64_t interval = eng->cfg->monitor_interval_ns;
	struct ul_spawn_opts so = { .name = "sampler", .fn = sampler_main };
	struct sampler *sm;
	uint64_t cap;
	int rc;

	sm = calloc(1, sizeof(*sm));
	if (!sm)
		return -ENOMEM;
	for (int i = 0; i < UL_SYSMON_NSRC; i++)
		sm->reader.fd[i] = -1;
	sm->child.pidfd = -1;
	cap = (uint64_t)(RING_HOURS * 3600 * UL_NS_PER_SEC / interval);
	cap = cap < RING_MIN ? RING_MIN : cap > RING_MAX ? RING_MAX : cap;
	if (eng->cfg->monitor_ring_records)
		cap = eng->cfg->monitor_ring_records < 4 ? 4 : eng->cfg->monitor_ring_records;
	cap += cap % 2;
	sm->map_len = sizeof(struct ring) + cap * sizeof(struct ul_sysmon_sample);
	sm->ring =
		mmap(NULL, sm->map_len, PROT_READ | PROT_WRITE, MAP_SHARED | MAP_ANONYMOUS, -1, 0);
	if (sm->ring == MAP_FAILED) {
		rc = -errno;
		sm->ring = NULL;
		goto fail;
	}
	sm->ring->cap = cap;
	sm->ring->interval_ns = interval;
	atomic_store(&sm->ring->stride, 1);
	rc = ul_sysmon_open(&sm->reader);
	if (rc)
		goto fail;
	so.arg = sm;
	rc = ul_spawn(&eng->sup, &so, &sm->child);
	if (rc)
		goto fail;
	sm->spawned = true;
	rc = wait_first(eng, sm);
	if (rc)
		goto fail;
	*state = sm;
	return 0;
fail:
	sampler_free(eng, sm);
	return rc;
}

static void sampler_stop(struct ul_engine *eng, void *state)
{
	sampler_free(eng, state);
}

static int sampler_cell_begin(struct ul_engine *eng, void *state, struct ul_cell *cell)
{
	struct sampler *sm = state;

	(void)eng;
	(void)cell;
	ul_sysmon_read(&sm->reader, &sm->begin);
	sm->begin.flags |= UL_SYSMON_BOUNDARY;
	atomic_fetch_add_explicit(&sm->ring->reset, 1, memory_order_release);
	sm->begun = true;
	return 0;
}

/* Append one record to the cell's series (already created, in order). */
static int push_sample(struct ul_series *const *ser, const struct ul_sysmon_sample *s)
{
	int rc = ul_series_push(ser[0], s->t_ns);

	rc |= ul_series_push(ser[1], (int64_t)(s->flags | s->have));
	for (int f = 0; f < UL_SYSMON_NFIELDS; f++)
		rc |= ul_series_push(ser[2 + f],
				     s->v[f] > INT64_MAX ? INT64_MAX : (int64_t)s->v[f]);
	return rc ? -ENOMEM : 0;
}

/* Stall share of the cell from two PSI totals (us) over dt_ns, in percent. */
static double share_pct(uint64_t a_us, uint64_t b_us, int64_t dt_ns)
{
	return dt_ns > 0 && b_us >= a_us ? (double)(b_us - a_us) * 1000.0 * 100.0 / (double)dt_ns
					 : 0.0;
}

/* The cell's summary metrics from its two boundary samples. */
static int summarize(struct ul_cell *cell, const struct ul_sysmon_sample *a,
		     const struct ul_sysmon_sample *b, long page_bytes)
{
	static const struct {
		const char *name;
		enum ul_sysmon_field field;
		enum ul_sysmon_src src;
	} psi[] = {
		{ "psi_cpu_some_pct", UL_SYSMON_PSI_CPU_SOME_US, UL_SYSMON_PSI_CPU },
		{ "psi_memory_some_pct", UL_SYSMON_PSI_MEM_SOME_US, UL_SYSMON_PSI_MEMORY },
		{ "psi_memory_full_pct", UL_SYSMON_PSI_MEM_FULL_US, UL_SYSMON_PSI_MEMORY },
		{ "psi_io_some_pct", UL_SYSMON_PSI_IO_SOME_US, UL_SYSMON_PSI_IO },
		{ "psi_io_full_pct", UL_SYSMON_PSI_IO_FULL_US, UL_SYSMON_PSI_IO },
	};
	unsigned both = a->have & b->have;
	int64_t dt = b->t_ns - a->t_ns;
	double mb = (double)page_bytes / (double)UL_MiB;
	int rc = 0;

	if (both & (1u << UL_SYSMON_VMSTAT)) {
		rc |= ul_cell_set_metric(cell, "swap_in_mib",
					 (double)(b->v[UL_SYSMON_PSWPIN] - a->v[UL_SYSMON_PSWPIN]) *
						 mb);
		rc |= ul_cell_set_metric(
			cell, "swap_out_mib",
			(double)(b->v[UL_SYSMON_PSWPOUT] - a->v[UL_SYSMON_PSWPOUT]) * mb);
	}
	for (size_t i = 0; i < UL_ARRAY_SIZE(psi); i++)
		if (both & (1u << psi[i].src))
			rc |= ul_cell_set_metric(cell, psi[i].name,
						 share_pct(a->v[psi[i].field], b->v[psi[i].field],
							   dt));
	return rc ? -ENOMEM : 0;
}

/*
 * Append the child's records stamped strictly inside (t0, t1) to the
 * series (the seqlock read of the ring comment); *stride is the child's
 * stride when they were taken.  0 or -ENOMEM.
 */
static int copy_range(struct ring *ring, struct ul_series *const *ser, int64_t t0, int64_t t1,
		      uint64_t *copied, uint32_t *stride)
{
	size_t base_n = ser[0]->n;

	for (;;) {
		uint64_t gen = atomic_load_explicit(&ring->gen, memory_order_acquire);
		uint64_t head = atomic_load_explicit(&ring->head, memory_order_acquire);
		uint64_t tail = atomic_load_explicit(&ring->tail, memory_order_acquire);
		int rc = 0;

		*copied = 0;
		/* A child that has not yet seen this cell's reset (it was not
		 * scheduled) took no record of the cell at its old stride. */
		*stride = atomic_load_explicit(&ring->reset_seen, memory_order_acquire) ==
					  atomic_load_explicit(&ring->reset, memory_order_relaxed)
				  ? atomic_load_explicit(&ring->stride, memory_order_relaxed)
				  : 1;
		if (gen % 2 == 0) {
			for (uint64_t i = tail; i < head && !rc; i++) {
				const struct ul_sysmon_sample *rec = &ring->rec[i % ring->cap];

				if (rec->t_ns <= t0 || rec->t_ns >= t1)
					continue;
				rc = push_sample(ser, rec);
				(*copied)++;
			}
			atomic_thread_fence(memory_order_acquire);
			if (rc || atomic_load_explicit(&ring->gen, memory_order_relaxed) == gen)
				return rc;
		}
		/* Thinned meanwhile: drop what we copied and read again. */
		for (int k = 0; k < 2 + UL_SYSMON_NFIELDS; k++)
			ser[k]->n = base_n;
		ul_sleep_until_ns(ul_now_ns() + UL_NS_PER_MS);
	}
}

static int sampler_cell_end(struct ul_engine *eng, void *state, struct ul_cell *cell)
{
	struct sampler *sm = state;
	struct ul_series *ser[2 + UL_SYSMON_NFIELDS];
	struct ul_sysmon_sample end;
	uint64_t from_child = 0;
	uint32_t stride = 1;
	long page_bytes = sysconf(_SC_PAGESIZE);
	int rc = 0;

	if (!sm->begun)
		return 0;
	sm->begun = false;
	ul_sysmon_read(&sm->reader, &end);
	end.flags |= UL_SYSMON_BOUNDARY;

	/* Create every series first: creating one may move the others. */
	if (!ul_cell_series(cell, UL_SYSMON_SERIES_T) ||
	    !ul_cell_series(cell, UL_SYSMON_SERIES_FLAGS))
		return -ENOMEM;
	for (int f = 0; f < UL_SYSMON_NFIELDS; f++)
		if (!ul_cell_series(cell, ul_sysmon_series_name((enum ul_sysmon_field)f)))
			return -ENOMEM;
	ser[0] = ul_cell_series(cell, UL_SYSMON_SERIES_T);
	ser[1] = ul_cell_series(cell, UL_SYSMON_SERIES_FLAGS);
	for (int f = 0; f < UL_SYSMON_NFIELDS; f++)
		ser[2 + f] = ul_cell_series(cell, ul_sysmon_series_name((enum ul_sysmon_field)f));

	rc |= push_sample(ser, &sm->begin);
	if (!rc)
		rc = copy_range(sm->ring, ser, sm->begin.t_ns, end.t_ns, &from_child, &stride);
	rc |= push_sample(ser, &end);
	if (rc)
		return -ENOMEM;
	if (sm->child.reaped && !sm->warned_dead) {
		sm->warned_dead = true;
		ul_warning("the /proc sampler died; cells from '%s/%s' on have only their "
			   "start and end samples",
			   cell->suite, cell->load);
	}

	rc |= ul_cell_set_metric(cell, "mon_interval_ns", (double)eng->cfg->monitor_interval_ns);
	rc |= ul_cell_set_metric(cell, "mon_samples", (double)(from_child + 2));
	rc |= ul_cell_set_metric(cell, "mon_sampler_samples", (double)from_child);
	rc |= ul_cell_set_metric(cell, "mon_stride", (double)stride);
	rc |= ul_cell_set_metric(cell, "mon_have", (double)(sm->begin.have & end.have));
	rc |= ul_cell_set_metric(cell, "mon_page_bytes", (double)page_bytes);
	rc |= ul_cell_set_metric(cell, "mon_user_hz", (double)sysconf(_SC_CLK_TCK));
	rc |= summarize(cell, &sm->begin, &end, page_bytes);
	return rc ? -ENOMEM : 0;
}

const struct ul_monitor ul_monitor_sampler = {
	.name = "sampler",
	.summary = "/proc/stat, vmstat, meminfo, loadavg and PSI every --monitor-interval",
	.enabled = sampler_enabled,
	.start = sampler_start,
	.stop = sampler_stop,
	.cell_begin = sampler_cell_begin,
	.cell_end = sampler_cell_end,
};

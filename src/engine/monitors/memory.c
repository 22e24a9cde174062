/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * The memory monitor: for every cell, the memory pressure actually reached
 * (swap-in/out and major-fault deltas from /proc/vmstat, the probe's own
 * major faults, /proc/pressure/memory totals at start and end, and, when
 * the run is in a memory cgroup, its peak usage and OOM counts).
 */
#include "core/compat.h"
#include "core/clock.h"
#include "core/parse.h"
#include "core/sysinfo.h"
#include "engine/engine.h"
#include "engine/monitors/monitor.h"
#include "load/load.h"
#include "proc/cgroup/cgroup.h"
#include "proc/cgroup/guard.h"
#include "proc/supervise.h"

#include <errno.h>
#include <fcntl.h>
#include <stdatomic.h>
#include <sys/mman.h>
#include <time.h>
#include <unistd.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

struct mem_snapshot {
	uint64_t pswpin, pswpout, pgmajfault; /* /proc/vmstat, pages and faults */
	uint64_t probe_majflt;		      /* /proc/PID/stat field 12 */
	uint64_t psi_some_us, psi_full_us;    /* /proc/pressure/memory total= */
	bool have_psi, have_probe;
	struct ul_cgroup_stats cg;
	bool have_cg;
};

/* The v1 OOM guard's counts, published by the guard process. */
struct guard_shared {
	_Atomic uint64_t stalls, stall_ns, longest_stall_ns, nudges, rescues;
};

struct mem_state {
	struct mem_snapshot start;
	int kmsg_fd; /* /dev/kmsg positioned at the cell's start, or -1 */
	/* v1 with the OOM killer disabled: the guard (proc/cgroup/guard.h). */
	const struct ul_cgroup *cg;
	struct guard_shared *gs; /* MAP_SHARED, NULL without a guard */
	struct ul_child guard;	 /* registered until reaped */
	bool guard_spawned;
	uint64_t stalls0, stall_ns0, nudges0, rescues0; /* at the cell's start */
	uint64_t longest0;
};

/*
 * Whether an "oom-kill:" kernel record is about one of ours: inside our
 * memory cgroup, the task's memcg ends with our cgroup's name; without a
 * cgroup, a global OOM (CONSTRAINT_NONE) killing a "ul:" process.  Kills
 * in other cgroups (other runs, other programs) are never counted.
 */
static bool oom_is_ours(const struct ul_engine *eng, const char *rec, const char *task)
{
	const char *memcg = strstr(rec, "task_memcg=");

	if (eng->have_cgroup) {
		const char *name = strrchr(eng->cgroup.path, '/');
		size_t len;

		if (!memcg || !name)
			return false;
		name++;
		memcg += strlen("task_memcg=");
		len = strcspn(memcg, ",");
		return len >= strlen(name) &&
		       !strncmp(memcg + len - strlen(name), name, strlen(name));
	}
	return strstr(rec, "constraint=CONSTRAINT_NONE") && !strncmp(task, "ul:", 3);
}

/*
 * OOM kills of our processes during the cell, from the kernel log's
 * "oom-kill:" records: which process, when.  Appends "OOM killer killed
 * pid N (task) at T" to the cell's note for each and returns how many.
 * Needs /dev/kmsg (root); without it nothing is counted.
 */
static int read_oom_kills(const struct ul_engine *eng, int fd, struct ul_cell *cell)
{
	char rec[2048];
	int kills = 0;

	for (;;) {
		ssize_t n = read(fd, rec, sizeof(rec) - 1);
		unsigned long long ts_us;
		char task[64];
		const char *k, *t, *p;
		int pid;

		if (n < 0 && errno == EPIPE)
			continue; /* records were overwritten: go on with the next */
		if (n <= 0)
			break;
		rec[n] = '\0';
		k = strstr(rec, ";oom-kill:");
		t = k ? strstr(k, ",task=") : NULL;
		p = k ? strstr(k, ",pid=") : NULL;
		if (!t || !p || sscanf(rec, "%*u,%*u,%llu", &ts_us) != 1 ||
		    sscanf(t, ",task=%63[^,]", task) != 1 || sscanf(p, ",pid=%d", &pid) != 1 ||
		    !oom_is_ours(eng, k, task))
			continue;
		kills++;
		{
			/* kmsg stamps are CLOCK_MONOTONIC microseconds. */
			int64_t ago_ns = ul_now_ns() - (int64_t)ts_us * 1000;
			time_t when_s = (time_t)((ul_wall_ns() - ago_ns) / UL_NS_PER_SEC);
			struct tm tm;
			char when[32];
			size_t len = strlen(cell->note);

			gmtime_r(&when_s, &tm);
			strftime(when, sizeof(when), "%H:%M:%S UTC", &tm);
			snprintf(cell->note + len, sizeof(cell->note) - len,
				 "%sOOM killer killed pid %d (%s) at %s", len ? "; " : "", pid,
				 task, when);
		}
	}
	return kills;
}

static void read_vmstat(struct mem_snapshot *s)
{
	char key[64];
	unsigned long long v;
	FILE *f = fopen("/proc/vmstat", "re");

	if (!f)
		return;
	while (fscanf(f, "%63s %llu", key, &v) == 2) {
		if (!strcmp(key, "pswpin"))
			s->pswpin = v;
		else if (!strcmp(key, "pswpout"))
			s->pswpout = v;
		else if (!strcmp(key, "pgmajfault"))
			s->pgmajfault = v;
	}
	fclose(f);
}

/* Field 12 (majflt) of /proc/PID/stat; the comm field may hold spaces, so
 * parse after the last ')'. */
static bool read_majflt(pid_t pid, uint64_t *out)
{
	char path[64], buf[1024];
	unsigned long long majflt;
	size_t n;
	char *p;
	FILE *f;

	snprintf(path, sizeof(path), "/proc/%d/stat", (int)pid);
	f = fopen(path, "re");
	if (!f)
		return false;
	n = fread(buf, 1, sizeof(buf) - 1, f);
	fclose(f);
	buf[n] = '\0';
	p = strrchr(buf, ')');
	if (!p || sscanf(p + 1, " %*c %*d %*d %*d %*d %*d %*u %*u %*u %llu", &majflt) != 1)
		return false;
	*out = majflt;
	return true;
}

static bool read_psi(uint64_t *some_us, uint64_t *full_us)
{
	char line[256];
	unsigned long long total;
	bool ok = false;
	FILE *f = fopen("/proc/pressure/memory", "re");

	if (!f)
		return false;
	while (fgets(line, sizeof(line), f)) {
		char *t = strstr(line, "total=");

		if (!t || sscanf(t, "total=%llu", &total) != 1)
			continue;
		if (!strncmp(line, "some", 4)) {
			*some_us = total;
			ok = true;
		} else if (!strncmp(line, "full", 4)) {
			*full_us = total;
		}
	}
	fclose(f);
	return ok;
}

static void snapshot(const struct ul_engine *eng, struct mem_snapshot *s)
{
	memset(s, 0, sizeof(*s));
	read_vmstat(s);
	s->have_probe = eng->probe_pid > 0 && read_majflt(eng->probe_pid, &s->probe_majflt);
	s->have_psi = read_psi(&s->psi_some_us, &s->psi_full_us);
	s->have_cg = eng->have_cgroup && ul_cgroup_read(&eng->cgroup, &s->cg) == 0;
}

/* The guard process: one poll every UL_CGROUP_GUARD_POLL_NS until killed
 * or the group is gone. */
static int guard_main(void *arg)
{
	struct mem_state *ms = arg;
	struct guard_shared *gs = ms->gs;
	struct ul_cgroup_guard g;
	ul_nsec next = ul_now_ns();

	ul_cgroup_guard_init(&g);
	for (;;) {
		if (ul_cgroup_guard_step(ms->cg, &g, ul_now_ns()) == -ENOENT)
			return 0;
		atomic_store_explicit(&gs->stalls, g.st.stalls, memory_order_relaxed);
		atomic_store_explicit(&gs->stall_ns, g.st.stall_ns, memory_order_relaxed);
		atomic_store_explicit(&gs->longest_stall_ns, g.st.longest_stall_ns,
				      memory_order_relaxed);
		atomic_store_explicit(&gs->nudges, g.st.nudges, memory_order_relaxed);
		atomic_store_explicit(&gs->rescues, g.st.rescues, memory_order_relaxed);
		next += UL_CGROUP_GUARD_POLL_NS;
		if (next < ul_now_ns())
			next = ul_now_ns() + UL_CGROUP_GUARD_POLL_NS;
		ul_sleep_until_ns(next);
	}
}

static int guard_start(struct ul_engine *eng, struct mem_state *ms)
{
	struct ul_spawn_opts so = { .name = "oom-guard", .fn = guard_main, .arg = ms };
	int rc;

	ms->cg = &eng->cgroup;
	ms->gs = mmap(NULL, sizeof(*ms->gs), PROT_READ | PROT_WRITE, MAP_SHARED | MAP_ANONYMOUS, -1,
		      0);
	if (ms->gs == MAP_FAILED) {
		ms->gs = NULL;
		return -errno;
	}
	/* Outside the group (no cgroup_procs): it must run while the loads wait. */
	rc = ul_spawn(&eng->sup, &so, &ms->guard);
	if (rc)
		return rc;
	ms->guard_spawned = true;
	return 0;
}

static void guard_stop(struct ul_engine *eng, struct mem_state *ms)
{
	if (ms->guard_spawned && !ms->guard.reaped &&
	    ul_sup_stop(&eng->sup, &ms->guard, 0) == -ETIME)
		return; /* still registered: its mapping must outlive us (leaked on purpose) */
	if (ms->gs)
		munmap(ms->gs, sizeof(*ms->gs));
	ms->gs = NULL;
}

static int mem_start(struct ul_engine *eng, void **state)
{
	struct mem_state *ms = calloc(1, sizeof(*ms));
	int rc;

	if (!ms)
		return -ENOMEM;
	ms->kmsg_fd = -1;
	ms->guard.pidfd = -1;
	if (eng->have_cgroup && eng->cgroup.oom_guarded) {
		rc = guard_start(eng, ms);
		if (rc) {
			/* A failed start is not stopped by the caller. */
			guard_stop(eng, ms);
			if (!ms->gs)
				free(ms);
			return rc;
		}
	}
	*state = ms;
	return 0;
}

static void close_kmsg(struct mem_state *ms)
{
	if (ms->kmsg_fd >= 0)
		close(ms->kmsg_fd);
	ms->kmsg_fd = -1;
}

static void mem_stop(struct ul_engine *eng, void *state)
{
	struct mem_state *ms = state;

	close_kmsg(ms);
	guard_stop(eng, ms);
	if (ms->gs)
		return; /* the guard outlived its stop: keep what it writes to */
	free(ms);
}

static int mem_cell_begin(struct ul_engine *eng, void *state, struct ul_cell *cell)
{
	struct mem_state *ms = state;

	(void)cell;
	snapshot(eng, &ms->start);
	if (ms->gs) {
		ms->stalls0 = atomic_load_explicit(&ms->gs->stalls, memory_order_relaxed);
		ms->stall_ns0 = atomic_load_explicit(&ms->gs->stall_ns, memory_order_relaxed);
		ms->nudges0 = atomic_load_explicit(&ms->gs->nudges, memory_order_relaxed);
		ms->rescues0 = atomic_load_explicit(&ms->gs->rescues, memory_order_relaxed);
	}
	close_kmsg(ms);
	ms->kmsg_fd = open("/dev/kmsg", O_RDONLY | O_NONBLOCK | O_CLOEXEC);
	if (ms->kmsg_fd >= 0 && lseek(ms->kmsg_fd, 0, SEEK_END) < 0)
		close_kmsg(ms);
	return 0;
}

/*
 * What a memory load (UL_LOAD_MEMORY) is meant to cause, and the least
 * evidence that it did: a major fault of the probe (its working set paged
 * back in), or in the run's cgroup a major fault of any of its processes.
 * System-wide swap counts are no evidence: another program may be paging.
 */
#define PRESSURE_INTENT "paging of the probe's working set"

/*
 * A memory cell that paged nothing measured no memory pressure at all (a
 * footprint capped far below RAM, no swap to page to): flag it no-pressure
 * with why and what to run instead, so it never passes for a result.
 */
static int judge_pressure(const struct ul_engine *eng, struct ul_cell *cell,
			  const struct mem_snapshot *a, const struct mem_snapshot *b)
{
	const struct ul_load *load = ul_load_find(cell->load);
	bool reached = a->have_probe && b->have_probe && b->probe_majflt > a->probe_majflt;
	struct ul_meminfo mi;
	char cap[32], why[128] = "";
	size_t len;

	if (!load || !(load->flags & UL_LOAD_MEMORY) || cell->outcome != UL_CELL_OK)
		return 0;
	if (a->have_cg && b->have_cg && (b->cg.have & UL_CG_HAVE_PGMAJFAULT))
		reached |= b->cg.pgmajfault > a->cg.pgmajfault;
	if (ul_cell_set_metric(cell, "pressure_reached", reached ? 1.0 : 0.0))
		return -ENOMEM;
	if (reached)
		return 0;
	cell->flags |= UL_CELL_NO_PRESSURE;
	if (ul_meminfo_read(&mi) == 0 && mi.swap_total == 0)
		snprintf(why, sizeof(why), "no swap");
	if (eng->cfg->mem_footprint_cap_bytes) {
		ul_fmt_size(cap, sizeof(cap), eng->cfg->mem_footprint_cap_bytes);
		snprintf(why + strlen(why), sizeof(why) - strlen(why),
			 "%sfootprint capped at %s by --quick", why[0] ? ", " : "", cap);
	} else if (!eng->have_cgroup) {
		snprintf(why + strlen(why), sizeof(why) - strlen(why),
			 "%sno --mem-limit: the footprint fit in RAM", why[0] ? ", " : "");
	} else if (!why[0]) {
		snprintf(why, sizeof(why), "the footprint fit in the limit");
	}
	len = strlen(cell->note);
	snprintf(cell->note + len, sizeof(cell->note) - len,
		 "%sno " PRESSURE_INTENT
		 " (no major fault of the probe or the run's cgroup): %s; to press "
		 "memory run with --mem-limit SIZE --swap SIZE and a footprint above the limit",
		 len ? "; " : "", why);
	return 0;
}

/*
 * What the v1 guard saw during the cell: stalls at the limit (tasks the
 * kernel made wait instead of killing), their length, the wake-ups, and
 * rescues (the killer enabled to end a deadlock).  A dead guard is an
 * error: the loads could hang at the limit.
 */
static int guard_metrics(struct mem_state *ms, struct ul_cell *cell)
{
	int rc = 0;

	if (!ms->gs)
		return 0;
	if (ms->guard.reaped) {
		size_t len = strlen(cell->note);

		snprintf(cell->note + len, sizeof(cell->note) - len,
			 "%sthe OOM guard of the memory cgroup died", len ? "; " : "");
	}
	rc |= ul_cell_set_metric(cell, "cg_oom_stalls",
				 (double)(atomic_load(&ms->gs->stalls) - ms->stalls0));
	rc |= ul_cell_set_metric(cell, "cg_oom_stall_ms",
				 (double)(atomic_load(&ms->gs->stall_ns) - ms->stall_ns0) / 1e6);
	rc |= ul_cell_set_metric(cell, "cg_oom_nudges",
				 (double)(atomic_load(&ms->gs->nudges) - ms->nudges0));
	rc |= ul_cell_set_metric(cell, "cg_oom_rescues",
				 (double)(atomic_load(&ms->gs->rescues) - ms->rescues0));
	return rc;
}

static int mem_cell_end(struct ul_engine *eng, void *state, struct ul_cell *cell)
{
	struct mem_state *ms = state;
	const struct mem_snapshot *a = &ms->start;
	struct mem_snapshot b;
	int rc = 0;

	snapshot(eng, &b);
	if (ms->kmsg_fd >= 0) {
		rc |= ul_cell_set_metric(cell, "oom_kills", read_oom_kills(eng, ms->kmsg_fd, cell));
		close_kmsg(ms);
	}
	rc |= ul_cell_set_metric(cell, "swap_in_pages", (double)(b.pswpin - a->pswpin));
	rc |= ul_cell_set_metric(cell, "swap_out_pages", (double)(b.pswpout - a->pswpout));
	rc |= ul_cell_set_metric(cell, "system_majflt", (double)(b.pgmajfault - a->pgmajfault));
	if (a->have_probe && b.have_probe)
		rc |= ul_cell_set_metric(cell, "probe_majflt",
					 (double)(b.probe_majflt - a->probe_majflt));
	if (a->have_psi && b.have_psi) {
		rc |= ul_cell_set_metric(cell, "psi_memory_some_start_us", (double)a->psi_some_us);
		rc |= ul_cell_set_metric(cell, "psi_memory_some_end_us", (double)b.psi_some_us);
		rc |= ul_cell_set_metric(cell, "psi_memory_full_start_us", (double)a->psi_full_us);
		rc |= ul_cell_set_metric(cell, "psi_memory_full_end_us", (double)b.psi_full_us);
	}
	if (a->have_cg && b.have_cg) {
		if (b.cg.have & UL_CG_HAVE_PEAK)
			rc |= ul_cell_set_metric(cell, "cg_peak_bytes", (double)b.cg.peak_bytes);
		if (b.cg.have & UL_CG_HAVE_SWAP)
			rc |= ul_cell_set_metric(cell, "cg_swap_bytes", (double)b.cg.swap_bytes);
		if (b.cg.have & UL_CG_HAVE_HIGH)
			rc |= ul_cell_set_metric(cell, "cg_high_events",
						 (double)(b.cg.high_events - a->cg.high_events));
		if (b.cg.have & UL_CG_HAVE_OOM)
			rc |= ul_cell_set_metric(cell, "cg_oom", (double)(b.cg.oom - a->cg.oom));
		if (b.cg.have & UL_CG_HAVE_OOM_KILL)
			rc |= ul_cell_set_metric(cell, "cg_oom_kill",
						 (double)(b.cg.oom_kill - a->cg.oom_kill));
		if (b.cg.have & UL_CG_HAVE_PGMAJFAULT)
			rc |= ul_cell_set_metric(cell, "cg_majflt",
						 (double)(b.cg.pgmajfault - a->cg.pgmajfault));
	}
	rc |= guard_metrics(ms, cell);
	rc |= judge_pressure(eng, cell, a, &b);
	return rc ? -ENOMEM : 0;
}

const struct ul_monitor ul_monitor_memory = {
	.name = "memory",
	.summary = "swap-in/out, major faults, PSI memory totals and cgroup peak/OOM per cell",
	.enabled = NULL,
	.start = mem_start,
	.stop = mem_stop,
	.cell_begin = mem_cell_begin,
	.cell_end = mem_cell_end,
};

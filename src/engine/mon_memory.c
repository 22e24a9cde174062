/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * The memory monitor: for every cell, the memory pressure actually reached
 * (swap-in/out and major-fault deltas from /proc/vmstat, the probe's own
 * major faults, /proc/pressure/memory totals at start and end, and, when
 * the run is in a memory cgroup, its peak usage and OOM counts).
 */
#include "core/compat.h"
#include "core/clock.h"
#include "engine/engine.h"
#include "engine/monitor.h"
#include "proc/cgroup.h"

#include <errno.h>
#include <fcntl.h>
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

struct mem_state {
	struct mem_snapshot start;
	int kmsg_fd; /* /dev/kmsg positioned at the cell's start, or -1 */
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
				 "%sOOM killer killed pid %d (%s) at %s", len ? "; " : "", pid, task,
				 when);
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

static int mem_start(struct ul_engine *eng, void **state)
{
	struct mem_state *ms = calloc(1, sizeof(*ms));

	(void)eng;
	if (!ms)
		return -ENOMEM;
	ms->kmsg_fd = -1;
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
	(void)eng;
	close_kmsg(state);
	free(state);
}

static int mem_cell_begin(struct ul_engine *eng, void *state, struct ul_cell *cell)
{
	struct mem_state *ms = state;

	(void)cell;
	snapshot(eng, &ms->start);
	close_kmsg(ms);
	ms->kmsg_fd = open("/dev/kmsg", O_RDONLY | O_NONBLOCK | O_CLOEXEC);
	if (ms->kmsg_fd >= 0 && lseek(ms->kmsg_fd, 0, SEEK_END) < 0)
		close_kmsg(ms);
	return 0;
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
		if (b.cg.have & UL_CG_HAVE_OOM)
			rc |= ul_cell_set_metric(cell, "cg_oom", (double)(b.cg.oom - a->cg.oom));
		if (b.cg.have & UL_CG_HAVE_OOM_KILL)
			rc |= ul_cell_set_metric(cell, "cg_oom_kill",
						 (double)(b.cg.oom_kill - a->cg.oom_kill));
		if (b.cg.have & UL_CG_HAVE_PGMAJFAULT)
			rc |= ul_cell_set_metric(cell, "cg_majflt",
						 (double)(b.cg.pgmajfault - a->cg.pgmajfault));
	}
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

/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * The doctor's memory checks: no swap (memory tests then page nothing),
 * a large dirty page cache (its writeback lands inside the measurement),
 * and fragmentation (free memory in small blocks only: huge pages and
 * larger allocations go through compaction).
 */
#include "core/compat.h"
#include "core/file.h"
#include "doctor/doctor.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define DIRTY_WARN_KB (256 * 1024)
/* Free memory in blocks below order 4 (64 KiB with 4 KiB pages). */
#define FRAG_WARN_PCT 50.0

/* A field of /proc/meminfo in kB, or -1. */
static long long meminfo_kb(const char *key)
{
	char text[8192];
	const char *p;
	size_t n = strlen(key);

	if (ul_read_file("/proc/meminfo", text, sizeof(text)) <= 0)
		return -1;
	for (p = text; p; p = strchr(p, '\n'), p = p ? p + 1 : NULL)
		if (!strncmp(p, key, n) && p[n] == ':')
			return strtoll(p + n + 1, NULL, 10);
	return -1;
}

static void swap(const struct ul_doctor_opts *o, const struct ul_doctor_sample *s,
		 struct ul_doctor_finding *f)
{
	long long kb = meminfo_kb("SwapTotal");

	(void)s;
	if (kb > 0) {
		snprintf(f->what, sizeof(f->what), "%.0f MiB of swap", (double)kb / 1024);
		return;
	}
	if (o->swap_planned) {
		snprintf(f->what, sizeof(f->what), "no swap; the run adds its own (--swap)");
		return;
	}
	f->severity = UL_DOCTOR_WARN;
	snprintf(f->what, sizeof(f->what),
		 "no swap: memory tests (mtest, 2ctx-mem, 8ctx-mem, mem_load) measure no paging");
	snprintf(f->todo, sizeof(f->todo), "add swap, or run with --swap SIZE");
}

static void dirty(const struct ul_doctor_opts *o, const struct ul_doctor_sample *s,
		  struct ul_doctor_finding *f)
{
	long long d = meminfo_kb("Dirty"), w = meminfo_kb("Writeback");

	(void)o;
	(void)s;
	if (d < 0 || w < 0) {
		snprintf(f->what, sizeof(f->what), "dirty pages unknown (/proc/meminfo)");
		return;
	}
	snprintf(f->what, sizeof(f->what), "%.0f MiB of dirty or writeback page cache",
		 (double)(d + w) / 1024);
	if (d + w >= DIRTY_WARN_KB) {
		f->severity = UL_DOCTOR_WARN;
		snprintf(f->todo, sizeof(f->todo),
			 "run sync first: its writeback would land inside the measurement");
	}
}

static void fragmentation(const struct ul_doctor_opts *o, const struct ul_doctor_sample *s,
			  struct ul_doctor_finding *f)
{
	char text[4096];
	uint64_t blocks[16];
	int orders = -1;
	double pct;

	(void)o;
	(void)s;
	if (ul_read_file("/proc/buddyinfo", text, sizeof(text)) > 0)
		orders = ul_fp_buddy_parse(text, blocks);
	if (orders < 0) {
		snprintf(f->what, sizeof(f->what), "fragmentation unknown (/proc/buddyinfo)");
		return;
	}
	pct = ul_fp_frag_pct(blocks, orders, 4);
	snprintf(f->what, sizeof(f->what), "%.0f%% of free memory is in blocks under 64 KiB", pct);
	if (pct >= FRAG_WARN_PCT) {
		f->severity = UL_DOCTOR_WARN;
		snprintf(f->todo, sizeof(f->todo),
			 "compact first (echo 1 > /proc/sys/vm/compact_memory): larger "
			 "allocations would stall in compaction");
	}
}

const struct ul_doctor_check ul_doctor_check_swap = { "swap", swap };
const struct ul_doctor_check ul_doctor_check_dirty = { "dirty", dirty };
const struct ul_doctor_check ul_doctor_check_fragmentation = { "fragmentation", fragmentation };

/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * The sweepable sysctls and their bounds (contract: sysctl.h).  The list
 * is short on purpose: settings that change how memory, writeback and the
 * scheduler behave under load, each an integer.  Every one has bounds
 * narrower than the kernel's where the kernel's range holds a value that
 * can take the machine down (a reserve that eats the memory, a cache never
 * reclaimed, writers throttled to a stop); a sweep refuses any value
 * outside them.  The man page (SWEEP) lists the same bounds and reasons.
 * Left off on purpose: kernel.sched_rt_runtime_us (-1 lets one real-time
 * task own a CPU for good), kernel.sched_rt_period_us and
 * kernel.sched_deadline_period_*_us (they decide what real-time and
 * deadline tasks may take from everything else).
 */
#include "core/compat.h"
#include "proc/sysctl.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static const struct allowed {
	const char *name;
	long long min, max;
	/* max_ram_pct > 0: the maximum is also this percentage of MemTotal
	 * (in kB, the unit of the only such sysctl) */
	int max_ram_pct;
	const char *why; /* why these bounds, for refusals */
} allowed[] = {
	{ "vm.swappiness", 0, 200, 0, "the kernel's own range" },
	{ "vm.dirty_ratio", 5, 90, 0,
	  "below 5% writers are throttled almost to a stop; above 90% dirty pages can fill "
	  "memory" },
	{ "vm.dirty_background_ratio", 1, 80, 0,
	  "0 writes back on every dirtied page; above 80% dirty pages can fill memory" },
	{ "vm.dirty_expire_centisecs", 100, 360000, 0,
	  "1 s to 1 h: below, every write goes out at once; above, a crash loses hours" },
	{ "vm.dirty_writeback_centisecs", 100, 60000, 0,
	  "1 s to 10 min: 0 stops the periodic writeback" },
	{ "vm.vfs_cache_pressure", 10, 1000, 0,
	  "below 10 the dentry and inode caches are hardly reclaimed and can run the machine "
	  "out of memory (0 never)" },
	{ "vm.min_free_kbytes", 1024, 1048576, 5,
	  "below 1 MiB atomic allocations (network, I/O) fail; above 5% of MemTotal (and "
	  "1 GiB) the reserve starves everything else into the OOM killer" },
	{ "vm.watermark_scale_factor", 1, 1000, 0,
	  "the kernel's range ends at 3000 (30% of memory kept free by kswapd); at most 10%" },
	{ "vm.page-cluster", 0, 6, 0, "at most 64 pages read per swap-in" },
	{ "kernel.sched_autogroup_enabled", 0, 1, 0, "off or on" },
	{ "kernel.sched_child_runs_first", 0, 1, 0, "off or on" },
	{ "kernel.sched_schedstats", 0, 1, 0, "off or on" },
	{ "kernel.sched_cfs_bandwidth_slice_us", 1000, 100000, 0,
	  "1 ms to 100 ms of quota handed out at a time" },
	{ "kernel.sched_rr_timeslice_ms", 1, 1000, 0,
	  "1 ms to 1 s (0 or less only resets the default)" },
};

static const struct allowed *find(const char *name)
{
	for (size_t i = 0; name && i < UL_ARRAY_SIZE(allowed); i++)
		if (!strcmp(allowed[i].name, name))
			return &allowed[i];
	return NULL;
}

bool ul_sysctl_listed(const char *name)
{
	return find(name) != NULL;
}

void ul_sysctl_allow_list(char *buf, size_t len)
{
	size_t off = 0;

	buf[0] = '\0';
	for (size_t i = 0; i < UL_ARRAY_SIZE(allowed) && off < len; i++)
		off += (size_t)snprintf(buf + off, len - off, "%s%s", i ? ", " : "",
					allowed[i].name);
}

int ul_sysctl_bounds(const char *name, uint64_t mem_total_kb, long long *min, long long *max)
{
	const struct allowed *a = find(name);

	if (!a)
		return -EPERM;
	*min = a->min;
	*max = a->max;
	if (a->max_ram_pct) {
		/* Unknown memory: the minimum alone, nothing above it. */
		long long of_ram = (long long)(mem_total_kb * (uint64_t)a->max_ram_pct / 100);

		if (of_ram < *max)
			*max = of_ram < *min ? *min : of_ram;
	}
	return 0;
}

bool ul_sysctl_value_ok(const char *value)
{
	size_t n = value ? strlen(value) : 0;
	const char *digits = value && value[0] == '-' ? value + 1 : value;

	/* One spelling per number: no leading zero (the kernel reads "010"
	 * as octal 8), no "-0"; so a value reads back exactly as written. */
	return n && n < UL_SYSCTL_VALUE_MAX && digits[0] &&
	       strspn(digits, "0123456789") == strlen(digits) &&
	       (digits[0] != '0' || (digits[1] == '\0' && digits == value));
}

int ul_sysctl_value_check(const char *name, const char *value, uint64_t mem_total_kb, char *why,
			  size_t wlen)
{
	const struct allowed *a = find(name);
	long long min, max, v;

	if (!a || ul_sysctl_bounds(name, mem_total_kb, &min, &max)) {
		snprintf(why, wlen, "not a sysctl a sweep may change");
		return -EPERM;
	}
	if (!ul_sysctl_value_ok(value)) {
		snprintf(why, wlen,
			 "a sysctl value is a decimal integer without leading zeros (the kernel "
			 "reads 010 as octal 8)");
		return -EINVAL;
	}
	v = strtoll(value, NULL, 10);
	if (v < min || v > max) {
		snprintf(why, wlen, "out of the sweep's bounds %lld..%lld (%s)", min, max, a->why);
		return -ERANGE;
	}
	return 0;
}

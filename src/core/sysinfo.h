/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Facts about the host, read from uname(2), /proc/cpuinfo and /proc/meminfo.
 * Used for the run's fingerprint and to size loads against memory.
 */
#ifndef UL_SYSINFO_H
#define UL_SYSINFO_H

#include "core/compat.h"

struct ul_host {
	char hostname[256];
	char kernel_release[128]; /* uname -r */
	char kernel_version[256]; /* uname -v */
	char arch[80];		  /* uname -m */
	char cpu_model[128];
	int ncpu;		   /* online CPUs */
	uint64_t mem_total_bytes;  /* MemTotal */
	uint64_t swap_total_bytes; /* SwapTotal */
};

/* The subset of /proc/meminfo used for sizing, in bytes. */
struct ul_meminfo {
	uint64_t total, free, available, cached, swap_total, swap_free;
};

int ul_host_read(struct ul_host *host) UL_MUST_CHECK;
int ul_meminfo_read(struct ul_meminfo *mi) UL_MUST_CHECK;
/* Parse meminfo text (for tests); 0 or -EINVAL when a field is missing. */
int ul_meminfo_parse(const char *text, struct ul_meminfo *mi) UL_MUST_CHECK;
int ul_online_cpus(void);

#endif

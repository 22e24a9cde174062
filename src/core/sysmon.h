/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * System samples for the monitors: one fixed-size record of the counters in
 * /proc/stat, /proc/vmstat, /proc/meminfo, /proc/loadavg and /proc/pressure/.
 *
 * Values are stored raw, as the kernel prints them (ticks, pages, kB, PSI
 * microseconds; averages in hundredths), so rates and shares are computed
 * afterwards from two records and nothing is lost to rounding at sampling
 * time.  Every field has a series name "mon_<name>" under which the sampler
 * monitor stores it in a cell; report/vmstat.c reads them back by name.
 * Reading and parsing never allocate after ul_sysmon_open() and never print.
 */
#ifndef UL_SYSMON_H
#define UL_SYSMON_H

#include "core/compat.h"

/* The sources, one bit each in ul_sysmon_sample.have. */
enum ul_sysmon_src {
	UL_SYSMON_STAT,
	UL_SYSMON_VMSTAT,
	UL_SYSMON_MEMINFO,
	UL_SYSMON_LOADAVG,
	UL_SYSMON_PSI_CPU,
	UL_SYSMON_PSI_MEMORY,
	UL_SYSMON_PSI_IO,
	UL_SYSMON_NSRC,
};

/*
 * X(IDENT, name, source): name is the series suffix and says the unit.
 * Order is the storage order; append only (stored runs name series, so a
 * new field is harmless, a renamed one orphans old data).
 */
#define UL_SYSMON_FIELDS(X)                                                                        \
	X(CPU_USER, "cpu_user", STAT)                                                              \
	X(CPU_NICE, "cpu_nice", STAT)                                                              \
	X(CPU_SYSTEM, "cpu_system", STAT)                                                          \
	X(CPU_IDLE, "cpu_idle", STAT)                                                              \
	X(CPU_IOWAIT, "cpu_iowait", STAT)                                                          \
	X(CPU_IRQ, "cpu_irq", STAT)                                                                \
	X(CPU_SOFTIRQ, "cpu_softirq", STAT)                                                        \
	X(CPU_STEAL, "cpu_steal", STAT)                                                            \
	X(CPU_GUEST, "cpu_guest", STAT)                                                            \
	X(CPU_GUEST_NICE, "cpu_guest_nice", STAT)                                                  \
	X(INTR, "intr", STAT)                                                                      \
	X(CTXT, "ctxt", STAT)                                                                      \
	X(PROCS_RUNNING, "procs_running", STAT)                                                    \
	X(PROCS_BLOCKED, "procs_blocked", STAT)                                                    \
	X(PSWPIN, "pswpin", VMSTAT)                                                                \
	X(PSWPOUT, "pswpout", VMSTAT)                                                              \
	X(PGPGIN, "pgpgin", VMSTAT)                                                                \
	X(PGPGOUT, "pgpgout", VMSTAT)                                                              \
	X(PGMAJFAULT, "pgmajfault", VMSTAT)                                                        \
	X(PGFAULT, "pgfault", VMSTAT)                                                              \
	X(MEM_TOTAL, "mem_total_kb", MEMINFO)                                                      \
	X(MEM_FREE, "mem_free_kb", MEMINFO)                                                        \
	X(MEM_AVAILABLE, "mem_available_kb", MEMINFO)                                              \
	X(BUFFERS, "buffers_kb", MEMINFO)                                                          \
	X(CACHED, "cached_kb", MEMINFO)                                                            \
	X(SRECLAIMABLE, "sreclaimable_kb", MEMINFO)                                                \
	X(SWAP_TOTAL, "swap_total_kb", MEMINFO)                                                    \
	X(SWAP_FREE, "swap_free_kb", MEMINFO)                                                      \
	X(LOAD1, "load1_centi", LOADAVG)                                                           \
	X(LOAD5, "load5_centi", LOADAVG)                                                           \
	X(LOAD15, "load15_centi", LOADAVG)                                                         \
	X(NR_RUNNING, "nr_running", LOADAVG)                                                       \
	X(NR_THREADS, "nr_threads", LOADAVG)                                                       \
	X(PSI_CPU_SOME_AVG10, "psi_cpu_some_avg10_centi", PSI_CPU)                                 \
	X(PSI_CPU_SOME_US, "psi_cpu_some_us", PSI_CPU)                                             \
	X(PSI_CPU_FULL_AVG10, "psi_cpu_full_avg10_centi", PSI_CPU)                                 \
	X(PSI_CPU_FULL_US, "psi_cpu_full_us", PSI_CPU)                                             \
	X(PSI_MEM_SOME_AVG10, "psi_memory_some_avg10_centi", PSI_MEMORY)                           \
	X(PSI_MEM_SOME_US, "psi_memory_some_us", PSI_MEMORY)                                       \
	X(PSI_MEM_FULL_AVG10, "psi_memory_full_avg10_centi", PSI_MEMORY)                           \
	X(PSI_MEM_FULL_US, "psi_memory_full_us", PSI_MEMORY)                                       \
	X(PSI_IO_SOME_AVG10, "psi_io_some_avg10_centi", PSI_IO)                                    \
	X(PSI_IO_SOME_US, "psi_io_some_us", PSI_IO)                                                \
	X(PSI_IO_FULL_AVG10, "psi_io_full_avg10_centi", PSI_IO)                                    \
	X(PSI_IO_FULL_US, "psi_io_full_us", PSI_IO)

enum ul_sysmon_field {
#define UL_SYSMON_ENUM(id, name, src) UL_SYSMON_##id,
	UL_SYSMON_FIELDS(UL_SYSMON_ENUM)
#undef UL_SYSMON_ENUM
	UL_SYSMON_NFIELDS,
};

/* Series names of the stamp and flags, and the prefix of every field's. */
#define UL_SYSMON_SERIES_PREFIX "mon_"
#define UL_SYSMON_SERIES_T "mon_t_ns"
#define UL_SYSMON_SERIES_FLAGS "mon_flags"

/* ul_sysmon_sample.flags: low bits are `have`, these above them. */
enum ul_sysmon_flags {
	UL_SYSMON_BOUNDARY = 1u << 16, /* taken by the engine at a cell's start or end */
};

struct ul_sysmon_sample {
	int64_t t_ns;	/* CLOCK_MONOTONIC when reading began */
	uint32_t have;	/* 1 << enum ul_sysmon_src for each source read */
	uint32_t flags; /* enum ul_sysmon_flags */
	uint64_t v[UL_SYSMON_NFIELDS];
};

/* Open files of a reader; buf is its one read buffer. */
struct ul_sysmon {
	int fd[UL_SYSMON_NSRC]; /* -1: absent on this kernel */
	char *buf;
	size_t buf_len;
};

/* "mon_cpu_user" etc.; NULL for an out-of-range field. */
const char *ul_sysmon_series_name(enum ul_sysmon_field f);

/*
 * Open every source that exists (PSI is absent before 4.20 or with psi=0)
 * and allocate the buffer.  0 when at least /proc/stat opened; -errno else.
 * A source that opens but cannot be read (psi=0 gives EOPNOTSUPP) is
 * simply missing from `have` in each sample.
 */
int ul_sysmon_open(struct ul_sysmon *m) UL_MUST_CHECK;
/* One sample of every open source; never allocates.  Returns the have mask. */
uint32_t ul_sysmon_read(struct ul_sysmon *m, struct ul_sysmon_sample *s);
void ul_sysmon_close(struct ul_sysmon *m);

/* Parse one source's text into s (pure, for tests); 0 or -EINVAL when a
 * field it must have is missing.  Fields it does not find stay as they are. */
int ul_sysmon_parse(enum ul_sysmon_src src, const char *text, struct ul_sysmon_sample *s);

#endif

/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Clocks.  Intervals are CLOCK_MONOTONIC nanoseconds (ul_nsec); wall-clock
 * stamps for results are CLOCK_REALTIME nanoseconds since the epoch.
 */
#ifndef UL_CLOCK_H
#define UL_CLOCK_H

#include "core/compat.h"
#include <sys/time.h>
#include <time.h>

typedef int64_t ul_nsec;

static inline ul_nsec ul_ts_to_ns(const struct timespec *ts)
{
	return (ul_nsec)ts->tv_sec * UL_NS_PER_SEC + ts->tv_nsec;
}

/* A struct timeval (rusage times, µs precision) in ns. */
static inline int64_t ul_tv_to_ns(const struct timeval *tv)
{
	return (int64_t)tv->tv_sec * UL_NS_PER_SEC + (int64_t)tv->tv_usec * 1000;
}

static inline struct timespec ul_ns_to_ts(ul_nsec ns)
{
	struct timespec ts = { .tv_sec = ns / UL_NS_PER_SEC, .tv_nsec = ns % UL_NS_PER_SEC };
	return ts;
}

/* Monotonic time in ns: the only clock used to measure intervals. */
static inline ul_nsec ul_now_ns(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ul_ts_to_ns(&ts);
}

/* Wall-clock time in ns since the epoch: for stamping results only. */
static inline int64_t ul_wall_ns(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_REALTIME, &ts);
	return ul_ts_to_ns(&ts);
}

/* Sleep until an absolute CLOCK_MONOTONIC time, restarting after signals. */
void ul_sleep_until_ns(ul_nsec when);

#endif

/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * A latency histogram of fixed size for counting many samples without
 * keeping them (fsbench counts every operation of every client): exact
 * below 64 ns, then 32 buckets per power of two (at most 3.1% relative
 * error), the last bucket holding everything above about 2^40 ns (18 min).
 * Pure functions: no I/O, no global state.
 */
#ifndef UL_STATS_HIST_H
#define UL_STATS_HIST_H

#include "core/compat.h"

#include <stdint.h>

#define UL_HIST_N 1184

/* The bucket of a latency in ns, always < UL_HIST_N. */
unsigned ul_hist_bucket(uint64_t ns);
/* A bucket's representative value: its midpoint (exact below 64). */
uint64_t ul_hist_value(unsigned bucket);
/* Quantile p in [0,1] (nearest rank) of a histogram holding `count`
 * samples, as a bucket's value; 0 when count is 0. */
uint64_t ul_hist_quantile(const uint32_t *hist, uint64_t count, double p);

#endif

/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Pieces of `underload compare` shared by its files (cmd/compare*.c).
 */
#ifndef UL_CMD_COMPARE_H
#define UL_CMD_COMPARE_H

#include "core/compat.h"
#include "model/model.h"
#include "stats/runcmp.h"

/*
 * Fill c->env with every environment property that differs between the
 * compared groups (kernel, CPU, memory, swap, tool version, suite
 * parameters, probe and load options), marking the unfair ones (probe
 * options, memory budget or limit, tool version), except those expect
 * names: comma-separated fnmatch(3) patterns on the property ("memory
 * limit") or fingerprint key ("sysctl.vm.swappiness"), the difference the
 * comparison is about (a sweep's setting); NULL: none.  0 or -ENOMEM.
 */
int ul_compare_env(struct ul_runcmp *c, const char *expect);

/*
 * Were runs a and b measured on the same host in the same configuration
 * (CPUs, memory limit and budget, swap file, interval, points, probe and
 * load options), whatever their kernels?  Where compare learns the
 * run-to-run variance of a configuration from earlier repeated runs.
 */
bool ul_compare_same_config(const struct ul_run *a, const struct ul_run *b);

/*
 * One run holding the cells of `suite` of every run of the group, cells of
 * the same test merged (their samples appended in run order, their counts
 * pooled as report/replicate.h says), header from
 * the group's newest run: what the single-run seed formats print for a
 * label of several runs.  The caller ul_run_release()s `out`.  0 or -ENOMEM.
 */
int ul_compare_pool_run(const struct ul_runcmp_group *g, const char *suite, struct ul_run *out);

#endif

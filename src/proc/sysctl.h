/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Kernel tunables under /proc/sys, by their sysctl(8) names (vm.swappiness).
 * A leaf: which ones may be changed, and the journal, are proc/changes.c's.
 */
#ifndef UL_SYSCTL_H
#define UL_SYSCTL_H

#include "core/compat.h"

/* A well-formed name: 1-128 of [a-z0-9_] separated by single dots. */
bool ul_sysctl_name_ok(const char *name);
/* The current value, without its trailing newline.  0 or -errno. */
int ul_sysctl_read(const char *name, char *buf, size_t len) UL_MUST_CHECK;
/* Write value (no newline needed).  0 or -errno. */
int ul_sysctl_write(const char *name, const char *value) UL_MUST_CHECK;

#endif

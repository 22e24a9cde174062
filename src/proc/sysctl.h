/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * The sysctls `underload sweep` may change: a small allow-list (sysctl.c),
 * integer values only, read and written through /proc/sys.  A change is
 * journalled before it is made (proc/changes.h: kind "sysctl", "NAME
 * ORIGINAL") so that `underload cleanup` writes the original back after a
 * kill -9.
 */
#ifndef UL_SYSCTL_H
#define UL_SYSCTL_H

#include "core/compat.h"

#include <stddef.h>

#define UL_SYSCTL_VALUE_MAX 24 /* an integer value and its NUL */

/* Is name ("vm.swappiness") on the allow-list and present on this kernel? */
bool ul_sysctl_allowed(const char *name);
/* The allow-list as "vm.swappiness, vm.dirty_ratio, ..." for messages. */
void ul_sysctl_allow_list(char *buf, size_t len);
/* Is value an integer a sweep may write (optional '-', digits, short)? */
bool ul_sysctl_value_ok(const char *value);
/* Read an allowed sysctl's value (trailing newline cut): 0 or -errno
 * (-EINVAL: not allowed, or not a single integer). */
int ul_sysctl_read(const char *name, char *buf, size_t len) UL_MUST_CHECK;
/* Write value (checked as above) to an allowed sysctl: 0 or -errno. */
int ul_sysctl_write(const char *name, const char *value) UL_MUST_CHECK;
/* A journal entry "NAME ORIGINAL" (proc/changes.h): 0 when it names an
 * allowed sysctl and an integer, else -EPERM. */
int ul_sysctl_entry_check(const char *arg);
/* Write its ORIGINAL back: 0, or -errno with a reason in why. */
int ul_sysctl_entry_undo(const char *arg, char *why, size_t wlen);

#endif

/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * The sysctls `underload sweep` may change: a small allow-list with bounds
 * (sysctl_allow.c), integer values only, read and written through
 * /proc/sys.  A change is journalled before it is made (proc/changes.h:
 * kind "sysctl", "NAME ORIGINAL") so that `underload cleanup` writes the
 * original back after a kill -9.
 */
#ifndef UL_SYSCTL_H
#define UL_SYSCTL_H

#include "core/compat.h"

#include <stddef.h>

#define UL_SYSCTL_VALUE_MAX 24 /* an integer value and its NUL */

/* Is name ("vm.swappiness") on the allow-list (present on this kernel or not)? */
bool ul_sysctl_listed(const char *name);
/* Is it listed and present on this kernel? */
bool ul_sysctl_allowed(const char *name);
/* Can this process write it now: 0, or -errno (-EROFS: /proc/sys is
 * mounted read-only; -EACCES: not root; -EINVAL: not listed). */
int ul_sysctl_writable(const char *name);
/* The allow-list as "vm.swappiness, vm.dirty_ratio, ..." for messages. */
void ul_sysctl_allow_list(char *buf, size_t len);
/*
 * The values a sweep may give a listed sysctl, mem_total_kb the machine's
 * MemTotal (a bound may be a share of it; 0 when unknown: that bound is
 * then its minimum).  0, or -EPERM when name is not listed.
 */
int ul_sysctl_bounds(const char *name, uint64_t mem_total_kb, long long *min,
		     long long *max) UL_MUST_CHECK;
/* Is value one a sweep may write to name: a canonical integer (below)
 * within its bounds?  0, or -EPERM / -EINVAL / -ERANGE with why. */
int ul_sysctl_value_check(const char *name, const char *value, uint64_t mem_total_kb, char *why,
			  size_t wlen) UL_MUST_CHECK;
/* Is value an integer in its one decimal spelling: an optional '-', no
 * leading zero ("0" itself; never "010", which the kernel reads as octal,
 * nor "-0"), short? */
bool ul_sysctl_value_ok(const char *value);
/* Read a listed sysctl's value (trailing newline cut): 0 or -errno
 * (-EINVAL: not listed, or not a single integer). */
int ul_sysctl_read(const char *name, char *buf, size_t len) UL_MUST_CHECK;
/* Write value (checked as above, bounds not: an original goes back as it
 * was) to a listed sysctl, then read it back: 0, or -errno with a reason
 * in why; -EIO when the kernel holds another value than the one written. */
int ul_sysctl_write(const char *name, const char *value, char *why, size_t wlen) UL_MUST_CHECK;
/* A journal entry "NAME ORIGINAL" (proc/changes.h): 0 when it names a
 * listed sysctl present here and an integer; -ENOENT when this kernel
 * has no such sysctl (nothing to undo); -EAGAIN when /proc/sys cannot be
 * seen (try later); -EPERM when malformed.  why says which. */
int ul_sysctl_entry_check(const char *arg, char *why, size_t wlen);
/* Write its ORIGINAL back: 0, or -errno with a reason in why (-EROFS:
 * /proc/sys is read-only here, a later cleanup may succeed). */
int ul_sysctl_entry_undo(const char *arg, char *why, size_t wlen);

#endif

/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Included first by every file: feature macros and the few attributes the
 * project uses.  Nothing here knows about loads, probes or formats.
 */
#ifndef UL_COMPAT_H
#define UL_COMPAT_H

#ifndef _GNU_SOURCE
#define _GNU_SOURCE
#endif

#include <stddef.h>
#include <stdint.h>
#include <stdbool.h>

#define UL_PRINTF(fmt, args) __attribute__((format(printf, fmt, args)))
#define UL_MUST_CHECK __attribute__((warn_unused_result))
#define UL_UNUSED __attribute__((unused))
#define UL_ARRAY_SIZE(a) (sizeof(a) / sizeof((a)[0]))

#define UL_KiB ((uint64_t)1024)
#define UL_MiB (UL_KiB * 1024)
#define UL_GiB (UL_MiB * 1024)

#define UL_NS_PER_SEC INT64_C(1000000000)
#define UL_NS_PER_MS INT64_C(1000000)

#endif

/* SPDX-License-Identifier: GPL-2.0-or-later */
/* Comparing fingerprints (diff.c): flat facts and their classes. */
#ifndef UL_FINGERPRINT_DIFF_H
#define UL_FINGERPRINT_DIFF_H

#include "core/compat.h"

#include <jansson.h>

enum ul_fp_class {
	UL_FP_UNFAIR,	/* a setting: runs that differ in it are not comparable */
	UL_FP_EXPECTED, /* the kernel itself, the usual thing compared: shown only */
	UL_FP_VOLATILE, /* a moment (uptime, load, free blocks): shown only */
};

/* The class of a flat key ("sysctl.vm.swappiness"). */
enum ul_fp_class ul_fp_classify(const char *key);

/*
 * The fingerprint as one flat object {"section.key": "text"}: nested
 * objects joined with dots, arrays as "a, b", other values as compact
 * JSON, in the fingerprint's order.  A new reference; NULL without memory
 * (an empty object for a NULL or non-object fp).
 */
json_t *ul_fp_flatten(const json_t *fp);

/*
 * The part of a value that decides fairness, into buf: the value itself,
 * but kernel.cmdline without BOOT_IMAGE= and initrd=, which name the
 * kernel being compared; memory.ram_kb and sysctl.vm.user_reserve_kbytes
 * in whole MiB (a kernel sizes them at boot, a few KiB apart each time).
 */
void ul_fp_fair_value(const char *key, const char *value, char *buf, size_t len);

#endif

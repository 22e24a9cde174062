/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Fingerprint source "memory": RAM and swap sizes, the swap devices,
 * zram and zswap, transparent hugepages, the page cache and dirty pages,
 * and /proc/buddyinfo (free blocks per order, with the share of free
 * memory in blocks under 64 KiB).
 */
#include "core/compat.h"
#include "core/file.h"
#include "fingerprint/fingerprint.h"

#include <dirent.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* A field of /proc/meminfo in kB, or -1. */
static int64_t meminfo_kb(const char *text, const char *key)
{
	const char *p = strstr(text, key);
	size_t n = strlen(key);

	while (p && ((p != text && p[-1] != '\n') || p[n] != ':'))
		p = strstr(p + 1, key);
	return p ? strtoll(p + n + 1, NULL, 10) : -1;
}

static int put_meminfo(json_t *obj)
{
	static const char *const keys[][2] = {
		{ "MemTotal", "ram_kb" },	 { "SwapTotal", "swap_kb" },
		{ "Cached", "page_cache_kb" },	 { "Dirty", "dirty_kb" },
		{ "Writeback", "writeback_kb" }, { "MemAvailable", "available_kb" },
	};
	char text[8192];
	bool ok = ul_read_file("/proc/meminfo", text, sizeof(text)) > 0;

	for (size_t i = 0; i < UL_ARRAY_SIZE(keys); i++) {
		int64_t kb = ok ? meminfo_kb(text, keys[i][0]) : -1;
		int rc = kb >= 0 ? ul_fp_put_int(obj, keys[i][1], kb)
				 : ul_fp_put_str(obj, keys[i][1], NULL);

		if (rc)
			return rc;
	}
	return 0;
}

/* /proc/swaps without its header: one "NAME TYPE SIZE_KB prio=P" string a device. */
static int put_swaps(json_t *obj)
{
	FILE *f = fopen("/proc/swaps", "re");
	json_t *arr = f ? json_array() : json_string(UL_FP_ABSENT);
	char line[512], name[256], type[32];
	unsigned long long size, used;
	int prio;

	while (arr && f && fgets(line, sizeof(line), f)) {
		char one[400];

		if (sscanf(line, "%255s %31s %llu %llu %d", name, type, &size, &used, &prio) != 5)
			continue; /* the header */
		snprintf(one, sizeof(one), "%s %s %llu kB prio=%d", name, type, size, prio);
		if (json_array_append_new(arr, json_string(one)))
			break;
	}
	if (f)
		fclose(f);
	return json_object_set_new(obj, "swap_devices", arr) ? -ENOMEM : 0;
}

/* Each zram device with a size: "zramN SIZE ALGORITHM". */
static int put_zram(json_t *obj)
{
	json_t *arr = json_array();

	for (int i = 0; arr && i < 64; i++) {
		char path[128], size[64], alg[128], one[256], sel[64];

		snprintf(path, sizeof(path), "/sys/block/zram%d/disksize", i);
		if (ul_fp_read_line(path, size, sizeof(size)))
			break;
		if (!strcmp(size, "0"))
			continue; /* not set up */
		snprintf(path, sizeof(path), "/sys/block/zram%d/comp_algorithm", i);
		if (ul_fp_read_line(path, alg, sizeof(alg)) ||
		    ul_fp_selected(alg, sel, sizeof(sel)))
			snprintf(sel, sizeof(sel), "%s", UL_FP_ABSENT);
		snprintf(one, sizeof(one), "zram%d %s bytes %s", i, size, sel);
		if (json_array_append_new(arr, json_string(one)))
			return -ENOMEM;
	}
	return json_object_set_new(obj, "zram", arr) ? -ENOMEM : 0;
}

/* A sysfs choice file as its selected word, "absent" when unreadable. */
static int put_choice(json_t *obj, const char *key, const char *path)
{
	char text[256], sel[64];

	if (ul_fp_read_line(path, text, sizeof(text)) || ul_fp_selected(text, sel, sizeof(sel)))
		return ul_fp_put_str(obj, key, NULL);
	return ul_fp_put_str(obj, key, sel);
}

static int put_buddyinfo(json_t *obj)
{
	char text[4096], lines[4096];
	uint64_t blocks[16];
	int orders = -EINVAL;
	size_t off = 0;

	if (ul_read_file("/proc/buddyinfo", text, sizeof(text)) > 0)
		orders = ul_fp_buddy_parse(text, blocks);
	if (orders < 0)
		return ul_fp_put_str(obj, "buddyinfo", NULL);
	lines[0] = '\0';
	for (int k = 0; k < orders; k++)
		off += (size_t)snprintf(lines + off, sizeof(lines) - off, "%s%llu", k ? " " : "",
					(unsigned long long)blocks[k]);
	/* Order 4 is 64 KiB with 4 KiB pages: what THP and larger allocations miss. */
	return ul_fp_put_str(obj, "buddyinfo", lines) ||
			       ul_fp_put_int(obj, "free_below_order4_pct",
					     (int64_t)(ul_fp_frag_pct(blocks, orders, 4) + 0.5))
		       ? -ENOMEM
		       : 0;
}

static int collect(const struct ul_fp_ctx *ctx, json_t *obj)
{
	(void)ctx;
	if (put_meminfo(obj) || put_swaps(obj) || put_zram(obj) ||
	    ul_fp_put_file(obj, "zswap_enabled", "/sys/module/zswap/parameters/enabled") ||
	    ul_fp_put_file(obj, "zswap_compressor", "/sys/module/zswap/parameters/compressor") ||
	    ul_fp_put_file(obj, "zswap_max_pool_percent",
			   "/sys/module/zswap/parameters/max_pool_percent") ||
	    put_choice(obj, "thp_enabled", "/sys/kernel/mm/transparent_hugepage/enabled") ||
	    put_choice(obj, "thp_defrag", "/sys/kernel/mm/transparent_hugepage/defrag"))
		return -ENOMEM;
	return put_buddyinfo(obj);
}

const struct ul_fp_source ul_fp_source_memory = {
	.name = "memory",
	.collect = collect,
};

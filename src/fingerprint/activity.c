/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Fingerprint source "activity": what the machine was doing when the run
 * started: uptime, load average, the busiest other processes (measured by
 * the doctor over its window, ctx->busy) and the largest by resident
 * memory.  These always differ between runs: compare shows them, never
 * warns about them.
 */
#include "core/compat.h"
#include "core/file.h"
#include "fingerprint/fingerprint.h"

#include <ctype.h>
#include <dirent.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#define TOP_N 5

struct rss {
	pid_t pid;
	uint64_t kb;
};

static int by_rss_desc(const void *a, const void *b)
{
	const struct rss *x = a, *y = b;

	return x->kb < y->kb ? 1 : x->kb > y->kb ? -1 : (x->pid > y->pid) - (x->pid < y->pid);
}

/* Keep the TOP_N largest in top[] (sorted, largest first). */
static void keep(struct rss *top, size_t *n, struct rss r)
{
	if (*n == TOP_N && by_rss_desc(&r, &top[TOP_N - 1]) >= 0)
		return;
	if (*n < TOP_N)
		(*n)++;
	top[*n - 1] = r;
	qsort(top, *n, sizeof(*top), by_rss_desc);
}

static void comm_of(pid_t pid, char *buf, size_t len)
{
	char path[64];

	snprintf(path, sizeof(path), "/proc/%d/comm", (int)pid);
	if (ul_fp_read_line(path, buf, len))
		snprintf(buf, len, "?");
}

/* "COMM[PID] N MiB" of the TOP_N processes with the most resident memory. */
static int put_top_memory(json_t *obj)
{
	long page_kb = sysconf(_SC_PAGESIZE) / 1024;
	struct rss top[TOP_N];
	size_t n = 0;
	DIR *d = opendir("/proc");
	struct dirent *e;
	json_t *arr;

	if (!d)
		return ul_fp_put_str(obj, "top_memory", NULL);
	while ((e = readdir(d))) {
		char path[64], text[128];
		unsigned long long size, resident;

		if (!isdigit((unsigned char)e->d_name[0]))
			continue;
		snprintf(path, sizeof(path), "/proc/%.32s/statm", e->d_name);
		if (ul_read_file(path, text, sizeof(text)) <= 0 ||
		    sscanf(text, "%llu %llu", &size, &resident) != 2 || !resident)
			continue; /* gone, or a kernel thread */
		keep(top, &n, (struct rss){ (pid_t)atoi(e->d_name), resident * (uint64_t)page_kb });
	}
	closedir(d);
	arr = json_array();
	for (size_t i = 0; arr && i < n; i++) {
		char comm[32], one[96];

		comm_of(top[i].pid, comm, sizeof(comm));
		snprintf(one, sizeof(one), "%s[%d] %.1f MiB", comm, (int)top[i].pid,
			 (double)top[i].kb / 1024.0);
		if (json_array_append_new(arr, json_string(one)))
			return -ENOMEM;
	}
	return json_object_set_new(obj, "top_memory", arr) ? -ENOMEM : 0;
}

/* "COMM[PID] N% CPU" of the doctor's busiest processes. */
static int put_top_cpu(const struct ul_fp_ctx *ctx, json_t *obj)
{
	json_t *arr;

	if (!ctx->busy)
		return ul_fp_put_str(obj, "top_cpu", NULL);
	arr = json_array();
	for (size_t i = 0; arr && i < ctx->n_busy && i < TOP_N; i++) {
		char one[96];

		snprintf(one, sizeof(one), "%s[%d] %.0f%% CPU", ctx->busy[i].comm,
			 (int)ctx->busy[i].pid, ctx->busy[i].cpu_pct);
		if (json_array_append_new(arr, json_string(one)))
			return -ENOMEM;
	}
	return json_object_set_new(obj, "top_cpu", arr) ? -ENOMEM : 0;
}

static int collect(const struct ul_fp_ctx *ctx, json_t *obj)
{
	char line[128];
	double up;

	if (ul_fp_read_line("/proc/uptime", line, sizeof(line)) || sscanf(line, "%lf", &up) != 1) {
		if (ul_fp_put_str(obj, "uptime_s", NULL))
			return -ENOMEM;
	} else if (ul_fp_put_int(obj, "uptime_s", (int64_t)up)) {
		return -ENOMEM;
	}
	if (ul_fp_put_file(obj, "loadavg", "/proc/loadavg"))
		return -ENOMEM;
	return put_top_cpu(ctx, obj) || put_top_memory(obj) ? -ENOMEM : 0;
}

const struct ul_fp_source ul_fp_source_activity = {
	.name = "activity",
	.collect = collect,
};

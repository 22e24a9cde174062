/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Fingerprint source "sysctl": every readable vm.* and kernel.sched*
 * setting, and net.ipv4.tcp_congestion_control (micro's TCP bandwidth
 * depends on it: bw_tcp's 7.5 s warm-up slows a BBR connection ~1.2x and
 * a cubic one not), keyed by its sysctl name ("vm.swappiness"), whitespace in
 * values collapsed to single blanks.  Actions are not settings and are left
 * out: write-only entries (vm.drop_caches, vm.compact_memory) and
 * vm.stat_refresh, which a read triggers.
 */
#include "core/compat.h"
#include "core/file.h"
#include "fingerprint/fingerprint.h"

#include <dirent.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

/* Collapse runs of blanks and newlines into one blank, trimmed. */
static void squeeze(char *s)
{
	char *w = s;
	bool blank = false;

	for (char *r = s; *r; r++) {
		bool b = *r == ' ' || *r == '\t' || *r == '\n';

		if (b) {
			blank = w != s;
			continue;
		}
		if (blank)
			*w++ = ' ';
		blank = false;
		*w++ = *r;
	}
	*w = '\0';
}

static int want_vm(const struct dirent *e)
{
	return e->d_name[0] != '.' && strcmp(e->d_name, "stat_refresh");
}

static int want_sched(const struct dirent *e)
{
	return !strncmp(e->d_name, "sched", 5);
}

static int want_tcp_cc(const struct dirent *e)
{
	return !strcmp(e->d_name, "tcp_congestion_control");
}

/* The settings under /proc/sys/DIR that `want` selects, as "PREFIX.NAME". */
static int put_dir(json_t *obj, const char *dir, const char *prefix,
		   int (*want)(const struct dirent *))
{
	struct dirent **names = NULL;
	int n = scandir(dir, &names, want, alphasort), rc = 0;

	for (int i = 0; i < n; i++) {
		char path[512], key[300], val[1024];
		struct stat st;

		snprintf(path, sizeof(path), "%s/%s", dir, names[i]->d_name);
		snprintf(key, sizeof(key), "%s.%s", prefix, names[i]->d_name);
		free(names[i]);
		if (rc || stat(path, &st) || !S_ISREG(st.st_mode) || !(st.st_mode & 0444))
			continue;
		if (ul_read_file(path, val, sizeof(val)) < 0) {
			rc = ul_fp_put_str(obj, key, NULL);
			continue;
		}
		squeeze(val);
		rc = ul_fp_put_str(obj, key, val);
	}
	free(names);
	return rc;
}

static int collect(const struct ul_fp_ctx *ctx, json_t *obj)
{
	(void)ctx;
	if (put_dir(obj, "/proc/sys/vm", "vm", want_vm) ||
	    put_dir(obj, "/proc/sys/kernel", "kernel", want_sched))
		return -ENOMEM;
	return put_dir(obj, "/proc/sys/net/ipv4", "net.ipv4", want_tcp_cc);
}

const struct ul_fp_source ul_fp_source_sysctl = {
	.name = "sysctl",
	.collect = collect,
};

/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * /proc/PID/stat parsing and a one-pass walk of /proc (see procstat.h).
 */
#include "core/procstat.h"
#include "core/file.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

int ul_procstat_parse(const char *line, struct ul_procstat *ps)
{
	const char *rp = strrchr(line, ')');
	unsigned long long f[20];
	long pid;
	char state;
	int got;

	memset(ps, 0, sizeof(*ps));
	if (!rp || sscanf(line, "%ld", &pid) != 1 || pid <= 0)
		return -EINVAL;
	/* After "comm)": state(3) ppid(4) pgrp session tty_nr tpgid flags(9)
	 * minflt cminflt majflt cmajflt utime(14) stime cutime cstime(17)
	 * priority nice num_threads itrealvalue starttime(22). */
	got = sscanf(rp + 1,
		     " %c %llu %llu %llu %llu %llu %llu %llu %llu %llu %llu %llu %llu %llu %llu"
		     " %llu %llu %llu %llu %llu",
		     &state, &f[0], &f[1], &f[2], &f[3], &f[4], &f[5], &f[6], &f[7], &f[8], &f[9],
		     &f[10], &f[11], &f[12], &f[13], &f[14], &f[15], &f[16], &f[17], &f[18]);
	if (got != 20)
		return -EINVAL;
	ps->pid = (pid_t)pid;
	ps->ppid = (pid_t)f[0];
	ps->pgrp = (pid_t)f[1];
	ps->state = state;
	ps->flags = (unsigned)f[5];
	ps->user_ticks = f[10] + f[12];
	ps->sys_ticks = f[11] + f[13];
	ps->cpu_ticks = ps->user_ticks + ps->sys_ticks;
	ps->own_ticks = f[10] + f[11];
	ps->starttime = f[18];
	return 0;
}

int ul_procstat_read(pid_t pid, struct ul_procstat *ps)
{
	char path[64], buf[1024];
	ssize_t len;

	snprintf(path, sizeof(path), "/proc/%d/stat", (int)pid);
	len = ul_read_file(path, buf, sizeof(buf));
	if (len < 0)
		return (int)len;
	return ul_procstat_parse(buf, ps);
}

static int by_pid(const void *a, const void *b)
{
	pid_t x = ((const struct ul_procstat *)a)->pid, y = ((const struct ul_procstat *)b)->pid;

	return (x > y) - (x < y);
}

int ul_procstat_all(struct ul_procstat **out, size_t *n)
{
	DIR *d = opendir("/proc");
	struct ul_procstat *all = NULL;
	size_t cap = 0, used = 0;
	struct dirent *e;

	*out = NULL;
	*n = 0;
	if (!d)
		return -errno;
	while ((e = readdir(d))) {
		struct ul_procstat ps;

		if (e->d_name[0] < '1' || e->d_name[0] > '9')
			continue;
		if (ul_procstat_read((pid_t)atoi(e->d_name), &ps))
			continue; /* gone meanwhile */
		if (used == cap) {
			size_t ncap = cap ? 2 * cap : 512;
			struct ul_procstat *na = realloc(all, ncap * sizeof(*all));

			if (!na) {
				free(all);
				closedir(d);
				return -ENOMEM;
			}
			all = na;
			cap = ncap;
		}
		all[used++] = ps;
	}
	closedir(d);
	if (used)
		qsort(all, used, sizeof(*all), by_pid);
	*out = all;
	*n = used;
	return 0;
}

const struct ul_procstat *ul_procstat_find(const struct ul_procstat *all, size_t n, pid_t pid)
{
	struct ul_procstat key = { .pid = pid };

	return n ? bsearch(&key, all, n, sizeof(*all), by_pid) : NULL;
}

size_t ul_procstat_tree(const struct ul_procstat *all, size_t n, pid_t root, bool *in_tree)
{
	size_t marked = 0;
	bool grew = true;

	for (size_t i = 0; i < n; i++) {
		in_tree[i] = all[i].pid == root;
		marked += in_tree[i];
	}
	/* A pass per generation: a child's pid may be below its parent's. */
	while (grew) {
		grew = false;
		for (size_t i = 0; i < n; i++) {
			const struct ul_procstat *parent;

			if (in_tree[i])
				continue;
			parent = ul_procstat_find(all, n, all[i].ppid);
			if (parent && in_tree[parent - all]) {
				in_tree[i] = true;
				marked++;
				grew = true;
			}
		}
	}
	return marked;
}

/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * The supervisor's ground floor (contracts: supervise_impl.h): the
 * registry of live children, reaping one of them, listing our direct
 * children and reaping the orphans that came back to us as subreaper.
 * It waits for nothing and signals nobody: the event loop (supervise.c)
 * and the ending of processes (supervise_reap.c) stand on it.
 */
#include "core/procstat.h"
#include "proc/supervise_impl.h"

#include <dirent.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

bool ul_sup_registered(const struct ul_sup *s, const struct ul_child *c)
{
	for (size_t i = 0; i < s->n_children; i++)
		if (s->children[i] == c)
			return true;
	return false;
}

bool ul_sup_pid_registered(const struct ul_sup *s, pid_t pid)
{
	for (size_t i = 0; i < s->n_children; i++)
		if (s->children[i]->pid == pid)
			return true;
	return false;
}

void ul_sup_unregister(struct ul_sup *s, struct ul_child *c)
{
	for (size_t i = 0; i < s->n_children; i++) {
		if (s->children[i] != c)
			continue;
		memmove(&s->children[i], &s->children[i + 1],
			(s->n_children - i - 1) * sizeof(s->children[0]));
		s->n_children--;
		s->children[s->n_children] = NULL;
		return;
	}
}

int ul_sup_reap_child(struct ul_sup *s, struct ul_child *c, int flags)
{
	struct rusage ru;
	pid_t r;
	int st = 0;

	memset(&ru, 0, sizeof(ru));
	do
		r = wait4(c->pid, &st, flags, &ru);
	while (r < 0 && errno == EINTR);
	if (r == 0)
		return 0;
	if (r < 0) {
		/*
		 * ECHILD: somebody reaped it behind our back (a waitpid(-1) outside
		 * the supervisor).  The status is lost; record exit code 255 so it
		 * never passes for success.
		 */
		st = W_EXITCODE(255, 0);
		memset(&ru, 0, sizeof(ru));
	}
	c->wstatus = st;
	c->ru = ru;
	c->reaped = true;
	if (c->pidfd >= 0)
		close(c->pidfd);
	c->pidfd = -1;
	ul_sup_unregister(s, c);
	return 1;
}

/*
 * Listing our direct children (ul_sup_for_each_child()):
 * /proc/self/task/TID/children needs CONFIG_PROC_CHILDREN; without it we
 * scan /proc/PID/stat for our pid as parent (slower, same answer).
 */
static int sup_children_from_tasks(struct ul_sup *s, ul_sup_child_fn fn, void *arg)
{
	char path[64];
	struct dirent *de;
	DIR *d;
	FILE *f;
	int pid, n = 0, files = 0;

	d = opendir("/proc/self/task");
	if (!d)
		return -errno;
	while ((de = readdir(d))) {
		if (de->d_name[0] < '0' || de->d_name[0] > '9')
			continue;
		snprintf(path, sizeof(path), "/proc/self/task/%d/children", atoi(de->d_name));
		f = fopen(path, "re");
		if (!f)
			continue; /* a thread that just ended, or no such file at all */
		files++;
		while (fscanf(f, "%d", &pid) == 1) {
			fn(s, pid, arg);
			n++;
		}
		fclose(f);
	}
	closedir(d);
	return files ? n : -ENOENT;
}

static int sup_children_from_stat(struct ul_sup *s, ul_sup_child_fn fn, void *arg)
{
	struct ul_procstat ps;
	struct dirent *de;
	pid_t self = getpid();
	DIR *d;
	int n = 0;

	d = opendir("/proc");
	if (!d)
		return -errno;
	while ((de = readdir(d))) {
		if (de->d_name[0] < '0' || de->d_name[0] > '9')
			continue;
		/* Gone meanwhile, or not ours. */
		if (ul_procstat_read((pid_t)atoi(de->d_name), &ps) || ps.ppid != self)
			continue;
		fn(s, ps.pid, arg);
		n++;
	}
	closedir(d);
	return n;
}

int ul_sup_for_each_child(struct ul_sup *s, ul_sup_child_fn fn, void *arg)
{
	int n = sup_children_from_tasks(s, fn, arg);

	return n >= 0 ? n : sup_children_from_stat(s, fn, arg);
}

static void sup_reap_if_orphan(struct ul_sup *s, pid_t pid, void *arg)
{
	(void)arg;
	if (!ul_sup_pid_registered(s, pid))
		while (waitpid(pid, NULL, WNOHANG) < 0 && errno == EINTR)
			;
}

/*
 * The fast path peeks with WNOWAIT; when a registered zombie heads the
 * kernel's list it hides everything behind it, and we go through the
 * children one by one instead.
 */
void ul_sup_reap_orphans(struct ul_sup *s)
{
	siginfo_t si;

	for (;;) {
		memset(&si, 0, sizeof(si));
		if (waitid(P_ALL, 0, &si, WEXITED | WNOHANG | WNOWAIT) < 0) {
			if (errno == EINTR)
				continue;
			return; /* ECHILD: no children at all */
		}
		if (si.si_pid == 0)
			return; /* nobody has exited */
		if (ul_sup_pid_registered(s, si.si_pid))
			break;
		sup_reap_if_orphan(s, si.si_pid, NULL);
	}
	ul_sup_for_each_child(s, sup_reap_if_orphan, NULL);
}

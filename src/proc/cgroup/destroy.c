/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Emptying and removing a run's cgroup, on either version (contract:
 * ul_cgroup_destroy() and ul_cgroup_destroy_path() in cgroup.h).  Child
 * cgroups go first, deepest first; each is emptied by SIGKILL (all at once
 * where the back end can, then pid by pid, pinned by pidfds against pid
 * reuse) until its cgroup.procs is empty and rmdir succeeds, within one
 * deadline for the whole tree.  Our own process is never signalled.
 */
#include "core/compat.h"
#include "core/clock.h"
#include "proc/cgroup/backend.h"

#include <dirent.h>
#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/syscall.h>
#include <sys/vfs.h>
#include <unistd.h>

#define DESTROY_DEADLINE_NS (5 * UL_NS_PER_SEC)
#define MAX_NESTING 8

/* The pids in a cgroup.procs file; count, or -errno (-ENOENT: gone). */
static int read_pids(const char *procs, pid_t **pids, size_t *cap)
{
	FILE *f = fopen(procs, "re");
	size_t n = 0;
	int pid;

	if (!f)
		return -errno;
	while (fscanf(f, "%d", &pid) == 1) {
		if (n == *cap) {
			size_t ncap = *cap ? *cap * 2 : 64;
			pid_t *np = realloc(*pids, ncap * sizeof(*np));

			if (!np) {
				fclose(f);
				return -ENOMEM;
			}
			*pids = np;
			*cap = ncap;
		}
		(*pids)[n++] = pid;
	}
	fclose(f);
	return n > INT32_MAX ? INT32_MAX : (int)n;
}

static bool listed(const pid_t *pids, int n, pid_t pid)
{
	for (int i = 0; i < n; i++)
		if (pids[i] == pid)
			return true;
	return false;
}

/*
 * SIGKILL the listed processes.  A pid read from cgroup.procs may exit and
 * be reused by an unrelated process before kill(): so each is pinned with a
 * pidfd first, and only signalled if it is still listed afterwards (a pid
 * cannot be reused while its pidfd's process lives).  Plain kill() where
 * pidfds are unavailable.
 */
static void kill_listed(const char *procs, const pid_t *pids, int n)
{
	pid_t self = getpid(), *again = NULL;
	size_t again_cap = 0;
	int *fds = calloc((size_t)n, sizeof(int)), m;

	if (!fds) {
		for (int i = 0; i < n; i++)
			if (pids[i] > 0 && pids[i] != self)
				kill(pids[i], SIGKILL);
		return;
	}
	for (int i = 0; i < n; i++) {
		pid_t pid = pids[i];

		fds[i] = -1;
		if (pid <= 0 || pid == self)
			continue;
#ifdef SYS_pidfd_open
		fds[i] = (int)syscall(SYS_pidfd_open, pid, 0);
		if (fds[i] < 0 && errno == ESRCH)
			continue; /* gone already */
#endif
		/* No pidfds (old kernel, out of fds): the small race beats a survivor. */
		if (fds[i] < 0)
			kill(pid, SIGKILL);
	}
	m = read_pids(procs, &again, &again_cap);
	for (int i = 0; i < n; i++) {
		if (fds[i] < 0)
			continue;
#ifdef SYS_pidfd_send_signal
		if (m > 0 && again && listed(again, m, pids[i]))
			syscall(SYS_pidfd_send_signal, fds[i], SIGKILL, NULL, 0);
#endif
		close(fds[i]);
	}
	free(again);
	free(fds);
}

static int destroy_dir(const char *dir, const struct ul_cg_backend *be, ul_nsec deadline,
		       int depth);

/* Destroy every child cgroup of dir; 0 or the first failure's -errno. */
static int destroy_children(const char *dir, const struct ul_cg_backend *be, ul_nsec deadline,
			    int depth)
{
	DIR *d = opendir(dir);
	int rc = 0;

	if (!d)
		return errno == ENOENT ? 0 : -errno;
	for (struct dirent *e; (e = readdir(d));) {
		char sub[PATH_MAX];

		if (e->d_type != DT_DIR || !strcmp(e->d_name, ".") || !strcmp(e->d_name, ".."))
			continue;
		if (ul_path_join(sub, sizeof(sub), dir, e->d_name))
			continue;
		rc = destroy_dir(sub, be, deadline, depth + 1);
		if (rc)
			break;
	}
	closedir(d);
	return rc;
}

/*
 * Kill what dir's cgroup.procs lists and rmdir dir once it is empty,
 * polling every 10 ms until deadline.  0 (also when dir is gone), -EBUSY
 * at the deadline, or -errno.
 */
static int empty_and_remove(const char *dir, const struct ul_cg_backend *be, ul_nsec deadline)
{
	char procs[PATH_MAX];
	pid_t *pids = NULL;
	size_t cap = 0;
	int rc;

	if (ul_path_join(procs, sizeof(procs), dir, "cgroup.procs"))
		return -ENAMETOOLONG;
	if (be->kill_all)
		be->kill_all(dir);
	for (;;) {
		int n = read_pids(procs, &pids, &cap);

		if (n == -ENOENT) {
			rc = 0;
			break;
		}
		if (n < 0) {
			rc = n;
			break;
		}
		if (n == 0) {
			if (rmdir(dir) == 0 || errno == ENOENT) {
				rc = 0;
				break;
			}
			if (errno != EBUSY) {
				rc = -errno;
				break;
			}
		} else if (pids) {
			kill_listed(procs, pids, n);
		}
		if (ul_now_ns() > deadline) {
			rc = -EBUSY;
			break;
		}
		usleep(10000);
	}
	free(pids);
	return rc;
}

/* Empty and remove dir and its child cgroups, deepest first. */
static int destroy_dir(const char *dir, const struct ul_cg_backend *be, ul_nsec deadline, int depth)
{
	int rc;

	if (depth > MAX_NESTING)
		return -ELOOP;
	rc = destroy_children(dir, be, deadline, depth);
	return rc ? rc : empty_and_remove(dir, be, deadline);
}

int ul_cgroup_destroy(struct ul_cgroup *cg)
{
	int rc;

	if (!cg->path[0])
		return 0;
	rc = destroy_dir(cg->path, ul_cg_backend_of(cg->version), ul_now_ns() + DESTROY_DEADLINE_NS,
			 0);
	if (!rc)
		cg->path[0] = '\0';
	return rc;
}

int ul_cgroup_destroy_path(const char *path)
{
	struct ul_cgroup cg = { .version = 1 };
	const struct ul_cg_backend *be;
	const char *base;
	struct statfs sfs;
	size_t n;

	if (!path || path[0] != '/')
		return -EINVAL;
	n = strlen(path);
	while (n > 1 && path[n - 1] == '/')
		n--;
	if (n >= sizeof(cg.path))
		return -ENAMETOOLONG;
	memcpy(cg.path, path, n);
	cg.path[n] = '\0';
	base = strrchr(cg.path, '/') + 1;
	if (strncmp(base, UL_CGROUP_PREFIX, strlen(UL_CGROUP_PREFIX)))
		return -EINVAL;
	if (statfs(cg.path, &sfs) < 0)
		return errno == ENOENT ? 0 : -errno;
	be = ul_cg_backend_of_fs((unsigned long)sfs.f_type);
	if (!be)
		return -EINVAL;
	cg.version = be->version;
	return ul_cgroup_destroy(&cg);
}

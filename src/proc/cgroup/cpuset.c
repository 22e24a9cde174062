/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * The run's cpuset (contract: cpuset.h): CPU lists, the group on cgroup v1
 * or v2, moving the supervisor in and out, and the affinity fallback.
 */
#include "core/compat.h"
#include "core/file.h"
#include "core/log.h"
#include "proc/cgroup/backend.h"
#include "proc/cgroup/cpuset.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

/* "a-b" or "a" into canon at *off, after a comma when not first. */
static void put_range(char *canon, size_t len, size_t *off, int a, int b)
{
	int n = a == b ? snprintf(canon + *off, len - *off, "%s%d", *off ? "," : "", a)
		       : snprintf(canon + *off, len - *off, "%s%d-%d", *off ? "," : "", a, b);

	if (n > 0 && *off + (size_t)n < len)
		*off += (size_t)n;
}

/* One "N" or "N-M" of a list into set; 0 or -EINVAL. */
static int add_token(const char *tok, cpu_set_t *set)
{
	char *end;
	long a, b;

	errno = 0;
	a = strtol(tok, &end, 10);
	b = a;
	if (*end == '-') {
		const char *second = end + 1;

		b = strtol(second, &end, 10);
		if (end == second)
			return -EINVAL;
	}
	if (errno || end == tok || *end || a < 0 || b < a || b >= CPU_SETSIZE || tok[0] == '-' ||
	    tok[0] == '+')
		return -EINVAL;
	for (long c = a; c <= b; c++)
		CPU_SET((int)c, set);
	return 0;
}

int ul_cpus_parse(const char *list, cpu_set_t *set, char *canon, size_t len, char *why, size_t wlen)
{
	char buf[256], *save = NULL, *tok;
	cpu_set_t allowed;
	size_t off = 0;
	int start = -1;

	CPU_ZERO(set);
	if (!list || !list[0] || strlen(list) >= sizeof(buf) ||
	    strspn(list, "0123456789,-") != strlen(list)) {
		ul_whyf(why, wlen, "'%s' is not a CPU list (e.g. 0, 0-1, 0,2)", list ? list : "");
		return -EINVAL;
	}
	snprintf(buf, sizeof(buf), "%s", list);
	for (tok = strtok_r(buf, ",", &save); tok; tok = strtok_r(NULL, ",", &save))
		if (add_token(tok, set)) {
			ul_whyf(why, wlen, "'%s' in '%s' is not a CPU or range (N or N-M)", tok,
				list);
			return -EINVAL;
		}
	if (!CPU_COUNT(set) || sched_getaffinity(0, sizeof(allowed), &allowed)) {
		ul_whyf(why, wlen, "'%s' names no CPU", list);
		return -EINVAL;
	}
	canon[0] = '\0';
	for (int c = 0; c <= CPU_SETSIZE; c++) {
		bool in = c < CPU_SETSIZE && CPU_ISSET(c, set);

		if (in && !CPU_ISSET(c, &allowed)) {
			ul_whyf(why, wlen, "CPU %d is not online or not allowed to this process",
				c);
			return -EINVAL;
		}
		if (in && start < 0)
			start = c;
		if (!in && start >= 0) {
			put_range(canon, len, &off, start, c - 1);
			start = -1;
		}
	}
	return CPU_COUNT(set);
}

/* The parent directory of path into out (path has a '/' after its first). */
static void parent_of(const char *path, char *out, size_t len)
{
	const char *slash = strrchr(path, '/');

	snprintf(out, len, "%.*s", slash ? (int)(slash - path) : 0, path);
}

int ul_cpuset_plan(const char *name, const struct ul_cgroup *mem, struct ul_cpuset *cs, char *why,
		   size_t len)
{
	struct ul_cg_mount m;
	char parent[PATH_MAX];
	int rc, n;

	memset(cs, 0, sizeof(*cs));
	rc = ul_cg_v2_parent("cpuset", parent, sizeof(parent), why, len);
	if (!rc && mem && mem->version == 2) {
		/* A process is in one v2 group: the loads' memory group it is. */
		snprintf(cs->path, sizeof(cs->path), "%s", mem->path);
		cs->version = 2;
		cs->shared = true;
		return 0;
	}
	if (!rc) {
		cs->version = 2;
	} else if (rc == -ENOENT && !ul_cg_find_mount("cgroup", "cpuset", &m)) {
		ul_cg_own_dir(&m, "cpuset", parent, sizeof(parent));
		cs->version = 1;
	} else {
		return rc;
	}
	n = snprintf(cs->path, sizeof(cs->path), "%s/" UL_CGROUP_PREFIX "%s", parent, name);
	if (n < 0 || (size_t)n >= sizeof(cs->path)) {
		ul_whyf(why, len, "cgroup path too long below %s", parent);
		cs->path[0] = '\0';
		return -ENAMETOOLONG;
	}
	return 0;
}

/* v1 refuses tasks in a cpuset without memory nodes: the parent's. */
static int copy_mems(const char *dir, char *why, size_t len)
{
	char parent[PATH_MAX], p[PATH_MAX], mems[256];
	ssize_t n;

	parent_of(dir, parent, sizeof(parent));
	if (ul_path_join(p, sizeof(p), parent, "cpuset.mems") ||
	    (n = ul_read_file(p, mems, sizeof(mems))) < 0) {
		ul_whyf(why, len, "cannot read %s/cpuset.mems", parent);
		return -EIO;
	}
	mems[strcspn(mems, "\n")] = '\0';
	return ul_cg_set_ctl(dir, "cpuset.mems", mems, why, len);
}

int ul_cpuset_make(struct ul_cpuset *cs, const char *cpus, char *why, size_t len)
{
	char parent[PATH_MAX];
	int rc;

	if (cs->shared) {
		parent_of(cs->path, parent, sizeof(parent));
		if (!ul_cg_v2_delegate(parent, "cpuset")) {
			ul_whyf(why, len, "cannot enable the cpuset controller in %s", parent);
			return -ENOTSUP;
		}
		return ul_cg_set_ctl(cs->path, "cpuset.cpus", cpus, why, len);
	}
	if (mkdir(cs->path, 0755) < 0) {
		rc = -errno;
		ul_whyf(why, len,
			rc == -EEXIST ? "%s exists already (try 'underload cleanup')"
				      : "cannot create %s: %s",
			cs->path, strerror(-rc));
		return rc;
	}
	rc = ul_cg_set_ctl(cs->path, "cpuset.cpus", cpus, why, len);
	if (!rc && cs->version == 1)
		rc = copy_mems(cs->path, why, len);
	if (rc)
		(void)rmdir(cs->path);
	return rc;
}

/* Our own cgroup's cgroup.procs in the hierarchy of cs, into out. */
static int home_procs(const struct ul_cpuset *cs, char *out, size_t len)
{
	struct ul_cg_mount m;
	char dir[PATH_MAX];

	if (cs->version == 2 ? ul_cg_find_mount("cgroup2", NULL, &m)
			     : ul_cg_find_mount("cgroup", "cpuset", &m))
		return -ENOENT;
	ul_cg_own_dir(&m, cs->version == 2 ? NULL : "cpuset", dir, sizeof(dir));
	return ul_path_join(out, len, dir, "cgroup.procs");
}

int ul_cpuset_enter(struct ul_cpuset *cs, char *why, size_t len)
{
	char procs[PATH_MAX];
	int rc;

	if (cs->shared)
		return 0;
	rc = home_procs(cs, cs->home, sizeof(cs->home));
	if (!rc)
		rc = ul_path_join(procs, sizeof(procs), cs->path, "cgroup.procs");
	if (!rc)
		rc = ul_write_file(procs, "0");
	if (rc) {
		ul_whyf(why, len, "cannot move into %s: %s", cs->path, strerror(-rc));
		cs->home[0] = '\0';
	}
	return rc;
}

int ul_cpuset_leave(struct ul_cpuset *cs)
{
	int rc;

	if (!cs->home[0])
		return 0;
	rc = ul_write_file(cs->home, "0");
	if (!rc)
		cs->home[0] = '\0';
	return rc;
}

int ul_cpus_pin(const cpu_set_t *set, cpu_set_t *saved)
{
	if (sched_getaffinity(0, sizeof(*saved), saved) || sched_setaffinity(0, sizeof(*set), set))
		return -errno;
	return 0;
}

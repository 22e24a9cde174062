/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * The run's memory cgroup on cgroup v2 or v1: find the hierarchy, create
 * and limit the group, read its counters, kill its processes and remove it.
 */
#include "core/compat.h"
#include "core/clock.h"
#include "core/file.h"
#include "core/log.h"
#include "proc/cgroup.h"

#include <ctype.h>
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <linux/magic.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/vfs.h>
#include <unistd.h>

#define DESTROY_DEADLINE_NS (5 * UL_NS_PER_SEC)
#define MAX_NESTING 8

static int join(char *out, size_t len, const char *dir, const char *name)
{
	int n = snprintf(out, len, "%s/%s", dir, name);

	return n < 0 || (size_t)n >= len ? -ENAMETOOLONG : 0;
}

static bool exists(const char *dir, const char *name)
{
	char p[PATH_MAX];

	return !join(p, sizeof(p), dir, name) && access(p, F_OK) == 0;
}

/* A u64 control file; "max" (v2) reads as UINT64_MAX. */
static int read_u64(const char *dir, const char *name, uint64_t *v)
{
	char p[PATH_MAX], buf[64], *end;
	ssize_t n;

	if (join(p, sizeof(p), dir, name))
		return -ENAMETOOLONG;
	n = ul_read_file(p, buf, sizeof(buf));
	if (n < 0)
		return (int)n;
	if (!strncmp(buf, "max", 3)) {
		*v = UINT64_MAX;
		return 0;
	}
	errno = 0;
	*v = strtoull(buf, &end, 10);
	if (errno || end == buf)
		return -EINVAL;
	return 0;
}

/* Find "key N" as a whole line of a flat-keyed file (memory.stat, memory.events). */
static bool key_u64(const char *text, const char *key, uint64_t *v)
{
	size_t klen = strlen(key);
	const char *p = text;

	while (p && *p) {
		if (!strncmp(p, key, klen) && p[klen] == ' ') {
			char *end;

			errno = 0;
			*v = strtoull(p + klen + 1, &end, 10);
			return !errno && end != p + klen + 1;
		}
		p = strchr(p, '\n');
		if (p)
			p++;
	}
	return false;
}

/* Is word one of the space/comma separated tokens in list? */
static bool has_token(const char *list, const char *word)
{
	size_t wlen = strlen(word);
	const char *p = list;

	while (*p) {
		size_t n;

		while (*p == ' ' || *p == ',' || *p == '\n' || *p == '\t')
			p++;
		n = strcspn(p, " ,\n\t");
		if (n == wlen && !strncmp(p, word, wlen))
			return true;
		p += n;
	}
	return false;
}

/* Undo mountinfo's octal escapes (\040 for a space ...) in place. */
static void unescape(char *s)
{
	char *w = s;

	for (; *s; s++) {
		if (s[0] == '\\' && s[1] >= '0' && s[1] <= '3' && s[2] >= '0' && s[2] <= '7' &&
		    s[3] >= '0' && s[3] <= '7') {
			*w++ = (char)((s[1] - '0') * 64 + (s[2] - '0') * 8 + (s[3] - '0'));
			s += 3;
		} else {
			*w++ = *s;
		}
	}
	*w = '\0';
}

struct mount {
	char point[PATH_MAX];	/* where it is mounted */
	char root[PATH_MAX];	/* the cgroup path its root shows (bind mounts, namespaces) */
};

/*
 * The first mount of fstype ("cgroup2", or "cgroup" whose super options
 * name the memory controller).  0, -ENOENT or -errno.
 */
static int find_mount(bool v2, struct mount *m)
{
	FILE *f = fopen("/proc/self/mountinfo", "re");
	char *line = NULL;
	size_t cap = 0;
	int rc = -ENOENT;

	if (!f)
		return -errno;
	while (getline(&line, &cap, f) > 0) {
		char *field[6], *sep, *fstype, *super, *save = NULL, *tok;
		int n = 0;

		line[strcspn(line, "\n")] = '\0';
		sep = strstr(line, " - ");
		if (!sep)
			continue;
		*sep = '\0';
		fstype = strtok_r(sep + 3, " ", &save);
		(void)strtok_r(NULL, " ", &save); /* source */
		super = strtok_r(NULL, " ", &save);
		if (!fstype || !super)
			continue;
		if (v2 ? strcmp(fstype, "cgroup2") : strcmp(fstype, "cgroup"))
			continue;
		if (!v2 && !has_token(super, "memory"))
			continue;
		save = NULL;
		tok = strtok_r(line, " ", &save);
		for (; tok && n < 6; tok = strtok_r(NULL, " ", &save))
			field[n++] = tok;
		if (n < 5)
			continue;
		unescape(field[3]);
		unescape(field[4]);
		if (strlen(field[3]) >= sizeof(m->root) || strlen(field[4]) >= sizeof(m->point))
			continue;
		strcpy(m->root, field[3]);
		strcpy(m->point, field[4]);
		rc = 0;
		break;
	}
	free(line);
	fclose(f);
	return rc;
}

/*
 * Our own cgroup's directory in that mount, from /proc/self/cgroup; the
 * mount point itself when our cgroup is not visible below it.
 */
static void own_cgroup_dir(bool v2, const struct mount *m, char *out, size_t len)
{
	FILE *f = fopen("/proc/self/cgroup", "re");
	char *line = NULL;
	size_t cap = 0;

	snprintf(out, len, "%s", m->point);
	if (!f)
		return;
	while (getline(&line, &cap, f) > 0) {
		char *c1 = strchr(line, ':'), *c2 = c1 ? strchr(c1 + 1, ':') : NULL, *cg;
		size_t rlen = strlen(m->root);
		const char *rel;
		char buf[PATH_MAX];
		int n;

		if (!c2)
			continue;
		*c1 = '\0';
		*c2 = '\0';
		cg = c2 + 1;
		cg[strcspn(cg, "\n")] = '\0';
		if (v2 ? strcmp(line, "0") || c2 != c1 + 1 : !has_token(c1 + 1, "memory"))
			continue;
		if (!strcmp(m->root, "/"))
			rel = cg;
		else if (!strncmp(cg, m->root, rlen) && (cg[rlen] == '/' || !cg[rlen]))
			rel = cg + rlen;
		else
			break;
		if (!strcmp(rel, "/"))
			rel = "";
		n = snprintf(buf, sizeof(buf), "%s%s", m->point, rel);
		if (n > 0 && (size_t)n < sizeof(buf) && access(buf, W_OK) == 0)
			snprintf(out, len, "%s", buf);
		break;
	}
	free(line);
	fclose(f);
}

/*
 * A v2 directory whose children get the memory controller: one that has it
 * in cgroup.subtree_control, or can be given it ("no internal processes"
 * makes that fail for our own non-root cgroup, hence the walk upward).
 */
static bool v2_parent_ok(const char *dir)
{
	char p[PATH_MAX], buf[512];

	if (join(p, sizeof(p), dir, "cgroup.subtree_control") || ul_read_file(p, buf, sizeof(buf)) < 0)
		return false;
	if (has_token(buf, "memory"))
		return true;
	if (access(dir, W_OK))
		return false;
	{
		char c[PATH_MAX];

		if (join(c, sizeof(c), dir, "cgroup.controllers") ||
		    ul_read_file(c, buf, sizeof(buf)) < 0 || !has_token(buf, "memory"))
			return false;
	}
	return ul_write_file(p, "+memory") == 0;
}

/* Pick the parent directory and version.  0, or -ENOTSUP with a reason. */
static int find_parent(char *parent, size_t len, int *version, char *why, size_t wlen)
{
	struct mount m;
	char buf[512], p[PATH_MAX];

	if (!find_mount(true, &m) && !join(p, sizeof(p), m.point, "cgroup.controllers") &&
	    ul_read_file(p, buf, sizeof(buf)) >= 0 && has_token(buf, "memory")) {
		char dir[PATH_MAX];
		size_t plen = strlen(m.point);

		own_cgroup_dir(true, &m, dir, sizeof(dir));
		for (;;) {
			char *slash;

			if (v2_parent_ok(dir)) {
				snprintf(parent, len, "%s", dir);
				*version = 2;
				return 0;
			}
			if (strlen(dir) <= plen)
				break;
			slash = strrchr(dir, '/');
			if (!slash || (size_t)(slash - dir) < plen)
				break;
			*slash = '\0';
		}
		/* v2 offers memory but we may not use it: v1 cannot have it then. */
		ul_whyf(why, wlen, "cgroup v2 at %s has the memory controller but no cgroup "
			           "here can delegate it (not writable, or internal processes)",
		        m.point);
		return -ENOTSUP;
	}
	if (!find_mount(false, &m)) {
		own_cgroup_dir(false, &m, parent, len);
		*version = 1;
		return 0;
	}
	ul_whyf(why, wlen, "no memory cgroup controller: no cgroup2 mount offering it and no "
		           "cgroup v1 mount with the memory controller in /proc/self/mountinfo");
	return -ENOTSUP;
}

static bool name_ok(const char *name)
{
	size_t n = strlen(name);

	/* Starting with a letter or digit: never ".", ".." or a hidden name. */
	if (!n || n > 64 || !isalnum((unsigned char)name[0]))
		return false;
	for (; *name; name++)
		if (!isalnum((unsigned char)*name) && !strchr("._-", *name))
			return false;
	return true;
}

static void fmt_limit(char *buf, size_t len, uint64_t v, int version)
{
	if (v == UINT64_MAX)
		snprintf(buf, len, "%s", version == 2 ? "max" : "-1");
	else
		snprintf(buf, len, "%" PRIu64, v);
}

/* Write a control file of the new cgroup, with a reason on failure. */
static int set_ctl(const char *dir, const char *file, const char *val, char *why, size_t len)
{
	char p[PATH_MAX];
	int rc = join(p, sizeof(p), dir, file);

	if (!rc)
		rc = ul_write_file(p, val);
	if (rc)
		ul_whyf(why, len, "cannot write '%s' to %s: %s", val, p, strerror(-rc));
	return rc;
}

/*
 * v2: the limit is memory.high (throttle and reclaim above it), memory.max
 * the hard limit UL_CGROUP_V2_HEADROOM above; the swap limit is
 * memory.swap.max.  limit_bytes is memory.high as read back.
 */
static int set_limits_v2(struct ul_cgroup *cg, uint64_t limit, uint64_t swap, char *why,
			 size_t len)
{
	uint64_t max = limit, back;
	char val[32];
	int rc;

	if (limit != UINT64_MAX)
		max = limit > UINT64_MAX - UL_CGROUP_V2_HEADROOM(limit)
			      ? UINT64_MAX
			      : limit + UL_CGROUP_V2_HEADROOM(limit);
	fmt_limit(val, sizeof(val), max, 2);
	rc = set_ctl(cg->path, "memory.max", val, why, len);
	if (rc)
		return rc;
	fmt_limit(val, sizeof(val), limit, 2);
	rc = set_ctl(cg->path, "memory.high", val, why, len);
	if (rc)
		return rc;
	if (swap != UINT64_MAX) {
		if (!exists(cg->path, "memory.swap.max")) {
			ul_whyf(why, len, "cannot limit swap: %s/memory.swap.max is missing "
				          "(kernel without swap accounting?)", cg->path);
			return -ENOTSUP;
		}
		fmt_limit(val, sizeof(val), swap, 2);
		rc = set_ctl(cg->path, "memory.swap.max", val, why, len);
		if (rc)
			return rc;
		cg->swap_limited = true;
	}
	rc = read_u64(cg->path, "memory.max", &cg->max_bytes);
	if (!rc)
		rc = read_u64(cg->path, "memory.high", &back);
	if (!rc)
		cg->limit_bytes = back;
	return rc;
}

/*
 * v1: memory.limit_in_bytes, then memory.memsw.limit_in_bytes = limit +
 * swap (it may never be below the limit), and the OOM killer disabled
 * (memory.oom_control 1) so that a charge failing at the limit waits
 * instead of killing; the caller's guard handles the waiters.
 */
static int set_limits_v1(struct ul_cgroup *cg, uint64_t limit, uint64_t swap, char *why,
			 size_t len)
{
	uint64_t back;
	char val[32];
	int rc;

	fmt_limit(val, sizeof(val), limit, 1);
	rc = set_ctl(cg->path, "memory.limit_in_bytes", val, why, len);
	if (rc)
		return rc;
	cg->memsw_bytes = UINT64_MAX;
	if (swap != UINT64_MAX) {
		uint64_t memsw = limit > UINT64_MAX - swap ? UINT64_MAX : limit + swap;

		if (!exists(cg->path, "memory.memsw.limit_in_bytes")) {
			ul_whyf(why, len, "cannot limit swap: %s/memory.memsw.limit_in_bytes "
				          "is missing (boot with swapaccount=1)", cg->path);
			return -ENOTSUP;
		}
		fmt_limit(val, sizeof(val), memsw, 1);
		rc = set_ctl(cg->path, "memory.memsw.limit_in_bytes", val, why, len);
		if (rc)
			return rc;
		cg->swap_limited = memsw != UINT64_MAX;
		rc = read_u64(cg->path, "memory.memsw.limit_in_bytes", &back);
		if (rc)
			return rc;
		cg->memsw_bytes = back >= (UINT64_C(1) << 62) ? UINT64_MAX : back;
	}
	/* Only a limited group can wait at its limit; without a limit the
	 * killer stays as inherited, which must then be enabled. */
	rc = set_ctl(cg->path, "memory.oom_control", limit != UINT64_MAX ? "1" : "0", why, len);
	if (rc)
		return rc;
	cg->oom_guarded = limit != UINT64_MAX;
	rc = read_u64(cg->path, "memory.limit_in_bytes", &back);
	if (!rc) {
		/* v1 shows "no limit" as a huge page-rounded number. */
		cg->limit_bytes = back >= (UINT64_C(1) << 62) ? UINT64_MAX : back;
		cg->max_bytes = cg->limit_bytes;
	}
	return rc;
}

static int set_limits(struct ul_cgroup *cg, uint64_t limit, uint64_t swap, char *why, size_t len)
{
	int rc = cg->version == 2 ? set_limits_v2(cg, limit, swap, why, len)
				  : set_limits_v1(cg, limit, swap, why, len);

	if (rc && why && len && !why[0])
		ul_whyf(why, len, "cannot read back the limits of %s: %s", cg->path, strerror(-rc));
	return rc;
}

int ul_cgroup_plan(const char *name, struct ul_cgroup *out, char *why, size_t len)
{
	char parent[PATH_MAX];
	int version = 0, rc, n;

	memset(out, 0, sizeof(*out));
	if (why && len)
		why[0] = '\0';
	if (!name || !name_ok(name)) {
		ul_whyf(why, len, "bad cgroup name '%s': want 1-64 of A-Z a-z 0-9 . _ -, "
			          "starting with a letter or digit",
		        name ? name : "(null)");
		return -EINVAL;
	}
	rc = find_parent(parent, sizeof(parent), &version, why, len);
	if (rc)
		return rc;
	n = snprintf(out->path, sizeof(out->path), "%s/" UL_CGROUP_PREFIX "%s", parent, name);
	if (n < 0 || (size_t)n >= sizeof(out->path) ||
	    join(out->procs, sizeof(out->procs), out->path, "cgroup.procs")) {
		ul_whyf(why, len, "cgroup path too long below %s", parent);
		out->path[0] = '\0';
		return -ENAMETOOLONG;
	}
	out->version = version;
	return 0;
}

int ul_cgroup_make(struct ul_cgroup *cg, uint64_t limit_bytes, uint64_t swap_limit_bytes,
		   char *why, size_t len)
{
	int rc;

	if (mkdir(cg->path, 0755) < 0) {
		rc = -errno;
		if (rc == -EEXIST)
			ul_whyf(why, len, "%s exists already (left by an earlier run? try "
				          "'underload cleanup')", cg->path);
		else
			ul_whyf(why, len, "cannot create %s: %s", cg->path, strerror(-rc));
		return rc;
	}
	rc = set_limits(cg, limit_bytes, swap_limit_bytes, why, len);
	if (rc) {
		(void)rmdir(cg->path);
		return rc;
	}
	return 0;
}

int ul_cgroup_create(const char *name, uint64_t limit_bytes, uint64_t swap_limit_bytes,
		     struct ul_cgroup *out, char *why, size_t len)
{
	int rc = ul_cgroup_plan(name, out, why, len);

	if (!rc)
		rc = ul_cgroup_make(out, limit_bytes, swap_limit_bytes, why, len);
	if (rc)
		out->path[0] = '\0';
	return rc;
}

ssize_t ul_cgroup_ctl_read(const struct ul_cgroup *cg, const char *name, char *buf, size_t len)
{
	char p[PATH_MAX];

	if (!cg->path[0])
		return -ENOENT;
	if (join(p, sizeof(p), cg->path, name))
		return -ENAMETOOLONG;
	return ul_read_file(p, buf, len);
}

int ul_cgroup_ctl_write(const struct ul_cgroup *cg, const char *name, const char *val)
{
	char p[PATH_MAX];

	if (!cg->path[0])
		return -ENOENT;
	if (join(p, sizeof(p), cg->path, name))
		return -ENAMETOOLONG;
	return ul_write_file(p, val);
}

int ul_cgroup_read(const struct ul_cgroup *cg, struct ul_cgroup_stats *st)
{
	char text[8192], p[PATH_MAX];
	const char *dir = cg->path;
	uint64_t v;
	int rc;

	memset(st, 0, sizeof(*st));
	if (!dir[0])
		return -ENOENT;
	rc = read_u64(dir, cg->version == 2 ? "memory.current" : "memory.usage_in_bytes",
		      &st->current_bytes);
	if (rc)
		return rc;
	st->have |= UL_CG_HAVE_CURRENT;
	if (!read_u64(dir, cg->version == 2 ? "memory.peak" : "memory.max_usage_in_bytes",
		      &st->peak_bytes))
		st->have |= UL_CG_HAVE_PEAK;

	if (cg->version == 2) {
		if (!read_u64(dir, "memory.swap.current", &st->swap_bytes))
			st->have |= UL_CG_HAVE_SWAP;
		if (!join(p, sizeof(p), dir, "memory.events") &&
		    ul_read_file(p, text, sizeof(text)) >= 0) {
			if (key_u64(text, "max", &st->limit_hits))
				st->have |= UL_CG_HAVE_LIMIT_HITS;
			if (key_u64(text, "high", &st->high_events))
				st->have |= UL_CG_HAVE_HIGH;
			if (key_u64(text, "oom", &st->oom))
				st->have |= UL_CG_HAVE_OOM;
			if (key_u64(text, "oom_kill", &st->oom_kill))
				st->have |= UL_CG_HAVE_OOM_KILL;
		}
	} else {
		/* With memsw limited the memory+swap counter is charged first, so
		 * its failures are limit hits as well. */
		if (!read_u64(dir, "memory.failcnt", &st->limit_hits)) {
			st->have |= UL_CG_HAVE_LIMIT_HITS;
			if (!read_u64(dir, "memory.memsw.failcnt", &v))
				st->limit_hits += v;
		}
		if (!join(p, sizeof(p), dir, "memory.oom_control") &&
		    ul_read_file(p, text, sizeof(text)) >= 0) {
			if (key_u64(text, "oom_kill", &st->oom_kill))
				st->have |= UL_CG_HAVE_OOM_KILL;
			if (key_u64(text, "under_oom", &v)) {
				st->under_oom = v != 0;
				st->have |= UL_CG_HAVE_UNDER_OOM;
			}
		}
	}

	if (!join(p, sizeof(p), dir, "memory.stat") && ul_read_file(p, text, sizeof(text)) >= 0) {
		/* v1's total_* include child cgroups, as v2's counters do. */
		if (key_u64(text, "total_pgmajfault", &st->pgmajfault) ||
		    key_u64(text, "pgmajfault", &st->pgmajfault))
			st->have |= UL_CG_HAVE_PGMAJFAULT;
		if (key_u64(text, "pswpin", &st->pswpin))
			st->have |= UL_CG_HAVE_PSWPIN;
		if (key_u64(text, "pswpout", &st->pswpout))
			st->have |= UL_CG_HAVE_PSWPOUT;
		/* v1 lists swap only with swap accounting on. */
		if (cg->version == 1 && (key_u64(text, "total_swap", &st->swap_bytes) ||
					 key_u64(text, "swap", &st->swap_bytes)))
			st->have |= UL_CG_HAVE_SWAP;
	}
	return 0;
}

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

/* Empty and remove dir and its child cgroups, deepest first. */
static int destroy_dir(const char *dir, int version, ul_nsec deadline, int depth)
{
	char procs[PATH_MAX], killf[PATH_MAX];
	pid_t *pids = NULL;
	size_t cap = 0;
	DIR *d;
	int rc = 0;

	if (depth > MAX_NESTING)
		return -ELOOP;
	d = opendir(dir);
	if (!d)
		return errno == ENOENT ? 0 : -errno;
	for (struct dirent *e; (e = readdir(d));) {
		char sub[PATH_MAX];

		if (e->d_type != DT_DIR || !strcmp(e->d_name, ".") || !strcmp(e->d_name, ".."))
			continue;
		if (join(sub, sizeof(sub), dir, e->d_name))
			continue;
		rc = destroy_dir(sub, version, deadline, depth + 1);
		if (rc)
			break;
	}
	closedir(d);
	if (rc)
		return rc;

	if (join(procs, sizeof(procs), dir, "cgroup.procs") ||
	    join(killf, sizeof(killf), dir, "cgroup.kill"))
		return -ENAMETOOLONG;
	/* v2 (5.14+) kills the whole subtree at once, forks included. */
	if (version == 2 && access(killf, F_OK) == 0)
		(void)ul_write_file(killf, "1");
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

int ul_cgroup_destroy(struct ul_cgroup *cg)
{
	int rc;

	if (!cg->path[0])
		return 0;
	rc = destroy_dir(cg->path, cg->version, ul_now_ns() + DESTROY_DEADLINE_NS, 0);
	if (!rc)
		cg->path[0] = '\0';
	return rc;
}

int ul_cgroup_destroy_path(const char *path)
{
	struct ul_cgroup cg = { .version = 1 };
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
	if (sfs.f_type == CGROUP2_SUPER_MAGIC)
		cg.version = 2;
	else if (sfs.f_type != CGROUP_SUPER_MAGIC)
		return -EINVAL;
	return ul_cgroup_destroy(&cg);
}

/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * The common front of the run's memory cgroup (contract: cgroup.h; the
 * back ends' contract: backend.h).  Here: the group's name and
 * path, the choice of a version (v2 when a v2 hierarchy offers the memory
 * controller, else v1), creation and the limits' dispatch, the control
 * files, the counters both versions share, and the helpers the back ends
 * share (control files, flat-keyed files, mountinfo and /proc/self/cgroup).
 * The versions' own rules live in v1.c and v2.c, emptying
 * and removal in destroy.c.
 */
#include "core/compat.h"
#include "core/file.h"
#include "core/log.h"
#include "proc/cgroup/backend.h"

#include <ctype.h>
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

/* In the order they are tried: v2 first (v1 cannot have the controller
 * while v2 has it). */
static const struct ul_cg_backend *const backends[] = { &ul_cg_v2, &ul_cg_v1 };

const struct ul_cg_backend *ul_cg_backend_of(int version)
{
	return version == 2 ? &ul_cg_v2 : &ul_cg_v1;
}

const struct ul_cg_backend *ul_cg_backend_of_fs(unsigned long fs_magic)
{
	for (size_t i = 0; i < UL_ARRAY_SIZE(backends); i++)
		if (backends[i]->fs_magic == fs_magic)
			return backends[i];
	return NULL;
}

/* The shared helpers of backend.h. */
bool ul_cg_exists(const char *dir, const char *name)
{
	char p[PATH_MAX];

	return !ul_path_join(p, sizeof(p), dir, name) && access(p, F_OK) == 0;
}

int ul_cg_read_u64(const char *dir, const char *name, uint64_t *v)
{
	char p[PATH_MAX], buf[64], *end;
	ssize_t n;

	if (ul_path_join(p, sizeof(p), dir, name))
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

bool ul_cg_key_u64(const char *text, const char *key, uint64_t *v)
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

bool ul_cg_has_token(const char *list, const char *word)
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

int ul_cg_set_ctl(const char *dir, const char *file, const char *val, char *why, size_t len)
{
	char p[PATH_MAX];
	int rc = ul_path_join(p, sizeof(p), dir, file);

	if (!rc)
		rc = ul_write_file(p, val);
	if (rc)
		ul_whyf(why, len, "cannot write '%s' to %s: %s", val, p, strerror(-rc));
	return rc;
}

int ul_cg_write_limit(const char *dir, const char *file, uint64_t v, const char *unlimited,
		      char *why, size_t len)
{
	char val[32];

	if (v == UINT64_MAX)
		snprintf(val, sizeof(val), "%s", unlimited);
	else
		snprintf(val, sizeof(val), "%" PRIu64, v);
	return ul_cg_set_ctl(dir, file, val, why, len);
}

int ul_cg_need_swap_ctl(const char *dir, const char *file, const char *hint, char *why, size_t len)
{
	if (ul_cg_exists(dir, file))
		return 0;
	ul_whyf(why, len, "cannot limit swap: %s/%s is missing (%s)", dir, file, hint);
	return -ENOTSUP;
}

/* ---- mountinfo and /proc/self/cgroup -------------------------------- */

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

int ul_cg_find_mount(const char *fstype, const char *controller, struct ul_cg_mount *m)
{
	FILE *f = fopen("/proc/self/mountinfo", "re");
	char *line = NULL;
	size_t cap = 0;
	int rc = -ENOENT;

	if (!f)
		return -errno;
	while (getline(&line, &cap, f) > 0) {
		char *field[6], *sep, *type, *super, *save = NULL, *tok;
		int n = 0;

		line[strcspn(line, "\n")] = '\0';
		sep = strstr(line, " - ");
		if (!sep)
			continue;
		*sep = '\0';
		type = strtok_r(sep + 3, " ", &save);
		(void)strtok_r(NULL, " ", &save); /* source */
		super = strtok_r(NULL, " ", &save);
		if (!type || !super || strcmp(type, fstype))
			continue;
		if (controller && !ul_cg_has_token(super, controller))
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
 * Is this /proc/self/cgroup line ("ID:CONTROLLERS:PATH", split at the
 * colons) the one of controller's hierarchy (NULL: v2's "0::" line)?
 */
static bool own_line(const char *id, const char *controllers, const char *controller)
{
	if (!controller)
		return !strcmp(id, "0") && !controllers[0];
	return ul_cg_has_token(controllers, controller);
}

void ul_cg_own_dir(const struct ul_cg_mount *m, const char *controller, char *out, size_t len)
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
		if (!own_line(line, c1 + 1, controller))
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

/* ---- the group ------------------------------------------------------ */

/* Ask the back ends in turn for the parent directory.  0, or -errno with a reason. */
static int find_parent(char *parent, size_t len, int *version, char *why, size_t wlen)
{
	for (size_t i = 0; i < UL_ARRAY_SIZE(backends); i++) {
		int rc = backends[i]->find_parent(parent, len, why, wlen);

		if (rc != -ENOENT) {
			*version = backends[i]->version;
			return rc;
		}
	}
	ul_whyf(why, wlen,
		"no memory cgroup controller: no cgroup2 mount offering it and no "
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

static int set_limits(struct ul_cgroup *cg, uint64_t limit, uint64_t swap, char *why, size_t len)
{
	int rc = ul_cg_backend_of(cg->version)->set_limits(cg, limit, swap, why, len);

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
		ul_whyf(why, len,
			"bad cgroup name '%s': want 1-64 of A-Z a-z 0-9 . _ -, "
			"starting with a letter or digit",
			name ? name : "(null)");
		return -EINVAL;
	}
	rc = find_parent(parent, sizeof(parent), &version, why, len);
	if (rc)
		return rc;
	n = snprintf(out->path, sizeof(out->path), "%s/" UL_CGROUP_PREFIX "%s", parent, name);
	if (n < 0 || (size_t)n >= sizeof(out->path) ||
	    ul_path_join(out->procs, sizeof(out->procs), out->path, "cgroup.procs")) {
		ul_whyf(why, len, "cgroup path too long below %s", parent);
		out->path[0] = '\0';
		return -ENAMETOOLONG;
	}
	out->version = version;
	return 0;
}

int ul_cgroup_permitted(char *why, size_t len)
{
	struct ul_cgroup cg;
	char *slash;

	if (ul_cgroup_plan("permitted", &cg, why, len))
		return 0;
	slash = strrchr(cg.path, '/');
	if (!slash || slash == cg.path)
		return 0;
	*slash = '\0';
	if (faccessat(AT_FDCWD, cg.path, W_OK, AT_EACCESS) == 0)
		return 0;
	ul_whyf(why, len,
		"cannot create a cgroup in %s: %s (needs root, or a cgroup delegated to you)",
		cg.path, strerror(errno));
	return -EACCES;
}

int ul_cgroup_make(struct ul_cgroup *cg, uint64_t limit_bytes, uint64_t swap_limit_bytes, char *why,
		   size_t len)
{
	int rc;

	if (mkdir(cg->path, 0755) < 0) {
		rc = -errno;
		if (rc == -EEXIST)
			ul_whyf(why, len,
				"%s exists already (left by an earlier run? try 'underload cleanup')",
				cg->path);
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
	if (ul_path_join(p, sizeof(p), cg->path, name))
		return -ENAMETOOLONG;
	return ul_read_file(p, buf, len);
}

int ul_cgroup_ctl_write(const struct ul_cgroup *cg, const char *name, const char *val)
{
	char p[PATH_MAX];

	if (!cg->path[0])
		return -ENOENT;
	if (ul_path_join(p, sizeof(p), cg->path, name))
		return -ENAMETOOLONG;
	return ul_write_file(p, val);
}

/* The memory.stat counters both versions name alike. */
static void read_stat(const char *text, struct ul_cgroup_stats *st)
{
	/* v1's total_* include child cgroups, as v2's counters do. */
	if (ul_cg_key_u64(text, "total_pgmajfault", &st->pgmajfault) ||
	    ul_cg_key_u64(text, "pgmajfault", &st->pgmajfault))
		st->have |= UL_CG_HAVE_PGMAJFAULT;
	if (ul_cg_key_u64(text, "pswpin", &st->pswpin))
		st->have |= UL_CG_HAVE_PSWPIN;
	if (ul_cg_key_u64(text, "pswpout", &st->pswpout))
		st->have |= UL_CG_HAVE_PSWPOUT;
}

int ul_cgroup_read(const struct ul_cgroup *cg, struct ul_cgroup_stats *st)
{
	const struct ul_cg_backend *be = ul_cg_backend_of(cg->version);
	char text[8192], p[PATH_MAX];
	const char *dir = cg->path, *stat = NULL;
	int rc;

	memset(st, 0, sizeof(*st));
	if (!dir[0])
		return -ENOENT;
	rc = ul_cg_read_u64(dir, be->current_file, &st->current_bytes);
	if (rc)
		return rc;
	st->have |= UL_CG_HAVE_CURRENT;
	if (!ul_cg_read_u64(dir, be->peak_file, &st->peak_bytes))
		st->have |= UL_CG_HAVE_PEAK;
	if (!ul_path_join(p, sizeof(p), dir, "memory.stat") &&
	    ul_read_file(p, text, sizeof(text)) >= 0) {
		stat = text;
		read_stat(stat, st);
	}
	be->read_counters(dir, stat, st);
	return 0;
}

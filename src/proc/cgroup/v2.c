/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * The cgroup v2 back end of proc/cgroup (contract: backend.h).
 *
 * One unified hierarchy (fstype "cgroup2").  A group gets the memory
 * controller only from a parent that lists it in cgroup.subtree_control,
 * and "no internal processes" forbids enabling it in our own non-root
 * cgroup, so the parent is searched upward from our own cgroup.  The limit
 * is memory.high (throttle and reclaim above it, never kill) with the hard
 * memory.max UL_CGROUP_V2_HEADROOM above; the swap limit is
 * memory.swap.max.  Counters: memory.current, memory.peak (5.19+),
 * memory.swap.current, memory.events; cgroup.kill (5.14+) empties a
 * subtree at once.
 */
#include "core/compat.h"
#include "core/file.h"
#include "core/log.h"
#include "proc/cgroup/backend.h"

#include <errno.h>
#include <linux/magic.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

/* See backend.h. */
bool ul_cg_v2_delegate(const char *dir, const char *controller)
{
	char sub[PATH_MAX], ctl[PATH_MAX], buf[512], plus[64];

	if (ul_path_join(sub, sizeof(sub), dir, "cgroup.subtree_control") ||
	    ul_read_file(sub, buf, sizeof(buf)) < 0)
		return false;
	if (ul_cg_has_token(buf, controller))
		return true;
	if (access(dir, W_OK))
		return false;
	if (ul_path_join(ctl, sizeof(ctl), dir, "cgroup.controllers") ||
	    ul_read_file(ctl, buf, sizeof(buf)) < 0 || !ul_cg_has_token(buf, controller))
		return false;
	snprintf(plus, sizeof(plus), "+%s", controller);
	return ul_write_file(sub, plus) == 0;
}

int ul_cg_v2_parent(const char *controller, char *parent, size_t len, char *why, size_t wlen)
{
	struct ul_cg_mount m;
	char buf[512], p[PATH_MAX], dir[PATH_MAX];
	size_t plen;

	if (ul_cg_find_mount("cgroup2", NULL, &m) ||
	    ul_path_join(p, sizeof(p), m.point, "cgroup.controllers") ||
	    ul_read_file(p, buf, sizeof(buf)) < 0 || !ul_cg_has_token(buf, controller))
		return -ENOENT;
	plen = strlen(m.point);
	ul_cg_own_dir(&m, NULL, dir, sizeof(dir));
	for (;;) {
		char *slash;

		if (ul_cg_v2_delegate(dir, controller)) {
			snprintf(parent, len, "%s", dir);
			return 0;
		}
		if (strlen(dir) <= plen)
			break;
		slash = strrchr(dir, '/');
		if (!slash || (size_t)(slash - dir) < plen)
			break;
		*slash = '\0';
	}
	/* v2 offers it but we may not use it: v1 cannot have it then. */
	ul_whyf(why, wlen,
		"cgroup v2 at %s has the %s controller but no cgroup "
		"here can delegate it (not writable, or internal processes)",
		m.point, controller);
	return -ENOTSUP;
}

/* See the contract: -ENOENT without a cgroup2 mount offering memory. */
static int v2_find_parent(char *parent, size_t len, char *why, size_t wlen)
{
	return ul_cg_v2_parent("memory", parent, len, why, wlen);
}

/*
 * memory.max first (limit plus headroom), then memory.high = limit, then
 * memory.swap.max; limit_bytes is memory.high as read back, max_bytes
 * memory.max.
 */
static int v2_set_limits(struct ul_cgroup *cg, uint64_t limit, uint64_t swap, char *why, size_t len)
{
	uint64_t max = limit;
	int rc;

	if (limit != UINT64_MAX)
		max = limit > UINT64_MAX - UL_CGROUP_V2_HEADROOM(limit)
			      ? UINT64_MAX
			      : limit + UL_CGROUP_V2_HEADROOM(limit);
	rc = ul_cg_write_limit(cg->path, "memory.max", max, "max", why, len);
	if (!rc)
		rc = ul_cg_write_limit(cg->path, "memory.high", limit, "max", why, len);
	if (!rc && swap != UINT64_MAX) {
		rc = ul_cg_need_swap_ctl(cg->path, "memory.swap.max",
					 "kernel without swap accounting?", why, len);
		if (!rc)
			rc = ul_cg_write_limit(cg->path, "memory.swap.max", swap, "max", why, len);
		cg->swap_limited = !rc;
	}
	if (!rc)
		rc = ul_cg_read_u64(cg->path, "memory.max", &cg->max_bytes);
	if (!rc)
		rc = ul_cg_read_u64(cg->path, "memory.high", &cg->limit_bytes);
	return rc;
}

/* memory.swap.current and the memory.events counts. */
static void v2_read_counters(const char *dir, const char *stat, struct ul_cgroup_stats *st)
{
	const struct {
		const char *key;
		uint64_t *v;
		unsigned have;
	} events[] = {
		{ "max", &st->limit_hits, UL_CG_HAVE_LIMIT_HITS },
		{ "high", &st->high_events, UL_CG_HAVE_HIGH },
		{ "oom", &st->oom, UL_CG_HAVE_OOM },
		{ "oom_kill", &st->oom_kill, UL_CG_HAVE_OOM_KILL },
	};
	char text[1024], p[PATH_MAX];

	(void)stat;
	if (!ul_cg_read_u64(dir, "memory.swap.current", &st->swap_bytes))
		st->have |= UL_CG_HAVE_SWAP;
	if (ul_path_join(p, sizeof(p), dir, "memory.events") ||
	    ul_read_file(p, text, sizeof(text)) < 0)
		return;
	for (size_t i = 0; i < UL_ARRAY_SIZE(events); i++)
		if (ul_cg_key_u64(text, events[i].key, events[i].v))
			st->have |= events[i].have;
}

/* v2 (5.14+) kills the whole subtree at once, forks included. */
static void v2_kill_all(const char *dir)
{
	char killf[PATH_MAX];

	if (!ul_path_join(killf, sizeof(killf), dir, "cgroup.kill") && access(killf, F_OK) == 0)
		(void)ul_write_file(killf, "1");
}

const struct ul_cg_backend ul_cg_v2 = {
	.version = 2,
	.fs_magic = CGROUP2_SUPER_MAGIC,
	.current_file = "memory.current",
	.peak_file = "memory.peak",
	.find_parent = v2_find_parent,
	.set_limits = v2_set_limits,
	.read_counters = v2_read_counters,
	.kill_all = v2_kill_all,
};

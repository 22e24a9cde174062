/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * The v1 OOM guard: wake tasks waiting at the limit, end a real deadlock.
 */
#include "core/compat.h"
#include "proc/cgroup/guard.h"

#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

void ul_cgroup_guard_init(struct ul_cgroup_guard *g)
{
	memset(g, 0, sizeof(*g));
}

/* under_oom of memory.oom_control: 1, 0, or -errno. */
static int under_oom(const struct ul_cgroup *cg)
{
	char buf[256];
	const char *u;
	ssize_t n = ul_cgroup_ctl_read(cg, "memory.oom_control", buf, sizeof(buf));

	if (n < 0)
		return (int)n;
	u = strstr(buf, "under_oom ");
	if (!u)
		return -EINVAL;
	return u[strlen("under_oom ")] == '1';
}

static int write_u64(const struct ul_cgroup *cg, const char *file, uint64_t v)
{
	char val[32];

	snprintf(val, sizeof(val), "%" PRIu64, v);
	return ul_cgroup_ctl_write(cg, file, val);
}

/*
 * The limit to raise: memsw when it is set (its usage rarely reaches it,
 * so putting it back needs no reclaim), else the memory limit (putting it
 * back makes this process reclaim the group down to it: -EBUSY when it
 * cannot yet, retried at the next poll).
 */
static const char *nudge_file(const struct ul_cgroup *cg, uint64_t *v)
{
	if (cg->memsw_bytes != UINT64_MAX) {
		*v = cg->memsw_bytes;
		return "memory.memsw.limit_in_bytes";
	}
	*v = cg->limit_bytes;
	return "memory.limit_in_bytes";
}

/* Raising a limit wakes the group's waiters (memcg1_oom_recover). */
static void nudge(const struct ul_cgroup *cg, struct ul_cgroup_guard *g)
{
	uint64_t v;
	const char *file = nudge_file(cg, &v);
	long page = sysconf(_SC_PAGESIZE);

	if (write_u64(cg, file, v + (uint64_t)(page > 0 ? page : 4096)) == 0) {
		g->st.nudges++;
		g->restore_pending = write_u64(cg, file, v) != 0;
	}
}

static void stall_ended(struct ul_cgroup_guard *g, ul_nsec now_ns)
{
	uint64_t len = (uint64_t)(now_ns - g->stalled_since_ns);

	g->st.stalls++;
	g->st.stall_ns += len;
	if (len > g->st.longest_stall_ns)
		g->st.longest_stall_ns = len;
	g->stalled_since_ns = 0;
}

int ul_cgroup_guard_step(const struct ul_cgroup *cg, struct ul_cgroup_guard *g, ul_nsec now_ns)
{
	int u;

	if (!cg->oom_guarded)
		return 0;
	if (g->restore_pending) {
		uint64_t v;
		const char *file = nudge_file(cg, &v);

		g->restore_pending = write_u64(cg, file, v) != 0;
	}
	u = under_oom(cg);
	if (u < 0)
		return u;
	if (!u) {
		/* Two clear polls end a stall: one may fall in the instant a
		 * nudged task retries its charge before it waits again. */
		if (!g->clear_since_ns)
			g->clear_since_ns = now_ns;
		else if (g->stalled_since_ns)
			stall_ended(g, g->clear_since_ns);
		/* The killer did its work (or memory came free): wait again. */
		if (g->killer_on && ul_cgroup_ctl_write(cg, "memory.oom_control", "1") == 0)
			g->killer_on = false;
		return 0;
	}
	g->clear_since_ns = 0;
	if (!g->stalled_since_ns)
		g->stalled_since_ns = now_ns;
	if (g->killer_on)
		return 0;
	if (now_ns - g->stalled_since_ns >= UL_CGROUP_GUARD_GRACE_NS) {
		/* Enabling the killer wakes the waiters; the next failing
		 * charge kills, as it would in a v1 group without us. */
		if (ul_cgroup_ctl_write(cg, "memory.oom_control", "0") == 0) {
			g->killer_on = true;
			g->st.rescues++;
		}
		return 0;
	}
	if (now_ns - g->last_nudge_ns >= UL_CGROUP_GUARD_NUDGE_NS) {
		g->last_nudge_ns = now_ns;
		nudge(cg, g);
	}
	return 0;
}

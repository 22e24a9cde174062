/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * The cgroup v1 back end of proc/cgroup (contract: backend.h).
 *
 * The memory controller's own hierarchy (fstype "cgroup" with "memory"
 * among its options); the group is made below our own cgroup there.  v1
 * has no memory.high: the limit is memory.limit_in_bytes, the swap limit
 * memory.memsw.limit_in_bytes = limit + swap (only with swapaccount=1, and
 * never below the limit, so it is set second), and the OOM killer is
 * disabled in a limited group (memory.oom_control 1): a charge failing at
 * the limit then waits, and the guard of guard.h wakes or ends the
 * waiters.  Counters: memory.usage_in_bytes, memory.max_usage_in_bytes,
 * memory[.memsw].failcnt, memory.oom_control, memory.stat's total_swap.
 * "No limit" reads back as a huge page-rounded number.
 */
#include "core/compat.h"
#include "core/file.h"
#include "proc/cgroup/backend.h"

#include <errno.h>
#include <linux/magic.h>

/* Read-back values from here up mean "no limit". */
#define V1_UNLIMITED (UINT64_C(1) << 62)

static uint64_t v1_limit(uint64_t back)
{
	return back >= V1_UNLIMITED ? UINT64_MAX : back;
}

/* See the contract: -ENOENT without a v1 mount of the memory controller. */
static int v1_find_parent(char *parent, size_t len, char *why, size_t wlen)
{
	struct ul_cg_mount m;

	(void)why;
	(void)wlen;
	if (ul_cg_find_mount("cgroup", "memory", &m))
		return -ENOENT;
	ul_cg_own_dir(&m, "memory", parent, len);
	return 0;
}

/* memory.memsw.limit_in_bytes = limit + swap, read back into memsw_bytes. */
static int v1_set_swap(struct ul_cgroup *cg, uint64_t limit, uint64_t swap, char *why, size_t len)
{
	uint64_t memsw = limit > UINT64_MAX - swap ? UINT64_MAX : limit + swap, back;
	int rc;

	rc = ul_cg_need_swap_ctl(cg->path, "memory.memsw.limit_in_bytes", "boot with swapaccount=1",
				 why, len);
	if (!rc)
		rc = ul_cg_write_limit(cg->path, "memory.memsw.limit_in_bytes", memsw, "-1", why,
				       len);
	if (rc)
		return rc;
	cg->swap_limited = memsw != UINT64_MAX;
	rc = ul_cg_read_u64(cg->path, "memory.memsw.limit_in_bytes", &back);
	if (!rc)
		cg->memsw_bytes = v1_limit(back);
	return rc;
}

/*
 * memory.limit_in_bytes, then the swap limit, then the OOM killer off in
 * a limited group; limit_bytes and max_bytes are the limit as read back.
 */
static int v1_set_limits(struct ul_cgroup *cg, uint64_t limit, uint64_t swap, char *why, size_t len)
{
	uint64_t back;
	int rc;

	rc = ul_cg_write_limit(cg->path, "memory.limit_in_bytes", limit, "-1", why, len);
	if (rc)
		return rc;
	cg->memsw_bytes = UINT64_MAX;
	if (swap != UINT64_MAX) {
		rc = v1_set_swap(cg, limit, swap, why, len);
		if (rc)
			return rc;
	}
	/* Only a limited group can wait at its limit; without a limit the
	 * killer stays as inherited, which must then be enabled. */
	rc = ul_cg_set_ctl(cg->path, "memory.oom_control", limit != UINT64_MAX ? "1" : "0", why,
			   len);
	if (rc)
		return rc;
	cg->oom_guarded = limit != UINT64_MAX;
	rc = ul_cg_read_u64(cg->path, "memory.limit_in_bytes", &back);
	if (!rc) {
		cg->limit_bytes = v1_limit(back);
		cg->max_bytes = cg->limit_bytes;
	}
	return rc;
}

/* Limit hits from the failure counts, the OOM state, swap from memory.stat. */
static void v1_read_counters(const char *dir, const char *stat, struct ul_cgroup_stats *st)
{
	char text[1024], p[PATH_MAX];
	uint64_t v;

	/* With memsw limited the memory+swap counter is charged first, so
	 * its failures are limit hits as well. */
	if (!ul_cg_read_u64(dir, "memory.failcnt", &st->limit_hits)) {
		st->have |= UL_CG_HAVE_LIMIT_HITS;
		if (!ul_cg_read_u64(dir, "memory.memsw.failcnt", &v))
			st->limit_hits += v;
	}
	if (!ul_path_join(p, sizeof(p), dir, "memory.oom_control") &&
	    ul_read_file(p, text, sizeof(text)) >= 0) {
		if (ul_cg_key_u64(text, "oom_kill", &st->oom_kill))
			st->have |= UL_CG_HAVE_OOM_KILL;
		if (ul_cg_key_u64(text, "under_oom", &v)) {
			st->under_oom = v != 0;
			st->have |= UL_CG_HAVE_UNDER_OOM;
		}
	}
	/* v1 lists swap only with swap accounting on; total_* include child
	 * cgroups, as v2's counters do. */
	if (stat && (ul_cg_key_u64(stat, "total_swap", &st->swap_bytes) ||
		     ul_cg_key_u64(stat, "swap", &st->swap_bytes)))
		st->have |= UL_CG_HAVE_SWAP;
}

const struct ul_cg_backend ul_cg_v1 = {
	.version = 1,
	.fs_magic = CGROUP_SUPER_MAGIC,
	.current_file = "memory.usage_in_bytes",
	.peak_file = "memory.max_usage_in_bytes",
	.find_parent = v1_find_parent,
	.set_limits = v1_set_limits,
	.read_counters = v1_read_counters,
	.kill_all = NULL,
};

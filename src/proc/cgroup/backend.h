/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Inside proc/cgroup: the contract between the common front (cgroup.c:
 * names, paths, the mountinfo search, the dispatch; destroy.c:
 * emptying and removal) and the two back ends, one per version of the
 * memory controller (v1.c, v2.c).  Not for use outside
 * proc/cgroup*.c: everyone else goes through proc/cgroup/cgroup.h.
 *
 * A back end knows its hierarchy's file names and rules: where a group may
 * be made, how the limits are spelled and applied, which counters exist.
 * The front never tests a version number itself; it asks the back end.
 */
#ifndef UL_CGROUP_BACKEND_H
#define UL_CGROUP_BACKEND_H

#include "core/file.h"
#include "proc/cgroup/cgroup.h"

struct ul_cg_backend {
	int version;		  /* 1 or 2, as in struct ul_cgroup */
	unsigned long fs_magic;	  /* statfs() f_type of its hierarchy */
	const char *current_file; /* usage now: memory.current, memory.usage_in_bytes */
	const char *peak_file;	  /* peak usage: memory.peak, memory.max_usage_in_bytes */
	/*
	 * The directory below which our group is made.  0 with it in parent;
	 * -ENOENT when this version offers no memory controller here (the
	 * front then asks the next back end); another -errno, with a reason
	 * in why, when it offers one we cannot use (no fallback then).
	 */
	int (*find_parent)(char *parent, size_t len, char *why, size_t wlen);
	/*
	 * Apply limit and swap (UINT64_MAX: none) to the new, empty group at
	 * cg->path and fill cg's limit_bytes, max_bytes, memsw_bytes,
	 * oom_guarded and swap_limited from what the kernel reads back.
	 * 0 or -errno; a failed write leaves a reason in why, a failed read
	 * back may leave why empty (the front then words it).
	 */
	int (*set_limits)(struct ul_cgroup *cg, uint64_t limit, uint64_t swap, char *why,
			  size_t len);
	/*
	 * The counters only this version has (events, failures, OOM state,
	 * swap), added to st's fields and have bits.  stat is the group's
	 * memory.stat text, or NULL when it could not be read.
	 */
	void (*read_counters)(const char *dir, const char *stat, struct ul_cgroup_stats *st);
	/* Kill every process of dir's subtree at once (before the pid-by-pid
	 * loop), or NULL when the version cannot. */
	void (*kill_all)(const char *dir);
};

extern const struct ul_cg_backend ul_cg_v1, ul_cg_v2;

/* The back end of a group's version (anything but 2 is v1), and of a
 * filesystem type (NULL: not a cgroup filesystem). */
const struct ul_cg_backend *ul_cg_backend_of(int version);
const struct ul_cg_backend *ul_cg_backend_of_fs(unsigned long fs_magic);

/* ---- shared by the back ends (cgroup.c) ---------------------------- */

bool ul_cg_exists(const char *dir, const char *name);
/* A u64 control file DIR/NAME; "max" (v2) reads as UINT64_MAX.  0 or -errno. */
int ul_cg_read_u64(const char *dir, const char *name, uint64_t *v);
/* "key N" as a whole line of a flat-keyed file (memory.stat, memory.events). */
bool ul_cg_key_u64(const char *text, const char *key, uint64_t *v);
/* Is word one of the space/comma separated tokens in list? */
bool ul_cg_has_token(const char *list, const char *word);

/*
 * Write v to the control file DIR/FILE, UINT64_MAX spelled as unlimited
 * ("max" on v2, "-1" on v1).  0, or -errno with a reason in why.
 */
int ul_cg_write_limit(const char *dir, const char *file, uint64_t v, const char *unlimited,
		      char *why, size_t len);
/* Write val to DIR/FILE; 0, or -errno with a reason in why. */
int ul_cg_set_ctl(const char *dir, const char *file, const char *val, char *why, size_t len);
/* The swap limit's control file DIR/FILE, which exists only with swap
 * accounting: 0, or -ENOTSUP with "cannot limit swap ... (hint)" in why. */
int ul_cg_need_swap_ctl(const char *dir, const char *file, const char *hint, char *why, size_t len);

/*
 * Will the v2 group dir's children get controller?  Yes when dir has it in
 * cgroup.subtree_control, or when it may be enabled there (dir writable,
 * the controller in its cgroup.controllers) and the write succeeds.
 */
bool ul_cg_v2_delegate(const char *dir, const char *controller);
/*
 * The v2 directory below which a group with controller is made: our own
 * cgroup or the nearest ancestor that has (or may enable) it in
 * cgroup.subtree_control (v2.c).  0; -ENOENT when no cgroup2 mount offers
 * controller; -ENOTSUP, with a reason, when one offers it but no cgroup
 * here can delegate it.
 */
int ul_cg_v2_parent(const char *controller, char *parent, size_t len, char *why, size_t wlen);

struct ul_cg_mount {
	char point[PATH_MAX]; /* where it is mounted */
	char root[PATH_MAX];  /* the cgroup path its root shows (bind mounts, namespaces) */
};

/*
 * The first mount in /proc/self/mountinfo of fstype ("cgroup2"; or
 * "cgroup" with controller among its super options).  0, -ENOENT or -errno.
 */
int ul_cg_find_mount(const char *fstype, const char *controller, struct ul_cg_mount *m);
/*
 * Our own cgroup's directory in that mount, from /proc/self/cgroup (the
 * v1 line naming controller, or the v2 "0::" line when controller is
 * NULL); the mount point itself when our cgroup is not visible and
 * writable below it.
 */
void ul_cg_own_dir(const struct ul_cg_mount *m, const char *controller, char *out, size_t len);

#endif

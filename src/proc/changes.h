/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * System changes as a table (changes.def): the one module above the
 * journal (a pure log) and the leaves that make and undo changes (scratch,
 * swap, cgroup), none of which knows of the other.
 *
 * Making a change is journal-first: the wrapper records "<kind> <arg>"
 * durably, then makes the change; a change that was not made is recorded
 * done at once.  Undoing one of our own run's changes records it done.
 *
 * `underload cleanup` trusts nothing it reads: every pending entry of a
 * dead run's journal is checked before it is undone (a scratch dir we made:
 * owner, mode 0700, name; a swap file carrying our label and the run's
 * UUID; the cgroup named after the run under a cgroup filesystem; a sysctl
 * on the sweep's allow-list with an integer; a disk with a scheduler file
 * and a scheduler's name; delay accounting to be switched back to 0).
 * An entry that fails its check is reported once and retired; one whose
 * undo keeps failing is retired after UL_CHANGES_MAX_TRIES attempts;
 * neither is tried again.
 * An entry that cannot be undone now but may be later (ul_change_kept():
 * a swap file whose pages do not fit in memory yet, a read-only /proc/sys,
 * a /sys that cannot be seen here) is neither counted nor retired.  An
 * entry whose target is gone is settled as done, not counted as undone.
 */
#ifndef UL_CHANGES_H
#define UL_CHANGES_H

#include "core/compat.h"

struct ul_journal;
struct ul_cgroup;
struct ul_cpuset;

#define UL_CHANGES_MAX_TRIES 3

struct ul_changes_hooks {
	/*
	 * The run status lives in the store, above proc/: mark run `uuid` of
	 * the store at `store_uri` interrupted.  0, -ENOENT / -EALREADY when
	 * there is nothing to repair, or -errno with a reason in why.
	 */
	int (*mark_interrupted)(void *arg, const char *store_uri, const char *uuid, char *why,
				size_t len);
	/*
	 * The same for a run whose boot ended under it (a journal of another
	 * boot): mark it crashed where it was, `where` its journal's latest
	 * "at" record (NULL if none).  NULL: such runs are marked interrupted.
	 */
	int (*mark_crashed)(void *arg, const char *store_uri, const char *uuid, const char *where,
			    char *why, size_t len);
	/* One line per entry handled: rc 0 undone, or nothing to undo when why
 * is not empty (it says what is gone); retired: given up for good. */
	void (*report)(void *arg, const char *kind, const char *what, int rc, const char *why,
		       bool retired);
	/* Whether to settle the pending entries of this kind now; false leaves
	 * them pending, untouched and unreported.  NULL: every kind. */
	bool (*takes)(void *arg, const char *kind);
	void *arg;
};

/* ---- journal-first wrappers (j may be NULL: nothing is journalled) ---- */

/* "run UUID STORE" before the run is stored, done once its status is. */
int ul_change_run_begin(struct ul_journal *j, const char *uuid,
			const char *store_uri) UL_MUST_CHECK;
int ul_change_run_end(struct ul_journal *j, const char *uuid, const char *store_uri);
/* A scratch directory in parent (checked as ul_scratch_check_parent()). */
int ul_change_scratch_create(struct ul_journal *j, const char *parent, char *out, size_t len,
			     char *why, size_t whylen) UL_MUST_CHECK;
/* A swap file in dir (ul_swap_create()), labelled with run_uuid. */
int ul_change_swap_create(struct ul_journal *j, const char *dir, uint64_t size_bytes, int priority,
			  const char *run_uuid, char *path_out, size_t len, char *why,
			  size_t whylen) UL_MUST_CHECK;
/* The memory cgroup "underload-NAME" (ul_cgroup_create()). */
int ul_change_cgroup_create(struct ul_journal *j, const char *name, uint64_t limit_bytes,
			    uint64_t swap_limit_bytes, struct ul_cgroup *out, char *why,
			    size_t len) UL_MUST_CHECK;
/* The run's cpuset "underload-NAME" with cpuset.cpus = cpus (proc/cgroup/
 * cpuset.h; mem: the run's memory cgroup or NULL), journalled as a cgroup
 * unless it is the memory cgroup itself.  -ENOENT: no cpuset controller. */
int ul_change_cpuset_create(struct ul_journal *j, const char *name, const char *cpus,
			    const struct ul_cgroup *mem, struct ul_cpuset *out, char *why,
			    size_t len) UL_MUST_CHECK;
/*
 * Before a sysctl (proc/sysctl.h) first changes: read its value and
 * journal "sysctl NAME ORIGINAL" (arg receives "NAME ORIGINAL", what
 * ul_change_undo(j, "sysctl", arg) writes back).  A journal is required
 * (-EBADF without).  0 or -errno with a reason; then change nothing.
 */
int ul_change_sysctl_save(struct ul_journal *j, const char *name, char *arg, size_t len, char *why,
			  size_t whylen) UL_MUST_CHECK;
/*
 * The same for the I/O scheduler of disk (proc/iosched.h): journal
 * "iosched DISK ORIGINAL" (arg receives "DISK ORIGINAL").
 */
int ul_change_iosched_save(struct ul_journal *j, const char *disk, char *arg, size_t len, char *why,
			   size_t whylen) UL_MUST_CHECK;
/*
 * Switch delay accounting on (proc/delayacct.h) if it is off, journalled
 * first as "delayacct 0": *changed is true when it was switched (then
 * ul_change_undo(j, "delayacct", "0") switches it off again), false when
 * it was on already (nothing journalled, nothing to undo).  A journal is
 * required (-EBADF without); -ENOENT: this kernel has no such switch.
 */
int ul_change_delayacct_on(struct ul_journal *j, bool *changed, char *why,
			   size_t whylen) UL_MUST_CHECK;
/*
 * Undo one of this process's own changes of a known kind and record it
 * done in j (may be NULL).  0 also when it was already undone; -EOPNOTSUPP
 * for an unknown kind or one only cleanup can undo (run).
 */
int ul_change_undo(struct ul_journal *j, const char *kind, const char *arg);
/* The same with the reason of a failure in why (may be NULL). */
int ul_change_undo_why(struct ul_journal *j, const char *kind, const char *arg, char *why,
		       size_t whylen);

/* ---- cleanup --------------------------------------------------------- */

/* Check and undo every pending entry of every stale journal in dir (NULL:
 * the default directories), newest first.  *n_undone counts successes.
 * 0 when everything was settled without error, else the first error. */
int ul_changes_cleanup(const char *dir, const struct ul_changes_hooks *h,
		       int *n_undone) UL_MUST_CHECK;
/*
 * Runs that crashed: every pending run entry of a stale journal written in
 * another boot, read only (the journal is left for cleanup).  fn gets the
 * run's UUID, its store and the journal's latest "at" record (NULL if
 * none); its first error is returned, after every run was seen.
 */
typedef int (*ul_changes_crashed_fn)(void *arg, const char *uuid, const char *store_uri,
				     const char *where);
int ul_changes_crashed_runs(const char *dir, ul_changes_crashed_fn fn, void *arg);
/* Is rc (of a check or an undo) one that keeps the entry for a later
 * cleanup: -EBUSY (in use), -EROFS (read-only here), -EAGAIN (not
 * visible here)? */
bool ul_change_kept(int rc);
/* Is kind a change this version knows? */
bool ul_change_known(const char *kind);

#endif

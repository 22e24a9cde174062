/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * System changes as a table: the check and undo of each kind, the run
 * entry's journal-first wrappers, the undo of our own changes, and the
 * cleanup that checks and undoes a dead run's.  The wrappers that make the
 * other kinds are in changes_make.c.
 */
#include "core/compat.h"
#include "core/log.h"
#include "proc/changes.h"
#include "proc/delayacct.h"
#include "proc/cgroup/cgroup.h"
#include "proc/cgroup/cpuset.h"
#include "proc/iosched.h"
#include "proc/journal.h"
#include "proc/pgroup.h"
#include "proc/qemu.h"
#include "proc/scratch.h"
#include "proc/swap.h"
#include "proc/sysctl.h"

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <string.h>
#include <sys/vfs.h>
#include <unistd.h>
#include <linux/magic.h>

#define UUID_LEN 36

/* What a check or an undo knows besides its argument. */
struct change_ctx {
	const char *run_uuid;		    /* of the journal's run entry; NULL if it has none */
	const struct ul_journal_info *info; /* of the stale journal; NULL for our own */
	const struct ul_changes_hooks *hooks;
	char *why;
	size_t whylen;
};

typedef int (*change_fn)(const struct change_ctx *c, const char *arg);

#define UL_CHANGE(name)                                                                            \
	static int check_##name(const struct change_ctx *c, const char *arg);                      \
	static int undo_##name(const struct change_ctx *c, const char *arg);
#include "proc/changes.def"
#undef UL_CHANGE

static const struct change_kind {
	const char *name;
	change_fn check, undo;
} kinds[] = {
#define UL_CHANGE(name) { #name, check_##name, undo_##name },
#include "proc/changes.def"
#undef UL_CHANGE
};

static const struct change_kind *find_kind(const char *name)
{
	for (size_t i = 0; i < UL_ARRAY_SIZE(kinds); i++)
		if (!strcmp(kinds[i].name, name))
			return &kinds[i];
	return NULL;
}

bool ul_change_kept(int rc)
{
	return rc == -EBUSY || rc == -EROFS || rc == -EAGAIN;
}

bool ul_change_known(const char *kind)
{
	return kind && find_kind(kind);
}

static void say(const struct change_ctx *c, const char *what)
{
	ul_whyf(c->why, c->whylen, "%s", what);
}

static bool ends_with(const char *s, size_t n, const char *tail)
{
	size_t k = strlen(tail);

	return n >= k && !strcmp(s + n - k, tail);
}

/* An absolute path without empty, "." or ".." components. */
static bool canonical(const char *path)
{
	size_t n = path ? strlen(path) : 0;

	return n > 1 && path[0] == '/' && path[n - 1] != '/' && !strstr(path, "//") &&
	       !strstr(path, "/./") && !strstr(path, "/../") && !ends_with(path, n, "/.") &&
	       !ends_with(path, n, "/..");
}

static bool uuid_ok(const char *s)
{
	if (strlen(s) != UUID_LEN)
		return false;
	for (int i = 0; i < UUID_LEN; i++) {
		bool dash = i == 8 || i == 13 || i == 18 || i == 23;

		if (dash ? s[i] != '-' : !strchr("0123456789abcdef", s[i]))
			return false;
	}
	return true;
}

/* ---- run: the status of a run in progress ----------------------------- */

/* "UUID STORE": the UUID into uuid[UUID_LEN + 1], the store after it. */
static const char *split_run(const char *arg, char *uuid)
{
	if (strlen(arg) < UUID_LEN + 2 || arg[UUID_LEN] != ' ')
		return NULL;
	memcpy(uuid, arg, UUID_LEN);
	uuid[UUID_LEN] = '\0';
	return uuid_ok(uuid) ? arg + UUID_LEN + 1 : NULL;
}

static int check_run(const struct change_ctx *c, const char *arg)
{
	char uuid[UUID_LEN + 1];

	if (!split_run(arg, uuid)) {
		say(c, "not a run UUID and store");
		return -EINVAL;
	}
	return 0;
}

static int undo_run(const struct change_ctx *c, const char *arg)
{
	char uuid[UUID_LEN + 1];
	const char *store = split_run(arg, uuid);
	int rc;

	if (!store)
		return -EINVAL;
	/* A run whose boot ended under it crashed (the kernel, or the power):
	 * a result, with where it was, not an interruption. */
	if (c->info && c->info->other_boot && c->hooks && c->hooks->mark_crashed)
		rc = c->hooks->mark_crashed(c->hooks->arg, store, uuid, c->info->where, c->why,
					    c->whylen);
	else if (c->hooks && c->hooks->mark_interrupted)
		rc = c->hooks->mark_interrupted(c->hooks->arg, store, uuid, c->why, c->whylen);
	else {
		say(c, "only 'underload cleanup' can repair a run's status");
		return -EOPNOTSUPP;
	}
	return rc == -ENOENT || rc == -EALREADY ? 0 : rc;
}

/* ---- scratch ------------------------------------------------------------ */

static int check_scratch(const struct change_ctx *c, const char *arg)
{
	int rc = ul_scratch_is_ours(arg);

	if (rc && rc != -ENOENT)
		say(c, "not a scratch directory of ours (owner, mode 0700, name, no symlink)");
	return rc;
}

static int undo_scratch(const struct change_ctx *c, const char *arg)
{
	int rc = ul_scratch_remove(arg);

	(void)c;
	return rc == -ENOENT ? 0 : rc;
}

/* ---- qemu (proc/qemu.h) ------------------------------------------------- */

static int check_qemu(const struct change_ctx *c, const char *arg)
{
	/* A pid of another boot names nothing of ours. */
	int rc = c->info && c->info->other_boot ? -ENOENT : ul_qemu_is_ours(arg);

	if (rc && rc != -ENOENT)
		say(c, "not the qemu we started (its pid has another start time or name)");
	return rc;
}

static int undo_qemu(const struct change_ctx *c, const char *arg)
{
	(void)c;
	return ul_qemu_kill(arg);
}

/* ---- pgroup (proc/pgroup.h) --------------------------------------------- */

static int check_pgroup(const struct change_ctx *c, const char *arg)
{
	/* A group of another boot is long gone. */
	int rc = c->info && c->info->other_boot ? -ENOENT : ul_pgroup_alive(arg);

	if (rc == -EINVAL)
		say(c, "not a process group and start time");
	return rc;
}

static int undo_pgroup(const struct change_ctx *c, const char *arg)
{
	int rc = ul_pgroup_kill(arg);

	if (rc == -EBUSY)
		say(c, "some of its processes did not die within 5 s of SIGKILL");
	return rc;
}

/* ---- swap ------------------------------------------------------------------ */

static int check_swap(const struct change_ctx *c, const char *arg)
{
	char parent[PATH_MAX];
	const char *base = strrchr(arg, '/');
	int fd, rc;

	if (!canonical(arg) || !base || strncmp(base + 1, UL_SWAP_PREFIX, strlen(UL_SWAP_PREFIX)) ||
	    (size_t)(base - arg) >= sizeof(parent)) {
		say(c, "not a swap file path of ours");
		return -EINVAL;
	}
	snprintf(parent, sizeof(parent), "%.*s", (int)(base - arg), arg);
	fd = ul_open_dir_nofollow(base == arg ? "/" : parent, O_PATH);
	if (fd < 0) {
		say(c, "its directory is gone or reached through a symlink");
		return fd == -ENOENT ? -ENOENT : -ELOOP;
	}
	close(fd);
	/* A journal of a version that recorded no run: the file must at
	 * least lie in a scratch directory of ours. */
	if (!c->run_uuid && ul_scratch_is_ours(parent)) {
		say(c, "the journal names no run and the file is not in a scratch directory");
		return -EPERM;
	}
	rc = ul_swap_is_ours(arg, c->run_uuid);
	if (rc && rc != -ENOENT)
		say(c, "not a swap file of this run (label, UUID, owner, or a symlink)");
	return rc;
}

static int undo_swap(const struct change_ctx *c, const char *arg)
{
	(void)c;
	return ul_swap_destroy(arg);
}

/* ---- cgroup -------------------------------------------------------------- */

static int check_cgroup(const struct change_ctx *c, const char *arg)
{
	char parent[PATH_MAX], want[64];
	const char *base = strrchr(arg, '/');
	struct statfs sfs;
	int fd;

	if (!canonical(arg) || !base || (size_t)(base - arg) >= sizeof(parent)) {
		say(c, "not a cgroup path");
		return -EINVAL;
	}
	/* The engine names it after the run: underload-<first 8 of the UUID>
	 * (any 8 hex digits in a journal of a version that recorded no run). */
	if (strncmp(base + 1, UL_CGROUP_PREFIX, strlen(UL_CGROUP_PREFIX))) {
		say(c, "not a cgroup of ours");
		return -EPERM;
	}
	snprintf(want, sizeof(want), UL_CGROUP_PREFIX "%.8s",
		 c->run_uuid ? c->run_uuid : base + 1 + strlen(UL_CGROUP_PREFIX));
	if (strcmp(base + 1, want) || strlen(want) != strlen(UL_CGROUP_PREFIX) + 8 ||
	    strspn(want + strlen(UL_CGROUP_PREFIX), "0123456789abcdef") != 8) {
		say(c, "not the cgroup of this run");
		return -EPERM;
	}
	snprintf(parent, sizeof(parent), "%.*s", (int)(base - arg), arg);
	if (statfs(parent, &sfs) < 0)
		return errno == ENOENT ? -ENOENT : -errno;
	if (sfs.f_type != CGROUP2_SUPER_MAGIC && sfs.f_type != CGROUP_SUPER_MAGIC) {
		say(c, "not under a cgroup filesystem");
		return -EPERM;
	}
	fd = ul_open_dir_nofollow(arg, O_PATH);
	if (fd < 0) {
		if (fd != -ENOENT)
			say(c, "reached through a symlink");
		return fd;
	}
	close(fd);
	return 0;
}

static int undo_cgroup(const struct change_ctx *c, const char *arg)
{
	(void)c;
	return ul_cgroup_destroy_path(arg);
}

/* ---- sysctl, iosched: settings a sweep changed (the leaves read the entry) ---- */

static int check_sysctl(const struct change_ctx *c, const char *arg)
{
	return ul_sysctl_entry_check(arg, c->why, c->whylen);
}

static int undo_sysctl(const struct change_ctx *c, const char *arg)
{
	return ul_sysctl_entry_undo(arg, c->why, c->whylen);
}

static int check_iosched(const struct change_ctx *c, const char *arg)
{
	return ul_iosched_entry_check(arg, c->why, c->whylen);
}

static int undo_iosched(const struct change_ctx *c, const char *arg)
{
	return ul_iosched_entry_undo(arg, c->why, c->whylen);
}

/* ---- delayacct: kernel.task_delayacct a run switched on (proc/delayacct.h) ---- */

static int check_delayacct(const struct change_ctx *c, const char *arg)
{
	return ul_delayacct_entry_check(arg, c->why, c->whylen);
}

static int undo_delayacct(const struct change_ctx *c, const char *arg)
{
	return ul_delayacct_entry_undo(arg, c->why, c->whylen);
}

/* ---- journal-first wrappers of the run entry (the others: changes_make.c) ---- */

static int run_arg(char *out, size_t len, const char *uuid, const char *store)
{
	int n;

	if (!uuid || !uuid_ok(uuid) || !store || !store[0] || strchr(store, '\n'))
		return -EINVAL;
	n = snprintf(out, len, "%s %s", uuid, store);
	return n < 0 || (size_t)n >= len ? -ENAMETOOLONG : 0;
}

int ul_change_run_begin(struct ul_journal *j, const char *uuid, const char *store_uri)
{
	char arg[PATH_MAX + 64];
	int rc = run_arg(arg, sizeof(arg), uuid, store_uri);

	return rc || !j ? rc : ul_journal_add(j, "run", arg);
}

int ul_change_run_end(struct ul_journal *j, const char *uuid, const char *store_uri)
{
	char arg[PATH_MAX + 64];
	int rc = run_arg(arg, sizeof(arg), uuid, store_uri);

	return rc || !j ? rc : ul_journal_done(j, "run", arg);
}

int ul_change_undo(struct ul_journal *j, const char *kind, const char *arg)
{
	return ul_change_undo_why(j, kind, arg, NULL, 0);
}

int ul_change_undo_why(struct ul_journal *j, const char *kind, const char *arg, char *why,
		       size_t whylen)
{
	const struct change_kind *k = kind ? find_kind(kind) : NULL;
	struct change_ctx c = { .why = why, .whylen = whylen };
	int rc;

	if (!k || !arg)
		return -EOPNOTSUPP;
	rc = k->undo(&c, arg);
	/* A failed "done" only leaves an entry a later cleanup finds undone. */
	if (!rc && j)
		(void)ul_journal_done(j, kind, arg);
	return rc;
}

/* ---- cleanup ---------------------------------------------------------------- */

struct cleanup {
	const struct ul_changes_hooks *hooks;
	int undone;
};

static void report(const struct cleanup *cl, const char *kind, const char *arg, int rc,
		   const char *why, bool retired)
{
	if (cl->hooks && cl->hooks->report)
		cl->hooks->report(cl->hooks->arg, kind, arg, rc, why, retired);
}

/* Check and undo one pending entry; settles it in e and the journal. */
static int settle(struct cleanup *cl, struct ul_journal *j, struct ul_journal_entry *e,
		  const char *run_uuid, const struct ul_journal_info *info)
{
	const struct change_kind *k = find_kind(e->kind);
	struct ul_journal *w = j->fd >= 0 ? j : NULL;
	char why[256] = "";
	struct change_ctx c = { run_uuid, info, cl->hooks, why, sizeof(why) };
	bool refused = false, gone = false;
	int rc;

	if (!k) {
		snprintf(why, sizeof(why), "unknown kind (written by a newer underload?)");
		rc = -EOPNOTSUPP;
	} else {
		rc = k->check(&c, e->arg);
		if (rc == -ENOENT)
			gone = true; /* nothing to undo; why may say what is gone */
		else if (rc && !ul_change_kept(rc))
			refused = true; /* not ours: never acted on, never retried */
		else if (!rc)
			rc = k->undo(&c, e->arg);
	}
	if (!rc || gone) {
		e->state = UL_JOURNAL_DONE;
		/* Counted as before unless the check said what is gone. */
		cl->undone += !(gone && why[0]);
		if (w)
			(void)ul_journal_done(w, e->kind, e->arg);
		report(cl, e->kind, e->arg, 0, gone ? why : "", false);
		return 0;
	}
	/* Cannot be undone now, but maybe later (ul_change_kept(): a swap
	 * file other processes' pages keep on, see proc/swapoff.c; a
	 * read-only /proc/sys; a /sys out of sight): not counted, never
	 * retired, which would leave it for good; the next cleanup tries. */
	if (!refused && ul_change_kept(rc)) {
		/* stays pending */
	} else if (refused || ++e->failures >= UL_CHANGES_MAX_TRIES) {
		e->state = UL_JOURNAL_RETIRED;
		if (w)
			(void)ul_journal_retire(w, e->kind, e->arg);
	} else if (w) {
		(void)ul_journal_failed(w, e->kind, e->arg);
	}
	report(cl, e->kind, e->arg, rc, why, e->state == UL_JOURNAL_RETIRED);
	return rc;
}

static int visit(void *arg, struct ul_journal *j, struct ul_journal_entry *e, size_t n,
		 const struct ul_journal_info *info)
{
	struct cleanup *cl = arg;
	char uuid[UUID_LEN + 1];
	const char *run_uuid = NULL;
	int err = 0;

	/* The run the journal belongs to: what its swap file and cgroup carry. */
	for (size_t i = 0; i < n && !run_uuid; i++)
		if (!strcmp(e[i].kind, "run") && split_run(e[i].arg, uuid))
			run_uuid = uuid;
	for (size_t i = n; i-- > 0;) {
		int rc;

		if (e[i].state != UL_JOURNAL_PENDING ||
		    (cl->hooks && cl->hooks->takes && !cl->hooks->takes(cl->hooks->arg, e[i].kind)))
			continue;
		rc = settle(cl, j, &e[i], run_uuid, info);
		if (rc && !err)
			err = rc;
	}
	return err;
}

int ul_changes_cleanup(const char *dir, const struct ul_changes_hooks *h, int *n_undone)
{
	struct cleanup cl = { .hooks = h };
	int rc = ul_journal_visit_stale(dir, visit, &cl);

	if (n_undone)
		*n_undone = cl.undone;
	return rc;
}

/* ---- crashed runs ------------------------------------------------------------ */

struct crashed {
	ul_changes_crashed_fn fn;
	void *arg;
	int err;
};

/* Each pending run entry of a journal of another boot: a crashed run. */
static int visit_crashed(void *arg, struct ul_journal *j, struct ul_journal_entry *e, size_t n,
			 const struct ul_journal_info *info)
{
	struct crashed *cr = arg;
	char uuid[UUID_LEN + 1];

	(void)j;
	if (!info->other_boot)
		return 0;
	for (size_t i = 0; i < n; i++) {
		const char *store;
		int rc;

		if (e[i].state != UL_JOURNAL_PENDING || strcmp(e[i].kind, "run"))
			continue;
		store = split_run(e[i].arg, uuid);
		if (!store)
			continue;
		rc = cr->fn(cr->arg, uuid, store, info->where);
		if (rc && !cr->err)
			cr->err = rc;
	}
	return 0;
}

int ul_changes_crashed_runs(const char *dir, ul_changes_crashed_fn fn, void *arg)
{
	struct crashed cr = { .fn = fn, .arg = arg };
	int rc = ul_journal_read_stale(dir, visit_crashed, &cr);

	return cr.err ? cr.err : rc;
}

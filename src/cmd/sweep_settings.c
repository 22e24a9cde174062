/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * The system settings of a sweep (contract: sweep.h): sysctls
 * (proc/sysctl.h) and the I/O scheduler of --dir's disk (proc/iosched.h),
 * changed only under the settings lock (proc/settings_lock.h).
 *
 * Before anything changes, the settings a killed sweep left behind (the
 * pending sysctl and iosched entries of dead journals) are written back,
 * as `underload cleanup` would: otherwise this sweep would read the dead
 * one's value as the original, journal it, and end by restoring it, with
 * the true original lost.  A sweep that cannot write them back does not
 * start.
 */
#include "core/compat.h"
#include "cmd/cmd.h"
#include "cmd/run.h"
#include "cmd/sweep.h"
#include "core/log.h"
#include "proc/changes.h"
#include "proc/settings_lock.h"
#include "proc/sysctl.h"

#include <errno.h>
#include <stdio.h>
#include <string.h>

size_t sweep_value_of(const struct sweep *sw, size_t k, size_t s)
{
	for (size_t i = 0; i < s; i++)
		k /= sw->set[i].n_values;
	return k % sw->set[s].n_values;
}

bool sweep_changes_system(const struct sweep *sw)
{
	for (size_t s = 0; s < sw->n_set; s++)
		if (sw->set[s].kind)
			return true;
	return false;
}

/* ---- what a killed sweep left behind ---- */

static bool setting_kind(void *arg, const char *kind)
{
	(void)arg;
	return !strcmp(kind, "sysctl") || !strcmp(kind, "iosched");
}

static void report_left(void *arg, const char *kind, const char *what, int rc, const char *why,
			bool retired)
{
	(void)arg;
	if (!rc)
		fprintf(stderr, "sweep: %s %s %s, left by a sweep that was killed\n",
			why[0] ? "nothing to restore of" : "restored", kind, what);
	else
		ul_error("sweep: cannot restore %s '%s', left by a sweep that was killed: %s%s",
			 kind, what, why[0] ? why : strerror(-rc),
			 retired ? " (retired: it will not be tried again)" : "");
}

/* Write back what killed sweeps left; 0 or UL_EXIT_ERROR after printing why. */
static int settle_killed(void)
{
	const struct ul_changes_hooks hooks = { .report = report_left, .takes = setting_kind };
	int n = 0, rc = ul_changes_cleanup(NULL, &hooks, &n);

	if (rc) {
		ul_error("sweep: the settings a killed sweep changed are not all back: "
			 "nothing is changed until they are ('underload cleanup' retries)");
		return UL_EXIT_ERROR;
	}
	return 0;
}

/* ---- before the first change ---- */

/* The disk whose scheduler iosched sets: the one under the runs' --dir,
 * which must offer every value.  0, UL_EXIT_USAGE or UL_EXIT_ERROR. */
static int find_disk(struct sweep *sw, struct setting *st)
{
	const char *dir = sw->dir ? sw->dir : UL_RUN_DEFAULT_DIR;
	char why[512], cur[UL_IOSCHED_NAME_MAX], offered[256];

	if (ul_iosched_disk(dir, st->disk, sizeof(st->disk), why, sizeof(why))) {
		ul_error("sweep: iosched: %s", why);
		return UL_EXIT_ERROR;
	}
	if (ul_iosched_read(st->disk, cur, sizeof(cur), offered, sizeof(offered))) {
		ul_error("sweep: iosched: cannot read the scheduler of %s", st->disk);
		return UL_EXIT_ERROR;
	}
	for (size_t v = 0; v < st->n_values; v++)
		if (!ul_iosched_offered(st->disk, st->values[v]))
			return ul_usage_error("sweep", "iosched=%s: %s (under %s) offers only: %s",
					      st->values[v], st->disk, dir, offered);
	fprintf(stderr, "sweep: iosched is the scheduler of %s (under %s), now %s\n", st->disk, dir,
		cur);
	return 0;
}

/* Can the sysctl be written?  The real reason when not (a read-only
 * /proc/sys, not root), never "not on the allow-list". */
static int check_writable(const struct setting *st)
{
	int rc = ul_sysctl_writable(st->name);

	if (rc) {
		ul_error_errno(rc, "sweep: cannot change %s", st->name);
		return UL_EXIT_ERROR;
	}
	return 0;
}

static int take_lock(struct sweep *sw)
{
	char why[256];
	int rc = ul_settings_lock(&sw->lock_fd, why, sizeof(why));

	if (rc == -EWOULDBLOCK) {
		ul_error("sweep: another sweep (or a cleanup) is changing system settings "
			 "(%s): one at a time, or the second would take the first's values "
			 "for the originals",
			 why);
		return UL_EXIT_ERROR;
	}
	if (rc) {
		ul_error("sweep: cannot take the settings lock: %s", why);
		return UL_EXIT_ERROR;
	}
	return 0;
}

int sweep_prepare(struct sweep *sw)
{
	int rc;

	if (!sweep_changes_system(sw))
		return 0;
	if ((rc = take_lock(sw)) || (rc = settle_killed()))
		return rc;
	for (size_t s = 0; s < sw->n_set; s++) {
		struct setting *st = &sw->set[s];

		if (!st->kind)
			continue;
		rc = !strcmp(st->kind, "iosched") ? find_disk(sw, st) : check_writable(st);
		if (rc)
			return rc;
	}
	return 0;
}

/* ---- changing and writing back ---- */

/* Read, journal and set one system setting (st->saved is set once saved). */
static int set_one(struct sweep *sw, struct setting *st, const char *v)
{
	bool io = !strcmp(st->kind, "iosched");
	char why[256];
	int rc;

	if (!st->saved[0]) {
		rc = io ? ul_change_iosched_save(&sw->journal, st->disk, st->saved,
						 sizeof(st->saved), why, sizeof(why))
			: ul_change_sysctl_save(&sw->journal, st->name, st->saved,
						sizeof(st->saved), why, sizeof(why));
		if (rc) {
			st->saved[0] = '\0';
			return ul_error("sweep: %s", why);
		}
	}
	rc = io ? ul_iosched_write(st->disk, v, why, sizeof(why))
		: ul_sysctl_write(st->name, v, why, sizeof(why));
	if (rc)
		return ul_error("sweep: %s", why);
	return 0;
}

int sweep_apply(struct sweep *sw, size_t k)
{
	for (size_t s = 0; s < sw->n_set; s++)
		if (sw->set[s].kind &&
		    set_one(sw, &sw->set[s], sw->set[s].values[sweep_value_of(sw, k, s)]))
			return -1;
	return 0;
}

int sweep_restore(struct sweep *sw)
{
	int ret = 0;

	for (size_t s = sw->n_set; s-- > 0;) {
		struct setting *st = &sw->set[s];
		char why[256] = "";
		int rc;

		if (!st->saved[0])
			continue;
		rc = ul_change_undo_why(&sw->journal, st->kind, st->saved, why, sizeof(why));
		if (rc) {
			ret = ul_error("sweep: cannot restore %s %s: %s (run 'underload cleanup')",
				       st->kind, st->saved, why[0] ? why : strerror(-rc));
			continue;
		}
		fprintf(stderr, "sweep: %s%s%s restored to %s\n", st->name,
			st->disk[0] ? " of " : "", st->disk, strchr(st->saved, ' ') + 1);
		st->saved[0] = '\0';
	}
	return ret;
}

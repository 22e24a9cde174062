/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * `underload cleanup`: undo what killed runs left behind (swap files,
 * memory cgroups, scratch directories) from their journals, and
 * mark those runs interrupted (crashed, after a reboot) in their stores.
 */
#include "core/compat.h"
#include "cmd/cmd.h"
#include "core/log.h"
#include "proc/changes.h"
#include "proc/settings_lock.h"
#include "store/store.h"

#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

static const char cleanup_help[] =
	"Undo the system changes of runs that did not end normally (killed with\n"
	"SIGKILL, machine crash): swap files are turned off and deleted, memory\n"
	"and cpuset cgroups emptied and removed, scratch directories deleted, the\n"
	"sysctls and I/O schedulers a sweep changed written back (never while a\n"
	"live sweep holds the settings lock: they wait for a later cleanup), and\n"
	"each such run is marked 'interrupted' in its results database, finished at the time\n"
	"of its last stored cell; a run whose machine went down under it (its\n"
	"journal is of an earlier boot) is marked 'crashed' in the test and round\n"
	"it was in.  Runs find them in their journals under /var/lib/underload/journal\n"
	"(root; ~/.local/state/underload/journal for a user) and where older\n"
	"versions kept them.  Runs still alive are left alone.  Nothing is trusted: a\n"
	"journal is read only if it and its directory are root's (yours) and closed\n"
	"to others, and every target is checked before it is touched (a scratch\n"
	"directory we made, a swap file carrying the run's UUID, the run's cgroup).\n"
	"An entry that fails its check, or whose undo failed 3 times, is reported\n"
	"once and retired: never tried again.  A swap file still in use after a\n"
	"minute of retries (pages of a process whose memory cgroup is full are in\n"
	"it) is never retired: a later cleanup removes it; nor is a setting that\n"
	"cannot be written here (a read-only /proc/sys, no sysfs on /sys).\n"
	"Exit status 0 when everything was undone, 1 otherwise.\n";

/* Repair a run's status in the store the journal named. */
static int mark_interrupted(void *arg, const char *store_uri, const char *uuid, char *why,
			    size_t len)
{
	struct ul_store *st = NULL;
	char err[512], when[64] = "its start";
	int64_t finished_ns = 0;
	int rc;

	(void)arg;
	/* A database that is gone holds no run to repair; never create one. */
	if (!strstr(store_uri, "://") && access(store_uri, F_OK) < 0)
		return -ENOENT;
	if (ul_store_open(store_uri, &st, err, sizeof(err))) {
		snprintf(why, len, "%s", err);
		return -EIO;
	}
	rc = st->ops->mark_interrupted(st, uuid, &finished_ns);
	if (rc && rc != -ENOENT && rc != -EALREADY)
		snprintf(why, len, "%s", st->err);
	ul_store_close(st);
	if (!rc) {
		time_t t = (time_t)(finished_ns / 1000000000);
		struct tm tm;

		if (finished_ns > 0 && gmtime_r(&t, &tm))
			strftime(when, sizeof(when), "%Y-%m-%d %H:%M:%S UTC", &tm);
		printf("marked run %s interrupted (finished at %s) in %s\n", uuid, when, store_uri);
	}
	return rc;
}

/* A run whose machine went down under it: crashed where it was. */
static int mark_crashed(void *arg, const char *store_uri, const char *uuid, const char *where,
			char *why, size_t len)
{
	(void)arg;
	return ul_cmd_mark_crashed(store_uri, uuid, where, why, len);
}

static bool is_setting(const char *kind)
{
	return !strcmp(kind, "sysctl") || !strcmp(kind, "iosched");
}

static void report(void *arg, const char *kind, const char *what, int rc, const char *why,
		   bool retired)
{
	(void)arg;
	if (!rc && why[0]) {
		printf("nothing to undo for %s %s: %s\n", kind, what, why);
	} else if (!rc) {
		if (strcmp(kind, "run"))
			printf("%s %s %s\n",
			       is_setting(kind)					  ? "restored"
			       : !strcmp(kind, "qemu") || !strcmp(kind, "pgroup") ? "stopped"
										  : "removed",
			       kind, what);
	} else {
		ul_error("cannot undo %s '%s': %s%s", kind, what, why[0] ? why : strerror(-rc),
			 retired	      ? " (retired: it will not be tried again)"
			 : ul_change_kept(rc) ? " (kept: a later cleanup tries again)"
					      : "");
	}
}

/* The settings lock (proc/settings_lock.h), taken at the first setting
 * entry: a killed sweep's settings are written back only while no live
 * sweep is changing them, and no sweep starts meanwhile. */
struct settings {
	int lock_fd; /* -1 until taken */
	bool busy;   /* a live sweep (or another cleanup) holds it */
};

static bool takes(void *arg, const char *kind)
{
	struct settings *s = arg;
	char why[256];
	int rc;

	if (!is_setting(kind) || s->lock_fd >= 0)
		return true;
	if (s->busy)
		return false;
	rc = ul_settings_lock(&s->lock_fd, why, sizeof(why));
	if (!rc)
		return true;
	s->busy = true;
	if (rc == -EWOULDBLOCK)
		ul_note("a sweep is changing system settings: the sysctls and schedulers killed "
			"sweeps left are left for a cleanup after it");
	else
		ul_error("cannot take the settings lock: %s: the sysctls and schedulers killed "
			 "sweeps left are not restored",
			 why);
	return false;
}

extern const struct ul_cmd ul_cmd_desc_cleanup;

int ul_cmd_cleanup(int argc, char **argv);
int ul_cmd_cleanup(int argc, char **argv)
{
	struct settings settings = { .lock_fd = -1 };
	const struct ul_changes_hooks hooks = { .mark_interrupted = mark_interrupted,
						.mark_crashed = mark_crashed,
						.report = report,
						.takes = takes,
						.arg = &settings };
	int first, rc, n = 0;

	/* No options but --help: the help says everything (no table). */
	rc = ul_cmd_parse(&ul_cmd_desc_cleanup, NULL, argc, argv, &first);
	if (rc)
		return rc == UL_CMD_HELP_SHOWN ? UL_EXIT_OK : rc;
	if (first != argc)
		return ul_usage_error("cleanup", "no arguments expected");
	rc = ul_changes_cleanup(NULL, &hooks, &n);
	if (settings.lock_fd >= 0)
		close(settings.lock_fd);
	if (!rc && settings.busy)
		rc = -EBUSY; /* something is left for later: not "everything undone" */
	if (rc) {
		ul_error("cleanup incomplete (%d change%s undone)", n, n == 1 ? "" : "s");
		return UL_EXIT_ERROR;
	}
	printf("%d change%s undone\n", n, n == 1 ? "" : "s");
	return UL_EXIT_OK;
}

const struct ul_cmd ul_cmd_desc_cleanup = {
	.name = "cleanup",
	.summary = "undo what killed runs left behind (swap, cgroups, scratch, run status)",
	.help = cleanup_help,
	.fn = ul_cmd_cleanup,
};

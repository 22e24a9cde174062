/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * The journal-first wrappers that make a change (proc/changes.h): each
 * records "<kind> <arg>" in the journal before it makes the change, and
 * records it done at once when the change was not made, so a cleanup
 * never touches what is not ours.  Their check and undo: changes.c.
 */
#include "core/compat.h"
#include "core/log.h"
#include "proc/changes.h"
#include "proc/delayacct.h"
#include "proc/cgroup/cgroup.h"
#include "proc/cgroup/cpuset.h"
#include "proc/iosched.h"
#include "proc/journal.h"
#include "proc/scratch.h"
#include "proc/swap.h"
#include "proc/sysctl.h"

#include <errno.h>
#include <stdio.h>
#include <string.h>

int ul_change_scratch_create(struct ul_journal *j, const char *parent, char *out, size_t len,
			     char *why, size_t whylen)
{
	int rc = -EEXIST;

	for (int tries = 0; rc == -EEXIST && tries < 16; tries++) {
		rc = ul_scratch_name(parent, out, len, why, whylen);
		if (rc)
			break;
		if (j) {
			rc = ul_journal_add(j, "scratch", out);
			if (rc) {
				ul_whyf(why, whylen, "cannot journal %s: %s", out, strerror(-rc));
				break;
			}
		}
		rc = ul_scratch_make(out);
		/* Not made (a name taken is not ours): cleanup must never touch it. */
		if (rc && j)
			(void)ul_journal_done(j, "scratch", out);
		if (rc && rc != -EEXIST)
			ul_whyf(why, whylen, "cannot create %s: %s", out, strerror(-rc));
	}
	if (rc && len)
		out[0] = '\0';
	return rc;
}

int ul_change_swap_create(struct ul_journal *j, const char *dir, uint64_t size_bytes, int priority,
			  const char *run_uuid, char *path_out, size_t len, char *why,
			  size_t whylen)
{
	int rc = -EEXIST;

	for (int tries = 0; rc == -EEXIST && tries < 8; tries++) {
		rc = ul_swap_plan(dir, &size_bytes, priority, path_out, len, why, whylen);
		if (rc)
			break;
		if (j) {
			rc = ul_journal_add(j, "swap", path_out);
			if (rc) {
				ul_whyf(why, whylen, "cannot journal %s: %s", path_out,
					strerror(-rc));
				break;
			}
		}
		rc = ul_swap_make(path_out, size_bytes, priority, run_uuid, why, whylen);
		if (rc && j)
			(void)ul_journal_done(j, "swap", path_out); /* nothing of it is left */
	}
	if (rc == -EEXIST)
		ul_whyf(why, whylen, "cannot find a free swap file name in %s", dir);
	if (rc && len)
		path_out[0] = '\0';
	return rc;
}

int ul_change_cgroup_create(struct ul_journal *j, const char *name, uint64_t limit_bytes,
			    uint64_t swap_limit_bytes, struct ul_cgroup *out, char *why, size_t len)
{
	int rc = ul_cgroup_plan(name, out, why, len);

	if (!rc && j) {
		rc = ul_journal_add(j, "cgroup", out->path);
		if (rc)
			ul_whyf(why, len, "cannot journal %s: %s", out->path, strerror(-rc));
	}
	if (!rc) {
		rc = ul_cgroup_make(out, limit_bytes, swap_limit_bytes, why, len);
		/* Not made, or an existing one that is not ours: never removed by cleanup. */
		if (rc && j)
			(void)ul_journal_done(j, "cgroup", out->path);
	}
	if (rc)
		out->path[0] = '\0';
	return rc;
}

int ul_change_cpuset_create(struct ul_journal *j, const char *name, const char *cpus,
			    const struct ul_cgroup *mem, struct ul_cpuset *out, char *why,
			    size_t len)
{
	int rc = ul_cpuset_plan(name, mem, out, why, len);

	/* A shared group is the memory cgroup, journalled already. */
	if (!rc && j && !out->shared) {
		rc = ul_journal_add(j, "cgroup", out->path);
		if (rc)
			ul_whyf(why, len, "cannot journal %s: %s", out->path, strerror(-rc));
	}
	if (!rc) {
		rc = ul_cpuset_make(out, cpus, why, len);
		if (rc && j && !out->shared)
			(void)ul_journal_done(j, "cgroup", out->path);
	}
	if (rc)
		out->path[0] = '\0';
	return rc;
}

/* Journal "KIND NAME ORIGINAL" for a setting whose value was read as orig
 * (read_rc its -errno); arg receives "NAME ORIGINAL". */
static int save_setting(struct ul_journal *j, const char *kind, const char *name, int read_rc,
			const char *orig, char *arg, size_t len, char *why, size_t whylen)
{
	int rc = read_rc, n;

	if (rc) {
		ul_whyf(why, whylen, "cannot read %s: %s", name, strerror(-rc));
		return rc;
	}
	n = snprintf(arg, len, "%s %s", name, orig);
	if (n < 0 || (size_t)n >= len)
		return -ENAMETOOLONG;
	rc = j ? ul_journal_add(j, kind, arg) : -EBADF;
	if (rc)
		ul_whyf(why, whylen, "cannot journal %s: %s", name, strerror(-rc));
	return rc;
}

int ul_change_sysctl_save(struct ul_journal *j, const char *name, char *arg, size_t len, char *why,
			  size_t whylen)
{
	char orig[UL_SYSCTL_VALUE_MAX];
	int rc = ul_sysctl_read(name, orig, sizeof(orig));

	return save_setting(j, "sysctl", name, rc, orig, arg, len, why, whylen);
}

int ul_change_iosched_save(struct ul_journal *j, const char *disk, char *arg, size_t len, char *why,
			   size_t whylen)
{
	char orig[UL_IOSCHED_NAME_MAX];
	int rc = ul_iosched_read(disk, orig, sizeof(orig), NULL, 0);

	return save_setting(j, "iosched", disk, rc, orig, arg, len, why, whylen);
}

int ul_change_delayacct_on(struct ul_journal *j, bool *changed, char *why, size_t whylen)
{
	int rc = ul_delayacct_read();

	*changed = false;
	if (rc < 0) {
		ul_whyf(why, whylen, "cannot read %s: %s", UL_DELAYACCT_PATH, strerror(-rc));
		return rc;
	}
	if (rc == 1)
		return 0; /* on already: not ours to switch off */
	rc = j ? ul_journal_add(j, "delayacct", "0") : -EBADF;
	if (rc) {
		ul_whyf(why, whylen, "cannot journal delay accounting: %s", strerror(-rc));
		return rc;
	}
	rc = ul_delayacct_write(1, why, whylen);
	if (rc) {
		/* Still off, or in an unknown state: switching it off again is
		 * right either way, and settles the entry. */
		(void)ul_change_undo(j, "delayacct", "0");
		return rc;
	}
	*changed = true;
	return 0;
}

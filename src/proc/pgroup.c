/* SPDX-License-Identifier: GPL-2.0-or-later */
/* A child's process group as a journalled change (contracts in pgroup.h). */
#include "core/compat.h"
#include "core/procstat.h"
#include "proc/journal.h"
#include "proc/pgroup.h"

#include <errno.h>
#include <inttypes.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

#define PGROUP_KILL_WAIT_TICKS 50 /* of 100 ms: 5 s */

int ul_change_pgroup_started(struct ul_journal *j, pid_t pgid, char *arg, size_t len)
{
	struct ul_procstat ps;
	int rc = ul_procstat_read(pgid, &ps);

	if (rc)
		return rc;
	if (ps.pgrp != pgid)
		return -EINVAL; /* not a group leader: its group is not its own */
	snprintf(arg, len, "%d %" PRIu64, (int)pgid, ps.starttime);
	return ul_journal_add(j, "pgroup", arg);
}

static int parse(const char *arg, pid_t *pgid, uint64_t *start)
{
	int pid, end = 0;

	if (sscanf(arg, "%d %" SCNu64 "%n", &pid, start, &end) != 2 || arg[end] || pid <= 1)
		return -EINVAL;
	*pgid = (pid_t)pid;
	return 0;
}

int ul_pgroup_alive(const char *arg)
{
	struct ul_procstat *all = NULL, leader;
	uint64_t start;
	pid_t pgid;
	size_t n = 0;
	int rc = parse(arg, &pgid, &start);

	if (rc)
		return rc;
	rc = ul_procstat_read(pgid, &leader);
	if (rc == 0 && leader.starttime != start)
		return -ENOENT; /* the pid is another process's: our group is gone */
	if (rc && rc != -ENOENT)
		return rc;
	rc = ul_procstat_all(&all, &n);
	if (rc)
		return rc;
	rc = -ENOENT;
	for (size_t i = 0; i < n && rc; i++)
		if (all[i].pgrp == pgid && all[i].starttime >= start && all[i].state != 'Z')
			rc = 0;
	free(all);
	return rc;
}

int ul_pgroup_kill(const char *arg)
{
	uint64_t start;
	pid_t pgid;
	int rc = parse(arg, &pgid, &start);

	if (rc)
		return rc;
	for (int i = 0; i <= PGROUP_KILL_WAIT_TICKS; i++) {
		rc = ul_pgroup_alive(arg);
		if (rc)
			return rc == -ENOENT ? 0 : rc;
		/* Again each time: a member may have forked after the last one. */
		if (kill(-pgid, SIGKILL) < 0 && errno != ESRCH)
			return -errno;
		nanosleep(&(struct timespec){ .tv_nsec = 100 * 1000 * 1000 }, NULL);
	}
	return -EBUSY;
}

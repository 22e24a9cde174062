/* SPDX-License-Identifier: GPL-2.0-or-later */
/* The qemu of `underload vm` as a journalled change (contracts in qemu.h). */
#include "core/compat.h"
#include "core/file.h"
#include "core/procstat.h"
#include "proc/journal.h"
#include "proc/qemu.h"

#include <errno.h>
#include <inttypes.h>
#include <signal.h>
#include <stdio.h>
#include <string.h>
#include <time.h>

int ul_change_qemu_started(struct ul_journal *j, pid_t pid, char *arg, size_t len)
{
	struct ul_procstat ps;
	int rc = ul_procstat_read(pid, &ps);

	if (rc)
		return rc;
	snprintf(arg, len, "%d %" PRIu64, (int)pid, ps.starttime);
	return ul_journal_add(j, "qemu", arg);
}

int ul_qemu_is_ours(const char *arg)
{
	struct ul_procstat ps;
	char p[64], comm[32] = "";
	uint64_t start;
	int pid, end = 0;
	int rc;

	if (sscanf(arg, "%d %" SCNu64 "%n", &pid, &start, &end) != 2 || arg[end] || pid <= 1)
		return -EINVAL;
	rc = ul_procstat_read(pid, &ps);
	if (rc)
		return rc == -ENOENT ? -ENOENT : rc;
	snprintf(p, sizeof(p), "/proc/%d/comm", pid);
	if (ps.starttime != start || ul_read_file(p, comm, sizeof(comm)) < 0 ||
	    strncmp(comm, "qemu-system", 11))
		return -EPERM;
	return 0;
}

int ul_qemu_kill(const char *arg)
{
	int rc = ul_qemu_is_ours(arg);
	int pid = 0;

	if (rc)
		return rc == -ENOENT ? 0 : rc;
	(void)sscanf(arg, "%d", &pid);
	if (kill(pid, SIGKILL) < 0)
		return errno == ESRCH ? 0 : -errno;
	/* Its parent (init or a subreaper) reaps it; wait up to 5 s for that. */
	for (int i = 0; i < 50 && ul_qemu_is_ours(arg) == 0; i++)
		nanosleep(&(struct timespec){ .tv_nsec = 100 * 1000 * 1000 }, NULL);
	return ul_qemu_is_ours(arg) == 0 ? -EBUSY : 0;
}

/* SPDX-License-Identifier: GPL-2.0-or-later */
/* /proc/PID/schedstat (contract: schedstat.h). */
#include "core/compat.h"
#include "core/file.h"
#include "proc/schedstat.h"

#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>

int ul_schedstat_read(pid_t pid, struct ul_schedstat *out)
{
	char path[64], buf[128];
	struct stat st;
	ssize_t n;

	memset(out, 0, sizeof(*out));
	snprintf(path, sizeof(path), "/proc/%d/schedstat", (int)pid);
	n = ul_read_file(path, buf, sizeof(buf));
	if (n == -ENOENT) {
		/* The task is gone, or the kernel keeps no schedstat. */
		snprintf(path, sizeof(path), "/proc/%d", (int)pid);
		return stat(path, &st) < 0 ? -ESRCH : -ENOENT;
	}
	if (n < 0)
		return n == -ESRCH ? -ESRCH : (int)n;
	if (sscanf(buf, "%" SCNu64 " %" SCNu64 " %" SCNu64, &out->cpu_ns, &out->runq_ns,
		   &out->slices) != 3)
		return -EINVAL;
	return 0;
}

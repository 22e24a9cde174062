/* SPDX-License-Identifier: GPL-2.0-or-later */
/* kernel.task_delayacct (contract: delayacct.h). */
#include "core/compat.h"
#include "core/file.h"
#include "core/log.h"
#include "proc/delayacct.h"

#include <errno.h>
#include <string.h>
#include <unistd.h>

int ul_delayacct_read(void)
{
	char buf[16];
	ssize_t n = ul_read_file(UL_DELAYACCT_PATH, buf, sizeof(buf));

	if (n < 0)
		return (int)n;
	buf[strcspn(buf, "\n")] = '\0';
	if (!strcmp(buf, "0") || !strcmp(buf, "1"))
		return buf[0] - '0';
	return -EINVAL;
}

int ul_delayacct_write(int on, char *why, size_t len)
{
	int rc = ul_write_file(UL_DELAYACCT_PATH, on ? "1" : "0");

	if (rc) {
		ul_whyf(why, len, "cannot write %d to %s: %s", !!on, UL_DELAYACCT_PATH,
			strerror(-rc));
		return rc;
	}
	rc = ul_delayacct_read();
	if (rc != !!on) {
		ul_whyf(why, len, "wrote %d to %s, but it reads back as %d", !!on,
			UL_DELAYACCT_PATH, rc);
		return rc < 0 ? rc : -EIO;
	}
	return 0;
}

int ul_delayacct_entry_check(const char *arg, char *why, size_t len)
{
	if (!arg || strcmp(arg, "0")) {
		ul_whyf(why, len, "not the value delay accounting is switched back to (0)");
		return -EPERM;
	}
	if (access(UL_DELAYACCT_PATH, F_OK) == 0)
		return 0;
	if (access("/proc/sys/kernel", F_OK) < 0) {
		ul_whyf(why, len, "/proc/sys is not visible here (%s)", strerror(errno));
		return -EAGAIN;
	}
	return -ENOENT;
}

int ul_delayacct_entry_undo(const char *arg, char *why, size_t len)
{
	int rc = ul_delayacct_entry_check(arg, why, len);

	return rc == -ENOENT ? 0 : rc ? rc : ul_delayacct_write(0, why, len);
}

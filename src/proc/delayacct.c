/* SPDX-License-Identifier: GPL-2.0-or-later */
/* kernel.task_delayacct (contract: delayacct.h). */
#include "core/compat.h"
#include "core/file.h"
#include "core/log.h"
#include "proc/delayacct.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <sys/file.h>
#include <sys/stat.h>
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

int ul_delayacct_lock_open(const char *path, char *why, size_t len)
{
	size_t dirlen = (size_t)(strrchr(path, '/') - path);
	char d[64];
	struct stat st;
	int fd;

	snprintf(d, sizeof(d), "%.*s", (int)dirlen, path);
	if (mkdir(d, 0700) < 0 && errno != EEXIST) {
		fd = -errno;
		ul_whyf(why, len, "cannot make %s: %s", d, strerror(-fd));
		return fd;
	}
	/* Another user's directory could hand us a lock file of theirs. */
	if (lstat(d, &st) < 0 || !S_ISDIR(st.st_mode) || st.st_uid != geteuid() ||
	    (st.st_mode & 022)) {
		ul_whyf(why, len, "%s is not ours or is open to others", d);
		return -EPERM;
	}
	fd = open(path, O_RDWR | O_CREAT | O_NOFOLLOW | O_CLOEXEC, 0600);
	if (fd < 0) {
		fd = -errno;
		ul_whyf(why, len, "cannot open %s: %s", path, strerror(-fd));
	}
	return fd;
}

bool ul_delayacct_marked(int fd)
{
	char c = 0;

	return pread(fd, &c, 1, 0) == 1 && c == '0';
}

int ul_delayacct_mark(int fd, bool mark)
{
	if (ftruncate(fd, 0) < 0)
		return -errno;
	if (mark && pwrite(fd, "0\n", 2, 0) != 2)
		return -EIO;
	return 0;
}

int ul_delayacct_flock(int fd, int how)
{
	while (flock(fd, how) < 0)
		if (errno != EINTR)
			return -errno;
	return 0;
}

int ul_delayacct_entry_undo(const char *arg, char *why, size_t len)
{
	int rc = ul_delayacct_entry_check(arg, why, len), sw, users;

	if (rc)
		return rc == -ENOENT ? 0 : rc;
	/* No lock files (a read-only /run): no run can share it either. */
	sw = ul_delayacct_lock_open(UL_DELAYACCT_SWITCH, NULL, 0);
	if (sw >= 0 && ul_delayacct_flock(sw, LOCK_EX)) {
		close(sw);
		sw = -1;
	}
	users = sw >= 0 ? ul_delayacct_lock_open(UL_DELAYACCT_LOCK, NULL, 0) : -1;
	if (users >= 0 && ul_delayacct_flock(users, LOCK_EX | LOCK_NB) == -EWOULDBLOCK) {
		ul_whyf(why, len, "another underload run still uses delay accounting");
		rc = -EBUSY;
	} else {
		rc = ul_delayacct_write(0, why, len);
		if (!rc && sw >= 0)
			(void)ul_delayacct_mark(sw, false);
	}
	if (users >= 0)
		close(users);
	if (sw >= 0)
		close(sw);
	return rc;
}

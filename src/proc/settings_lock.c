/* SPDX-License-Identifier: GPL-2.0-or-later */
/* The lock on the system settings a sweep changes (contract: settings_lock.h). */
#include "core/compat.h"
#include "core/log.h"
#include "proc/settings_lock.h"

#include <errno.h>
#include <fcntl.h>
#include <string.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <unistd.h>

/* The directory, ours and closed to others, as an fd; -errno with why. */
static int open_dir(char *why, size_t wlen)
{
	struct stat st;
	int fd;

	if (mkdir(UL_SETTINGS_LOCK_DIR, 0700) < 0 && errno != EEXIST) {
		int rc = -errno;

		ul_whyf(why, wlen, "cannot make %s: %s", UL_SETTINGS_LOCK_DIR, strerror(-rc));
		return rc;
	}
	fd = open(UL_SETTINGS_LOCK_DIR, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
	if (fd < 0) {
		int rc = -errno;

		ul_whyf(why, wlen, "cannot open %s: %s", UL_SETTINGS_LOCK_DIR, strerror(-rc));
		return rc;
	}
	/* Another user's directory could hand us a lock file of theirs. */
	if (fstat(fd, &st) < 0 || st.st_uid != geteuid() || (st.st_mode & 022)) {
		ul_whyf(why, wlen, "%s is not ours or is open to others", UL_SETTINGS_LOCK_DIR);
		close(fd);
		return -EPERM;
	}
	return fd;
}

int ul_settings_lock(int *fd, char *why, size_t wlen)
{
	int dir = open_dir(why, wlen), lock, rc;

	*fd = -1;
	if (dir < 0)
		return dir;
	lock = openat(dir, "settings.lock", O_RDWR | O_CREAT | O_NOFOLLOW | O_CLOEXEC, 0600);
	rc = lock < 0 ? -errno : 0;
	close(dir);
	if (rc) {
		ul_whyf(why, wlen, "cannot open %s: %s", UL_SETTINGS_LOCK, strerror(-rc));
		return rc;
	}
	while (flock(lock, LOCK_EX | LOCK_NB) < 0) {
		rc = -errno;
		if (rc == -EINTR)
			continue;
		close(lock);
		if (rc != -EWOULDBLOCK)
			ul_whyf(why, wlen, "cannot lock %s: %s", UL_SETTINGS_LOCK, strerror(-rc));
		else
			ul_whyf(why, wlen, "%s is held by another process", UL_SETTINGS_LOCK);
		return rc;
	}
	*fd = lock;
	return 0;
}

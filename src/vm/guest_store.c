/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * The guest's store, brought out of the share.  The share is the guest's:
 * any name in it may be a link to a host file, a FIFO, a device or a
 * directory, and SQLite opening guest.db by its path would follow a link
 * to another store, read it, and write it (its -wal and -shm beside it).
 * So each file is opened in the share's directory with O_NOFOLLOW, kept
 * only when fstat() says it is a regular file, and copied into the boot's
 * directory (the host's own); the store is opened there.
 */
#include "core/compat.h"
#include "vm/vm.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

/* The store's file and what SQLite keeps beside it: a crashed guest's last
 * transactions may still be in its WAL, or be undone from its journal. */
static const char *const store_suffixes[] = { "", "-wal", "-journal" };

/* name in dir, opened to read when it is a regular file and not a link:
 * the fd, or -errno (-ELOOP a link, -EINVAL not a regular file). */
static int open_regular_at(int dir, const char *name)
{
	int fd = openat(dir, name, O_RDONLY | O_NOFOLLOW | O_NONBLOCK | O_NOCTTY | O_CLOEXEC);
	struct stat st;
	int rc = 0;

	if (fd < 0)
		return -errno;
	if (fstat(fd, &st) < 0)
		rc = -errno;
	else if (!S_ISREG(st.st_mode))
		rc = -EINVAL;
	if (rc)
		close(fd);
	return rc ? rc : fd;
}

/* Copy all of in to a new file `name` in dir: 0 or -errno. */
static int copy_to(int in, int dir, const char *name)
{
	int out = openat(dir, name, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0600);
	char buf[65536];
	int rc = 0;

	if (out < 0)
		return -errno;
	for (;;) {
		ssize_t n = read(in, buf, sizeof(buf)), w = 0;

		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0) {
			rc = n < 0 ? -errno : 0;
			break;
		}
		while (w < n && rc == 0) {
			ssize_t k = write(out, buf + w, (size_t)(n - w));

			if (k < 0 && errno != EINTR)
				rc = -errno;
			w += k > 0 ? k : 0;
		}
		if (rc)
			break;
	}
	if (close(out) < 0 && !rc)
		rc = -errno;
	return rc;
}

/* Copy share/guest.db<suffix> to guest.db<suffix> of the boot's directory. */
static int copy_one(int boot, int share, const char *suffix, char *why, size_t len)
{
	char name[64];
	int fd, rc;

	snprintf(name, sizeof(name), UL_VM_GUEST_DB "%s", suffix);
	fd = open_regular_at(share, name);
	if (fd == -ENOENT)
		return -ENOENT;
	if (fd < 0) {
		snprintf(why, len, "share/%s %s", name,
			 fd == -ELOOP	 ? "is a symbolic link"
			 : fd == -EINVAL ? "is not a regular file"
					 : strerror(-fd));
		return fd;
	}
	rc = copy_to(fd, boot, name);
	close(fd);
	if (rc)
		snprintf(why, len, "cannot copy share/%s: %s", name, strerror(-rc));
	return rc;
}

int ul_vm_guest_store_copy(const char *boot_dir, char *copy, size_t len, char *why, size_t whylen)
{
	int boot = open(boot_dir, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC), share = -1;
	int rc = 0;

	why[0] = '\0';
	snprintf(copy, len, "%s/" UL_VM_GUEST_DB, boot_dir);
	if (boot >= 0)
		share = openat(boot, "share", O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
	if (share < 0) {
		rc = -errno;
		snprintf(why, whylen, "cannot open %s/share: %s", boot_dir, strerror(errno));
	}
	for (size_t i = 0; i < UL_ARRAY_SIZE(store_suffixes) && !rc; i++) {
		rc = copy_one(boot, share, store_suffixes[i], why, whylen);
		if (rc == -ENOENT && i > 0)
			rc = 0; /* no WAL, no journal */
	}
	if (share >= 0)
		close(share);
	if (boot >= 0)
		close(boot);
	return rc;
}

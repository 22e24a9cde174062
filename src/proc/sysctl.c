/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Reading and writing /proc/sys/NAME, NAME given as sysctl(8) spells it.
 */
#include "proc/sysctl.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

bool ul_sysctl_name_ok(const char *name)
{
	size_t n = name ? strlen(name) : 0;

	if (!n || n > 128 || name[0] == '.' || name[n - 1] == '.' || strstr(name, ".."))
		return false;
	return strspn(name, "abcdefghijklmnopqrstuvwxyz0123456789_.") == n;
}

static int path_of(const char *name, char *out, size_t len)
{
	int n;

	if (!ul_sysctl_name_ok(name))
		return -EINVAL;
	n = snprintf(out, len, "/proc/sys/%s", name);
	if (n < 0 || (size_t)n >= len)
		return -ENAMETOOLONG;
	for (char *c = out + strlen("/proc/sys/"); *c; c++)
		if (*c == '.')
			*c = '/';
	return 0;
}

int ul_sysctl_read(const char *name, char *buf, size_t len)
{
	char path[256];
	ssize_t n;
	int fd, rc = path_of(name, path, sizeof(path));

	if (rc)
		return rc;
	if (!len)
		return -EINVAL;
	fd = open(path, O_RDONLY | O_NOFOLLOW | O_CLOEXEC);
	if (fd < 0)
		return -errno;
	n = read(fd, buf, len - 1);
	rc = n < 0 ? -errno : 0;
	close(fd);
	if (rc)
		return rc;
	buf[n] = '\0';
	buf[strcspn(buf, "\n")] = '\0';
	return 0;
}

int ul_sysctl_write(const char *name, const char *value)
{
	char path[256];
	size_t len = value ? strlen(value) : 0;
	ssize_t n;
	int fd, rc = path_of(name, path, sizeof(path));

	if (rc)
		return rc;
	if (!len || strchr(value, '\n'))
		return -EINVAL;
	fd = open(path, O_WRONLY | O_NOFOLLOW | O_CLOEXEC);
	if (fd < 0)
		return -errno;
	n = write(fd, value, len);
	rc = n < 0 ? -errno : (size_t)n != len ? -EIO : 0;
	close(fd);
	return rc;
}

/* SPDX-License-Identifier: GPL-2.0-or-later */
/* Small files read and written whole; see file.h for the contracts. */
#include "core/file.h"
#include "core/testhook.h"

#include <errno.h>
#include <stdio.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

int ul_write_file(const char *path, const char *text)
{
	size_t len = strlen(text);
	ssize_t n;
	int fd, err = 0;

	fd = open(path, O_WRONLY | O_CLOEXEC);
	if (fd < 0)
		return -errno;
	do
		n = write(fd, text, len);
	while (n < 0 && errno == EINTR);
	if (n < 0)
		err = -errno;
	else if ((size_t)n != len)
		err = -EIO;
	if (close(fd) < 0 && !err)
		err = -errno; /* cgroup writes may report errors at close */
	return err;
}

ssize_t ul_read_file(const char *path, char *buf, size_t len)
{
	int fd = open(path, O_RDONLY | O_CLOEXEC);
	size_t got = 0;

	if (fd < 0)
		return -errno;
	while (got + 1 < len) {
		ssize_t n = read(fd, buf + got, len - 1 - got);

		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0) {
			int err = -errno;

			close(fd);
			return err;
		}
		if (n == 0)
			break;
		got += (size_t)n;
	}
	if (len)
		buf[got] = '\0';
	close(fd);
	return (ssize_t)got;
}

int ul_read_full(int fd, void *buf, size_t len)
{
	char *p = buf;

	while (len) {
		ssize_t n = read(fd, p, len);

		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0)
			return -errno;
		if (n == 0)
			return -EPIPE;
		p += n;
		len -= (size_t)n;
	}
	return 0;
}

int ul_write_full(int fd, const void *buf, size_t len)
{
	const char *p = buf;

	while (len) {
		ssize_t n = write(fd, p, len);

		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0)
			return -errno;
		if (n == 0)
			return -EIO;
		p += n;
		len -= (size_t)n;
	}
	return 0;
}

int ul_path_join(char *out, size_t len, const char *dir, const char *name)
{
	int n = snprintf(out, len, "%s/%s", dir, name);

	return n < 0 || (size_t)n >= len ? -ENAMETOOLONG : 0;
}

void ul_test_hold(const char *env_name)
{
	const char *path = ul_test_hook(env_name);
	const struct timespec hold = { 2, 0 };
	int fd;

	if (!path)
		return;
	fd = open(path, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0600);
	if (fd >= 0)
		close(fd);
	nanosleep(&hold, NULL);
}

/* SPDX-License-Identifier: GPL-2.0-or-later */
/* This program's own executable (contract: selfexe.h). */
#include "core/compat.h"
#include "core/selfexe.h"

#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#define DELETED " (deleted)"

/* /proc/self/exe's link into buf, " (deleted)" taken off: 0 or -errno. */
static int self_path(char *buf, size_t len)
{
	ssize_t n = readlink(UL_SELF_EXE, buf, len);
	size_t tail = strlen(DELETED);

	if (n < 0)
		return -errno;
	if ((size_t)n >= len)
		return -ENAMETOOLONG;
	buf[n] = '\0';
	if ((size_t)n > tail && !strcmp(buf + n - tail, DELETED))
		buf[n - tail] = '\0';
	return 0;
}

int ul_self_exe(char *buf, size_t len)
{
	struct stat running, named;
	int rc = self_path(buf, len);

	if (rc)
		return rc;
	if (stat(UL_SELF_EXE, &running) < 0)
		return -errno;
	if (stat(buf, &named) == 0 && named.st_dev == running.st_dev &&
	    named.st_ino == running.st_ino)
		return 0;
	return snprintf(buf, len, "%s", UL_SELF_EXE) < (int)len ? 0 : -ENAMETOOLONG;
}

int ul_self_dir(char *buf, size_t len)
{
	int rc = self_path(buf, len);
	char *slash;

	if (rc)
		return rc;
	slash = strrchr(buf, '/');
	if (!slash)
		return -EINVAL;	    /* the kernel gives an absolute path */
	slash[slash == buf] = '\0'; /* "/underload": "/" */
	return 0;
}

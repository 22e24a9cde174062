/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Reading and writing the sweepable sysctls through /proc/sys (contract:
 * sysctl.h; the allow-list, its bounds and the values it takes:
 * sysctl_allow.c, which needs nothing of this file).
 */
#include "core/compat.h"
#include "core/file.h"
#include "core/log.h"
#include "proc/sysctl.h"

#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

/* /proc/sys/ + name with dots as slashes; 0 or -EINVAL. */
static int sysctl_path(const char *name, char *buf, size_t len)
{
	int n = snprintf(buf, len, "/proc/sys/%s", name);

	if (n < 0 || (size_t)n >= len || strstr(name, "..") || strchr(name, '/'))
		return -EINVAL;
	for (char *p = buf + strlen("/proc/sys/"); *p; p++)
		if (*p == '.')
			*p = '/';
	return 0;
}

/* The path of a listed sysctl; 0 or -EINVAL. */
static int listed_path(const char *name, char *buf, size_t len)
{
	return ul_sysctl_listed(name) ? sysctl_path(name, buf, len) : -EINVAL;
}

bool ul_sysctl_allowed(const char *name)
{
	char path[PATH_MAX];

	return !listed_path(name, path, sizeof(path)) && access(path, F_OK) == 0;
}

int ul_sysctl_writable(const char *name)
{
	char path[PATH_MAX];

	if (listed_path(name, path, sizeof(path)))
		return -EINVAL;
	return access(path, W_OK) == 0 ? 0 : -errno;
}

int ul_sysctl_read(const char *name, char *buf, size_t len)
{
	char path[PATH_MAX];
	ssize_t n;

	if (listed_path(name, path, sizeof(path)))
		return -EINVAL;
	n = ul_read_file(path, buf, len);
	if (n < 0)
		return (int)n;
	buf[strcspn(buf, "\n")] = '\0';
	return ul_sysctl_value_ok(buf) ? 0 : -EINVAL;
}

int ul_sysctl_write(const char *name, const char *value, char *why, size_t wlen)
{
	char path[PATH_MAX], back[UL_SYSCTL_VALUE_MAX + 8];
	int rc;

	if (listed_path(name, path, sizeof(path)) || !ul_sysctl_value_ok(value)) {
		ul_whyf(why, wlen, "%s=%s: not a sysctl and an integer a sweep may write", name,
			value);
		return -EINVAL;
	}
	rc = ul_write_file(path, value);
	if (rc) {
		ul_whyf(why, wlen, "cannot write %s to %s: %s", value, name, strerror(-rc));
		return rc;
	}
	/* The kernel may clamp, round or misread what it took: what counts is
	 * what it holds now. */
	rc = ul_sysctl_read(name, back, sizeof(back));
	if (rc) {
		ul_whyf(why, wlen, "wrote %s to %s, then cannot read it back: %s", value, name,
			strerror(-rc));
		return rc;
	}
	if (strcmp(back, value)) {
		ul_whyf(why, wlen, "wrote %s to %s, but it reads back as %s", value, name, back);
		return -EIO;
	}
	return 0;
}

/* "NAME ORIGINAL": the name into name[len], the value after it; NULL if malformed. */
static const char *split_entry(const char *arg, char *name, size_t len)
{
	const char *sp = strchr(arg, ' ');

	if (!sp || (size_t)(sp - arg) >= len)
		return NULL;
	snprintf(name, len, "%.*s", (int)(sp - arg), arg);
	return ul_sysctl_value_ok(sp + 1) ? sp + 1 : NULL;
}

int ul_sysctl_entry_check(const char *arg, char *why, size_t wlen)
{
	char name[128], path[PATH_MAX];

	if (!split_entry(arg, name, sizeof(name)) || listed_path(name, path, sizeof(path))) {
		ul_whyf(why, wlen, "not a sysctl a sweep may change, or not an integer value");
		return -EPERM;
	}
	if (access(path, F_OK) == 0)
		return 0;
	/* No /proc/sys here (procfs not mounted in this namespace): the
	 * sysctl is not gone, only out of sight. */
	if (access("/proc/sys/kernel", F_OK) < 0) {
		ul_whyf(why, wlen, "/proc/sys is not visible here (%s)", strerror(errno));
		return -EAGAIN;
	}
	return -ENOENT; /* not on this kernel: nothing to write back */
}

int ul_sysctl_entry_undo(const char *arg, char *why, size_t wlen)
{
	char name[128];
	const char *orig = split_entry(arg, name, sizeof(name));

	if (!orig) {
		ul_whyf(why, wlen, "malformed sysctl entry");
		return -EINVAL;
	}
	return ul_sysctl_write(name, orig, why, wlen);
}

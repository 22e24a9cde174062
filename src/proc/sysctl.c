/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * The sweepable sysctls (contract: sysctl.h).  The list is short on
 * purpose: settings that change how memory, writeback and the scheduler
 * behave under load, each an integer, none that can take the machine
 * down on a value within its own range (the kernel checks the range).
 */
#include "core/compat.h"
#include "core/file.h"
#include "core/log.h"
#include "proc/sysctl.h"

#include <errno.h>
#include <fnmatch.h>
#include <limits.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

/* fnmatch(3) patterns on the dotted name. */
static const char *const allowed[] = {
	"vm.swappiness",
	"vm.dirty_ratio",
	"vm.dirty_background_ratio",
	"vm.dirty_expire_centisecs",
	"vm.dirty_writeback_centisecs",
	"vm.vfs_cache_pressure",
	"vm.min_free_kbytes",
	"vm.watermark_scale_factor",
	"vm.page-cluster",
	"kernel.sched_*",
};

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

bool ul_sysctl_allowed(const char *name)
{
	char path[PATH_MAX];
	bool listed = false;

	if (!name || strspn(name, "abcdefghijklmnopqrstuvwxyz0123456789._-") != strlen(name))
		return false;
	for (size_t i = 0; i < UL_ARRAY_SIZE(allowed); i++)
		listed |= !fnmatch(allowed[i], name, 0);
	return listed && !sysctl_path(name, path, sizeof(path)) && access(path, W_OK) == 0;
}

void ul_sysctl_allow_list(char *buf, size_t len)
{
	size_t off = 0;

	buf[0] = '\0';
	for (size_t i = 0; i < UL_ARRAY_SIZE(allowed) && off < len; i++)
		off += (size_t)snprintf(buf + off, len - off, "%s%s", i ? ", " : "", allowed[i]);
}

bool ul_sysctl_value_ok(const char *value)
{
	size_t n = value ? strlen(value) : 0;
	const char *digits = value && value[0] == '-' ? value + 1 : value;

	return n && n < UL_SYSCTL_VALUE_MAX && digits[0] &&
	       strspn(digits, "0123456789") == strlen(digits);
}

int ul_sysctl_read(const char *name, char *buf, size_t len)
{
	char path[PATH_MAX];
	ssize_t n;

	if (!ul_sysctl_allowed(name) || sysctl_path(name, path, sizeof(path)))
		return -EINVAL;
	n = ul_read_file(path, buf, len);
	if (n < 0)
		return (int)n;
	buf[strcspn(buf, "\n")] = '\0';
	return ul_sysctl_value_ok(buf) ? 0 : -EINVAL;
}

int ul_sysctl_write(const char *name, const char *value)
{
	char path[PATH_MAX];

	if (!ul_sysctl_allowed(name) || !ul_sysctl_value_ok(value) ||
	    sysctl_path(name, path, sizeof(path)))
		return -EINVAL;
	return ul_write_file(path, value);
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

int ul_sysctl_entry_check(const char *arg)
{
	char name[128];

	return split_entry(arg, name, sizeof(name)) && ul_sysctl_allowed(name) ? 0 : -EPERM;
}

int ul_sysctl_entry_undo(const char *arg, char *why, size_t wlen)
{
	char name[128];
	const char *orig = split_entry(arg, name, sizeof(name));
	int rc = orig ? ul_sysctl_write(name, orig) : -EINVAL;

	if (rc)
		ul_whyf(why, wlen, "cannot write %s back to %s: %s", orig ? orig : "?", name,
			strerror(-rc));
	return rc;
}

/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * The I/O scheduler of a directory's disk (contract: iosched.h), through
 * sysfs: /sys/dev/block/MAJ:MIN leads to the device, /sys/block/DISK/queue/
 * scheduler is read and written.
 */
#include "core/compat.h"
#include "core/file.h"
#include "core/log.h"
#include "proc/iosched.h"

#include <dirent.h>
#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <sys/vfs.h>
#include <unistd.h>
#include <linux/magic.h>

#define SCHED_TEXT_MAX 256 /* "none [mq-deadline] kyber bfq" */
#define MAX_DEPTH 4	   /* dm on dm on a partition is as deep as we follow */

static int sched_path(const char *disk, char *buf, size_t len)
{
	int n = snprintf(buf, len, "/sys/block/%s/queue/scheduler", disk);

	return n < 0 || (size_t)n >= len ? -ENAMETOOLONG : 0;
}

/* A block device name: letters, digits and "_.:!-" (cciss!c0d0), not dots only. */
static bool disk_name_ok(const char *name)
{
	size_t n = name ? strlen(name) : 0;

	return n && n < UL_IOSCHED_NAME_MAX && strspn(name, ".") != n &&
	       strspn(name,
		      "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789_.:!-") == n;
}

bool ul_iosched_disk_ok(const char *name)
{
	char path[PATH_MAX];

	return disk_name_ok(name) && !sched_path(name, path, sizeof(path)) &&
	       access(path, F_OK) == 0;
}

bool ul_iosched_name_ok(const char *name)
{
	size_t n = name ? strlen(name) : 0;

	return n && n < UL_IOSCHED_NAME_MAX &&
	       strspn(name, "abcdefghijklmnopqrstuvwxyz0123456789_-") == n;
}

/* The scheduler file of the device at sysfs directory dev, whole. */
static int read_sched_at(const char *dev, char *text, size_t len)
{
	char path[PATH_MAX];
	ssize_t n;

	if (ul_path_join(path, sizeof(path), dev, "queue/scheduler"))
		return -ENAMETOOLONG;
	n = ul_read_file(path, text, len);
	if (n < 0)
		return (int)n;
	text[strcspn(text, "\n")] = '\0';
	return 0;
}

int ul_iosched_read(const char *disk, char *cur, size_t len, char *avail, size_t alen)
{
	char path[PATH_MAX], text[SCHED_TEXT_MAX], *save = NULL, *tok;
	size_t off = 0;
	ssize_t n;

	if (!ul_iosched_disk_ok(disk) || sched_path(disk, path, sizeof(path)))
		return -EINVAL;
	n = ul_read_file(path, text, sizeof(text));
	if (n < 0)
		return (int)n;
	cur[0] = '\0';
	if (avail)
		avail[0] = '\0';
	for (tok = strtok_r(text, " \n", &save); tok; tok = strtok_r(NULL, " \n", &save)) {
		size_t k = strlen(tok);
		bool selected = tok[0] == '[' && k > 2 && tok[k - 1] == ']';

		if (selected) {
			tok[k - 1] = '\0';
			tok++;
			snprintf(cur, len, "%s", tok);
		}
		if (avail && off < alen)
			off += (size_t)snprintf(avail + off, alen - off, "%s%s", off ? " " : "",
						tok);
	}
	return ul_iosched_name_ok(cur) ? 0 : -EINVAL;
}

bool ul_iosched_offered(const char *disk, const char *name)
{
	char cur[UL_IOSCHED_NAME_MAX], avail[SCHED_TEXT_MAX], *save = NULL, *tok;

	if (!ul_iosched_name_ok(name) ||
	    ul_iosched_read(disk, cur, sizeof(cur), avail, sizeof(avail)))
		return false;
	for (tok = strtok_r(avail, " ", &save); tok; tok = strtok_r(NULL, " ", &save))
		if (!strcmp(tok, name))
			return true;
	return false;
}

int ul_iosched_write(const char *disk, const char *name, char *why, size_t wlen)
{
	char path[PATH_MAX], back[UL_IOSCHED_NAME_MAX];
	int rc;

	if (!ul_iosched_disk_ok(disk) || !ul_iosched_name_ok(name) ||
	    sched_path(disk, path, sizeof(path))) {
		ul_whyf(why, wlen, "%s of %s: not a disk with a scheduler and a scheduler name",
			name, disk);
		return -EINVAL;
	}
	rc = ul_write_file(path, name);
	if (rc) {
		ul_whyf(why, wlen, "cannot select %s on %s: %s", name, disk, strerror(-rc));
		return rc;
	}
	/* What counts is what the disk runs now. */
	rc = ul_iosched_read(disk, back, sizeof(back), NULL, 0);
	if (rc) {
		ul_whyf(why, wlen, "selected %s on %s, then cannot read it back: %s", name, disk,
			strerror(-rc));
		return rc;
	}
	if (strcmp(back, name)) {
		ul_whyf(why, wlen, "selected %s on %s, but it reads back as %s", name, disk, back);
		return -EIO;
	}
	return 0;
}

/* Does the device at sysfs directory dev offer more than one scheduler? */
static bool choosable(const char *dev)
{
	char text[SCHED_TEXT_MAX], *save = NULL;
	int words = 0;

	if (read_sched_at(dev, text, sizeof(text)))
		return false;
	for (char *tok = strtok_r(text, " ", &save); tok; tok = strtok_r(NULL, " ", &save))
		words++;
	return words > 1;
}

/* dev becomes the one device below it (its slaves/), if there is exactly one. */
static bool only_slave(char *dev, size_t len)
{
	char dir[PATH_MAX], one[PATH_MAX], real[PATH_MAX];
	struct dirent *e;
	int n = 0;
	DIR *d;

	if (ul_path_join(dir, sizeof(dir), dev, "slaves") || !(d = opendir(dir)))
		return false;
	while ((e = readdir(d)))
		if (e->d_name[0] != '.' && n++ == 0 &&
		    ul_path_join(one, sizeof(one), dir, e->d_name))
			n = 2; /* too long: as if ambiguous */
	closedir(d);
	if (n != 1 || !realpath(one, real) || strlen(real) >= len)
		return false;
	snprintf(dev, len, "%s", real);
	return true;
}

/* A partition's sysfs directory becomes its disk's. */
static void disk_of_partition(char *dev)
{
	char p[PATH_MAX];
	char *slash;

	if (!ul_path_join(p, sizeof(p), dev, "partition") && access(p, F_OK) == 0 &&
	    (slash = strrchr(dev, '/')) && slash != dev)
		*slash = '\0';
}

int ul_iosched_disk(const char *dir, char *disk, size_t len, char *why, size_t wlen)
{
	char link[64], dev[PATH_MAX];
	struct stat st;

	if (stat(dir, &st) < 0) {
		int rc = -errno;

		ul_whyf(why, wlen, "cannot stat %s: %s", dir, strerror(-rc));
		return rc;
	}
	snprintf(link, sizeof(link), "/sys/dev/block/%u:%u", major(st.st_dev), minor(st.st_dev));
	if (!major(st.st_dev) || !realpath(link, dev)) {
		ul_whyf(why, wlen,
			"%s is on a filesystem without a block device (device %u:%u: tmpfs, "
			"overlay, NFS, btrfs?): there is no I/O scheduler to set",
			dir, major(st.st_dev), minor(st.st_dev));
		return -ENODEV;
	}
	for (int depth = 0; depth < MAX_DEPTH; depth++) {
		const char *base;

		disk_of_partition(dev);
		base = strrchr(dev, '/') + 1;
		if (choosable(dev) && ul_iosched_disk_ok(base) && strlen(base) < len) {
			snprintf(disk, len, "%s", base);
			return 0;
		}
		if (!only_slave(dev, sizeof(dev)))
			break;
	}
	ul_whyf(why, wlen,
		"the device of %s (%u:%u, %s) offers no I/O scheduler to choose, and not "
		"through exactly one device below it",
		dir, major(st.st_dev), minor(st.st_dev), strrchr(dev, '/') + 1);
	return -ENODEV;
}

/* "DISK ORIGINAL": the disk into disk[len], the scheduler after it; NULL if malformed. */
static const char *split_entry(const char *arg, char *disk, size_t len)
{
	const char *sp = strchr(arg, ' ');

	if (!sp || (size_t)(sp - arg) >= len)
		return NULL;
	snprintf(disk, len, "%.*s", (int)(sp - arg), arg);
	return ul_iosched_name_ok(sp + 1) ? sp + 1 : NULL;
}

int ul_iosched_entry_check(const char *arg, char *why, size_t wlen)
{
	char disk[UL_IOSCHED_NAME_MAX], dir[PATH_MAX];
	struct statfs sfs;

	if (!split_entry(arg, disk, sizeof(disk)) || !disk_name_ok(disk)) {
		ul_whyf(why, wlen, "not a disk name and a scheduler name");
		return -EPERM;
	}
	if (ul_iosched_disk_ok(disk))
		return 0;
	/* Only a sysfs that shows the disks can tell one is gone; without it
	 * (none mounted here, or something else on /sys) it is out of sight. */
	if (statfs("/sys/block", &sfs) < 0 || sfs.f_type != SYSFS_MAGIC) {
		ul_whyf(why, wlen, "no sysfs at /sys/block here: %s's scheduler cannot be seen",
			disk);
		return -EAGAIN;
	}
	snprintf(dir, sizeof(dir), "/sys/block/%s", disk);
	if (access(dir, F_OK) == 0) {
		ul_whyf(why, wlen, "%s has no queue/scheduler to write", disk);
		return -EAGAIN;
	}
	ul_whyf(why, wlen, "%s is gone (a loop device detached?): no scheduler to select", disk);
	return -ENOENT;
}

int ul_iosched_entry_undo(const char *arg, char *why, size_t wlen)
{
	char disk[UL_IOSCHED_NAME_MAX];
	const char *orig = split_entry(arg, disk, sizeof(disk));
	if (!orig) {
		ul_whyf(why, wlen, "malformed iosched entry");
		return -EINVAL;
	}
	return ul_iosched_write(disk, orig, why, wlen);
}

/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * The I/O scheduler of the disk a directory lives on, which `underload
 * sweep iosched=...` changes: /sys/block/DISK/queue/scheduler, where the
 * kernel lists what the disk offers ("none [mq-deadline] kyber bfq") and
 * takes one of those names.
 *
 * The disk is found from the directory's device (st_dev): a partition's is
 * its disk; a device without a scheduler to choose (device-mapper, md)
 * leads to the one device below it when there is exactly one (a plain LVM
 * volume or dm-crypt on a partition); a loop device has a scheduler of its
 * own.  A filesystem without a block device (tmpfs, overlay, NFS, btrfs's
 * anonymous devices) has nothing to set.  A change is journalled before it
 * is made (proc/changes.h: kind "iosched", "DISK ORIGINAL") so that
 * `underload cleanup` writes the original back after a kill -9.
 */
#ifndef UL_IOSCHED_H
#define UL_IOSCHED_H

#include "core/compat.h"

#include <stddef.h>

#define UL_IOSCHED_NAME_MAX 32 /* a scheduler's or a disk's name and its NUL */

/*
 * The disk under dir, as its name in /sys/block ("sda", "loop3"), into
 * disk.  0, or -errno with a reason in why: -ENODEV when dir's filesystem
 * has no block device or no scheduler can be chosen for it.
 */
int ul_iosched_disk(const char *dir, char *disk, size_t len, char *why, size_t wlen) UL_MUST_CHECK;
/* Is name a disk name (no slash, no dots only) with a scheduler file? */
bool ul_iosched_disk_ok(const char *name);
/* Is name a word a scheduler may be called ([a-z0-9_-], short)? */
bool ul_iosched_name_ok(const char *name);
/* The disk's selected scheduler into cur and, when avail is not NULL,
 * every one it offers, blank-separated.  0 or -errno. */
int ul_iosched_read(const char *disk, char *cur, size_t len, char *avail,
		    size_t alen) UL_MUST_CHECK;
/* Does the disk offer scheduler name? */
bool ul_iosched_offered(const char *disk, const char *name);
/* Select scheduler name (checked as above) for disk, then read it back:
 * 0, or -errno with a reason in why; -EIO when the disk runs another. */
int ul_iosched_write(const char *disk, const char *name, char *why, size_t wlen) UL_MUST_CHECK;
/* A journal entry "DISK ORIGINAL" (proc/changes.h): 0 when well formed and
 * the disk is there; -ENOENT when sysfs shows it is gone (a loop device
 * detached since: nothing to undo); -EAGAIN when it cannot be seen here
 * (no sysfs on /sys, no queue/scheduler: try later); -EPERM when
 * malformed.  why says which. */
int ul_iosched_entry_check(const char *arg, char *why, size_t wlen);
/* Select its ORIGINAL back: 0, or -errno with a reason in why. */
int ul_iosched_entry_undo(const char *arg, char *why, size_t wlen);

#endif

/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * A swap file provisioned for one run (--swap) and removed afterwards, so
 * memory loads can be measured with and without swap on any machine.
 */
#ifndef UL_SWAP_H
#define UL_SWAP_H

#include "core/compat.h"
#include "core/clock.h"

#define UL_SWAP_PREFIX "underload-swap-"
#define UL_SWAP_MIN_BYTES (256 * UL_KiB)
/* Free space left on the filesystem after the swap file is allocated. */
#define UL_SWAP_RESERVE_BYTES UL_GiB

/*
 * Create DIR/underload-swap-XXXXXX (mode 0600) of size_bytes (rounded down
 * to pages, at least UL_SWAP_MIN_BYTES) with real blocks, make it a swap
 * area (/sbin/mkswap when installed, else a header written here) labelled
 * "underload" and carrying run_uuid as its UUID, and swapon() it with
 * `priority` (0..32767; negative: the kernel's default).  The file is made
 * relative to DIR's fd with O_NOFOLLOW | O_EXCL (DIR must be ours, 0700).
 * Refuses, with a reason in why, filesystems that cannot hold swap files
 * (tmpfs, ramfs, overlayfs, btrfs, ZFS, network and FUSE filesystems ...)
 * and sizes that would leave less than UL_SWAP_RESERVE_BYTES free.
 * Returns 0 with the path in path_out, or -errno: -EOPNOTSUPP unsuitable
 * filesystem, -ENOSPC, -EPERM (needs CAP_SYS_ADMIN), -EINVAL.  Nothing is
 * left behind on failure.  A leaf: no journal (proc/changes.c journals).
 */
int ul_swap_create(const char *dir, uint64_t size_bytes, int priority, const char *run_uuid,
		   char *path_out, size_t len, char *why, size_t whylen) UL_MUST_CHECK;
/* May this process turn a swap file on (CAP_SYS_ADMIN in its effective
 * set)?  0, or -EPERM with a reason in why: checked before a file is
 * written, which swapon would refuse only afterwards. */
int ul_swap_permitted(char *why, size_t whylen) UL_MUST_CHECK;
/* ul_swap_create() in two steps, so the path can be journalled before the
 * file exists: plan checks, rounds *size_bytes and picks a random name;
 * make creates it (-EEXIST: the name is taken, plan again). */
int ul_swap_plan(const char *dir, uint64_t *size_bytes, int priority, char *path_out, size_t len,
		 char *why, size_t whylen) UL_MUST_CHECK;
int ul_swap_make(const char *path, uint64_t size_bytes, int priority, const char *run_uuid,
		 char *why, size_t whylen) UL_MUST_CHECK;
/*
 * Is path a swap file we made for the run run_uuid: a regular file of
 * ours (not a symlink, one link) whose header has the swap magic, our
 * label and that UUID?  With run_uuid NULL only the magic and the owner
 * are checked (journals of versions that recorded no run).  0 yes;
 * -ENOENT gone; -EPERM/-ELOOP/-EINVAL no.
 */
int ul_swap_is_ours(const char *path, const char *run_uuid) UL_MUST_CHECK;
/*
 * swapoff and unlink (proc/swapoff.c).  Idempotent: 0 when already gone.
 * Refuses (-EINVAL) a path whose last component does not start with
 * UL_SWAP_PREFIX.  swapoff of a well-used file can take long (its pages
 * are read back into memory), and fails for a while when pages of a
 * process whose memory cgroup is full sit in it, or when a signal or
 * another swapoff of the file interrupts it: it is retried until
 * /proc/swaps no longer lists the file, for up to `patience`.  0 only
 * then; -EBUSY (file kept, a note and a warning said why) when the file
 * is still a swap area at the deadline; -EPERM and the like at once.
 * ul_swap_destroy() waits UL_SWAP_OFF_PATIENCE_NS.
 */
#define UL_SWAP_OFF_PATIENCE_NS (60 * UL_NS_PER_SEC)
int ul_swap_destroy_within(const char *path, ul_nsec patience) UL_MUST_CHECK;
int ul_swap_destroy(const char *path) UL_MUST_CHECK;

#endif

/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * A swap file provisioned for one run (--swap) and removed afterwards, so
 * memory loads can be measured with and without swap on any machine.
 */
#ifndef UL_SWAP_H
#define UL_SWAP_H

#include "core/compat.h"

#define UL_SWAP_PREFIX "underload-swap-"
#define UL_SWAP_MIN_BYTES (256 * UL_KiB)
/* Free space left on the filesystem after the swap file is allocated. */
#define UL_SWAP_RESERVE_BYTES UL_GiB

struct ul_journal;

/*
 * Create DIR/underload-swap-XXXXXX (mode 0600) of size_bytes (rounded down
 * to pages, at least UL_SWAP_MIN_BYTES) with real blocks, make it a swap
 * area (/sbin/mkswap when installed, else a header written here) and
 * swapon() it with `priority` (0..32767; negative: the kernel's default).
 * Refuses, with a reason in why, filesystems that cannot hold swap files
 * (tmpfs, ramfs, overlayfs, btrfs, ZFS, network and FUSE filesystems ...)
 * and sizes that would leave less than UL_SWAP_RESERVE_BYTES free.
 * Returns 0 with the path in path_out, or -errno: -EOPNOTSUPP unsuitable
 * filesystem, -ENOSPC, -EPERM (needs CAP_SYS_ADMIN), -EINVAL.  Nothing is
 * left behind on failure.
 */
int ul_swap_create(const char *dir, uint64_t size_bytes, int priority, char *path_out, size_t len,
		   char *why, size_t whylen) UL_MUST_CHECK;
/* The same, recording "swap PATH" in j (if not NULL) before the file is
 * made.  On success the entry stays pending until the caller destroys the
 * file and calls ul_journal_done() (or ul_journal_undo(), which does both). */
int ul_swap_create_journalled(struct ul_journal *j, const char *dir, uint64_t size_bytes,
			      int priority, char *path_out, size_t len, char *why,
			      size_t whylen) UL_MUST_CHECK;
/*
 * swapoff (not being active is fine) and unlink.  Idempotent: 0 when
 * already gone.  Refuses (-EINVAL) a path whose last component does not
 * start with UL_SWAP_PREFIX.  swapoff of a well-used file can take long:
 * its pages are read back into memory (-ENOMEM if they do not fit; the
 * file is then kept).
 */
int ul_swap_destroy(const char *path);

#endif

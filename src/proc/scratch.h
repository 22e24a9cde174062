/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * The run's private scratch directory.  Every file a load or probe makes
 * lives under it; the supervisor removes it after reaping, on success,
 * error and interruption.  Loads own no cleanup.
 */
#ifndef UL_SCRATCH_H
#define UL_SCRATCH_H

#include "core/compat.h"

#define UL_SCRATCH_PREFIX "underload-"

/* Create PARENT/underload-XXXXXX (mode 0700) and return its path in out.
 * -ENOENT parent missing, -ENOTDIR, -EACCES/-EROFS not writable. */
int ul_scratch_create(const char *parent, char *out, size_t len) UL_MUST_CHECK;
/* Remove a directory tree without following symlinks; 0 or -errno.
 * Refuses (-EINVAL) paths whose last component lacks UL_SCRATCH_PREFIX. */
int ul_scratch_remove(const char *path) UL_MUST_CHECK;
/* Bytes available to unprivileged users on the filesystem holding path. */
int ul_fs_free_bytes(const char *path, uint64_t *out) UL_MUST_CHECK;

#endif

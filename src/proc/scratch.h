/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * The run's private scratch directory.  Every file a load or probe makes
 * lives under it; the supervisor removes it after reaping, on success,
 * error and interruption.  Loads own no cleanup.
 *
 * Paths are trusted only as far as the filesystem makes them trustworthy:
 * the parent must be one no other user can rename entries in (every
 * ancestor owned by root or us, and not group/world-writable unless
 * sticky, as ssh and systemd-tmpfiles require), the directory itself is
 * ours and 0700, and everything below it is reached through directory fds
 * with O_NOFOLLOW, so a symlink raced into the tree is never followed.
 *
 * A leaf: nothing here writes the journal (proc/changes.c does).
 */
#ifndef UL_SCRATCH_H
#define UL_SCRATCH_H

#include "core/compat.h"

#include <sys/types.h>

#define UL_SCRATCH_PREFIX "underload-"
#define UL_SCRATCH_NAME_LEN (sizeof(UL_SCRATCH_PREFIX) - 1 + 6) /* underload-XXXXXX */

/*
 * Check that parent is a directory no other user can tamper with: every
 * component from / down, after resolving symlinks, is owned by root or by
 * us and is not group- or world-writable unless it has the sticky bit.
 * The resolved path goes to real (may be NULL).  0, or -errno with a
 * reason in why: -EPERM unsafe, -ENOENT, -ENOTDIR.
 */
int ul_scratch_check_parent(const char *parent, char *real, size_t real_len, char *why,
			    size_t whylen) UL_MUST_CHECK;
/* A fresh random name "underload-XXXXXX" for a scratch dir in parent
 * (resolved as ul_scratch_check_parent() does) into out: the caller can
 * journal it before ul_scratch_make() creates it.  0 or -errno with why. */
int ul_scratch_name(const char *parent, char *out, size_t len, char *why,
		    size_t whylen) UL_MUST_CHECK;
/* mkdir(path, 0700) through a no-symlink walk of its parent.  -EEXIST
 * when the name is taken (not ours: pick another). */
int ul_scratch_make(const char *path) UL_MUST_CHECK;
/* ul_scratch_name() + ul_scratch_make(), retrying taken names, for callers
 * without a journal (tests, loads' own subdirectories). */
int ul_scratch_create(const char *parent, char *out, size_t len) UL_MUST_CHECK;

/*
 * Remove a directory tree we own without following symlinks or crossing
 * mount points, walking by directory fds (openat/O_NOFOLLOW/unlinkat).  A
 * directory a load left unreadable is opened up (fchmod) only when it is
 * ours.  Refuses (-EINVAL) paths whose last component lacks
 * UL_SCRATCH_PREFIX or holds "." / ".."; -ENOTDIR for a symlink; -EPERM
 * for a directory owned by someone else.  0 or -errno.
 */
int ul_scratch_remove(const char *path) UL_MUST_CHECK;
/*
 * Is path a scratch directory this user made?  Absolute, no "." / ".." /
 * empty components, no symlink in any component, last component
 * "underload-XXXXXX", a directory owned by us with mode 0700.  0 yes;
 * -ENOENT gone; -EPERM/-EINVAL/-ELOOP/-ENOTDIR not ours.  For cleanup.
 */
int ul_scratch_is_ours(const char *path) UL_MUST_CHECK;

/*
 * Open a directory by a path of which no component may be a symlink
 * (absolute or relative to the cwd), O_DIRECTORY | O_CLOEXEC plus flags
 * (O_RDONLY or O_PATH).  fd or -errno.
 */
int ul_open_dir_nofollow(const char *path, int flags);
/*
 * Open NAME (one component, no '/') in the scratch directory dir, relative
 * to its fd with O_NOFOLLOW, after checking that dir is ours and private
 * (owner us, no group/other bits).  flags as for open(); mode for O_CREAT.
 * fd or -errno (-ELOOP: NAME is a symlink; -EPERM: dir is not private).
 */
int ul_scratch_openat(const char *dir, const char *name, int flags, mode_t mode);

/*
 * An anonymous file in the scratch directory dir (checked as for
 * ul_scratch_openat()): O_TMPFILE where the filesystem has it, else NAME
 * created with O_EXCL and unlinked at once.  It has no name, so it lives
 * exactly as long as its fds, even when its process is killed.  flags:
 * O_WRONLY or O_RDWR.  fd or -errno.
 */
int ul_scratch_open_anon(const char *dir, const char *name, int flags);
/* unlinkat() of NAME in dir, reached as ul_scratch_openat() does. 0 or -errno. */
int ul_scratch_unlinkat(const char *dir, const char *name);

/* Bytes available to unprivileged users on the filesystem holding path. */
int ul_fs_free_bytes(const char *path, uint64_t *out) UL_MUST_CHECK;

#endif

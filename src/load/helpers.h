/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Helpers for the contest loads: running external programs (tar, ls) so
 * their CPU time is the load's, and sizing files against the disk reserve.
 */
#ifndef UL_LOAD_HELPERS_H
#define UL_LOAD_HELPERS_H

#include "core/compat.h"
#include "load/load.h"

/*
 * Fork, chdir to `cwd` (NULL: stay), exec argv[0] (an absolute path) with
 * argv, stdin from /dev/null, stdout and stderr inherited (a load's are
 * /dev/null); wait for it.  A SIGTERM that arrives meanwhile (the
 * supervisor's stop) kills and reaps the command before the calling
 * process dies of that SIGTERM, so the command's CPU time reaches the
 * load's rusage.  Returns 0 with the wait status in *wstatus, or a
 * positive errno (fork failed).  The command exits 127 if exec fails.
 * Only for load processes (it may end the caller); never prints.
 */
int ul_load_exec_wait(char *const argv[], const char *cwd, int *wstatus);

/* Exit status of a command whose exec (or chdir) failed. */
#define UL_LOAD_EXEC_FAILED 127

/* Sum of the sizes of the regular files under `dir` (no symlinks followed)
 * into *bytes; 0 or -errno. */
int ul_load_tree_bytes(const char *dir, uint64_t *bytes);

/*
 * Resolve a file size for check(): *size 0 means auto = the memory budget;
 * either way it is rounded down to whole MiB and must fit in the free
 * space of the scratch filesystem minus ctx->disk_reserve_bytes (auto
 * shrinks to fit, an explicit size that does not fit is refused: a
 * smaller file would be a different load).  0, or -ENOSPC/-EINVAL and why.
 */
int ul_load_size_file(const struct ul_load_ctx *ctx, uint64_t *size, char *why, size_t len);

/*
 * Refuse (-ENOSPC and why) unless `need` bytes fit in the free space of the
 * scratch filesystem minus the reserve.  `what` names the use in the reason.
 */
int ul_load_check_room(const struct ul_load_ctx *ctx, uint64_t need, const char *what, char *why,
		       size_t len);

#endif

/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Helpers for the loads: running external programs (tar, ls) so their CPU
 * time is the load's, sizing files against the disk reserve, the tar loads'
 * common hooks and the streaming-write loop of io_load and largewrite.
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

/*
 * Streaming writes (io_load, largewrite).  ul_load_stream_run() writes the
 * file `name` of the scratch directory (opened relative to its fd with
 * O_NOFOLLOW: ul_scratch_openat()) in `chunks` writes of
 * UL_LOAD_STREAM_CHUNK from `buf` (that many bytes),
 * adding one unit per completed write, then does it again, until killed.
 * Every pass opens the file with O_TRUNC, so its blocks are allocated anew.
 *
 * UL_LOAD_STREAM_STAMP: store the chunk's index in buf[0] before each
 * write, so consecutive chunks differ.
 * UL_LOAD_STREAM_UNLINK: the file has no name (ul_scratch_open_anon():
 * O_TMPFILE, or deleted as soon as it is opened) and lives only as long
 * as the pass (or the load: a stopped or killed load
 * leaves no file behind to fill the scratch filesystem for the rest of the
 * run); an error from close() is then not reported (the data are
 * discarded), one from unlink() is.  Without it the file stays and
 * close()'s error is reported.
 *
 * ENOSPC (someone else filled the disk after check()) is recorded with
 * ul_load_fail() and not fatal: the next pass starts over, 100 ms later if
 * the failed pass completed no write.  Any other error (open, write, close
 * or unlink) ends it: returns ul_load_fail(ctx, err).  Returns nothing else.
 */
#define UL_LOAD_STREAM_CHUNK UL_MiB
#define UL_LOAD_STREAM_STAMP (1u << 0)
#define UL_LOAD_STREAM_UNLINK (1u << 1)

int ul_load_stream_run(struct ul_load_ctx *ctx, const char *name, char *buf, uint64_t chunks,
		       unsigned int flags);

/*
 * check() of the streaming loads, whose option 0 is the file size: resolves
 * ctx->opt[0] in place with ul_load_size_file() (auto shrinks to fit, an
 * explicit size must fit; whole MiB).  0, or its error and why.
 */
int ul_load_stream_check(struct ul_load_ctx *ctx, char *why, size_t len);

/* The program the tar loads (tarc_load, tarx_load) run. */
#define UL_LOAD_TAR_PROG "/bin/tar"

/*
 * For supported() of a load that execs a real program (ls, tar, the spawn
 * target): without it the load would silently measure nothing.  0, or
 * -ENOTSUP and why.
 */
int ul_load_need_program(const char *path, char *why, size_t len);

/* supported() of the tar loads: ul_load_need_program(UL_LOAD_TAR_PROG). */
int ul_load_tar_supported(char *why, size_t len);

/*
 * check() of the tar loads: ctx->src_dir must be set (-EINVAL) and be a
 * directory (-ENOTDIR); its regular files are summed (a failure is -errno),
 * and `copies` times (that sum plus a quarter for tar's headers plus 1 MiB)
 * must fit above the reserve, as ul_load_check_room() with `what` decides.
 */
int ul_load_tar_check(const struct ul_load_ctx *ctx, unsigned int copies, const char *what,
		      char *why, size_t len);

/*
 * Run `tar -cf archive -C dir .` with ul_load_exec_wait() (and its SIGTERM
 * handling).  0 if it made a whole archive: exit 0, or 1 ("some files
 * differed": a file changed while it was read, e.g. the job is compiling in
 * the tree).  ENOEXEC if tar could not be executed, EIO for a worse exit or
 * death by a signal, or ul_load_exec_wait()'s errno.
 */
int ul_load_tar_create(const char *archive, const char *dir);

/* Run `tar -xf archive -C dir`: as ul_load_tar_create(), but only exit 0 is success. */
int ul_load_tar_extract(const char *archive, const char *dir);

#endif

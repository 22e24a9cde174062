/* SPDX-License-Identifier: GPL-2.0-or-later */
/* Output files opened safely; the contract is in outfile.h. */
#include "core/compat.h"
#include "cmd/outfile.h"
#include "core/file.h"
#include "core/log.h"
#include "core/signals.h"

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <signal.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/random.h>
#include <sys/stat.h>
#include <unistd.h>

/* ---- the store's files: never an output ---- */

#define MAX_PROTECTED 4
static char protected_paths[MAX_PROTECTED][PATH_MAX];
static size_t n_protected;
static const char *const store_suffixes[] = { "", "-wal", "-shm", "-journal" };

static void add_protected(const char *path)
{
	for (size_t i = 0; i < n_protected; i++)
		if (!strcmp(protected_paths[i], path))
			return;
	if (n_protected < MAX_PROTECTED && strlen(path) < PATH_MAX)
		snprintf(protected_paths[n_protected++], PATH_MAX, "%s", path);
}

void ul_outfile_protect(const char *db_path)
{
	char real[PATH_MAX];

	if (!strncasecmp(db_path, "sqlite:", 7))
		db_path += 7;
	else if (strstr(db_path, "://"))
		return; /* a server's store: no local file */
	if (!*db_path)
		return;
	add_protected(db_path);
	/* SQLite names the journals beside the symlink's target. */
	if (realpath(db_path, real))
		add_protected(real);
}

/* path's directory into dir ("." when it has none); returns its last name. */
static const char *split(const char *path, char *dir, size_t len)
{
	const char *slash = strrchr(path, '/');

	if (!slash)
		snprintf(dir, len, ".");
	else if (slash == path)
		snprintf(dir, len, "/");
	else
		snprintf(dir, len, "%.*s", (int)(slash - path), path);
	return slash ? slash + 1 : path;
}

static bool same_file(const struct stat *a, const struct stat *b)
{
	return a->st_dev == b->st_dev && a->st_ino == b->st_ino;
}

/* Is NAME in directory dfd (st: its lstat, NULL when absent) a protected store file? */
static bool is_store(int dfd, const char *name, const struct stat *st)
{
	struct stat here, there, f;

	if (fstat(dfd, &here))
		return false;
	for (size_t i = 0; i < n_protected; i++) {
		char dir[PATH_MAX], file[PATH_MAX + 16];
		const char *base = split(protected_paths[i], dir, sizeof(dir));
		size_t blen = strlen(base);
		bool same_dir = !stat(dir, &there) && same_file(&here, &there);

		for (size_t k = 0; k < UL_ARRAY_SIZE(store_suffixes); k++) {
			snprintf(file, sizeof(file), "%s%s", protected_paths[i], store_suffixes[k]);
			if (st && !stat(file, &f) && same_file(st, &f))
				return true;
			if (same_dir && !strncmp(name, base, blen) &&
			    !strcmp(name + blen, store_suffixes[k]))
				return true;
		}
	}
	return false;
}

/* ---- what may be written ---- */

/* Ours, or root's (root could do anything anyway): nothing another user planted. */
static bool owner_ok(const struct stat *st)
{
	return st->st_uid == geteuid() || st->st_uid == 0;
}

/* Open path's directory (following symlinks: the user named it); *name is its last name. */
static int open_parent(const char *path, const char **name)
{
	char dir[PATH_MAX];
	int fd;

	*name = split(path, dir, sizeof(dir));
	fd = open(dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	if (fd < 0 && errno == EACCES) /* write and search only: enough for us */
		fd = open(dir, O_PATH | O_DIRECTORY | O_CLOEXEC);
	if (fd < 0)
		ul_error_errno(errno, "cannot write in '%s' (for '%s')", dir, path);
	return fd;
}

/* lstat NAME in dfd: 1 when it exists, 0 when it does not, -1 after printing why. */
static int look_up(int dfd, const char *shown, const char *name, struct stat *st)
{
	if (!*name || !strcmp(name, ".") || !strcmp(name, "..") || strchr(name, '/'))
		return ul_error("cannot write '%s': not a file name", shown);
	if (!fstatat(dfd, name, st, AT_SYMLINK_NOFOLLOW))
		return 1;
	if (errno == ENOENT)
		return 0;
	return ul_error_errno(errno, "cannot write '%s'", shown);
}

/* May NAME (st: its lstat, NULL when absent) be written?  0, or -1 after printing why. */
static int check_target(int dfd, const char *shown, const char *name, const struct stat *st)
{
	if (is_store(dfd, name, st))
		return ul_error("refusing to write '%s': it is the results database or one of its "
				"journal files",
				shown);
	if (!st)
		return 0;
	if (S_ISLNK(st->st_mode))
		return ul_error("refusing to write '%s': a symlink (name its target)", shown);
	if (!S_ISREG(st->st_mode) && !S_ISCHR(st->st_mode) && !S_ISFIFO(st->st_mode))
		return ul_error("refusing to write '%s': not a regular file, a character device or "
				"a FIFO",
				shown);
	if (!owner_ok(st))
		return ul_error("refusing to write '%s': owned by another user (uid %u)", shown,
				(unsigned)st->st_uid);
	return 0;
}

static int try_create(int dfd, const char *name);

int ul_outfile_check(const char *path)
{
	const char *name;
	struct stat st;
	int dfd = open_parent(path, &name), found, rc = -1;

	if (dfd < 0)
		return -1;
	found = look_up(dfd, path, name, &st);
	if (found >= 0 && !check_target(dfd, path, name, found ? &st : NULL)) {
		bool in_place = found && !S_ISREG(st.st_mode);

		int err = in_place ? (faccessat(dfd, name, W_OK, 0) ? -errno : 0)
				   : try_create(dfd, name);

		if (!err)
			rc = 0;
		else if (in_place)
			ul_error_errno(-err, "cannot write '%s'", path);
		else
			ul_error_errno(-err, "cannot create a file in the directory of '%s'", path);
	}
	close(dfd);
	return rc;
}

/* ---- the temporary a terminating signal removes ---- */

static volatile sig_atomic_t tmp_armed;
static int tmp_dfd = -1;
static char tmp_name[NAME_MAX + 1];

/* Async-signal-safe: remove the temporary, then die of sig as its default action would. */
static void remove_tmp_and_die(int sig)
{
	struct sigaction dfl;

	if (tmp_armed)
		unlinkat(tmp_dfd, tmp_name, 0);
	tmp_armed = 0;
	memset(&dfl, 0, sizeof(dfl));
	dfl.sa_handler = SIG_DFL;
	sigaction(sig, &dfl, NULL);
	raise(sig); /* blocked in here: delivered, and fatal, when the handler returns */
}

struct sig_guard {
	struct sigaction old[NSIG];
	bool ours[NSIG];
	sigset_t term;
};

/* Catch each terminating signal whose action is the default (one somebody
 * handles or ignores is theirs: it does not end us in the middle). */
static void catch_term_signals(struct sig_guard *g)
{
	struct sigaction sa;

	memset(&sa, 0, sizeof(sa));
	sa.sa_handler = remove_tmp_and_die;
	ul_term_sigset(&g->term);
	sa.sa_mask = g->term;
	for (int sig = 1; sig < NSIG; sig++) {
		g->ours[sig] = false;
		if (!ul_term_signal(sig) || sigaction(sig, NULL, &g->old[sig]) ||
		    (g->old[sig].sa_flags & SA_SIGINFO) || g->old[sig].sa_handler != SIG_DFL)
			continue;
		g->ours[sig] = !sigaction(sig, &sa, NULL);
	}
}

static void release_term_signals(const struct sig_guard *g)
{
	for (int sig = 1; sig < NSIG; sig++)
		if (g->ours[sig])
			sigaction(sig, &g->old[sig], NULL);
}

/* NAME.tmpXXXXXX into tmp[NAME_MAX + 1]: 0 or -errno. */
static int tmp_name_for(const char *name, char *tmp)
{
	static const char chars[] =
		"abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789";
	unsigned char rnd[6];
	size_t len;

	if (strlen(name) + 10 > NAME_MAX)
		return -ENAMETOOLONG;
	if (getrandom(rnd, sizeof(rnd), 0) != (ssize_t)sizeof(rnd))
		return -errno;
	len = (size_t)snprintf(tmp, NAME_MAX + 1, "%s.tmp", name);
	for (size_t i = 0; i < sizeof(rnd); i++)
		tmp[len++] = chars[rnd[i] % (sizeof(chars) - 1)];
	tmp[len] = '\0';
	return 0;
}

/* Link the O_TMPFILE file anon as tmp in dfd: anon, or -1 with errno. */
static int link_anon(int anon, int dfd, const char *tmp)
{
	char proc[64];

	/* AT_EMPTY_PATH needs CAP_DAC_READ_SEARCH; /proc/self/fd does not. */
	if (linkat(anon, "", dfd, tmp, AT_EMPTY_PATH) == 0)
		return anon;
	if (errno == EEXIST)
		return -1;
	snprintf(proc, sizeof(proc), "/proc/self/fd/%d", anon);
	return linkat(AT_FDCWD, proc, dfd, tmp, AT_SYMLINK_FOLLOW) == 0 ? anon : -1;
}

/*
 * Give NAME.tmpXXXXXX in dfd to a file: anon, an unnamed O_TMPFILE one
 * (linked), or else a new one (mode 0600, O_EXCL).  Its removal is armed
 * with the terminating signals blocked so none falls between the two.
 * The new file's fd, anon, or -errno.
 */
static int make_tmp(const struct sig_guard *g, int dfd, const char *name, int anon)
{
	char tmp[NAME_MAX + 1];
	sigset_t old;
	int fd = -EEXIST;

	sigprocmask(SIG_BLOCK, &g->term, &old);
	for (int tries = 0; tries < 100 && fd == -EEXIST; tries++) {
		fd = tmp_name_for(name, tmp);
		if (fd)
			break;
		if (anon < 0)
			fd = openat(dfd, tmp, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC,
				    0600);
		else
			fd = link_anon(anon, dfd, tmp);
		if (fd < 0)
			fd = -errno;
	}
	if (fd >= 0) {
		tmp_dfd = dfd;
		memcpy(tmp_name, tmp, sizeof(tmp));
		atomic_signal_fence(memory_order_seq_cst);
		tmp_armed = 1;
	}
	sigprocmask(SIG_SETMASK, &old, NULL);
	return fd;
}

/* Rename the armed temporary (if any) over NAME (rc == 0) or remove it, then disarm. */
static int finish_tmp(const struct sig_guard *g, int dfd, const char *name, int rc)
{
	sigset_t old;

	sigprocmask(SIG_BLOCK, &g->term, &old);
	if (tmp_armed && !rc && renameat(dfd, tmp_name, dfd, name))
		rc = -errno;
	if (tmp_armed && rc)
		unlinkat(dfd, tmp_name, 0);
	tmp_armed = 0;
	sigprocmask(SIG_SETMASK, &old, NULL);
	return rc;
}

/*
 * Can the temporary that replace_at() writes be made in dfd?  Made as it
 * would be and dropped: 0 or -errno of the call that failed.  Permission
 * bits cannot tell (root passes them; procfs, sysfs or a read-only mount
 * refuse a new file anyway); an unnamed O_TMPFILE file leaves nothing, a
 * named one (no O_TMPFILE here) is removed at once, or by a signal.
 */
static int try_create(int dfd, const char *name)
{
	struct sig_guard g;
	int fd = openat(dfd, ".", O_TMPFILE | O_WRONLY | O_CLOEXEC, 0600);

	if (fd >= 0) {
		close(fd);
		return 0;
	}
	if (errno != EOPNOTSUPP && errno != EISDIR && errno != EINVAL)
		return -errno;
	catch_term_signals(&g);
	fd = make_tmp(&g, dfd, name, -1);
	if (fd >= 0) {
		close(fd);
		finish_tmp(&g, dfd, name, -ECANCELED);
	}
	release_term_signals(&g);
	return fd < 0 ? fd : 0;
}

/* Run write(f, arg) on fd (taken over), flush and (fsync) it: 0 or a negative errno. */
static int write_fd(int fd, bool sync, ul_outfile_writer write, const void *arg)
{
	FILE *f = fdopen(fd, "w");
	int rc;

	if (!f) {
		rc = -errno;
		close(fd);
		return rc;
	}
	errno = 0;
	rc = write(f, arg);
	/* A writer says -EIO for any stream error; the failed write's errno
	 * (EFBIG past ulimit -f, ENOSPC) says more. */
	if (rc == -EIO && ferror(f) && errno > 0)
		rc = -errno;
	if (!rc && (fflush(f) || (sync && fsync(fd))))
		rc = -errno;
	if (fclose(f) && !rc)
		rc = -errno;
	return rc;
}

/* A regular file or a new name: replaced atomically by a temporary (see outfile.h). */
static int replace_at(int dfd, const char *shown, const char *name, ul_outfile_writer write,
		      const void *arg)
{
	struct sig_guard g;
	mode_t mask = umask(0);
	int anon, fd, rc;

	umask(mask);
	catch_term_signals(&g);
	/* Unnamed until written: a kill -9 leaves nothing (no O_TMPFILE on
	 * the filesystem: a named one, removed by a signal but not a kill -9). */
	anon = openat(dfd, ".", O_TMPFILE | O_WRONLY | O_CLOEXEC, 0600);
	fd = anon >= 0 ? fcntl(anon, F_DUPFD_CLOEXEC, 0) : make_tmp(&g, dfd, name, -1);
	if (fd < 0) {
		rc = anon >= 0 ? -errno : fd;
		release_term_signals(&g);
		if (anon >= 0)
			close(anon);
		return ul_error_errno(rc, "cannot create a file in the directory of '%s'", shown);
	}
	rc = fchmod(fd, 0666 & ~mask) ? -errno : 0;
	if (rc)
		close(fd);
	else
		rc = write_fd(fd, true, write, arg);
	ul_test_hold("UL_TEST_OUTFILE_HOLD"); /* test seam: written, not yet named */
	if (!rc && anon >= 0) {
		int linked = make_tmp(&g, dfd, name, anon);

		rc = linked < 0 ? linked : 0;
	}
	if (anon >= 0)
		close(anon);
	rc = finish_tmp(&g, dfd, name, rc);
	release_term_signals(&g);
	if (rc)
		return ul_error_errno(rc, "cannot write '%s'", shown);
	(void)fsync(dfd); /* the rename; EBADF when only O_PATH could open it */
	return 0;
}

/* A character device or a FIFO: opened without blocking, written in place. */
static int write_in_place(int dfd, const char *shown, const char *name, const struct stat *seen,
			  ul_outfile_writer write, const void *arg)
{
	int fd = openat(dfd, name, O_WRONLY | O_NOCTTY | O_NOFOLLOW | O_CLOEXEC | O_NONBLOCK), fl,
	    rc;
	struct stat st;

	if (fd < 0 && errno == ENXIO)
		return ul_error("cannot write '%s': no process has the FIFO open for reading",
				shown);
	if (fd < 0)
		return ul_error_errno(errno, "cannot write '%s'", shown);
	if (fstat(fd, &st) || !same_file(&st, seen) || check_target(dfd, shown, name, &st)) {
		close(fd);
		return ul_error("cannot write '%s': it changed while it was opened", shown);
	}
	fl = fcntl(fd, F_GETFL);
	if (fl < 0 || fcntl(fd, F_SETFL, fl & ~O_NONBLOCK) < 0) {
		rc = -errno;
		close(fd);
		return ul_error_errno(rc, "cannot write '%s'", shown);
	}
	rc = write_fd(fd, false, write, arg);
	return rc ? ul_error_errno(rc, "cannot write '%s'", shown) : 0;
}

static int write_at(int dfd, const char *shown, const char *name, ul_outfile_writer write,
		    const void *arg)
{
	struct stat st;
	int found = look_up(dfd, shown, name, &st);

	if (found < 0 || check_target(dfd, shown, name, found ? &st : NULL))
		return -1;
	if (found && !S_ISREG(st.st_mode))
		return write_in_place(dfd, shown, name, &st, write, arg);
	return replace_at(dfd, shown, name, write, arg);
}

int ul_outfile_write(const char *path, ul_outfile_writer write, const void *arg)
{
	const char *name;
	int dfd = open_parent(path, &name), rc;

	if (dfd < 0)
		return -1;
	rc = write_at(dfd, path, name, write, arg);
	close(dfd);
	return rc;
}

int ul_outfile_write_at(int dfd, const char *shown, const char *name, ul_outfile_writer write,
			const void *arg)
{
	char path[PATH_MAX + NAME_MAX + 2];

	snprintf(path, sizeof(path), "%s/%s", shown, name);
	return write_at(dfd, path, name, write, arg);
}

/* ---- an output directory ---- */

int ul_outfile_open_dir(const char *path)
{
	char dir[PATH_MAX];
	size_t len = strlen(path);
	struct stat st;
	int fd;

	/* A trailing slash would make open() follow a symlink despite O_NOFOLLOW. */
	while (len > 1 && path[len - 1] == '/')
		len--;
	if (!len || len >= sizeof(dir))
		return ul_error("cannot write into '%s': not a directory name", path);
	snprintf(dir, sizeof(dir), "%.*s", (int)len, path);
	if (mkdir(dir, 0777) && errno != EEXIST)
		return ul_error_errno(errno, "cannot create the directory '%s'", dir);
	fd = open(dir, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
	if (fd < 0 && (errno == ELOOP || errno == ENOTDIR))
		return ul_error("refusing to write into '%s': %s", dir,
				!lstat(dir, &st) && S_ISLNK(st.st_mode)
					? "a symlink (name its target)"
					: "not a directory");
	if (fd < 0)
		return ul_error_errno(errno, "cannot write into '%s'", dir);
	if (fstat(fd, &st)) {
		ul_error_errno(errno, "cannot write into '%s'", dir);
		close(fd);
		return -1;
	}
	if (!owner_ok(&st) || (st.st_uid != geteuid() && (st.st_mode & (S_IWGRP | S_IWOTH)))) {
		close(fd);
		return ul_error("refusing to write into '%s': %s", dir,
				owner_ok(&st) ? "other users may write in it"
					      : "owned by another user");
	}
	return fd;
}

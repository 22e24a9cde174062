/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * The journal of system changes: durable "<kind> <arg>" lines written before
 * each change, read back (only when they are ours) for `underload cleanup`.
 */
#include "core/compat.h"
#include "core/file.h"
#include "core/procstat.h"
#include "proc/journal_parse.h"

#include <ctype.h>
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <unistd.h>

#define SUFFIX ".journal"
#define TMP_SUFFIX ".journal.tmp"

/* ---- processes ------------------------------------------------------ */

/* A process's start time (ticks after boot), to tell a reused pid apart. */
static int proc_start_time(pid_t pid, uint64_t *out)
{
	struct ul_procstat ps;
	int rc = ul_procstat_read(pid, &ps);

	if (!rc)
		*out = ps.starttime;
	return rc;
}

/* Is the journal's writer alive?  Only meaningful within its boot. */
static bool owner_alive(pid_t pid, uint64_t start)
{
	char p[64], comm[32] = "";
	uint64_t now_start = 0;
	ssize_t n;

	if (pid <= 0)
		return false;
	if (kill(pid, 0) < 0 && errno == ESRCH)
		return false;
	if (start && !proc_start_time(pid, &now_start))
		return now_start == start;
	snprintf(p, sizeof(p), "/proc/%d/comm", (int)pid);
	n = ul_read_file(p, comm, sizeof(comm));
	if (n == -ENOENT)
		return false;
	if (n < 0)
		return true; /* no /proc: assume alive rather than undo a live run */
	comm[strcspn(comm, "\n")] = '\0';
	return !strcmp(comm, "underload");
}

/* ---- writing -------------------------------------------------------- */

/* After a failed append: back to the last complete line, or j->torn. */
static void cut_torn(struct ul_journal *j)
{
	if (ftruncate(j->fd, (off_t)j->size_bytes) < 0)
		j->torn = true;
}

/* Append one complete line, durably; on failure nothing of it remains
 * (or, when it cannot be cut off, nothing more is appended). */
static int append(struct ul_journal *j, const char *line)
{
	size_t len = strlen(line);
	ssize_t n;

	if (j->torn)
		return -EIO;
	do
		n = write(j->fd, line, len);
	while (n < 0 && errno == EINTR);
	if (n < 0 || (size_t)n != len) {
		int err = n < 0 ? -errno : -ENOSPC;

		cut_torn(j); /* a torn line must not glue onto the next one */
		return err;
	}
	if (fdatasync(j->fd) < 0) {
		int err = -errno;

		cut_torn(j);
		return err;
	}
	j->size_bytes += len;
	return 0;
}

static bool kind_ok(const char *kind)
{
	if (!kind || !kind[0] || !strcmp(kind, "done") || !strcmp(kind, "retired") ||
	    !strcmp(kind, "failed") || !strcmp(kind, "at"))
		return false;
	for (; *kind; kind++)
		if (!islower((unsigned char)*kind) && !isdigit((unsigned char)*kind) &&
		    *kind != '_' && *kind != '-')
			return false;
	return true;
}

static int add_line(struct ul_journal *j, const char *pre, const char *kind, const char *arg)
{
	char *line;
	int rc;

	if (!j || j->fd < 0)
		return -EBADF;
	if (!kind_ok(kind) || !arg || !arg[0] || strchr(arg, '\n'))
		return -EINVAL;
	if (asprintf(&line, "%s%s %s\n", pre, kind, arg) < 0)
		return -ENOMEM;
	rc = append(j, line);
	free(line);
	return rc;
}

int ul_journal_add(struct ul_journal *j, const char *kind, const char *arg)
{
	return add_line(j, "", kind, arg);
}

int ul_journal_at(struct ul_journal *j, const char *arg)
{
	char *line;
	int rc;

	if (!j || j->fd < 0)
		return -EBADF;
	if (!arg || !arg[0] || strchr(arg, '\n'))
		return -EINVAL;
	if (asprintf(&line, "at %s\n", arg) < 0)
		return -ENOMEM;
	rc = append(j, line);
	free(line);
	return rc;
}

int ul_journal_done(struct ul_journal *j, const char *kind, const char *arg)
{
	return add_line(j, "done ", kind, arg);
}

int ul_journal_retire(struct ul_journal *j, const char *kind, const char *arg)
{
	return add_line(j, "retired ", kind, arg);
}

int ul_journal_failed(struct ul_journal *j, const char *kind, const char *arg)
{
	return add_line(j, "failed ", kind, arg);
}

static int open_in(struct ul_journal *j, int dfd, const char *dir)
{
	char tmp[64], name[64], header[160], boot[UL_JOURNAL_BOOT_LEN];
	pid_t pid = getpid();
	uint64_t start = 0;
	int fd, rc;

	snprintf(tmp, sizeof(tmp), "%d" TMP_SUFFIX, (int)pid);
	/* A leftover temporary file of ours can only be from a dead process with our pid. */
	(void)unlinkat(dfd, tmp, 0);
	fd = openat(dfd, tmp, O_RDWR | O_CREAT | O_EXCL | O_APPEND | O_NOFOLLOW | O_CLOEXEC, 0600);
	if (fd < 0)
		return -errno;
	/* Written under a temporary name so a journal never lacks its header. */
	(void)proc_start_time(pid, &start);
	/* Without a boot id (no /proc) the journal is told stale by its pid. */
	(void)ul_journal_boot_id(boot);
	snprintf(header, sizeof(header), UL_JOURNAL_HEADER "%d %" PRIu64 "%s%s\n", (int)pid, start,
		 boot[0] ? " " : "", boot);
	j->fd = fd;
	j->size_bytes = 0;
	j->torn = false;
	rc = append(j, header);
	/*
	 * "<pid>.journal" may still be held by a dead process that had our pid
	 * (or by this one): it stays for cleanup, and we take "<pid>.K.journal".
	 */
	for (int k = 0; !rc; k++) {
		if (k)
			snprintf(name, sizeof(name), "%d.%d" SUFFIX, (int)pid, k);
		else
			snprintf(name, sizeof(name), "%d" SUFFIX, (int)pid);
		if (linkat(dfd, tmp, dfd, name, 0) == 0)
			break;
		if (errno != EEXIST || k >= 1000)
			rc = -errno;
	}
	(void)unlinkat(dfd, tmp, 0);
	if (!rc && ul_path_join(j->path, sizeof(j->path), dir, name))
		rc = -ENAMETOOLONG;
	if (rc) {
		close(fd);
		j->fd = -1;
		return rc;
	}
	(void)fsync(dfd);
	return 0;
}

int ul_journal_open(struct ul_journal *j)
{
	char dirs[UL_JOURNAL_MAX_DIRS][PATH_MAX];
	int n = ul_journal_dirs(dirs), rc = -ENOENT;

	j->fd = -1;
	j->path[0] = '\0';
	j->size_bytes = 0;
	j->torn = false;
	for (int i = 0; i < n; i++) {
		int dfd = ul_journal_open_dir(dirs[i], true);

		if (dfd < 0) {
			rc = dfd;
			continue;
		}
		rc = open_in(j, dfd, dirs[i]);
		close(dfd);
		if (!rc)
			return 0;
	}
	return rc;
}

/* ---- reading -------------------------------------------------------- */

/* Unlink path only if it still names the file open as fd. */
static void unlink_same(const char *path, int fd)
{
	struct stat a, b;

	if (fstat(fd, &a) == 0 && lstat(path, &b) == 0 && a.st_dev == b.st_dev &&
	    a.st_ino == b.st_ino)
		(void)unlink(path);
}

void ul_journal_finish(struct ul_journal *j)
{
	struct ul_journal_parsed p;

	if (!j || j->fd < 0)
		return;
	if (!ul_journal_parse(j->fd, &p)) {
		if (!ul_journal_pending(&p))
			unlink_same(j->path, j->fd);
		ul_journal_parsed_free(&p);
	}
	close(j->fd);
	j->fd = -1;
}

/* ---- reading stale journals ------------------------------------------- */

struct scan {
	ul_journal_visit_fn fn;
	void *arg;
	int stale;			/* stale journals with pending entries */
	bool dry;			/* only count */
	bool readonly;			/* visit, but change nothing */
	int err;			/* the first error a visitor returned */
	char boot[UL_JOURNAL_BOOT_LEN]; /* this boot's id, "" if unknown */
};

/* A temporary file whose creator is gone is an incomplete, empty journal. */
static void drop_dead_tmp(int dfd, const char *name)
{
	int pid = atoi(name);

	if (pid > 0 && kill(pid, 0) < 0 && errno == ESRCH)
		(void)unlinkat(dfd, name, 0);
}

/* Unlink name in dfd only if it still names the file open as fd. */
static void unlinkat_same(int dfd, const char *name, int fd)
{
	struct stat a, b;

	if (fstat(fd, &a) == 0 && fstatat(dfd, name, &b, AT_SYMLINK_NOFOLLOW) == 0 &&
	    a.st_dev == b.st_dev && a.st_ino == b.st_ino)
		(void)unlinkat(dfd, name, 0);
}

/* Open a journal file of ours, locked; -1 if it is not one to read. */
static int open_trusted(int dfd, const char *name, bool dry)
{
	struct stat st;
	int fd = openat(dfd, name,
			(dry ? O_RDONLY : O_RDWR | O_APPEND) | O_NOFOLLOW | O_CLOEXEC | O_NONBLOCK);

	if (fd < 0)
		return -1;
	if (fstat(fd, &st) < 0 || !S_ISREG(st.st_mode) || st.st_uid != geteuid() ||
	    (st.st_mode & 077) || st.st_nlink != 1 || flock(fd, LOCK_EX | LOCK_NB) < 0) {
		close(fd); /* not ours, or another cleanup is working on it */
		return -1;
	}
	return fd;
}

static int scan_one(int dfd, const char *dir, const char *name, struct scan *sc)
{
	struct ul_journal j = { .fd = -1 };
	struct ul_journal_info info;
	struct ul_journal_parsed p;
	struct stat st;
	int fd, rc = 0;

	fd = open_trusted(dfd, name, sc->dry || sc->readonly);
	if (fd < 0)
		return 0;
	if (fstat(fd, &st) < 0 || ul_journal_parse(fd, &p)) {
		close(fd);
		return 0;
	}
	info.other_boot = ul_journal_other_boot(p.boot, sc->boot);
	info.where = p.where;
	if (!info.other_boot && owner_alive(p.pid, p.start)) {
		ul_journal_parsed_free(&p);
		close(fd);
		return 0;
	}
	if (sc->dry) {
		sc->stale += ul_journal_pending(&p) > 0;
	} else if (sc->readonly) {
		(void)ul_path_join(j.path, sizeof(j.path), dir, name);
		rc = sc->fn(sc->arg, &j, p.e, p.n, &info);
	} else {
		/* Appending after a torn line would glue the next line onto it. */
		if ((size_t)st.st_size == p.good_bytes || ftruncate(fd, (off_t)p.good_bytes) == 0)
			j.fd = fd;
		j.size_bytes = p.good_bytes;
		(void)ul_path_join(j.path, sizeof(j.path), dir, name);
		rc = sc->fn(sc->arg, &j, p.e, p.n, &info);
		if (!ul_journal_pending(&p))
			unlinkat_same(dfd, name, fd);
	}
	ul_journal_parsed_free(&p);
	close(fd);
	return rc;
}

static bool has_suffix(const char *name, const char *suffix)
{
	size_t n = strlen(name), k = strlen(suffix);

	return n > k && !strcmp(name + n - k, suffix);
}

static int scan_dir(const char *dir, struct scan *sc)
{
	int dfd, fd, err = 0, rc;
	DIR *d;

	dfd = ul_journal_open_dir(dir, false);
	if (dfd < 0)
		return dfd == -ENOENT ? 0 : dfd;
	fd = dup(dfd);
	d = fd < 0 ? NULL : fdopendir(fd);
	if (!d) {
		err = -errno;
		if (fd >= 0)
			close(fd);
		close(dfd);
		return err;
	}
	for (struct dirent *e; (e = readdir(d));) {
		if (has_suffix(e->d_name, TMP_SUFFIX)) {
			if (!sc->dry && !sc->readonly)
				drop_dead_tmp(dfd, e->d_name);
			continue;
		}
		if (!has_suffix(e->d_name, SUFFIX))
			continue;
		rc = scan_one(dfd, dir, e->d_name, sc);
		if (rc && !sc->err)
			sc->err = rc;
	}
	closedir(d);
	close(dfd);
	return err;
}

static int scan_all(const char *dir, struct scan *sc)
{
	char dirs[UL_JOURNAL_MAX_DIRS][PATH_MAX];
	int n, err = 0;

	(void)ul_journal_boot_id(sc->boot);
	if (dir)
		return scan_dir(dir, sc);
	n = ul_journal_dirs(dirs);
	for (int i = 0; i < n; i++) {
		int rc = scan_dir(dirs[i], sc);

		/* Another user's directory (root's /run/underload for a user:
		 * EACCES) is simply not ours to clean. */
		if (rc && rc != -EPERM && rc != -EACCES && !err)
			err = rc;
	}
	return err;
}

int ul_journal_visit_stale(const char *dir, ul_journal_visit_fn fn, void *arg)
{
	struct scan sc = { .fn = fn, .arg = arg };
	int rc = scan_all(dir, &sc);

	return sc.err ? sc.err : rc;
}

int ul_journal_read_stale(const char *dir, ul_journal_visit_fn fn, void *arg)
{
	struct scan sc = { .fn = fn, .arg = arg, .readonly = true };
	int rc = scan_all(dir, &sc);

	return sc.err ? sc.err : rc;
}

int ul_journal_stale(const char *dir, int *n)
{
	struct scan sc = { .dry = true };
	int rc = scan_all(dir, &sc);

	*n = sc.stale;
	return rc;
}

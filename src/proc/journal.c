/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * The journal of system changes: durable "<kind> <arg>" lines written before
 * each change, and the cleanup that undoes what a killed run left behind.
 */
#include "core/compat.h"
#include "proc/journal.h"
#include "proc/cgroup.h"
#include "proc/scratch.h"
#include "proc/swap.h"

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

#define HEADER "underload-journal 1 "
#define SUFFIX ".journal"
#define TMP_SUFFIX ".journal.tmp"
#define MAX_JOURNAL_BYTES (4 * UL_MiB)
#define MAX_DIRS 4

/* ---- directories ---------------------------------------------------- */

/* The candidate directories, best first; $UL_JOURNAL_DIR alone if set. */
static int default_dirs(char dirs[MAX_DIRS][PATH_MAX])
{
	const char *env = getenv("UL_JOURNAL_DIR");
	const char *xdg = getenv("XDG_RUNTIME_DIR");
	int n = 0;

	if (env && env[0]) {
		snprintf(dirs[n++], PATH_MAX, "%s", env);
		return n;
	}
	snprintf(dirs[n++], PATH_MAX, "/run/underload");
	if (xdg && xdg[0] == '/')
		snprintf(dirs[n++], PATH_MAX, "%s/underload", xdg);
	snprintf(dirs[n++], PATH_MAX, "/tmp/underload-%u", (unsigned)geteuid());
	return n;
}

/*
 * A journal directory must be ours and closed to others: a journal another
 * user can write into would let them have `underload cleanup` (run as root)
 * remove arbitrary "underload-*" paths.
 */
static int check_dir(const char *dir, bool create)
{
	struct stat st;

	if (create && mkdir(dir, 0700) < 0 && errno != EEXIST)
		return -errno;
	if (lstat(dir, &st) < 0)
		return -errno;
	if (!S_ISDIR(st.st_mode))
		return -ENOTDIR;
	if (st.st_uid != geteuid() || (st.st_mode & 0022))
		return -EPERM;
	return 0;
}

static int join(char *out, size_t len, const char *dir, const char *name)
{
	int n = snprintf(out, len, "%s/%s", dir, name);

	return n < 0 || (size_t)n >= len ? -ENAMETOOLONG : 0;
}

static void fsync_dir(const char *path)
{
	char dir[PATH_MAX], *slash;
	int fd;

	snprintf(dir, sizeof(dir), "%s", path);
	slash = strrchr(dir, '/');
	if (!slash)
		return;
	*slash = '\0';
	fd = open(dir[0] ? dir : "/", O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	if (fd >= 0) {
		(void)fsync(fd);
		close(fd);
	}
}

/* ---- processes ------------------------------------------------------ */

/* Field 22 of /proc/PID/stat: start time in clock ticks since boot. */
static int proc_start_time(pid_t pid, uint64_t *out)
{
	char p[64], buf[1024], *s;
	int fd, field;
	ssize_t n;

	snprintf(p, sizeof(p), "/proc/%d/stat", (int)pid);
	fd = open(p, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return -errno;
	n = read(fd, buf, sizeof(buf) - 1);
	close(fd);
	if (n <= 0)
		return -EIO;
	buf[n] = '\0';
	/* comm may hold spaces and parentheses: fields restart after the last ')'. */
	s = strrchr(buf, ')');
	if (!s)
		return -EIO;
	/* s is at ')'; the space before field N is the (N - 2)th after it. */
	for (field = 2; field < 22 && s; field++)
		s = strchr(s + 1, ' ');
	if (!s)
		return -EIO;
	*out = strtoull(s + 1, NULL, 10);
	return 0;
}

static bool owner_alive(pid_t pid, uint64_t start)
{
	char p[64], comm[32] = "";
	uint64_t now_start = 0;
	ssize_t n;
	int fd;

	if (pid <= 0)
		return false;
	if (kill(pid, 0) < 0 && errno == ESRCH)
		return false;
	if (start && !proc_start_time(pid, &now_start))
		return now_start == start;
	snprintf(p, sizeof(p), "/proc/%d/comm", (int)pid);
	fd = open(p, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return errno != ENOENT; /* no /proc: assume alive rather than undo a live run */
	n = read(fd, comm, sizeof(comm) - 1);
	close(fd);
	if (n < 0)
		return true;
	comm[n] = '\0';
	comm[strcspn(comm, "\n")] = '\0';
	return !strcmp(comm, "underload");
}

/* ---- writing -------------------------------------------------------- */

/* Append one complete line, durably; on failure nothing of it remains. */
static int append(struct ul_journal *j, const char *line)
{
	size_t len = strlen(line);
	ssize_t n;

	do
		n = write(j->fd, line, len);
	while (n < 0 && errno == EINTR);
	if (n < 0 || (size_t)n != len) {
		int err = n < 0 ? -errno : -ENOSPC;

		/* A torn line must not glue onto the next one. */
		(void)ftruncate(j->fd, (off_t)j->size_bytes);
		return err;
	}
	if (fdatasync(j->fd) < 0) {
		int err = -errno;

		(void)ftruncate(j->fd, (off_t)j->size_bytes);
		return err;
	}
	j->size_bytes += len;
	return 0;
}

static bool kind_ok(const char *kind)
{
	if (!kind || !kind[0] || !strcmp(kind, "done"))
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

int ul_journal_done(struct ul_journal *j, const char *kind, const char *arg)
{
	return add_line(j, "done ", kind, arg);
}

static int open_in(struct ul_journal *j, const char *dir)
{
	char tmp[PATH_MAX], final[PATH_MAX], name[64], header[96];
	pid_t pid = getpid();
	uint64_t start = 0;
	int fd, rc;

	snprintf(name, sizeof(name), "%d" TMP_SUFFIX, (int)pid);
	if (join(tmp, sizeof(tmp), dir, name))
		return -ENAMETOOLONG;
	/* A leftover temporary file of ours can only be from a dead process with our pid. */
	(void)unlink(tmp);
	fd = open(tmp, O_RDWR | O_CREAT | O_EXCL | O_APPEND | O_NOFOLLOW | O_CLOEXEC, 0600);
	if (fd < 0)
		return -errno;
	/* Written under a temporary name so a journal never lacks its header. */
	(void)proc_start_time(pid, &start);
	snprintf(header, sizeof(header), HEADER "%d %" PRIu64 "\n", (int)pid, start);
	j->fd = fd;
	j->size_bytes = 0;
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
		if (join(final, sizeof(final), dir, name))
			rc = -ENAMETOOLONG;
		else if (link(tmp, final) == 0)
			break;
		else if (errno != EEXIST || k >= 1000)
			rc = -errno;
	}
	(void)unlink(tmp);
	if (rc) {
		close(fd);
		j->fd = -1;
		return rc;
	}
	fsync_dir(final);
	snprintf(j->path, sizeof(j->path), "%s", final);
	return 0;
}

int ul_journal_open(struct ul_journal *j)
{
	char dirs[MAX_DIRS][PATH_MAX];
	int n = default_dirs(dirs), rc = -ENOENT;

	j->fd = -1;
	j->path[0] = '\0';
	j->size_bytes = 0;
	for (int i = 0; i < n; i++) {
		rc = check_dir(dirs[i], true);
		if (!rc)
			rc = open_in(j, dirs[i]);
		if (!rc)
			return 0;
	}
	return rc;
}

/* ---- reading -------------------------------------------------------- */

struct entry {
	const char *kind, *arg;
	bool done;
};

struct parsed {
	char *buf;
	size_t good_bytes;	/* up to the last newline */
	pid_t pid;
	uint64_t start;
	struct entry *e;
	size_t n;
};

static void parsed_free(struct parsed *p)
{
	free(p->buf);
	free(p->e);
	memset(p, 0, sizeof(*p));
}

/* Parse a journal; -EINVAL without a valid header (not a journal of ours). */
static int parse_fd(int fd, struct parsed *p)
{
	struct stat st;
	size_t got = 0, cap = 0;
	char *line, *end;

	memset(p, 0, sizeof(*p));
	if (fstat(fd, &st) < 0)
		return -errno;
	if (st.st_size > (off_t)MAX_JOURNAL_BYTES)
		return -EFBIG;
	p->buf = malloc((size_t)st.st_size + 1);
	if (!p->buf)
		return -ENOMEM;
	while (got < (size_t)st.st_size) {
		ssize_t n = pread(fd, p->buf + got, (size_t)st.st_size - got, (off_t)got);

		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0)
			break;
		got += (size_t)n;
	}
	p->buf[got] = '\0';
	end = memrchr(p->buf, '\n', got);
	if (!end) {
		parsed_free(p);
		return -EINVAL;
	}
	p->good_bytes = (size_t)(end - p->buf) + 1;
	end[1] = '\0'; /* drop a torn last line */

	line = p->buf;
	end = strchr(line, '\n'); /* found: there is a last newline */
	if (!end) {
		parsed_free(p);
		return -EINVAL;
	}
	*end = '\0';
	{
		int pid;
		uint64_t start;

		if (strncmp(line, HEADER, strlen(HEADER)) ||
		    sscanf(line + strlen(HEADER), "%d %" SCNu64, &pid, &start) != 2) {
			parsed_free(p);
			return -EINVAL;
		}
		p->pid = pid;
		p->start = start;
	}
	for (line = end + 1; *line; line = end + 1) {
		char *sp, *kind;
		bool done;

		end = strchr(line, '\n'); /* every line left ends in one */
		if (!end)
			break;
		*end = '\0';
		sp = strchr(line, ' ');
		if (!sp)
			continue; /* malformed: not a record */
		*sp = '\0';
		done = !strcmp(line, "done");
		kind = line;
		if (done) {
			kind = sp + 1;
			sp = strchr(kind, ' ');
			if (!sp)
				continue;
			*sp = '\0';
			/* Cancels the latest matching entry still pending. */
			for (size_t i = p->n; i-- > 0;) {
				if (!p->e[i].done && !strcmp(p->e[i].kind, kind) &&
				    !strcmp(p->e[i].arg, sp + 1)) {
					p->e[i].done = true;
					break;
				}
			}
			continue;
		}
		if (p->n == cap) {
			size_t ncap = cap ? cap * 2 : 16;
			struct entry *ne = realloc(p->e, ncap * sizeof(*ne));

			if (!ne) {
				parsed_free(p);
				return -ENOMEM;
			}
			p->e = ne;
			cap = ncap;
		}
		p->e[p->n++] = (struct entry){ .kind = kind, .arg = sp + 1, .done = false };
	}
	return 0;
}

static size_t pending(const struct parsed *p)
{
	size_t n = 0;

	for (size_t i = 0; i < p->n; i++)
		n += !p->e[i].done;
	return n;
}

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
	struct parsed p;

	if (!j || j->fd < 0)
		return;
	if (!parse_fd(j->fd, &p)) {
		if (!pending(&p))
			unlink_same(j->path, j->fd);
		parsed_free(&p);
	}
	close(j->fd);
	j->fd = -1;
}

/* ---- undoing -------------------------------------------------------- */

/* Write OLDVALUE back to /proc/sys/NAME; arg is "NAME OLDVALUE". */
static int sysctl_restore(const char *arg)
{
	const char *sp = strchr(arg, ' ');
	char name[256], path[300];
	size_t n = sp ? (size_t)(sp - arg) : 0;
	int fd, rc = 0;
	char *value;

	if (!n || n >= sizeof(name))
		return -EINVAL;
	memcpy(name, arg, n);
	name[n] = '\0';
	if (name[0] == '/' || name[0] == '.' || strstr(name, "..") ||
	    strspn(name, "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789_-./") != n)
		return -EINVAL;
	/* sysctl(8) spelling: vm.swappiness is vm/swappiness. */
	if (!strchr(name, '/'))
		for (char *c = name; *c; c++)
			if (*c == '.')
				*c = '/';
	snprintf(path, sizeof(path), "/proc/sys/%s", name);
	if (asprintf(&value, "%s\n", sp + 1) < 0)
		return -ENOMEM;
	fd = open(path, O_WRONLY | O_CLOEXEC);
	if (fd < 0) {
		rc = -errno;
	} else {
		ssize_t w = write(fd, value, strlen(value));

		if (w < 0)
			rc = -errno;
		else if ((size_t)w != strlen(value))
			rc = -EIO;
		close(fd);
	}
	free(value);
	return rc;
}

int ul_journal_undo(struct ul_journal *j, const char *kind, const char *arg)
{
	int rc;

	if (!kind || !arg)
		return -EINVAL;
	if (!strcmp(kind, UL_JOURNAL_SWAP))
		rc = ul_swap_destroy(arg);
	else if (!strcmp(kind, UL_JOURNAL_CGROUP))
		rc = ul_cgroup_destroy_path(arg);
	else if (!strcmp(kind, UL_JOURNAL_SCRATCH))
		rc = ul_scratch_remove(arg);
	else if (!strcmp(kind, UL_JOURNAL_SYSCTL))
		rc = sysctl_restore(arg);
	else
		rc = -EOPNOTSUPP;
	if (rc == -ENOENT && strcmp(kind, UL_JOURNAL_SYSCTL))
		rc = 0; /* already gone */
	/* A failed "done" only leaves an entry a later cleanup finds undone. */
	if (!rc && j)
		(void)ul_journal_done(j, kind, arg);
	return rc;
}

/* ---- cleanup -------------------------------------------------------- */

struct scan {
	ul_journal_report_fn report;
	void *arg;
	int undone;	/* successful undos */
	int stale;	/* stale journals with pending entries */
	bool dry;	/* only count */
};

/* A temporary file whose creator is gone is an incomplete, empty journal. */
static void drop_dead_tmp(const char *dir, const char *name)
{
	char path[PATH_MAX];
	int pid = atoi(name);

	if (pid > 0 && kill(pid, 0) < 0 && errno == ESRCH && !join(path, sizeof(path), dir, name))
		(void)unlink(path);
}

static int scan_one(const char *dir, const char *name, struct scan *sc)
{
	char path[PATH_MAX];
	struct ul_journal j;
	struct parsed p;
	struct stat st;
	int fd, rc = 0, err = 0;
	bool writable = true;

	if (join(path, sizeof(path), dir, name))
		return -ENAMETOOLONG;
	fd = open(path, (sc->dry ? O_RDONLY : O_RDWR | O_APPEND) | O_NOFOLLOW | O_CLOEXEC |
				O_NONBLOCK);
	if (fd < 0)
		return errno == ENOENT || errno == ELOOP ? 0 : -errno;
	if (fstat(fd, &st) < 0 || !S_ISREG(st.st_mode) || st.st_uid != geteuid() ||
	    flock(fd, LOCK_EX | LOCK_NB) < 0) {
		close(fd); /* not ours, or another cleanup is working on it */
		return 0;
	}
	if (parse_fd(fd, &p)) {
		close(fd);
		return 0;
	}
	if (owner_alive(p.pid, p.start)) {
		parsed_free(&p);
		close(fd);
		return 0;
	}
	if (sc->dry) {
		sc->stale += pending(&p) > 0;
		parsed_free(&p);
		close(fd);
		return 0;
	}
	/* Appending after a torn line would glue "done" onto it. */
	if ((size_t)st.st_size != p.good_bytes && ftruncate(fd, (off_t)p.good_bytes) < 0)
		writable = false;
	j.fd = fd;
	j.size_bytes = p.good_bytes;
	snprintf(j.path, sizeof(j.path), "%s", path);
	for (size_t i = p.n; i-- > 0;) {
		if (p.e[i].done)
			continue;
		rc = ul_journal_undo(writable ? &j : NULL, p.e[i].kind, p.e[i].arg);
		if (sc->report)
			sc->report(sc->arg, p.e[i].kind, p.e[i].arg, rc);
		if (rc) {
			if (!err)
				err = rc;
			continue;
		}
		p.e[i].done = true;
		sc->undone++;
	}
	if (!pending(&p))
		unlink_same(path, fd);
	parsed_free(&p);
	close(fd);
	return err;
}

static int scan_dir(const char *dir, struct scan *sc)
{
	DIR *d;
	int err = 0, rc;

	rc = check_dir(dir, false);
	if (rc)
		return rc == -ENOENT ? 0 : rc;
	d = opendir(dir);
	if (!d)
		return errno == ENOENT ? 0 : -errno;
	for (struct dirent *e; (e = readdir(d));) {
		size_t n = strlen(e->d_name), tn = strlen(TMP_SUFFIX);

		if (n > tn && !strcmp(e->d_name + n - tn, TMP_SUFFIX)) {
			if (!sc->dry)
				drop_dead_tmp(dir, e->d_name);
			continue;
		}
		if (n <= strlen(SUFFIX) || strcmp(e->d_name + n - strlen(SUFFIX), SUFFIX))
			continue;
		rc = scan_one(dir, e->d_name, sc);
		if (rc && !err)
			err = rc;
	}
	closedir(d);
	return err;
}

static int scan_all(const char *dir, struct scan *sc)
{
	char dirs[MAX_DIRS][PATH_MAX];
	int n, err = 0;

	if (dir)
		return scan_dir(dir, sc);
	n = default_dirs(dirs);
	for (int i = 0; i < n; i++) {
		int rc = scan_dir(dirs[i], sc);

		/* Another user's fallback directory is simply not ours to clean. */
		if (rc && rc != -EPERM && !err)
			err = rc;
	}
	return err;
}

int ul_journal_cleanup(const char *dir, ul_journal_report_fn report, void *arg, int *n_undone)
{
	struct scan sc = { .report = report, .arg = arg };
	int rc = scan_all(dir, &sc);

	if (n_undone)
		*n_undone = sc.undone;
	return rc;
}

int ul_journal_stale(const char *dir, int *n)
{
	struct scan sc = { .dry = true };
	int rc = scan_all(dir, &sc);

	*n = sc.stale;
	return rc;
}

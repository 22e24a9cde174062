/* SPDX-License-Identifier: GPL-2.0-or-later */
/* `underload import FILE...`: merge runs exported elsewhere (or a run's recovery file). */
#include "core/compat.h"
#include "cmd/cmd.h"
#include "core/escape.h"
#include "core/log.h"
#include "store/exchange.h"
#include "store/store.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

static const char import_help[] =
	"Merge runs written by 'underload export --format json' (or the recovery\n"
	"file of a run whose database refused its cells) into the store.  Each\n"
	"FILE is one transaction: a malformed, truncated, wrong-version or hostile\n"
	"file is refused with one line and nothing of it is inserted.  A run\n"
	"already stored (same UUID) only gains the cells it lacks, so importing a\n"
	"file twice changes nothing.  FILE '-' is standard input.\n"
	"\n";

extern const struct ul_cmd ul_cmd_desc_import;

/* The whole file open at fd (closed here), at most UL_EXCHANGE_MAX_BYTES + 1
 * bytes (one more says "too big"). */
static int slurp_fd(int fd, char **buf, size_t *len)
{
	size_t cap = 1 << 16, n = 0;
	char *b = NULL;
	int e = 0;

	for (;;) {
		ssize_t r;

		if (n == cap || !b) {
			char *nb;

			cap = b ? cap * 2 : cap;
			if (cap > UL_EXCHANGE_MAX_BYTES + 1)
				cap = UL_EXCHANGE_MAX_BYTES + 1;
			nb = realloc(b, cap);
			if (!nb) {
				e = ENOMEM;
				break;
			}
			b = nb;
		}
		if (n == cap)
			break; /* over the limit: the parser refuses it */
		r = read(fd, b + n, cap - n);
		if (r < 0 && errno == EINTR)
			continue;
		if (r <= 0) {
			e = r < 0 ? errno : 0;
			break;
		}
		n += (size_t)r;
	}
	close(fd);
	if (e) {
		free(b);
		return -e;
	}
	*buf = b;
	*len = n;
	return 0;
}

/* Parse the document in buf (freed here) into *runs; -1 after printing why. */
static int parse_doc(const char *path, char *buf, size_t len, struct ul_run **runs, size_t *n)
{
	char why[512];
	int rc = ul_exchange_read_json(buf, len, runs, n, why, sizeof(why));

	free(buf);
	if (rc == -ENOMEM) /* the file may be fine: no "refused" */
		return ul_error("cannot import '%s', nothing imported: %s", path, why);
	if (rc)
		return ul_error("'%s' refused, nothing imported: %s", path, why);
	return 0;
}

/* Insert the parsed runs (released here) in one transaction; -1 after printing why. */
static int store_runs(struct ul_store *st, const char *path, struct ul_run *runs, size_t n,
		      size_t *added_runs)
{
	size_t added = 0;
	int rc = st->ops->import_runs(st, runs, n, &added);

	ul_exchange_free(runs, n);
	if (rc)
		return ul_error("'%s' not imported: %s", path, st->err);
	if (added_runs)
		*added_runs = added;
	return 0;
}

int ul_cmd_import_file(struct ul_store *st, const char *path, size_t *added_runs)
{
	int fd = strcmp(path, "-") ? open(path, O_RDONLY | O_CLOEXEC) : dup(STDIN_FILENO);
	struct ul_run *runs = NULL;
	char *buf = NULL;
	size_t len = 0, n = 0;
	int rc = fd < 0 ? -errno : slurp_fd(fd, &buf, &len);

	if (rc)
		return ul_error_errno(rc, "cannot read '%s'", path);
	if (parse_doc(path, buf, len, &runs, &n))
		return -1;
	return store_runs(st, path, runs, n, added_runs);
}

/* ---- recovery files: DB.recovery-UUID.json beside the database ---- */

/* The UUID in a recovery file's name when it is exactly PREFIX + UUID + ".json". */
static bool recovery_name(const char *name, const char *prefix, char uuid[37])
{
	size_t plen = strlen(prefix);

	if (strncmp(name, prefix, plen) || strlen(name + plen) != 36 + 5 ||
	    strcmp(name + plen + 36, ".json"))
		return false;
	memcpy(uuid, name + plen, 36);
	uuid[36] = '\0';
	/* the form a run writes: lowercase (a second spelling would be a second file) */
	return ul_uuid_valid(uuid) && strspn(uuid, "0123456789abcdef-") == 36;
}

/*
 * Open a recovery file as ours only: no symlink followed (O_NOFOLLOW,
 * relative to the directory's fd), a regular file with one link, owned by
 * our effective uid and not writable by group or others.  Another user
 * could otherwise plant runs in our store (or make us read a file of
 * theirs).  -1 with `why` set when refused.
 */
static int open_ours(int dirfd, const char *name, char *why, size_t len)
{
	int fd = openat(dirfd, name, O_RDONLY | O_NOFOLLOW | O_NONBLOCK | O_NOCTTY | O_CLOEXEC);
	struct stat sb;

	if (fd < 0) {
		snprintf(why, len, "%s", errno == ELOOP ? "a symbolic link" : strerror(errno));
		return -1;
	}
	if (fstat(fd, &sb) || !S_ISREG(sb.st_mode) || sb.st_nlink != 1)
		snprintf(why, len, "not a regular file with one link");
	else if (sb.st_uid != geteuid())
		snprintf(why, len, "owned by uid %u, not by us", (unsigned)sb.st_uid);
	else if (sb.st_mode & (S_IWGRP | S_IWOTH))
		snprintf(why, len, "writable by others (mode %04o)",
			 (unsigned)(sb.st_mode & 07777));
	else
		return fd;
	close(fd);
	return -1;
}

/*
 * Load one recovery file (dir + name for messages), 0 when it was loaded or
 * is to be dropped (its run was deleted), -1 when it stays.  Its contents
 * are never echoed: the file must hold exactly the run its name gives.
 */
static int load_recovery(struct ul_store *st, int fd, const char *path, const char *uuid)
{
	struct ul_run *runs = NULL;
	char why[512], *buf = NULL;
	size_t len = 0, n = 0;
	int rc = slurp_fd(fd, &buf, &len);

	if (!rc) {
		rc = ul_exchange_read_json(buf, len, &runs, &n, why, sizeof(why));
		free(buf);
	}
	if (!rc && (n != 1 || strcmp(runs[0].uuid, uuid)))
		rc = -EINVAL;
	if (rc) {
		ul_exchange_free(runs, n);
		ul_warning("recovery file '%s' left in place: not a run %s export "
			   "('underload import' of it says why)",
			   ul_esc(path), uuid);
		return -1;
	}
	rc = st->ops->was_deleted(st, uuid);
	if (rc == 1) {
		ul_exchange_free(runs, n);
		ul_note("run %s was deleted ('underload rm') while it was measuring: its recovery "
			"file '%s' is removed, not loaded",
			uuid, ul_esc(path));
		return 0;
	}
	if (rc < 0) {
		ul_exchange_free(runs, n);
		return ul_error("cannot load '%s': %s", ul_esc(path), st->err);
	}
	if (store_runs(st, path, runs, n, NULL))
		return -1; /* said why; the file stays for a look */
	ul_note("loaded '%s', kept by an earlier run that could not store it", ul_esc(path));
	return 0;
}

void ul_cmd_import_recovery(struct ul_store *st, const char *db_path)
{
	char dir[4096], prefix[512], path[8192], why[128], uuid[37];
	const char *slash = strrchr(db_path, '/');
	struct dirent *de;
	int dirfd, fd;
	DIR *d;

	/* A store in no file (PostgreSQL) has none beside it: its recovery files go to /var/tmp. */
	if (!st->where)
		return;
	if (slash)
		snprintf(dir, sizeof(dir), "%.*s", (int)(slash - db_path + 1), db_path);
	else
		snprintf(dir, sizeof(dir), ".");
	if (snprintf(prefix, sizeof(prefix), "%s.recovery-", slash ? slash + 1 : db_path) >=
	    (int)sizeof(prefix))
		return;
	dirfd = open(dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	d = dirfd < 0 ? NULL : fdopendir(dup(dirfd));
	while (d && (de = readdir(d))) {
		if (strncmp(de->d_name, prefix, strlen(prefix)))
			continue;
		snprintf(path, sizeof(path), "%s%s%s", dir, slash ? "" : "/", de->d_name);
		if (!recovery_name(de->d_name, prefix, uuid)) {
			ul_warning("'%s' left in place: not a recovery file name (%sUUID.json)",
				   ul_esc(path), ul_esc(prefix));
			continue;
		}
		fd = open_ours(dirfd, de->d_name, why, sizeof(why));
		if (fd < 0) {
			ul_warning("recovery file '%s' left in place: %s", ul_esc(path), why);
			continue;
		}
		if (load_recovery(st, fd, path, uuid))
			continue;
		if (unlinkat(dirfd, de->d_name, 0))
			ul_warning("cannot remove '%s': %s", ul_esc(path), strerror(errno));
	}
	if (d)
		closedir(d);
	if (dirfd >= 0)
		close(dirfd);
}

int ul_cmd_import(int argc, char **argv);
int ul_cmd_import(int argc, char **argv)
{
	struct ul_cmd_db_args a;
	struct ul_store *store;
	int first, ret;

	ret = ul_cmd_parse(&ul_cmd_desc_import, &a, argc, argv, &first);
	if (ret)
		return ret == UL_CMD_HELP_SHOWN ? UL_EXIT_OK : ret;
	if (first == argc)
		return ul_usage_error("import", "expected at least one FILE");
	ret = ul_cmd_open_store_rw(a.db, &store);
	if (ret)
		return ret;
	for (int i = first; i < argc; i++) {
		size_t added = 0;

		if (ul_cmd_import_file(store, argv[i], &added)) {
			ret = UL_EXIT_ERROR;
			continue;
		}
		printf("%s: %zu run%s added or completed\n", ul_esc(argv[i]), added,
		       added == 1 ? "" : "s");
	}
	ul_store_close(store);
	return ret;
}

const struct ul_cmd ul_cmd_desc_import = {
	.name = "import",
	.summary = "merge runs exported by another store (or a recovery file)",
	.operands = "FILE...",
	.help = import_help,
	.opts = ul_cmd_db_opts,
	.fn = ul_cmd_import,
};

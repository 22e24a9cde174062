/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Connecting to the SQLite file, including a WAL store on a read-only
 * filesystem.  Reading a WAL database needs its -shm file: SQLite creates
 * it (and the -wal file) beside the database, which a read-only mount
 * refuses, so every command failed there with "unable to open database
 * file".  When the filesystem is read-only and no -wal file holds commits
 * the database file lacks (a clean close checkpoints and removes it),
 * nothing can change the file under us, and it is opened with SQLite's
 * immutable=1 URI parameter: read without locks or shared memory.  See
 * https://www.sqlite.org/wal.html ("Read-Only Databases").
 */
#include "core/compat.h"
#include "core/clock.h"
#include "store/sqlite_int.h"

#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/statvfs.h>

/* On a read-only filesystem, with no -wal file holding commits? */
static bool immutable_is_safe(const char *path)
{
	char wal[PATH_MAX + 8];
	struct statvfs vfs;
	struct stat sb;

	if (statvfs(path, &vfs) || !(vfs.f_flag & ST_RDONLY))
		return false;
	if (snprintf(wal, sizeof(wal), "%s-wal", path) >= (int)sizeof(wal))
		return false;
	return stat(wal, &sb) ? errno == ENOENT : sb.st_size == 0;
}

/* "file:///ABS/PATH?immutable=1" with the path percent-encoded; 0 or -errno. */
static int immutable_uri(const char *path, char *uri, size_t len)
{
	char abs[PATH_MAX];
	size_t o;

	if (!realpath(path, abs))
		return -errno;
	o = (size_t)snprintf(uri, len, "file://");
	for (const unsigned char *p = (const unsigned char *)abs; *p && o + 4 < len; p++) {
		if (*p == '%' || *p == '?' || *p == '#' || *p <= 0x20 || *p >= 0x7f)
			o += (size_t)snprintf(uri + o, len - o, "%%%02X", *p);
		else
			uri[o++] = (char)*p;
	}
	if (o + sizeof("?immutable=1") > len)
		return -ENAMETOOLONG;
	memcpy(uri + o, "?immutable=1", sizeof("?immutable=1"));
	return 0;
}

/* For reading: reopen as immutable when the normal way cannot read it and that is safe. */
static int reopen_immutable(struct ul_store_sqlite *st)
{
	char uri[3 * PATH_MAX + 32];
	sqlite3_stmt *s;
	/* The first read of the schema is where a WAL file without its -shm fails. */
	int rc = sqlite3_prepare_v2(st->db, "PRAGMA schema_version", -1, &s, NULL);

	if (rc == SQLITE_OK && (rc = sqlite3_step(s)) == SQLITE_ROW)
		rc = SQLITE_OK;
	sqlite3_finalize(s);
	if ((rc & 0xff) != SQLITE_CANTOPEN || !immutable_is_safe(st->path) ||
	    immutable_uri(st->path, uri, sizeof(uri)))
		return SQLITE_OK; /* the first real query reports it */
	sqlite3_close(st->db);
	st->db = NULL;
	return sqlite3_open_v2(uri, &st->db, SQLITE_OPEN_READONLY | SQLITE_OPEN_URI, NULL);
}

/*
 * SQLite's busy handler: while another connection holds the lock, sleep
 * (1 ms, growing to 100 ms) and try again, until st->busy_wait_ns have
 * passed since the first try, or at once when the store's interrupted()
 * says so (store.h).  Nonzero: try again; 0: the statement fails busy.
 */
static int busy_wait(void *arg, int tries)
{
	static const int64_t step_ms[] = { 1, 2, 5, 10, 15, 20, 25, 25, 25, 50, 50, 100 };
	struct ul_store_sqlite *st = arg;
	int64_t now = (int64_t)ul_now_ns(), left, nap;
	size_t i = (size_t)tries;

	if (tries == 0)
		st->busy_since = now;
	if (st->base.interrupted && st->base.interrupted(st->base.interrupted_arg))
		return 0;
	left = st->busy_since + st->busy_wait_ns - now;
	if (left <= 0)
		return 0;
	nap = step_ms[i < UL_ARRAY_SIZE(step_ms) ? i : UL_ARRAY_SIZE(step_ms) - 1] * UL_NS_PER_MS;
	ul_sleep_until_ns((ul_nsec)(now + (nap < left ? nap : left)));
	return 1;
}

int ul_sq_connect(struct ul_store_sqlite *st, int64_t busy_wait_ms, char *err, size_t errlen)
{
	int flags = st->read_only ? SQLITE_OPEN_READONLY
				  : SQLITE_OPEN_READWRITE | SQLITE_OPEN_CREATE;
	struct stat sb;
	/* No SQLITE_OPEN_URI: a path is a path, even one starting "file:". */
	int rc = sqlite3_open_v2(st->path, &st->db, flags, NULL);

	if (rc == SQLITE_OK && st->read_only && st->on_disk)
		rc = reopen_immutable(st);
	if (rc != SQLITE_OK)
		return ul_sq_set_err(err, errlen, ul_sq_errno(st->db, rc, 0),
				     "cannot open '%s': %s", st->path, ul_sq_errmsg(st->db, rc));
	if (st->on_disk && !stat(st->path, &sb)) {
		st->dev = sb.st_dev;
		st->ino = sb.st_ino;
	}
	sqlite3_extended_result_codes(st->db, 1);
	st->busy_wait_ns = (busy_wait_ms > 0 && busy_wait_ms < INT64_MAX / UL_NS_PER_MS
				    ? busy_wait_ms
				    : UL_STORE_BUSY_WAIT_DEFAULT_MS) *
			   UL_NS_PER_MS;
	sqlite3_busy_handler(st->db, busy_wait, st);
	return 0;
}

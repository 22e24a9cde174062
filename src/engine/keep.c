/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Never lose a cell: a cell the store refuses (a database locked past the
 * busy wait, a full disk, a database deleted under the run) is kept in
 * memory, retried before every later commit and at the end, and if it
 * still cannot be stored the whole run is written to a recovery file in the
 * exchange format, which `underload import` (or the next run into the same
 * database) loads.
 */
#include "core/compat.h"
#include "core/log.h"
#include "engine/engine.h"
#include "store/exchange.h"
#include "store/store.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

/* Where a run's recovery file goes when the database's directory refuses it. */
#define FALLBACK_DIR "/var/tmp"

static int try_store(struct ul_engine *eng, const struct ul_cell *cell)
{
	int rc = eng->store->ops->add_cell(eng->store, eng->run, cell);

	/* -EEXIST: an earlier attempt did commit it (a retry after an unclear error). */
	return rc == -EEXIST ? 0 : rc;
}

/*
 * Retry the kept cells in run order; those stored leave the list.  The
 * first the store still refuses ends the retry: the rest wait behind it
 * (run order), and a locked store costs one busy wait per commit, not one
 * per kept cell.
 */
static void retry_kept(struct ul_engine *eng)
{
	size_t stored = 0;

	while (stored < eng->n_kept && !try_store(eng, &eng->run->cells[eng->kept[stored]]))
		stored++;
	if (!stored)
		return;
	memmove(eng->kept, eng->kept + stored, (eng->n_kept - stored) * sizeof(*eng->kept));
	eng->n_kept -= stored;
	if (!eng->n_kept)
		ul_note("the store accepts cells again: every kept cell is now stored");
}

int ul_engine_store_cell(struct ul_engine *eng, struct ul_cell *cell)
{
	size_t idx = (size_t)(cell - eng->run->cells);
	int rc;

	if (eng->n_kept)
		retry_kept(eng);
	rc = eng->n_kept ? -EAGAIN : try_store(eng, cell); /* keep run order */
	if (cell->outcome == UL_CELL_OK)
		eng->stored_cells++;
	if (!rc)
		return 0;
	if (eng->n_kept == eng->cap_kept) {
		size_t ncap = eng->cap_kept ? 2 * eng->cap_kept : 16;
		size_t *nk = realloc(eng->kept, ncap * sizeof(*nk));

		if (!nk)
			return ul_error("cannot store cell '%s/%s' and no memory to keep it: %s",
					cell->suite, cell->load, eng->store->err);
		eng->kept = nk;
		eng->cap_kept = ncap;
	}
	eng->kept[eng->n_kept++] = idx;
	if (rc != -EAGAIN)
		ul_warning("cannot store cell '%s/%s' now (%s); it is kept, retried after each "
			   "cell and saved to a recovery file if the store stays unusable",
			   cell->suite, cell->load, eng->store->err);
	return 0;
}

/*
 * Write the run to PREFIX + UUID + ".json" when `exact` (beside the
 * database: the name the next run looks for, created new, never through a
 * link), else to PREFIX + UUID + "-XXXXXX.json" (a shared directory).  The
 * file is ours and mode 0600.  0 with the path in buf, or a negative errno.
 */
static int write_recovery(const struct ul_run *run, const char *path_prefix, bool exact, char *buf,
			  size_t len)
{
	const struct ul_run *one[1] = { run };
	FILE *f;
	int fd, rc;

	if (snprintf(buf, len, "%s%s%s.json", path_prefix, run->uuid, exact ? "" : "-XXXXXX") >=
	    (int)len)
		return -ENAMETOOLONG;
	fd = exact ? open(buf, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0600)
		   : mkostemps(buf, 5, O_CLOEXEC);
	if (fd < 0)
		return -errno;
	f = fdopen(fd, "w");
	if (!f) {
		rc = -errno;
		close(fd);
		unlink(buf);
		return rc;
	}
	rc = ul_exchange_write_json(f, one, 1);
	if (!rc && fsync(fileno(f)))
		rc = -errno;
	if (fclose(f) && !rc)
		rc = -errno;
	if (rc)
		unlink(buf);
	return rc;
}

/* s as one shell word in buf: as it is when it needs no quotes, else in '...'. */
static void shell_word(const char *s, char *buf, size_t len)
{
	size_t out = 0;

	if (s[0] && strspn(s, "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789"
			      "_./:=@%+,-") == strlen(s)) {
		snprintf(buf, len, "%s", s);
		return;
	}
	buf[out++] = '\'';
	for (; *s && out + 5 < len; s++) {
		if (*s == '\'') {
			memcpy(buf + out, "'\\''", 4); /* end, an escaped quote, begin again */
			out += 4;
		} else {
			buf[out++] = *s;
		}
	}
	buf[out++] = '\'';
	buf[out] = '\0';
}

/* The command that loads the recovery file at path into the run's store. */
static void import_hint(const struct ul_engine *eng, const char *path, char *buf, size_t len)
{
	char db[4200], file[4400];

	shell_word(path, file, sizeof(file));
	if (eng->cfg->store_uri) {
		shell_word(eng->cfg->store_uri, db, sizeof(db));
		snprintf(buf, len, "underload import --db %s %s", db, file);
	} else {
		snprintf(buf, len, "underload import %s", file);
	}
}

int ul_engine_keep_finish(struct ul_engine *eng, bool end_stored)
{
	char prefix[4096], path[4200], hint[8800];
	const char *where = eng->store->where;
	int rc = -ENOENT;

	if (eng->n_kept)
		retry_kept(eng);
	if (!eng->n_kept && end_stored)
		return 0;
	/* Beside the database first (the next run there loads it), else FALLBACK_DIR. */
	if (where && *where &&
	    snprintf(prefix, sizeof(prefix), "%s.recovery-", where) < (int)sizeof(prefix))
		rc = write_recovery(eng->run, prefix, true, path, sizeof(path));
	if (rc) {
		snprintf(prefix, sizeof(prefix), "%s/underload-recovery-", FALLBACK_DIR);
		rc = write_recovery(eng->run, prefix, false, path, sizeof(path));
	}
	if (rc)
		return ul_error_errno(rc,
				      "%zu cell%s of run %s could not be stored and no recovery "
				      "file could be written: they are lost",
				      eng->n_kept, eng->n_kept == 1 ? "" : "s", eng->run->uuid);
	if (eng->n_kept)
		snprintf(prefix, sizeof(prefix), "%zu cell%s of run %s could not be stored",
			 eng->n_kept, eng->n_kept == 1 ? "" : "s", eng->run->uuid);
	else
		snprintf(prefix, sizeof(prefix), "the status of run %s could not be stored",
			 eng->run->uuid);
	import_hint(eng, path, hint, sizeof(hint));
	ul_error("%s; the whole run is saved in '%s': load it with: %s%s", prefix, path, hint,
		 strncmp(path, FALLBACK_DIR "/", strlen(FALLBACK_DIR) + 1)
			 ? " (the next run into this database loads it by itself)"
			 : "");
	return 1;
}

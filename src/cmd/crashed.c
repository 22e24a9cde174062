/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Runs whose machine went down under them (a kernel that panicked or hung,
 * a power cut): their journal is of another boot.  The first command that
 * opens their store for writing, or lists it, marks them crashed at the
 * test and round their journal last recorded; cleanup does the same (and
 * removes what they left on disk).  A crash is a result, not a lost run.
 */
#include "core/compat.h"
#include "cmd/cmd.h"
#include "core/log.h"
#include "proc/changes.h"
#include "store/store.h"

#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

/*
 * Mark it in st, *where_text saying where, as the words after "crashed"
 * (ul_run_crash_phrase): read back from the store once marked, so that
 * this note and every later view (list, show, compare) say one thing.  A
 * test the journal names that had ended and been stored gets no crashed
 * cell: the run went down after it.  The store's answer: 0, -EALREADY,
 * -ENOENT or an error in st->err.
 */
static int mark_in(struct ul_store *st, const char *uuid, const char *where, char *where_text,
		   size_t len)
{
	struct ul_cell at;
	int round = 0;
	bool known = ul_cell_where_parse(where, &at, &round) == 0;
	char desc[192];
	int rc;

	if (known) {
		ul_cell_where_describe(&at, round, desc, sizeof(desc));
		snprintf(where_text, len, "in %s", desc);
	} else {
		snprintf(where_text, len, "in an unknown test (its journal recorded none)");
	}
	rc = st->ops->mark_crashed(st, uuid, known ? &at : NULL, NULL);
	if (!rc)
		(void)ul_cmd_crash_where(st, uuid, where_text, len); /* else the journal's words */
	return rc;
}

int ul_cmd_mark_crashed(const char *store_uri, const char *uuid, const char *where, char *why,
			size_t len)
{
	struct ul_store *st = NULL;
	char err[512], at[256];
	int rc;

	/* A database that is gone holds no run to mark; never create one. */
	if (!strstr(store_uri, "://") && access(store_uri, F_OK) < 0)
		return -ENOENT;
	if (ul_store_open(store_uri, &st, err, sizeof(err))) {
		snprintf(why, len, "%s", err);
		return -EIO;
	}
	rc = mark_in(st, uuid, where, at, sizeof(at));
	if (rc && rc != -ENOENT && rc != -EALREADY)
		snprintf(why, len, "%s", st->err);
	ul_store_close(st);
	if (!rc)
		printf("marked run %s crashed %s, in %s\n", uuid, at, store_uri);
	return rc;
}

/* Does the journal's store (an absolute path or URI) name the file db? */
static bool same_store(const char *db, const char *journal_store)
{
	const char *a = strncmp(db, "sqlite:", 7) ? db : db + 7;
	const char *b = strncmp(journal_store, "sqlite:", 7) ? journal_store : journal_store + 7;
	struct stat sa, sb;

	if (strstr(a, "://") || strstr(b, "://") || stat(a, &sa) < 0 || stat(b, &sb) < 0)
		return !strcmp(a, b);
	return sa.st_dev == sb.st_dev && sa.st_ino == sb.st_ino;
}

struct settle {
	const char *db;
	struct ul_store *st; /* the command's own store, or one opened here */
	bool opened;	     /* st was opened here for writing */
	bool cannot_open;    /* tried, and said why once */
};

static int settle_one(void *arg, const char *uuid, const char *store_uri, const char *where)
{
	struct settle *s = arg;
	char err[512], at[256];
	int rc;

	if (!same_store(s->db, store_uri))
		return 0;
	if (!s->st && !s->cannot_open) {
		if (ul_store_open(s->db, &s->st, err, sizeof(err))) {
			ul_warning("run %s crashed but cannot be marked so: %s", uuid, err);
			s->cannot_open = true;
		}
		s->opened = s->st != NULL;
	}
	if (!s->st)
		return 0;
	rc = mark_in(s->st, uuid, where, at, sizeof(at));
	if (!rc)
		ul_note("run %.8s crashed (its machine went down) %s: marked 'crashed'; "
			"'underload cleanup' removes what it left on disk",
			uuid, at);
	else if (rc != -EALREADY && rc != -ENOENT)
		ul_warning("run %s crashed but cannot be marked so: %s", uuid, s->st->err);
	return 0;
}

void ul_cmd_settle_crashed(const char *db, struct ul_store *st)
{
	struct settle s = { .db = db, .st = st };

	/* A journal directory we may not read holds no run of ours. */
	(void)ul_changes_crashed_runs(NULL, settle_one, &s);
	if (s.opened)
		ul_store_close(s.st);
}

int ul_cmd_crash_where(struct ul_store *st, const char *uuid, char *out, size_t len)
{
	struct ul_run run;
	int rc;

	ul_run_init(&run);
	rc = st->ops->load_run(st, uuid, &run);
	if (!rc)
		(void)ul_run_crash_phrase(&run, out, len);
	ul_run_release(&run);
	return rc;
}

/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * The results store: an ops table chosen by URI.  A plain path or
 * "sqlite:PATH" selects SQLite; "postgresql://..." is reserved for the
 * PostgreSQL backend.  Every backend keeps a versioned schema with
 * migrations, uses only parameterised statements, and commits each finished
 * cell in its own transaction so an interrupted run keeps what it measured.
 *
 * How to add a backend: write store/NAME.c defining
 * `const struct ul_store_ops ul_store_NAME`, add a line to stores.def, and
 * make tests/unit/test_store.c run its cases against it.
 *
 * UUIDs: stored and looked up in one form, lowercase (ul_uuid_canon): the
 * ops take a UUID in any case.
 *
 * Errors: every op returns 0 or a negative errno-style code and fills
 * store->err with one line for people (no "error:" prefix).  Codes:
 *   -ENOENT   run not found          -EPROTO  file is not a database of ours
 *   -EPROTONOSUPPORT  schema newer than this program understands
 *   -EACCES / -EROFS  cannot open or write   -EIO  other backend error
 *   -ENOSPC / -EFBIG / -EDQUOT  disk full, file too large (ulimit -f), quota
 */
#ifndef UL_STORE_H
#define UL_STORE_H

#include "core/compat.h"
#include "model/model.h"

#define UL_STORE_SCHEMA_VERSION 4

struct ul_store;

/* How long a write waits for a database another process has locked. */
#define UL_STORE_BUSY_WAIT_DEFAULT_MS (5 * 60 * 1000)

enum ul_store_open_flags {
	/* Reading only (list, show, export): the store must exist and is never
	 * created, migrated or written; no directory is made. */
	UL_STORE_READ = 1 << 0,
};

struct ul_store_config {
	unsigned flags;	      /* enum ul_store_open_flags */
	int64_t busy_wait_ms; /* 0: UL_STORE_BUSY_WAIT_DEFAULT_MS */
};

struct ul_store_ops {
	const char *scheme; /* "sqlite" */
	/*
	 * Open the store at `location` (URI with the scheme removed).  Without
	 * UL_STORE_READ: create it (and its parent directories) if absent;
	 * refuse one that is not a healthy store of ours (a check before any
	 * write), then migrate its schema up to UL_STORE_SCHEMA_VERSION.  A
	 * path that exists must be a regular file.  On failure *out is NULL and
	 * err holds why.  A note for people (e.g. a journal mode fallback) is
	 * left in (*out)->note.
	 */
	int (*open)(const char *location, const struct ul_store_config *cfg, struct ul_store **out,
		    char *err, size_t errlen);
	void (*close)(struct ul_store *st);
	/* Insert the run with its metadata (status as given, normally running);
	 * sets run->id.  Cells are not written here. */
	int (*begin_run)(struct ul_store *st, struct ul_run *run);
	/* Insert one finished cell with all its series and metrics, atomically. */
	int (*add_cell)(struct ul_store *st, const struct ul_run *run, const struct ul_cell *cell);
	/* Update status and finished time of a stored run. */
	int (*finish_run)(struct ul_store *st, const struct ul_run *run);
	/*
	 * Repair a run left `running` by a killed process (cleanup calls it
	 * with the run UUID its journal recorded): status becomes interrupted
	 * and finished_wall_ns the finish time of its last stored cell (its
	 * start time when it has none), in one transaction.  *finished_wall_ns
	 * (may be NULL) gets that time.  -ENOENT: no run with this UUID;
	 * -EALREADY: the run is not `running` (finished, or already repaired),
	 * and nothing was changed.
	 */
	int (*mark_interrupted)(struct ul_store *st, const char *uuid, int64_t *finished_wall_ns);
	/*
	 * The same for a run whose machine went down under it: status crashed,
	 * and `at` (may be NULL: where is unknown), a cell of outcome crashed
	 * for the test it was in, stored unless a cell of its seq is (then it
	 * crashed after that cell); the finish time is the later of the last
	 * cell's end and at's start.  Same errors.
	 */
	int (*mark_crashed)(struct ul_store *st, const char *uuid, const struct ul_cell *at,
			    int64_t *finished_wall_ns);
	/* All runs, newest first; *out is malloc'ed (free() it).  A status
	 * this program does not know reads as UL_RUN_UNKNOWN. */
	int (*list_runs)(struct ul_store *st, struct ul_run_summary **out, size_t *n);
	/* Load a whole run.  `ref` is a numeric id, a UUID or a unique UUID
	 * prefix (>= 4 chars, any case), or "last" for the newest run, each
	 * optionally written "run:REF" (as a command's LABEL|RUN accepts it).
	 * Everything read is checked like untrusted input: -EIO names what is
	 * malformed. */
	int (*load_run)(struct ul_store *st, const char *ref, struct ul_run *out);
	/* The summary of the run `ref` names (as load_run resolves it). */
	int (*find_run)(struct ul_store *st, const char *ref, struct ul_run_summary *out);
	/* Delete the run with this UUID and everything it holds, and record
	 * the UUID as deleted (see was_deleted), in one transaction; -ENOENT
	 * if absent. */
	int (*delete_run)(struct ul_store *st, const char *uuid);
	/*
	 * 1 when a run with this UUID was deleted (delete_run) and not imported
	 * again since, 0 when not, or a negative errno.  A run deleted while it
	 * was still measuring writes a recovery file at its end; the next run
	 * asks this before loading it, so the deletion is not undone.
	 */
	int (*was_deleted)(struct ul_store *st, const char *uuid);
	/* Give the run with this UUID a new label; -ENOENT if absent. */
	int (*relabel_run)(struct ul_store *st, const char *uuid, const char *label);
	/*
	 * Insert whole runs (status, times, every cell) as they are, in one
	 * transaction: all or nothing.  A run whose UUID is already stored
	 * only gains the cells (by seq) it lacks, and the file's status and end
	 * if it was still `running` (a recovery file completes its run), so the
	 * same file imported twice changes nothing.  A run inserted is no
	 * longer recorded as deleted.  *inserted (may be NULL) counts the runs
	 * added or changed.
	 */
	int (*import_runs)(struct ul_store *st, const struct ul_run *runs, size_t n,
			   size_t *inserted);
};

/* Common head of every backend's store struct. */
struct ul_store {
	const struct ul_store_ops *ops;
	char err[512];
	char note[256];	   /* "" or one line for people, set by open */
	const char *where; /* the file or place it lives in, for files kept beside it; may be NULL */
	struct ul_store_fault *fault; /* the test seam (store_fault.c), NULL normally */
	/* Asked between tries while a write waits for a store another process
	 * has locked (SQLite's busy wait): true ends the wait at once, the
	 * write failing -EBUSY, so an interrupted run does not sit out the
	 * lock.  NULL: the whole busy wait.  Set by the store's user. */
	bool (*interrupted)(void *arg);
	void *interrupted_arg;
};

/* Choose the backend from the URI and open it for writing (see ops->open). */
int ul_store_open(const char *uri, struct ul_store **out, char *err, size_t errlen) UL_MUST_CHECK;
/* The same with flags and a busy wait. */
int ul_store_open_cfg(const char *uri, const struct ul_store_config *cfg, struct ul_store **out,
		      char *err, size_t errlen) UL_MUST_CHECK;
void ul_store_close(struct ul_store *st);
/* The default location: $UNDERLOAD_DB (anything --db takes: a SQLite path,
 * "sqlite:PATH" or a postgresql:// URL) when set and not empty, else
 * $XDG_DATA_HOME/underload/results.db, falling back to
 * $HOME/.local/share/underload/results.db.  -ENOENT if none is set. */
int ul_store_default_path(char *buf, size_t len);

#endif

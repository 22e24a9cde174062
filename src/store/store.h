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
 * Errors: every op returns 0 or a negative errno-style code and fills
 * store->err with one line for people (no "error:" prefix).  Codes:
 *   -ENOENT   run not found          -EPROTO  file is not a database of ours
 *   -EPROTONOSUPPORT  schema newer than this program understands
 *   -EACCES / -EROFS  cannot open or write   -EIO  other backend error
 */
#ifndef UL_STORE_H
#define UL_STORE_H

#include "core/compat.h"
#include "model/model.h"

#define UL_STORE_SCHEMA_VERSION 1

struct ul_store;

struct ul_store_ops {
	const char *scheme; /* "sqlite" */
	/* Open or create the store at `location` (URI with the scheme removed),
	 * creating parent directories, and migrate its schema up to
	 * UL_STORE_SCHEMA_VERSION.  On failure *out is NULL and err holds why. */
	int (*open)(const char *location, struct ul_store **out, char *err, size_t errlen);
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
	/* All runs, newest first; *out is malloc'ed (free() it). */
	int (*list_runs)(struct ul_store *st, struct ul_run_summary **out, size_t *n);
	/* Load a whole run.  `ref` is a numeric id, a UUID or a unique UUID
	 * prefix (>= 4 chars), or "last" for the newest run. */
	int (*load_run)(struct ul_store *st, const char *ref, struct ul_run *out);
};

/* Common head of every backend's store struct. */
struct ul_store {
	const struct ul_store_ops *ops;
	char err[512];
};

/* Choose the backend from the URI and open it (see ops->open). */
int ul_store_open(const char *uri, struct ul_store **out, char *err, size_t errlen) UL_MUST_CHECK;
void ul_store_close(struct ul_store *st);
/* The default location: $XDG_DATA_HOME/underload/results.db, falling back
 * to $HOME/.local/share/underload/results.db. -ENOENT if neither is set. */
int ul_store_default_path(char *buf, size_t len);

#endif

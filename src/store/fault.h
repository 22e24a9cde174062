/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * The store's fault-injection seam (SQLite's SQLITE_TEST counters, git's
 * GIT_TEST_* variables): a wrapper around a store's ops that fails chosen
 * calls of one op with a chosen errno, without reaching the backend, so
 * "disk full on commit" and "database locked" are tested paths.
 *
 * UL_TEST_STORE_FAULT="OP:N:ERRNAME[:COUNT]" arms it in every store opened
 * by ul_store_open*(): calls N .. N+COUNT-1 (1-based; COUNT 0 or absent =
 * every later call) of op OP (begin_run, add_cell, finish_run, load_run,
 * list_runs, import_runs, ...) fail with ERRNAME (ENOSPC, EBUSY, EIO,
 * ESTALE, EACCES).  Only tests set it, and only a build with test hooks
 * reads it (core/testhook.h).
 */
#ifndef UL_STORE_FAULT_H
#define UL_STORE_FAULT_H

#include "core/compat.h"
#include "store/store.h"

/* Arm from UL_TEST_STORE_FAULT (nothing happens when it is unset, or
 * without test hooks). */
void ul_store_fault_arm(struct ul_store *st);
/* Arm explicitly (unit tests); returns 0, -EINVAL for an unknown op, -ENOMEM. */
int ul_store_fault_set(struct ul_store *st, const char *op, long from, long count, int err);
/* Restore the real ops (close does it). */
void ul_store_fault_disarm(struct ul_store *st);

#endif

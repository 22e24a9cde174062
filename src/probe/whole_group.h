/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * The group form's driver (probe/whole_group.c), private to probe/: the
 * whole driver (probe/whole.c) hands it the runs of a probe whose
 * ul_whole_ops has a group.  The contract is probe.h's (struct
 * ul_whole_group_ops and the ul_whole_* functions); these are their group
 * halves.
 */
#ifndef UL_PROBE_WHOLE_GROUP_H
#define UL_PROBE_WHOLE_GROUP_H

#include "core/compat.h"
#include "probe/probe.h"

struct ul_whole_group; /* opaque: one group probe's runs */

/* NULL when out of memory.  name (the probe's: its children's process
 * name), ctx, state and watch must outlive it (the watch is read at each
 * stop, for its grace). */
struct ul_whole_group *ul_whole_group_new(const char *name, const struct ul_whole_group_ops *ops,
					  const struct ul_probe_ctx *ctx, void *state,
					  const struct ul_whole_watch *watch);
enum ul_measure_result ul_whole_group_measure(struct ul_sup *sup, struct ul_whole_group *g,
					      int *err, struct ul_child **exited);
enum ul_measure_result ul_whole_group_wait(struct ul_sup *sup, struct ul_whole_group *g,
					   struct ul_child **exited);
/* Stop the run going; 0, or -ETIME when a child could not be reaped. */
int ul_whole_group_cancel(struct ul_sup *sup, struct ul_whole_group *g);
int ul_whole_group_result(struct ul_whole_group *g, struct ul_cell *cell);
const char *ul_whole_group_note(const struct ul_whole_group *g);
size_t ul_whole_group_children(const struct ul_whole_group *g, const struct ul_child **kids,
			       size_t room);
bool ul_whole_group_unkillable(const struct ul_whole_group *g);
/* Stops a run still going, then frees g. */
void ul_whole_group_free(struct ul_sup *sup, struct ul_whole_group *g);

#endif

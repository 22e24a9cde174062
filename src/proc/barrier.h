/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Start barrier between the supervisor and one child (hackbench style):
 * the child writes one byte to `ready` when it is set up, then blocks
 * reading `go` until the supervisor closes the write end, so every load
 * starts its work at a known instant and a load that fails to start is
 * seen as such.
 */
#ifndef UL_BARRIER_H
#define UL_BARRIER_H

#include "core/compat.h"

struct ul_barrier {
	int ready[2]; /* child writes [1], supervisor reads [0] */
	int go[2];    /* supervisor closes [1]; child reads [0] until EOF */
};

int ul_barrier_init(struct ul_barrier *b) UL_MUST_CHECK;
/* Supervisor side, after the fork: close the child's ends. */
void ul_barrier_parent_after_fork(struct ul_barrier *b);
/* Child side: close the parent's ends, signal ready, wait for go.
 * Returns 0, or -EPIPE when the supervisor went away. */
int ul_barrier_child_ready(struct ul_barrier *b) UL_MUST_CHECK;
int ul_barrier_child_wait_go(struct ul_barrier *b) UL_MUST_CHECK;
/* Supervisor side: release the child (close go[1]). */
void ul_barrier_release(struct ul_barrier *b);
/* Close whatever is still open. */
void ul_barrier_close(struct ul_barrier *b);

#endif

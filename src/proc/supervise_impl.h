/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Inside the supervisor: what its three floors share, each calling only
 * down.  supervise_children.c, the ground: the registry of live children,
 * reaping, listing our children, orphans.  supervise.c: the event loop
 * (the signalfd, pidfds and timerfd, ul_sup_wait()) and its setup.
 * supervise_reap.c, the top: stopping groups, the final reap,
 * ul_sup_fini().  Not for use outside proc/supervise*.c.
 */
#ifndef UL_SUPERVISE_IMPL_H
#define UL_SUPERVISE_IMPL_H

#include "proc/supervise.h"

/* Is c, or a child with this pid, registered (live, not yet reaped)? */
bool ul_sup_registered(const struct ul_sup *s, const struct ul_child *c);
bool ul_sup_pid_registered(const struct ul_sup *s, pid_t pid);

/* Drop c from the registry (it stays as it is; its pidfd is the caller's). */
void ul_sup_unregister(struct ul_sup *s, struct ul_child *c);

/*
 * Call fn(s, pid, arg) for every direct child of this process, registered
 * or not; returns how many there were, or -errno if they cannot be listed.
 */
typedef void (*ul_sup_child_fn)(struct ul_sup *s, pid_t pid, void *arg);
int ul_sup_for_each_child(struct ul_sup *s, ul_sup_child_fn fn, void *arg);

/*
 * Reap a registered child; 1 reaped (status and rusage recorded, pidfd
 * closed, unregistered), 0 still running (only with WNOHANG).
 */
int ul_sup_reap_child(struct ul_sup *s, struct ul_child *c, int flags);

/*
 * Sleep until fd (may be -1) is readable or `until` passes, servicing the
 * signalfd meanwhile (interrupts are counted, orphans reaped).  With
 * abortable, a second interrupt ends the wait early.  True when fd became
 * readable.
 */
bool ul_sup_wait_fd(struct ul_sup *s, int fd, ul_nsec until, bool abortable);

/*
 * Reap every exited child that is not registered (orphans adopted as
 * subreaper, leftover group members); registered ones never (their status
 * belongs to their ul_child).
 */
void ul_sup_reap_orphans(struct ul_sup *s);

#endif

/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * A child's whole process group as a journalled change (kind "pgroup",
 * arg "PGID STARTTIME", the group leader's pid and start time): for the
 * programs bisect runs (a kernel build's make and compilers), whose
 * grandchildren outlive a kill -9 of underload (only the direct child has
 * PR_SET_PDEATHSIG).  Cleanup SIGKILLs the group's members that remain.
 *
 * A group is ours while its leader is the process we started (same start
 * time) or, once the leader is gone, while members remain: the kernel
 * gives out no pid that a live group still uses as its id, so a leader
 * pid held by a process with another start time means our group is gone.
 * Members must have started no earlier than the leader (they are its
 * descendants); zombies count as gone (their parent, init or a
 * subreaper, reaps them).
 */
#ifndef UL_PROC_PGROUP_H
#define UL_PROC_PGROUP_H

#include "core/compat.h"

#include <sys/types.h>

struct ul_journal;

/* Journal "pgroup PGID STARTTIME" for the group led by pgid, a child just
 * spawned in its own process group (arg receives it, for ul_change_undo()
 * or ul_journal_done()); 0 or -errno. */
int ul_change_pgroup_started(struct ul_journal *j, pid_t pgid, char *arg, size_t len) UL_MUST_CHECK;
/* Does arg's group still have live members?  0 yes, -ENOENT none,
 * -EINVAL a malformed arg, or -errno reading /proc. */
int ul_pgroup_alive(const char *arg);
/* SIGKILL its live members and wait up to 5 s for them to go: 0 when
 * none is left, -EBUSY when some still are, -EINVAL, or -errno. */
int ul_pgroup_kill(const char *arg);

#endif

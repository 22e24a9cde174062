/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * bisect's other programs (bisect.h: ul_bisect_exec): git, the build
 * command and the tests' stand-in for vm, each a supervised child
 * (proc/supervise.h), so that Ctrl-C or SIGTERM stops it with its whole
 * process group and whatever it left behind, and bisect goes on to remove
 * its work directory.  A kill -9 of bisect leaves that to `underload
 * cleanup`, through the journalled process group.
 */
#include "core/compat.h"
#include "cmd/bisect.h"
#include "cmd/cmd.h"
#include "core/log.h"
#include "proc/changes.h"
#include "proc/pgroup.h"
#include "proc/supervise.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#define EXEC_STOP_GRACE_NS (2 * UL_NS_PER_SEC)

/* In the child (after ul_spawn()'s set-up): its directory, environment
 * and output, then the program; 127 when any of it fails. */
static int exec_child(void *arg)
{
	const struct ul_bisect_exec *x = arg;

	if (x->dir && chdir(x->dir) < 0) {
		fprintf(stderr, "%s: cannot enter %s: %s\n", x->what, x->dir, strerror(errno));
		return 127;
	}
	for (size_t i = 0; x->env && x->env[i]; i++)
		if (putenv((char *)x->env[i]) < 0)
			return 127;
	if (x->out_fd >= 0 && (dup2(x->out_fd, STDOUT_FILENO) < 0 ||
			       (x->err_too && dup2(x->out_fd, STDERR_FILENO) < 0)))
		return 127;
	execvp(x->argv[0], x->argv);
	fprintf(stderr, "%s: cannot run %s: %s\n", x->what, x->argv[0], strerror(errno));
	return 127;
}

int ul_bisect_exec(const struct ul_bisect_exec *x, int *wstatus)
{
	struct ul_spawn_opts so = { .name = "bisect", .fn = exec_child, .arg = (void *)x };
	struct ul_child child = { 0 }, *exited = NULL;
	struct ul_sup sup;
	char group[64] = "";
	int rc = ul_sup_init(&sup);

	if (rc) {
		ul_error_errno(rc, "%s: cannot set up the supervisor", x->what);
		return UL_EXIT_ERROR;
	}
	if (x->out_fd >= 0) {
		so.keep_fds[0] = x->out_fd;
		so.n_keep_fds = 1;
	}
	fflush(NULL);
	rc = ul_spawn(&sup, &so, &child);
	if (rc) {
		ul_error_errno(rc, "%s: cannot start %s", x->what, x->argv[0]);
		ul_sup_fini(&sup);
		return UL_EXIT_ERROR;
	}
	/* Its shell dies with us (PR_SET_PDEATHSIG), what it started does
	 * not: the group goes to the journal for cleanup after a kill -9. */
	if (x->journal) {
		rc = ul_change_pgroup_started(x->journal, child.pid, group, sizeof(group));
		if (rc) {
			ul_error_errno(rc, "%s: cannot journal its process group", x->what);
			ul_sup_stop(&sup, &child, 0);
			ul_sup_fini(&sup);
			return UL_EXIT_ERROR;
		}
	}
	for (;;) {
		enum ul_wait_result w = ul_sup_wait(&sup, -1, 0, &exited);

		if (w == UL_WAIT_CHILD_EXITED && exited == &child) {
			*wstatus = child.wstatus;
			rc = UL_EXIT_OK;
			break;
		}
		if (w == UL_WAIT_INTERRUPTED) {
			ul_sup_stop(&sup, &child, ul_sup_aborting(&sup) ? 0 : EXEC_STOP_GRACE_NS);
			ul_error("%s: interrupted", x->what);
			rc = UL_EXIT_INTERRUPTED;
			break;
		}
	}
	if (rc == UL_EXIT_OK && ul_sup_interrupted(&sup)) {
		ul_error("%s: interrupted", x->what);
		rc = UL_EXIT_INTERRUPTED; /* it ended as the signal came */
	}
	/* Whatever it left running (a build's daemons) goes with it. */
	ul_sup_fini(&sup);
	if (x->journal) {
		int undo = ul_change_undo(x->journal, "pgroup", group);

		if (undo) { /* the entry stays for `underload cleanup` */
			ul_error_errno(undo, "%s: its process group outlived it", x->what);
			rc = rc ? rc : UL_EXIT_ERROR;
		}
	}
	return rc;
}

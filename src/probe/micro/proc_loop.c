/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * The process-creation loop of the fork/exec/sh tests, on its own so the
 * small underload-forker helper links it without the probes around it.
 */
#include "core/compat.h"
#include "core/clock.h"
#include "probe/micro/bench.h"

#include <errno.h>
#include <stdlib.h>
#include <sys/wait.h>
#include <unistd.h>

/* The child's side: exit, or exec the target (through /bin/sh -c).  As
 * lat_proc's, the lm- fork child leaves through exit(), which runs libc's
 * exit handlers: 24-25 minor faults a child against 17-18 with _exit()
 * here.  Side by side with lat_proc, _exit() made fork proc 0.69-0.80 of
 * lmbench's and exit() 0.99-1.10.  The native test keeps _exit(). */
static void proc_child(const struct ul_micro_proc *p)
{
	static char path_sh[] = "/bin/sh", arg0_sh[] = "sh", dash_c[] = "-c";
	char *const exec_argv[] = { (char *)p->target, NULL };
	char *const sh_argv[] = { p->as_lat_proc ? arg0_sh : path_sh, dash_c, (char *)p->target,
				  NULL };

	if (p->how == UL_MICRO_FORK && p->as_lat_proc)
		exit(0);
	if (p->how == UL_MICRO_FORK)
		_exit(0);
	if (p->as_lat_proc)
		close(STDOUT_FILENO);
	if (p->how == UL_MICRO_EXEC)
		execve(p->target, exec_argv, p->envp);
	else
		execve(path_sh, sh_argv, p->envp);
	_exit(127);
}

int ul_micro_proc_batch(void *arg, uint64_t iters, int64_t *elapsed)
{
	const struct ul_micro_proc *p = arg;
	ul_nsec t0 = ul_now_ns();

	for (uint64_t i = 0; i < iters; i++) {
		int status;
		pid_t pid = fork();

		if (pid < 0)
			return -errno;
		if (pid == 0)
			proc_child(p);
		while (waitpid(pid, &status, 0) < 0)
			if (errno != EINTR)
				return -errno;
		if (!WIFEXITED(status) || WEXITSTATUS(status))
			return -ECHILD;
	}
	*elapsed = ul_now_ns() - t0;
	return 0;
}

/* SPDX-License-Identifier: GPL-2.0-or-later */
/* The test hook UL_TEST_ROUND_CMD (contract: round_hook.h). */
#include "core/compat.h"
#include "engine/round_hook.h"
#include "core/testhook.h"
#include "engine/engine.h"

#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/wait.h>
#include <unistd.h>

int ul_engine_round_hook(int round)
{
	const char *cmd = ul_test_hook("UL_TEST_ROUND_CMD");
	char num[16];
	sigset_t none;
	int status;
	pid_t pid;

	if (!cmd)
		return UL_ENGINE_OK;
	snprintf(num, sizeof(num), "%d", round + 1);
	fflush(NULL);
	pid = fork();
	if (pid < 0)
		return ul_engine_fail_errno(-errno, "UL_TEST_ROUND_CMD: fork");
	if (pid == 0) {
		/* The supervisor blocks the signals it waits for: the command
		 * gets a plain mask, as from a shell. */
		sigemptyset(&none);
		sigprocmask(SIG_SETMASK, &none, NULL);
		if (setenv("UL_ROUND", num, 1) == 0)
			execl("/bin/sh", "sh", "-c", cmd, (char *)NULL);
		_exit(127);
	}
	while (waitpid(pid, &status, 0) < 0)
		if (errno != EINTR)
			return ul_engine_fail_errno(-errno, "UL_TEST_ROUND_CMD: wait");
	if (!WIFEXITED(status) || WEXITSTATUS(status) != 0)
		return ul_engine_fail("UL_TEST_ROUND_CMD before round %s failed (status %d)", num,
				      status);
	return UL_ENGINE_OK;
}

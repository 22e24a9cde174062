/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * The test hook UL_TEST_ROUND_CMD (core/testhook.h): a shell command run
 * before each round of a suite's tests (ul_engine_each_test), with
 * UL_ROUND (1-based) in its environment.  bench/round-alternation.sh uses
 * it to change a sysctl between the rounds of one run: issue 30's question
 * whether alternating a setting inside one run gives a smaller variance of
 * the difference than alternating whole runs.  Only a build with test
 * hooks runs it; it is no user option because the command would change the
 * system outside the journal (the script restores what it changes).
 */
#ifndef UL_ENGINE_ROUND_HOOK_H
#define UL_ENGINE_ROUND_HOOK_H

/* Run the hook's command, if set, before round `round` (0-based) and wait
 * for it: UL_ENGINE_OK, or UL_ENGINE_ERROR (printed) when it could not be
 * started or did not exit 0. */
int ul_engine_round_hook(int round);

#endif

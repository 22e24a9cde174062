/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * The tests' hooks: environment variables UL_TEST_* that inject a fault or
 * hold a run at a chosen point (UL_TEST_BOOT_ID, UL_TEST_STORE_FAULT,
 * UL_TEST_TEARDOWN_HOLD, UL_TEST_VM_PANIC ...).  Every hook is read
 * through ul_test_hook(), so a build without -Dtest_hooks=true (the
 * default, and every package) compiles them out: there no environment can
 * make a run fail, stall or take a live run's journal for another boot's.
 * UL_TEST_HOOKS (ul_config.h) is 1 in a build that honours them, and
 * `underload --version` says which build this is.  (UL_TEST_TAG, which
 * tests put in the environment only to find their processes, is no hook:
 * the program never reads it.)
 */
#ifndef UL_CORE_TESTHOOK_H
#define UL_CORE_TESTHOOK_H

#include "core/compat.h"
#include "ul_config.h"

#include <stdlib.h>

/* The value of hook name (an UL_TEST_* variable), or NULL when it is unset,
 * empty, or this build has no hooks. */
static inline const char *ul_test_hook(const char *name)
{
#if UL_TEST_HOOKS
	const char *v = getenv(name);

	return v && v[0] ? v : NULL;
#else
	(void)name;
	return NULL;
#endif
}

#endif

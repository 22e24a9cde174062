/* SPDX-License-Identifier: GPL-2.0-or-later */
/* The Check suites of the one unit-test runner; see suites.def. */
#ifndef UL_UNIT_H
#define UL_UNIT_H

#include "core/compat.h"
#include <check.h>

#define UL_TEST_SUITE(name) Suite *ul_test_suite_##name(void);
#include "suites.def"
#undef UL_TEST_SUITE

#endif

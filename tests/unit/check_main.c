/* SPDX-License-Identifier: GPL-2.0-or-later */
/* The one unit-test runner: every suite in suites.def, one closing line. */
#include "unit.h"
#include "engine/engine.h"
#include "model/suite.h"

#include <stdlib.h>

int main(void)
{
	SRunner *sr = srunner_create(NULL);
	int failed;

	ul_suites_install(ul_engine_suites);

#define UL_TEST_SUITE(name) srunner_add_suite(sr, ul_test_suite_##name());
#include "suites.def"
#undef UL_TEST_SUITE

	srunner_run_all(sr, CK_NORMAL);
	failed = srunner_ntests_failed(sr);
	srunner_free(sr);
	return failed ? EXIT_FAILURE : EXIT_SUCCESS;
}

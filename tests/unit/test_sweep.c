/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * The pure parts of `run --cpus` and `sweep`: CPU lists (proc/cgroup/
 * cpuset.h), the sysctl allow-list and values (proc/sysctl.h), and the
 * names and journal entries of I/O schedulers (proc/iosched.h).
 */
#include "unit.h"
#include "proc/cgroup/cpuset.h"
#include "proc/iosched.h"
#include "proc/sysctl.h"

#include <errno.h>
#include <string.h>
#include <unistd.h>

START_TEST(test_cpus_parse)
{
	cpu_set_t set;
	char canon[64], why[256];

	ck_assert_int_eq(ul_cpus_parse("0", &set, canon, sizeof(canon), why, sizeof(why)), 1);
	ck_assert_str_eq(canon, "0");
	ck_assert(CPU_ISSET(0, &set));
	/* Repeats and order collapse into the canonical form. */
	ck_assert_int_eq(ul_cpus_parse("0,0-0", &set, canon, sizeof(canon), why, sizeof(why)), 1);
	ck_assert_str_eq(canon, "0");
	for (size_t i = 0; i < 7; i++) {
		const char *bad[] = { "", "x", "0-", "-1", "1-0", "0,,x", "99999" };

		ck_assert_int_eq(ul_cpus_parse(bad[i], &set, canon, sizeof(canon), why,
					       sizeof(why)),
				 -EINVAL);
		ck_assert(why[0]);
	}
}
END_TEST

START_TEST(test_sysctl_values)
{
	ck_assert(ul_sysctl_value_ok("10"));
	ck_assert(ul_sysctl_value_ok("-1"));
	ck_assert(!ul_sysctl_value_ok(""));
	ck_assert(!ul_sysctl_value_ok("-"));
	ck_assert(!ul_sysctl_value_ok("1 2"));
	ck_assert(!ul_sysctl_value_ok("10\n"));
	ck_assert(!ul_sysctl_value_ok("123456789012345678901234567"));
}
END_TEST

/* Names and journal entries are checked before any write reaches sysfs. */
START_TEST(test_iosched_names)
{
	char why[128], disk[UL_IOSCHED_NAME_MAX];

	ck_assert(ul_iosched_name_ok("mq-deadline"));
	ck_assert(ul_iosched_name_ok("none"));
	ck_assert(!ul_iosched_name_ok(""));
	ck_assert(!ul_iosched_name_ok("No/Such"));
	ck_assert(!ul_iosched_name_ok("bfq\n"));
	ck_assert(!ul_iosched_name_ok("a-scheduler-name-longer-than-32-chars"));
	ck_assert(!ul_iosched_disk_ok("../../kernel"));
	ck_assert(!ul_iosched_disk_ok(".."));
	ck_assert(!ul_iosched_disk_ok(""));
	ck_assert(!ul_iosched_disk_ok("nosuchdisk0"));
	ck_assert_int_eq(ul_iosched_entry_check("sda"), -EPERM);
	ck_assert_int_eq(ul_iosched_entry_check("sda mq deadline"), -EPERM);
	ck_assert_int_eq(ul_iosched_entry_check("../sda none"), -EPERM);
	ck_assert_int_eq(ul_iosched_entry_check("nosuchdisk0 none"), -ENOENT);
	ck_assert_int_eq(ul_iosched_entry_undo("nosuchdisk0 none", why, sizeof(why)), -EINVAL);
	ck_assert_int_eq(ul_iosched_disk("/proc", disk, sizeof(disk), why, sizeof(why)), -ENODEV);
}
END_TEST

START_TEST(test_sysctl_allow_list)
{
	char list[512];

	/* Never a name off the list, nor a path in disguise. */
	ck_assert(!ul_sysctl_allowed("kernel.hostname"));
	ck_assert(!ul_sysctl_allowed("vm.swappiness/../../kernel/hostname"));
	ck_assert(!ul_sysctl_allowed("vm..swappiness"));
	ck_assert(!ul_sysctl_allowed(""));
	ul_sysctl_allow_list(list, sizeof(list));
	ck_assert_ptr_nonnull(strstr(list, "vm.swappiness"));
	if (access("/proc/sys/vm/swappiness", W_OK) == 0)
		ck_assert(ul_sysctl_allowed("vm.swappiness"));
}
END_TEST

Suite *ul_test_suite_sweep(void)
{
	Suite *s = suite_create("sweep");
	TCase *tc = tcase_create("parse");

	tcase_add_test(tc, test_cpus_parse);
	tcase_add_test(tc, test_sysctl_values);
	tcase_add_test(tc, test_sysctl_allow_list);
	tcase_add_test(tc, test_iosched_names);
	suite_add_tcase(s, tc);
	return s;
}

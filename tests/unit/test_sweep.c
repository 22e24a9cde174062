/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * The pure parts of `run --cpus` and `sweep`: CPU lists (proc/cgroup/
 * cpuset.h), the sysctl allow-list, values and bounds (proc/sysctl.h), the
 * names and journal entries of I/O schedulers (proc/iosched.h), and the
 * run's arguments (cmd/sweep.h).
 */
#include "unit.h"
#include "cmd/cmd.h"
#include "cmd/sweep.h"
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
	/* One spelling per number: the kernel reads a leading zero as octal. */
	ck_assert(ul_sysctl_value_ok("0"));
	ck_assert(ul_sysctl_value_ok("100"));
	ck_assert(!ul_sysctl_value_ok("010"));
	ck_assert(!ul_sysctl_value_ok("00"));
	ck_assert(!ul_sysctl_value_ok("-0"));
	ck_assert(!ul_sysctl_value_ok("-010"));
	ck_assert(!ul_sysctl_value_ok("+1"));
}
END_TEST

/* Every allowed sysctl is bounded; vm.min_free_kbytes by the memory too. */
START_TEST(test_sysctl_bounds)
{
	char list[512], why[256], *save = NULL;
	long long min, max;

	ul_sysctl_allow_list(list, sizeof(list));
	for (char *name = strtok_r(list, ", ", &save); name; name = strtok_r(NULL, ", ", &save)) {
		ck_assert_int_eq(ul_sysctl_bounds(name, 1 << 20, &min, &max), 0);
		ck_assert_int_le(min, max);
		ck_assert(strchr(name, '*') == NULL);
	}
	ck_assert_int_eq(ul_sysctl_bounds("kernel.sched_rt_runtime_us", 1 << 20, &min, &max),
			 -EPERM);
	/* 1 GiB of RAM: 5%, 52428 kB at most; 64 GiB: 1 GiB at most. */
	ck_assert_int_eq(ul_sysctl_bounds("vm.min_free_kbytes", 1 << 20, &min, &max), 0);
	ck_assert_int_eq(max, 52428);
	ck_assert_int_eq(ul_sysctl_bounds("vm.min_free_kbytes", 64ULL << 20, &min, &max), 0);
	ck_assert_int_eq(max, 1048576);
	ck_assert_int_eq(ul_sysctl_bounds("vm.min_free_kbytes", 0, &min, &max), 0);
	ck_assert_int_eq(max, min);
	ck_assert_int_eq(
		ul_sysctl_value_check("vm.min_free_kbytes", "52428", 1 << 20, why, sizeof(why)), 0);
	ck_assert_int_eq(ul_sysctl_value_check("vm.min_free_kbytes", "52429", 1 << 20, why,
					       sizeof(why)),
			 -ERANGE);
	ck_assert_ptr_nonnull(strstr(why, "MemTotal"));
	ck_assert_int_eq(ul_sysctl_value_check("vm.vfs_cache_pressure", "0", 1 << 20, why,
					       sizeof(why)),
			 -ERANGE);
	ck_assert_int_eq(ul_sysctl_value_check("vm.swappiness", "010", 1 << 20, why, sizeof(why)),
			 -EINVAL);
	ck_assert_ptr_nonnull(strstr(why, "octal"));
	ck_assert_int_eq(ul_sysctl_value_check("vm.swappiness", "99999999999999999999", 1 << 20,
					       why, sizeof(why)),
			 -ERANGE);
	ck_assert_int_eq(ul_sysctl_value_check("kernel.hostname", "1", 1 << 20, why, sizeof(why)),
			 -EPERM);
}
END_TEST

/* The run's arguments are read as run reads them: every spelling of
 * --label, and of a swept option, is refused; --db and --dir are found. */
START_TEST(test_sweep_run_args)
{
	static struct sweep sw;
	const char *refused[][6] = {
		{ "run", "--label", "x" },   { "run", "--lab", "x" },  { "run", "--lab=x" },
		{ "run", "--labe=x" },	     { "run", "-lx" },	       { "run", "-l", "x" },
		{ "run", "--quick", "-ql" }, { "run", "--cpus", "0" }, { "run", "--cpus=0" },
		{ "run", "--nosuch" },	     { "run", "--label" },
	};

	for (size_t i = 0; i < UL_ARRAY_SIZE(refused); i++) {
		int n = 0;

		memset(&sw, 0, sizeof(sw));
		snprintf(sw.set[0].name, sizeof(sw.set[0].name), "cpus");
		sw.set[0].run_opt = "--cpus";
		sw.n_set = 1;
		while (n < 6 && refused[i][n])
			n++;
		sw.run_args = (char **)refused[i];
		sw.n_run_args = n;
		ck_assert_msg(sweep_check_run_args(&sw) == UL_EXIT_USAGE, "%s %s not refused",
			      refused[i][1], n > 2 ? refused[i][2] : "");
	}
	/* A swept -o ITEM.NAME, in any spelling of -o; another NAME passes. */
	{
		const char *args[] = { "run", "--opt=resp.cpu-work=1", NULL };

		memset(&sw, 0, sizeof(sw));
		snprintf(sw.set[0].name, sizeof(sw.set[0].name), "resp.cpu-work");
		sw.set[0].run_opt = "-o";
		sw.n_set = 1;
		sw.run_args = (char **)args;
		sw.n_run_args = 2;
		ck_assert_int_eq(sweep_check_run_args(&sw), UL_EXIT_USAGE);
		args[1] = "-oresp.cpu-work=1";
		ck_assert_int_eq(sweep_check_run_args(&sw), UL_EXIT_USAGE);
		args[1] = "-oresp.cpu-work-x=1";
		ck_assert_int_eq(sweep_check_run_args(&sw), 0);
	}
	{
		const char *args[] = { "run", "--quick", "--d=/x.db", "--dir", "/scratch", NULL };

		memset(&sw, 0, sizeof(sw));
		sw.run_args = (char **)args;
		sw.n_run_args = 5;
		/* "--d" is ambiguous (--db, --dir, ...): run refuses it, so do we. */
		ck_assert_int_eq(sweep_check_run_args(&sw), UL_EXIT_USAGE);
		args[2] = "--db=/x.db";
		ck_assert_int_eq(sweep_check_run_args(&sw), 0);
		ck_assert_str_eq(sw.db, "/x.db");
		ck_assert_str_eq(sw.dir, "/scratch");
		ck_assert_str_eq(args[3], "--dir"); /* not permuted */
	}
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
	ck_assert_int_eq(ul_iosched_entry_check("sda", why, sizeof(why)), -EPERM);
	ck_assert_int_eq(ul_iosched_entry_check("sda mq deadline", why, sizeof(why)), -EPERM);
	ck_assert_int_eq(ul_iosched_entry_check("../sda none", why, sizeof(why)), -EPERM);
	/* Gone only where a sysfs shows the disks; out of sight elsewhere. */
	ck_assert_int_eq(ul_iosched_entry_check("nosuchdisk0 none", why, sizeof(why)),
			 access("/sys/block", F_OK) == 0 ? -ENOENT : -EAGAIN);
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
	tcase_add_test(tc, test_sysctl_bounds);
	tcase_add_test(tc, test_sweep_run_args);
	tcase_add_test(tc, test_sysctl_allow_list);
	tcase_add_test(tc, test_iosched_names);
	suite_add_tcase(s, tc);
	return s;
}

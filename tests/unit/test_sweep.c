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
#include "engine/round_setting.h"
#include "proc/cgroup/cpuset.h"
#include "proc/iosched.h"
#include "proc/sysctl.h"

#include <errno.h>
#include <jansson.h>
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

/* --within-run's order: A B B A blocks, so that a linear drift of the
 * machine over a block lands on A and B alike (the mean round of each
 * side is the same in every block). */
START_TEST(test_round_side_abba)
{
	const int want[] = { 0, 1, 1, 0, 0, 1, 1, 0, 0, 1, 1, 0 };

	for (int r = 0; r < (int)UL_ARRAY_SIZE(want); r++)
		ck_assert_int_eq(ul_engine_round_side(r), want[r]);
	for (int block = 0; block < 100; block++) {
		int sum[2] = { 0, 0 }, n[2] = { 0, 0 };

		for (int r = 4 * block; r < 4 * block + 4; r++) {
			sum[ul_engine_round_side(r)] += r;
			n[ul_engine_round_side(r)]++;
		}
		ck_assert_int_eq(n[0], 2);
		ck_assert_int_eq(n[1], 2);
		ck_assert_int_eq(sum[0], sum[1]);
	}
}
END_TEST

/* A run of four cells, rounds 1-4 with settings A B B A (a cell without
 * a setting when `missing` is set), its fingerprint's swappiness 60. */
static void within_run(struct ul_run *run, bool missing)
{
	const int side[] = { 1, 2, 2, 1 };

	ul_run_init(run);
	ck_assert_int_eq(ul_run_new_uuid(run), 0);
	snprintf(run->label, sizeof(run->label), "vm.swappiness=10,100 within one run");
	run->fingerprint = json_pack("{s:{s:s, s:s}, s:{s:i}}", "sysctl", "vm.swappiness", "60",
				     "vm.dirty_ratio", "20", "cpu", "ncpu", 2);
	ck_assert_ptr_nonnull(run->fingerprint);
	for (int i = 0; i < 4; i++) {
		struct ul_cell *c = ul_run_add_cell(run);

		ck_assert_ptr_nonnull(c);
		ck_assert_int_eq(ul_cell_set_metric(c, UL_CELL_ROUND, i + 1), 0);
		if (!(missing && i == 2))
			ck_assert_int_eq(ul_cell_set_metric(c, UL_CELL_SETTING, side[i]), 0);
	}
}

static const char *fp_swappiness(const struct ul_run *run)
{
	return json_string_value(
		json_object_get(json_object_get(run->fingerprint, "sysctl"), "vm.swappiness"));
}

START_TEST(test_sweep_split_run)
{
	const char *const values[2] = { "10", "100" };
	const char *const labels[2] = { "vm.swappiness=10", "vm.swappiness=100" };
	struct ul_run run, side[2];

	within_run(&run, false);
	ck_assert_int_eq(sweep_split_run(&run, "vm.swappiness", values, labels, side), 0);
	for (int s = 0; s < 2; s++) {
		ck_assert_str_eq(side[s].label, labels[s]);
		ck_assert(ul_uuid_valid(side[s].uuid));
		ck_assert_str_ne(side[s].uuid, run.uuid);
		ck_assert_uint_eq(side[s].n_cells, 2);
		ck_assert_str_eq(fp_swappiness(&side[s]), values[s]);
		/* The rest of the fingerprint is the whole run's. */
		ck_assert_str_eq(
			json_string_value(json_object_get(
				json_object_get(side[s].fingerprint, "sysctl"), "vm.dirty_ratio")),
			"20");
	}
	ck_assert_str_ne(side[0].uuid, side[1].uuid);
	/* A: rounds 1 and 4; B: rounds 2 and 3, in their order. */
	ck_assert_int_eq(ul_cell_round(&side[0].cells[0]), 1);
	ck_assert_int_eq(ul_cell_round(&side[0].cells[1]), 4);
	ck_assert_int_eq(ul_cell_round(&side[1].cells[0]), 2);
	ck_assert_int_eq(ul_cell_round(&side[1].cells[1]), 3);
	/* The whole run's fingerprint is untouched. */
	ck_assert_str_eq(fp_swappiness(&run), "60");
	sweep_split_free(side);
	ul_run_release(&run);

	/* A cell without its setting cannot be placed: refused, nothing kept. */
	within_run(&run, true);
	ck_assert_int_eq(sweep_split_run(&run, "vm.swappiness", values, labels, side), -EINVAL);
	ck_assert_ptr_null(side[0].cells);
	ck_assert_ptr_null(side[1].fingerprint);
	ul_run_release(&run);
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
	tcase_add_test(tc, test_round_side_abba);
	tcase_add_test(tc, test_sweep_split_run);
	suite_add_tcase(s, tc);
	return s;
}

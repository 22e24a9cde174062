/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Unit tests for src/fingerprint: the parsers each source feeds (kernel
 * config, sysfs choices, mountinfo, virtualisation, buddyinfo), the flat
 * view and classes compare uses, a store round trip of a run's
 * fingerprint, and the doctor's pure helpers.
 */
#include "unit.h"
#include "doctor/doctor.h"
#include "fingerprint/diff.h"
#include "fingerprint/fingerprint.h"
#include "store/store.h"

#include <errno.h>
#include <stdio.h>
#include <string.h>

static const char *str(const json_t *o, const char *key)
{
	const char *v = json_string_value(json_object_get(o, key));

	ck_assert_msg(v, "no string member %s", key);
	return v;
}

START_TEST(test_kconfig_timing)
{
	static const char text[] = "#\n# Automatically generated file; DO NOT EDIT.\n"
				   "CONFIG_PREEMPT_VOLUNTARY=y\n"
				   "# CONFIG_PREEMPT is not set\n"
				   "CONFIG_HZ_250=y\n"
				   "CONFIG_HZ=250\n"
				   "CONFIG_LOCKDEP=y\n"
				   "CONFIG_KASAN=m\n"
				   "CONFIG_LOCALVERSION=\"-test\"\n"
				   "# CONFIG_DEBUG_VM is not set\n"
				   "# CONFIG_BROKEN is not set garbage\n"
				   "CONFIG_SMP=y";
	json_t *o = json_object();

	ck_assert_int_eq(ul_fp_kconfig_timing(text, o), 0);
	ck_assert_str_eq(str(o, "CONFIG_PREEMPT_VOLUNTARY"), "y");
	ck_assert_str_eq(str(o, "CONFIG_PREEMPT"), "n");
	ck_assert_str_eq(str(o, "CONFIG_HZ"), "250");
	ck_assert_str_eq(str(o, "CONFIG_HZ_250"), "y");
	ck_assert_str_eq(str(o, "CONFIG_LOCKDEP"), "y");
	ck_assert_str_eq(str(o, "CONFIG_KASAN"), "m");
	ck_assert_str_eq(str(o, "CONFIG_DEBUG_VM"), "n");
	/* A debug option the text never names is recorded off. */
	ck_assert_str_eq(str(o, "CONFIG_DEBUG_KMEMLEAK"), "n");
	/* Options that do not change timing are not recorded. */
	ck_assert_ptr_null(json_object_get(o, "CONFIG_SMP"));
	ck_assert_ptr_null(json_object_get(o, "CONFIG_LOCALVERSION"));
	ck_assert_ptr_null(json_object_get(o, "CONFIG_BROKEN"));
	json_decref(o);
}
END_TEST

START_TEST(test_selected)
{
	char buf[32];

	ck_assert_int_eq(ul_fp_selected("always [madvise] never", buf, sizeof(buf)), 0);
	ck_assert_str_eq(buf, "madvise");
	ck_assert_int_eq(ul_fp_selected("[none] mq-deadline kyber bfq", buf, sizeof(buf)), 0);
	ck_assert_str_eq(buf, "none");
	ck_assert_int_eq(ul_fp_selected("none mq-deadline", buf, sizeof(buf)), -EINVAL);
	ck_assert_int_eq(ul_fp_selected("a [] b", buf, sizeof(buf)), -EINVAL);
}
END_TEST

START_TEST(test_mount_find)
{
	static const char info[] =
		"22 1 254:0 / / rw,relatime shared:1 - ext4 /dev/vda rw,discard\n"
		"30 22 0:25 / /tmp rw,nosuid shared:5 - tmpfs tmpfs rw,size=100k\n"
		"31 22 254:0 /srv /data\\040disk rw,noatime - ext4 /dev/vda rw,discard\n"
		"32 22 254:0 / /datafoo rw - ext4 /dev/vda rw\n";
	struct ul_fp_mount m;

	ck_assert_int_eq(ul_fp_mount_find(info, 254, 0, "/home/x", &m), 0);
	ck_assert_str_eq(m.point, "/");
	ck_assert_str_eq(m.fstype, "ext4");
	ck_assert_str_eq(m.options, "rw,relatime,rw,discard");
	ck_assert_int_eq(ul_fp_mount_find(info, 0, 25, "/tmp/run", &m), 0);
	ck_assert_str_eq(m.point, "/tmp");
	ck_assert_str_eq(m.fstype, "tmpfs");
	/* The longest mount point that covers the path, with \040 decoded. */
	ck_assert_int_eq(ul_fp_mount_find(info, 254, 0, "/data disk/x", &m), 0);
	ck_assert_str_eq(m.point, "/data disk");
	ck_assert_str_eq(m.options, "rw,noatime,rw,discard");
	/* A prefix that is not at a '/' does not cover. */
	ck_assert_int_eq(ul_fp_mount_find(info, 254, 0, "/datafoobar", &m), 0);
	ck_assert_str_eq(m.point, "/");
	ck_assert_int_eq(ul_fp_mount_find(info, 8, 1, "/x", &m), -ENOENT);
}
END_TEST

START_TEST(test_virt_detect)
{
	struct ul_fp_virt_inputs in = { 0 };

	ck_assert_str_eq(ul_fp_virt_detect(&in), "none");
	in.cpu_hypervisor = true;
	ck_assert_str_eq(ul_fp_virt_detect(&in), "vm-other");
	in.dmi_vendor = "QEMU";
	ck_assert_str_eq(ul_fp_virt_detect(&in), "qemu");
	in.dmi_vendor = "";
	in.dmi_product = "KVM";
	ck_assert_str_eq(ul_fp_virt_detect(&in), "kvm");
	in.dmi_product = "VMware Virtual Platform";
	ck_assert_str_eq(ul_fp_virt_detect(&in), "vmware");
	/* A container wins over the VM it runs in. */
	in.dockerenv = true;
	ck_assert_str_eq(ul_fp_virt_detect(&in), "docker");
	in.dockerenv = false;
	in.pid1_environ = "PATH=/bin\ncontainer=lxc\nHOME=/";
	ck_assert_str_eq(ul_fp_virt_detect(&in), "lxc");
	in.pid1_environ = "container=podman";
	ck_assert_str_eq(ul_fp_virt_detect(&in), "podman");
	in.pid1_environ = NULL;
	in.osrelease = "5.15.0-microsoft-standard-WSL2";
	ck_assert_str_eq(ul_fp_virt_detect(&in), "wsl");
}
END_TEST

START_TEST(test_buddyinfo)
{
	static const char text[] = "Node 0, zone      DMA      1      0      0      0\n"
				   "Node 0, zone   Normal      8      4      2      1      1\n";
	uint64_t b[16];
	int n = ul_fp_buddy_parse(text, b);

	ck_assert_int_eq(n, 5);
	ck_assert_uint_eq(b[0], 9);
	ck_assert_uint_eq(b[1], 4);
	ck_assert_uint_eq(b[4], 1);
	/* pages: 9 + 8 + 8 + 8 + 16 = 49; below order 4: 33 */
	ck_assert_double_eq_tol(ul_fp_frag_pct(b, n, 4), 100.0 * 33 / 49, 1e-9);
	ck_assert_double_eq_tol(ul_fp_frag_pct(b, n, 0), 0.0, 1e-9);
	ck_assert_int_eq(ul_fp_buddy_parse("nothing here\n", b), -EINVAL);
}
END_TEST

START_TEST(test_flatten_classes)
{
	json_t *fp = json_pack("{s:{s:s,s:{s:s}},s:{s:s},s:{s:[s,s],s:i}}", "kernel", "release",
			       "6.1", "config", "CONFIG_HZ", "250", "sysctl", "vm.swappiness", "60",
			       "activity", "top_memory", "a[1] 2 MiB", "b[2] 1 MiB", "uptime_s",
			       42);
	json_t *flat = ul_fp_flatten(fp);
	char buf[128];

	ck_assert_str_eq(str(flat, "kernel.release"), "6.1");
	ck_assert_str_eq(str(flat, "kernel.config.CONFIG_HZ"), "250");
	ck_assert_str_eq(str(flat, "sysctl.vm.swappiness"), "60");
	ck_assert_str_eq(str(flat, "activity.top_memory"), "a[1] 2 MiB, b[2] 1 MiB");
	ck_assert_str_eq(str(flat, "activity.uptime_s"), "42");
	ck_assert_int_eq(ul_fp_classify("sysctl.vm.swappiness"), UL_FP_UNFAIR);
	ck_assert_int_eq(ul_fp_classify("kernel.config.CONFIG_HZ"), UL_FP_UNFAIR);
	ck_assert_int_eq(ul_fp_classify("kernel.release"), UL_FP_EXPECTED);
	ck_assert_int_eq(ul_fp_classify("activity.uptime_s"), UL_FP_VOLATILE);
	ck_assert_int_eq(ul_fp_classify("memory.buddyinfo"), UL_FP_VOLATILE);
	ul_fp_fair_value("kernel.cmdline", "BOOT_IMAGE=/vmlinuz-6.1 ro  quiet initrd=/x", buf,
			 sizeof(buf));
	ck_assert_str_eq(buf, "ro quiet");
	ul_fp_fair_value("sysctl.vm.swappiness", "60", buf, sizeof(buf));
	ck_assert_str_eq(buf, "60");
	/* Two boots of one VM: MemTotal a page apart is the same memory. */
	ul_fp_fair_value("memory.ram_kb", "981464", buf, sizeof(buf));
	ck_assert_str_eq(buf, "958 MiB");
	ul_fp_fair_value("memory.ram_kb", "981468", buf, sizeof(buf));
	ck_assert_str_eq(buf, "958 MiB");
	ul_fp_fair_value("memory.ram_kb", "2097152", buf, sizeof(buf));
	ck_assert_str_eq(buf, "2048 MiB");
	ul_fp_fair_value("sysctl.vm.user_reserve_kbytes", "x1", buf, sizeof(buf));
	ck_assert_str_eq(buf, "x1");
	json_decref(flat);
	json_decref(fp);
}
END_TEST

/* The machine's own fingerprint: every source is there, and it never fails. */
START_TEST(test_collect_here)
{
	json_t *fp = ul_fingerprint_collect(&(struct ul_fp_ctx){ .dir = "/tmp" });

	ck_assert_ptr_nonnull(fp);
	for (size_t i = 0; i < ul_fp_source_count(); i++)
		ck_assert_msg(json_is_object(json_object_get(fp, ul_fp_source_at(i)->name)),
			      "no section %s", ul_fp_source_at(i)->name);
	ck_assert_ptr_nonnull(json_object_get(json_object_get(fp, "sysctl"), "vm.swappiness"));
	ck_assert_str_eq(str(json_object_get(fp, "storage"), "dir"), "/tmp");
	json_decref(fp);
}
END_TEST

/* Stored with the run and read back as it was. */
START_TEST(test_store_round_trip)
{
	struct ul_store *st = ul_unit_store_open(":memory:");
	struct ul_run run, back;
	char *a, *b;

	ul_run_init(&run);
	snprintf(run.label, sizeof(run.label), "fp");
	snprintf(run.suites, sizeof(run.suites), "resp");
	run.status = UL_RUN_COMPLETE;
	run.fingerprint = json_pack("{s:{s:s}}", "sysctl", "vm.swappiness", "10");
	ck_assert_int_eq(st->ops->begin_run(st, &run), 0);
	ck_assert_msg(st->ops->load_run(st, "last", &back) == 0, "%s", st->err);
	a = json_dumps(run.fingerprint, JSON_COMPACT);
	b = json_dumps(back.fingerprint, JSON_COMPACT);
	ck_assert_str_eq(a, b);
	free(a);
	free(b);
	ul_run_release(&back);
	ul_run_release(&run);
	ul_store_close(st);
}
END_TEST

START_TEST(test_doctor_spread)
{
	double v[10] = { 10, 10, 10, 10, 10, 10, 10, 10, 10, 10 };
	double w[10] = { 14, 9, 10, 10, 10, 10, 11, 10, 10, 10 };
	double two[2] = { 1, 100 };

	ck_assert_double_eq_tol(ul_doctor_spread_pct(v, 10), 0.0, 1e-9);
	/* sorted: 9 10 10 10 10 10 10 10 11 14; p10 = v[1] = 10, p90 = v[9] = 14, median 10 */
	ck_assert_double_eq_tol(ul_doctor_spread_pct(w, 10), 40.0, 1e-9);
	ck_assert_double_eq_tol(ul_doctor_spread_pct(two, 2), 0.0, 1e-9);
}
END_TEST

START_TEST(test_doctor_text)
{
	struct ul_doctor_finding f = { .check = "busy", .severity = UL_DOCTOR_BLOCKER };
	char buf[600];

	snprintf(f.what, sizeof(f.what), "others used 190%% of a CPU");
	snprintf(f.todo, sizeof(f.todo), "stop them");
	ul_doctor_finding_text(&f, buf, sizeof(buf));
	ck_assert_str_eq(buf, "blocker: others used 190% of a CPU; stop them");
	ck_assert_int_eq(ul_doctor_text_severity(buf), UL_DOCTOR_BLOCKER);
	f.severity = UL_DOCTOR_INFO;
	f.todo[0] = '\0';
	ul_doctor_finding_text(&f, buf, sizeof(buf));
	ck_assert_str_eq(buf, "info: others used 190% of a CPU");
	ck_assert_int_eq(ul_doctor_text_severity(buf), UL_DOCTOR_INFO);
	ck_assert_int_eq(ul_doctor_text_severity("warn: x"), UL_DOCTOR_WARN);
	ck_assert_int_eq(ul_doctor_text_severity("warnings: x"), UL_DOCTOR_INFO);
}
END_TEST

Suite *ul_test_suite_fingerprint(void)
{
	Suite *s = suite_create("fingerprint");
	TCase *tc = tcase_create("parsers");

	tcase_add_test(tc, test_kconfig_timing);
	tcase_add_test(tc, test_selected);
	tcase_add_test(tc, test_mount_find);
	tcase_add_test(tc, test_virt_detect);
	tcase_add_test(tc, test_buddyinfo);
	tcase_add_test(tc, test_flatten_classes);
	tcase_add_test(tc, test_collect_here);
	tcase_add_test(tc, test_store_round_trip);
	suite_add_tcase(s, tc);
	tc = tcase_create("doctor");
	tcase_add_test(tc, test_doctor_spread);
	tcase_add_test(tc, test_doctor_text);
	suite_add_tcase(s, tc);
	return s;
}

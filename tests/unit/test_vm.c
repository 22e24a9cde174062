/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * `underload vm`'s pure parts (src/vm/): the release a bzImage names, the
 * static-ELF check, and the initramfs: a newc archive the kernel unpacks,
 * the modules in load order (dependencies first, from modules.dep), a
 * module modules.dep lacks taken as built in.  And the accelerator probe,
 * against stand-ins for qemu: a guest that speaks runs under KVM; one
 * that exits at once, or never says a word, sends the VM to TCG.
 */
#include "unit.h"
#include "proc/journal.h"
#include "proc/scratch.h"
#include "proc/supervise.h"
#include "cmd/vm.h"
#include "core/escape.h"
#include "core/selfexe.h"
#include "report/notes.h"
#include "vm/vm.h"

#include <errno.h>
#include <jansson.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <fcntl.h>
#include <linux/kvm.h>
#include <sys/ioctl.h>
#include <sys/stat.h>
#include <unistd.h>

static void write_bytes(const char *path, const void *p, size_t n)
{
	FILE *f = fopen(path, "wb");

	ck_assert_ptr_nonnull(f);
	ck_assert_uint_eq(fwrite(p, 1, n, f), n);
	ck_assert_int_eq(fclose(f), 0);
}

START_TEST(test_image_release)
{
	char dir[256], path[300], out[128];
	unsigned char img[0x400] = { 0 };
	const char ver[] = "6.1.0-99-test (builder@host) #1 SMP PREEMPT_DYNAMIC";

	ck_assert_int_eq(ul_scratch_create("/tmp", dir, sizeof(dir)), 0);
	snprintf(path, sizeof(path), "%s/vmlinuz", dir);
	memcpy(img + 0x202, "HdrS", 4);
	img[0x20e] = 0x00; /* the string at 0x200 + 0x100 */
	img[0x20f] = 0x01;
	memcpy(img + 0x300, ver, sizeof(ver));
	write_bytes(path, img, sizeof(img));
	ck_assert_int_eq(ul_vm_image_release(path, out, sizeof(out)), 0);
	ck_assert_str_eq(out, "6.1.0-99-test");
	/* Not a bzImage: no magic. */
	memset(img + 0x202, 0, 4);
	unlink(path);
	write_bytes(path, img, sizeof(img));
	ck_assert_int_eq(ul_vm_image_release(path, out, sizeof(out)), -EINVAL);
	ck_assert_str_eq(out, "");
	unlink(path);
	ck_assert_int_eq(ul_vm_image_release(path, out, sizeof(out)), -ENOENT);
	/* A dynamic program and a text file are not static ELF files. */
	ck_assert_int_eq(ul_vm_static_elf("/bin/sh"), -ENOEXEC);
	write_bytes(path, "#!/bin/sh\n", 10);
	ck_assert_int_eq(ul_vm_static_elf(path), -ENOEXEC);
	ck_assert_int_eq(ul_scratch_remove(dir), 0);
}
END_TEST

/* The names of a newc archive's entries, space-separated, into out; the
 * archive's length must be a multiple of 4 and end with the trailer. */
static void cpio_names(const char *path, char *out, size_t len, size_t *init_size)
{
	FILE *f = fopen(path, "rb");
	static char buf[8 << 20];
	size_t n, off = 0;

	ck_assert_ptr_nonnull(f);
	n = fread(buf, 1, sizeof(buf), f);
	fclose(f);
	ck_assert_uint_eq(n % 4, 0);
	out[0] = '\0';
	while (off + 110 <= n) {
		char field[9] = { 0 };
		unsigned long fsize, nsize;
		const char *name;

		ck_assert(!memcmp(buf + off, "070701", 6));
		memcpy(field, buf + off + 6 + 6 * 8, 8);
		fsize = strtoul(field, NULL, 16);
		memcpy(field, buf + off + 6 + 11 * 8, 8);
		nsize = strtoul(field, NULL, 16);
		name = buf + off + 110;
		ck_assert_uint_eq(strlen(name) + 1, nsize);
		if (!strcmp(name, "init"))
			*init_size = fsize;
		snprintf(out + strlen(out), len - strlen(out), "%s%s", out[0] ? " " : "", name);
		off += (110 + nsize + 3) & ~3ul;
		off += (fsize + 3) & ~3ul;
		if (!strcmp(name, "TRAILER!!!"))
			break;
	}
	ck_assert_uint_eq(off, n);
}

START_TEST(test_initramfs)
{
	static const char dep[] =
		"kernel/fs/9p/9p.ko: kernel/net/9p/9pnet.ko kernel/fs/netfs/netfs.ko\n"
		"kernel/net/9p/9pnet.ko:\n"
		"kernel/fs/netfs/netfs.ko:\n"
		"kernel/fs/9p2/9pfoo.ko:\n"
		"kernel/net/9p/9pnet_virtio.ko: kernel/net/9p/9pnet.ko\n"
		"kernel/drivers/block/virtio_blk.ko:\n";
	static const char *const mods[] = { "fs/9p/9p.ko", "net/9p/9pnet.ko", "fs/netfs/netfs.ko",
					    "net/9p/9pnet_virtio.ko",
					    "drivers/block/virtio_blk.ko" };
	static struct ul_vm_file two[2];
	struct ul_vm_files files = { two, 2 };
	char dir[256], p[512], names[2048], why[256];
	size_t init_size = 0;

	ck_assert_int_eq(ul_scratch_create("/tmp", dir, sizeof(dir)), 0);
	snprintf(p, sizeof(p), "%s/modules.dep", dir);
	write_bytes(p, dep, strlen(dep));
	for (size_t i = 0; i < sizeof(mods) / sizeof(mods[0]); i++) {
		char d[600];

		snprintf(p, sizeof(p), "%s/kernel/%s", dir, mods[i]);
		snprintf(d, sizeof(d), "mkdir -p $(dirname %s)", p);
		ck_assert_int_eq(system(d), 0);
		write_bytes(p,
			    "\x7f"
			    "ELF",
			    4);
	}
	snprintf(files.v[0].src, sizeof(files.v[0].src), "%s/modules.dep", dir);
	snprintf(files.v[0].dst, sizeof(files.v[0].dst), "opt/underload/underload");
	snprintf(files.v[1].src, sizeof(files.v[1].src), "%s/modules.dep", dir);
	snprintf(files.v[1].dst, sizeof(files.v[1].dst), "lib/x86_64-linux-gnu/libx.so.1");
	snprintf(p, sizeof(p), "%s/initramfs.cpio", dir);
	ck_assert_int_eq(
		ul_vm_initramfs(p, "/bin/sh", dir, "UL_LABEL='x'\n", &files, why, sizeof(why)), 0);
	cpio_names(p, names, sizeof(names), &init_size);
	ck_assert_str_eq(names,
			 "bin dev proc sys tmp var run mod dev/console init env bin/busybox "
			 "opt opt/underload opt/underload/underload lib lib/x86_64-linux-gnu "
			 "lib/x86_64-linux-gnu/libx.so.1 "
			 "mod/00-virtio_blk.ko mod/01-9pnet.ko mod/02-9pnet_virtio.ko "
			 "mod/03-netfs.ko mod/04-9p.ko TRAILER!!!");
	ck_assert_uint_eq(init_size, strlen(ul_vm_guest_init));
	/* Without modules: drivers built in. */
	unlink(p);
	ck_assert_int_eq(ul_vm_initramfs(p, "/bin/sh", "", "", NULL, why, sizeof(why)), 0);
	cpio_names(p, names, sizeof(names), &init_size);
	ck_assert_str_eq(names, "bin dev proc sys tmp var run mod dev/console init env bin/busybox "
				"TRAILER!!!");
	/* An unreadable modules.dep is an error that says so. */
	unlink(p);
	snprintf(p, sizeof(p), "%s/nowhere", dir);
	ck_assert_int_eq(ul_vm_initramfs(p, "/bin/sh", p, "", NULL, why, sizeof(why)), -ENOENT);
	ck_assert_ptr_nonnull(strstr(why, "modules.dep"));
	ck_assert_int_eq(ul_scratch_remove(dir), 0);
}
END_TEST

/* A label's runs in a comparison's head: boots of `underload vm`, crashed
 * ones, emulated ones; runs on the machine itself only when one crashed. */
START_TEST(test_runs_outcome)
{
	struct ul_run r[3];
	const struct ul_run *p[3] = { &r[0], &r[1], &r[2] };
	char out[96];

	for (int i = 0; i < 3; i++)
		ul_run_init(&r[i]);
	r[1].status = UL_RUN_CRASHED;
	ul_report_runs_outcome(p, 1, out, sizeof(out));
	ck_assert_str_eq(out, "");
	ul_report_runs_outcome(p, 3, out, sizeof(out));
	ck_assert_str_eq(out, "1 of 3 crashed");
	for (int i = 0; i < 3; i++) {
		r[i].fingerprint =
			json_pack("{s:{s:s,s:s}}", "vm", "accelerator", "kvm", "emulated", "no");
		ck_assert_ptr_nonnull(r[i].fingerprint);
	}
	ul_report_runs_outcome(p, 3, out, sizeof(out));
	ck_assert_str_eq(out, "3 boots, 1 crashed");
	ck_assert(ul_run_in_vm(&r[0]) && !ul_run_emulated(&r[0]));
	json_object_set_new(json_object_get(r[2].fingerprint, "vm"), "emulated",
			    json_string("yes"));
	ul_report_runs_outcome(p + 2, 1, out, sizeof(out));
	ck_assert_str_eq(out, "1 boot, 0 crashed, emulated (TCG)");
	for (int i = 0; i < 3; i++)
		ul_run_release(&r[i]);
}
END_TEST

/* The console is the guest's bytes: what is read of it is valid UTF-8 (a
 * stray byte is '?'), and a tail is never cut inside a character. */
START_TEST(test_console_utf8)
{
	struct ul_vm_boot b = { 0 };
	char path[PATH_MAX + 16], out[7],
		clean[] = "a\xff\xfe"
			  "b\xc3\xa9\xe2\x82";
	/* "ééé" (2 bytes each) then "x": 6 bytes of room cut an "é" in half. */
	const char console[] = "boot\r\n\xff\xfe\x00ok\n\xc3\xa9\xc3\xa9\xc3\xa9x\n";
	char tail[64];

	ul_vm_text_clean(clean, strlen(clean));
	ck_assert_str_eq(clean, "a??b\xc3\xa9??");
	ck_assert_int_eq(ul_scratch_create("/tmp", b.dir, sizeof(b.dir)), 0);
	snprintf(path, sizeof(path), "%s/console.log", b.dir);
	write_bytes(path, console, sizeof(console) - 1);
	ul_vm_console_tail(&b, 10, tail, sizeof(tail));
	ck_assert_str_eq(tail, "boot\n??ok\n\xc3\xa9\xc3\xa9\xc3\xa9x");
	ck_assert_int_ge(ul_utf8_count(tail, sizeof(tail)), 0);
	ul_vm_console_tail(&b, 1, out, sizeof(out));
	ck_assert_str_eq(out, "\xc3\xa9\xc3\xa9x");
	ck_assert_int_eq(unlink(path), 0);
	ck_assert_int_eq(ul_scratch_remove(b.dir), 0);
}
END_TEST

/* How far a stopped guest got, from its console: the last step its init
 * named, else whether the kernel printed at all. */
START_TEST(test_boot_phase)
{
	static const char steps[] = "ul-vm: init: loading the modules\r\n"
				    "ul-vm: insmod /mod/x.ko failed\r\n"
				    "[ 9.1] ul-vm: init: mounting the scratch disk\r\n";
	struct ul_vm_boot b = { 0 };
	char path[PATH_MAX + 16], out[160];

	ck_assert_int_eq(ul_scratch_create("/tmp", b.dir, sizeof(b.dir)), 0);
	ul_vm_boot_phase(&b, out, sizeof(out));
	ck_assert_str_eq(out, "the kernel never reached the guest's init (the console is empty)");
	snprintf(path, sizeof(path), "%s/console.log", b.dir);
	write_bytes(path, "[    1.0] a warning\r\n", strlen("[    1.0] a warning\r\n"));
	ul_vm_boot_phase(&b, out, sizeof(out));
	ck_assert_str_eq(out, "the kernel printed, but never reached the guest's init");
	write_bytes(path, steps, strlen(steps));
	ul_vm_boot_phase(&b, out, sizeof(out));
	ck_assert_str_eq(out, "the guest's init was mounting the scratch disk");
	ck_assert_int_eq(unlink(path), 0);
	ck_assert_int_eq(ul_scratch_remove(b.dir), 0);
}
END_TEST

/* The guest's store is copied out of the share only as regular files,
 * never through a link (to another store of the host) or from a FIFO. */
START_TEST(test_guest_store_copy)
{
	char dir[256], p[PATH_MAX + 8], copy[PATH_MAX], why[256], got[16] = { 0 };
	FILE *f;

	ck_assert_int_eq(ul_scratch_create("/tmp", dir, sizeof(dir)), 0);
	snprintf(p, sizeof(p), "%s/share", dir);
	ck_assert_int_eq(mkdir(p, 0700), 0);
	ck_assert_int_eq(ul_vm_guest_store_copy(dir, copy, sizeof(copy), why, sizeof(why)),
			 -ENOENT);
	snprintf(p, sizeof(p), "%s/share/guest.db", dir);
	write_bytes(p, "store", 5);
	snprintf(p, sizeof(p), "%s/share/guest.db-wal", dir);
	write_bytes(p, "wal", 3);
	ck_assert_int_eq(ul_vm_guest_store_copy(dir, copy, sizeof(copy), why, sizeof(why)), 0);
	f = fopen(copy, "r");
	ck_assert_ptr_nonnull(f);
	ck_assert_uint_eq(fread(got, 1, sizeof(got) - 1, f), 5);
	fclose(f);
	ck_assert_str_eq(got, "store");
	snprintf(p, sizeof(p), "%s-wal", copy);
	ck_assert_int_eq(access(p, F_OK), 0);
	ck_assert_int_eq(unlink(p), 0);
	ck_assert_int_eq(unlink(copy), 0);
	/* A link to another store of the host (even a valid one) is refused. */
	snprintf(p, sizeof(p), "%s/share/guest.db-wal", dir);
	ck_assert_int_eq(unlink(p), 0);
	ck_assert_int_eq(symlink(copy, p), 0);
	ck_assert_int_eq(ul_vm_guest_store_copy(dir, copy, sizeof(copy), why, sizeof(why)), -ELOOP);
	ck_assert_str_eq(why, "share/guest.db-wal is a symbolic link");
	ck_assert_int_eq(unlink(p), 0);
	ck_assert_int_eq(unlink(copy), 0);
	snprintf(p, sizeof(p), "%s/share/guest.db", dir);
	ck_assert_int_eq(unlink(p), 0);
	ck_assert_int_eq(mkfifo(p, 0600), 0);
	ck_assert_int_eq(ul_vm_guest_store_copy(dir, copy, sizeof(copy), why, sizeof(why)),
			 -EINVAL);
	ck_assert_str_eq(why, "share/guest.db is not a regular file");
	ck_assert_int_eq(unlink(p), 0);
	ck_assert_int_eq(ul_scratch_remove(dir), 0);
}
END_TEST

/* vm sets the guest's run's --label and --db: refused however run's
 * getopt_long would read them, abbreviated or not, and only as options. */
START_TEST(test_run_sets_own)
{
	static const struct {
		const char *args[6];
		const char *which;
	} cases[] = {
		{ { "run", "--label", "x" }, "label" },
		{ { "run", "--lab", "x" }, "label" },
		{ { "run", "--labe=x" }, "label" },
		{ { "run", "--quick", "--db=/tmp/x.db" }, "db" },
		{ { "run", "contest", "--tests", "noload", "--lab=y" }, "label" },
		{ { "run", "--quick", "--dir", "/tmp" }, NULL },
		{ { "run", "contest", "--job", "--label" }, NULL },
		{ { "run", "--quick", "--", "--label" }, NULL },
		{ { "run", "--d", "x" }, NULL }, /* ambiguous: run refuses it */
	};

	for (size_t i = 0; i < UL_ARRAY_SIZE(cases); i++) {
		char *argv[6] = { NULL };
		const char *which = "?";
		int argc = 0;

		for (; cases[i].args[argc]; argc++)
			argv[argc] = (char *)cases[i].args[argc];
		ck_assert_int_eq(ul_vm_run_sets_own(argc, argv, &which), cases[i].which ? 1 : 0);
		if (cases[i].which)
			ck_assert_str_eq(which, cases[i].which);
		else
			ck_assert_ptr_null(which);
		/* argv is left in its order (getopt_long permutes a copy). */
		ck_assert_str_eq(argv[1], cases[i].args[1]);
	}
}
END_TEST

/*
 * --until-decided's design reaches the guest: its /env gives the run the
 * designed points a cell after the user's arguments (none while the
 * points are the run's), quoted for sh; and a run whose arguments fix
 * the points (as run reads them, abbreviated or not) is left to them.
 */
START_TEST(test_guest_env_points)
{
	char *args[] = { (char *)"--tests", (char *)"it's" };
	char env[256];
	static const struct {
		const char *args[5];
		int fixes;
	} cases[] = {
		{ { "run", "--quick" }, 1 },	    { { "run", "--min-p", "4" }, 1 },
		{ { "run", "--max-points=9" }, 1 }, { { "run", "--tests", "noload" }, 0 },
		{ { "run", "--", "--quick" }, 0 },
	};

	ck_assert_int_eq(ul_vm_guest_env("6.1#2", args, 2, 0, env, sizeof(env)), 0);
	ck_assert_str_eq(env, "UL_LABEL='6.1#2'\nset -- '--tests' 'it'\\''s'\n");
	ck_assert_int_eq(ul_vm_guest_env("6.1#2", args, 2, 17, env, sizeof(env)), 0);
	ck_assert_str_eq(env, "UL_LABEL='6.1#2'\nset -- '--tests' 'it'\\''s' '--min-points' '17' "
			      "'--max-points' '17'\n");
	ck_assert_int_eq(ul_vm_guest_env("6.1", args, 2, 17, env, 60), -1);
	for (size_t i = 0; i < UL_ARRAY_SIZE(cases); i++) {
		char *argv[5] = { NULL };
		int argc = 0;

		for (; cases[i].args[argc]; argc++)
			argv[argc] = (char *)cases[i].args[argc];
		ck_assert_int_eq(ul_vm_run_fixes_points(argc, argv), cases[i].fixes);
	}
}
END_TEST

/* The contents of a newc archive's entry `name` (a text file) into out. */
static void cpio_text(const char *path, const char *name, char *out, size_t len)
{
	FILE *f = fopen(path, "rb");
	static char buf[8 << 20];
	size_t n, off = 0;

	ck_assert_ptr_nonnull(f);
	n = fread(buf, 1, sizeof(buf), f);
	fclose(f);
	out[0] = '\0';
	while (off + 110 <= n) {
		char field[9] = { 0 };
		unsigned long fsize, nsize;
		const char *entry = buf + off + 110;

		ck_assert(!memcmp(buf + off, "070701", 6));
		memcpy(field, buf + off + 6 + 6 * 8, 8);
		fsize = strtoul(field, NULL, 16);
		memcpy(field, buf + off + 6 + 11 * 8, 8);
		nsize = strtoul(field, NULL, 16);
		off += (110 + nsize + 3) & ~3ul;
		if (!strcmp(entry, name)) {
			ck_assert_uint_lt(fsize, len);
			ck_assert_uint_le(off + fsize, n);
			memcpy(out, buf + off, fsize);
			out[fsize] = '\0';
			return;
		}
		off += (fsize + 3) & ~3ul;
	}
	ck_abort_msg("%s has no entry %s", path, name);
}

/*
 * --until-decided's design reaches the next boot: a kernel's initramfs is
 * made again over the one of the boots before (ul_vm_initramfs() makes
 * new files only), its /env now giving the guest's run the designed
 * points a cell after the user's arguments.
 */
START_TEST(test_initramfs_made_again)
{
	char *args[] = { (char *)"--tests", (char *)"noload" };
	struct ul_vm_kernel k = { .label = "6.1#2" };
	char dir[256], env[512];

	ck_assert_int_eq(ul_scratch_create("/tmp", dir, sizeof(dir)), 0);
	snprintf(k.initramfs, sizeof(k.initramfs), "%s/initramfs-2.cpio", dir);
	ck_assert_int_eq(ul_vm_kernel_initramfs(&k, "/bin/sh", args, 2, 0, NULL), 0);
	cpio_text(k.initramfs, "env", env, sizeof(env));
	ck_assert_str_eq(env, "UL_LABEL='6.1#2'\nset -- '--tests' 'noload'\n");
	ck_assert_int_eq(ul_vm_kernel_initramfs(&k, "/bin/sh", args, 2, 17, NULL), 0);
	cpio_text(k.initramfs, "env", env, sizeof(env));
	ck_assert_str_eq(env, "UL_LABEL='6.1#2'\nset -- '--tests' 'noload' '--min-points' '17' "
			      "'--max-points' '17'\n");
	ck_assert_int_eq(ul_scratch_remove(dir), 0);
}
END_TEST

/* The guest gets this program, its helpers and the libraries the loader
 * lists for them, at their paths: nothing else of the host. */
START_TEST(test_guest_files)
{
	struct ul_vm_files f = { 0 };
	char why[256];
	bool libc = false, loader = false, forker = false;

	ck_assert_int_eq(ul_vm_guest_files(UL_BUILD_ROOT "/underload", UL_BUILD_ROOT, &f, why,
					   sizeof(why)),
			 0);
	ck_assert_str_eq(f.v[0].dst, "opt/underload/underload");
	ck_assert_str_eq(f.v[0].src, UL_BUILD_ROOT "/underload");
	for (size_t i = 0; i < f.n; i++) {
		ck_assert_int_eq(f.v[i].dst[0] != '/', 1);
		ck_assert_int_eq(access(f.v[i].src, R_OK), 0);
		forker |= !strcmp(f.v[i].dst, "opt/underload/underload-forker");
		libc |= strstr(f.v[i].dst, "/libc.so.6") && !strcmp(f.v[i].src + 1, f.v[i].dst);
		loader |= strstr(f.v[i].dst, "/ld-linux") != NULL;
	}
	ck_assert(forker && libc && loader);
	ul_vm_files_free(&f);
	/* A program the loader cannot list says so. */
	ck_assert_int_ne(ul_vm_guest_files("/nonexistent/underload", "/nonexistent", &f, why,
					   sizeof(why)),
			 0);
	ul_vm_files_free(&f);
}
END_TEST

/* vm reads the running program through /proc/self/exe (a rebuild may have
 * replaced its path): the loader lists its libraries through that name,
 * and the helpers come from the directory it was started from. */
START_TEST(test_guest_files_self)
{
	struct ul_vm_files f = { 0 };
	char dir[PATH_MAX], exe[PATH_MAX], why[256];
	bool libc = false;

	ck_assert_int_eq(ul_self_dir(dir, sizeof(dir)), 0);
	ck_assert_str_eq(dir, UL_BUILD_ROOT "/tests/unit");
	ck_assert_int_eq(ul_self_exe(exe, sizeof(exe)), 0);
	ck_assert_str_eq(exe, UL_BUILD_ROOT "/tests/unit/ul-unit"); /* not replaced: its path */
	ck_assert_int_eq(ul_vm_guest_files(UL_SELF_EXE, UL_BUILD_ROOT, &f, why, sizeof(why)), 0);
	ck_assert_str_eq(f.v[0].src, "/proc/self/exe");
	ck_assert_str_eq(f.v[0].dst, "opt/underload/underload");
	for (size_t i = 0; i < f.n; i++)
		libc |= strstr(f.v[i].dst, "/libc.so.6") != NULL;
	ck_assert(libc);
	ul_vm_files_free(&f);
}
END_TEST

/* Does /dev/kvm create a VM here (the probe's first step)? */
static bool kvm_creates_vm(void)
{
	int fd = open("/dev/kvm", O_RDWR | O_CLOEXEC);
	int vm = fd >= 0 ? ioctl(fd, KVM_CREATE_VM, 0) : -1;

	if (vm >= 0)
		close(vm);
	if (fd >= 0)
		close(fd);
	return vm >= 0;
}

/* ul_vm_accel() with a stand-in qemu whose body is `script`: the answer,
 * and why in `why`. */
static const char *accel_with(const char *dir, const char *name, const char *script, char *why,
			      size_t len)
{
	char path[PATH_MAX];
	struct ul_sup sup;
	const char *accel;
	FILE *f;

	snprintf(path, sizeof(path), "%s/%s", dir, name);
	f = fopen(path, "w");
	ck_assert_ptr_nonnull(f);
	fprintf(f, "#!/bin/sh\n%s\n", script);
	ck_assert_int_eq(fclose(f), 0);
	ck_assert_int_eq(chmod(path, 0700), 0);
	ck_assert_int_eq(ul_sup_init(&sup), 0);
	accel = ul_vm_accel(&sup, path, why, len);
	ul_sup_fini(&sup);
	ck_assert_int_eq(unlink(path), 0);
	return accel;
}

/* The stand-ins' directory: removed by the fixture, also after a failed check. */
static char accel_dir[32];

static void accel_setup(void)
{
	snprintf(accel_dir, sizeof(accel_dir), "/tmp/ul-unit-accel.XXXXXX");
	ck_assert_ptr_nonnull(mkdtemp(accel_dir));
}

static void accel_teardown(void)
{
	char cmd[64];

	snprintf(cmd, sizeof(cmd), "rm -rf '%s'", accel_dir);
	if (system(cmd) != 0)
		fprintf(stderr, "test_accel_probe: cannot remove %s\n", accel_dir);
}

START_TEST(test_accel_probe)
{
	/* The firmware's greeting, written where -chardev's path= points. */
	static const char speaks[] =
		"for a; do case $a in file,id=fw,path=*) out=${a#*path=};; esac; done\n"
		"printf 'SeaBIOS' >\"$out\" || exit 3\nexec sleep 30";
	const char *dir = accel_dir;
	char why[256];

	if (!kvm_creates_vm()) {
		/* Without a working /dev/kvm qemu is never asked. */
		ck_assert_str_eq(accel_with(dir, "speaks", speaks, why, sizeof(why)), "tcg");
		ck_assert_msg(strstr(why, "/dev/kvm") != NULL, "why: %s", why);
		fprintf(stderr,
			"test_accel_probe: skipped the qemu cases: /dev/kvm creates no VM "
			"here (%s)\n",
			why);
		return;
	}
	ck_assert_str_eq(accel_with(dir, "speaks", speaks, why, sizeof(why)), "kvm");
	ck_assert_str_eq(why, "");
	ck_assert_str_eq(accel_with(dir, "aborts", "kill -ABRT $$", why, sizeof(why)), "tcg");
	ck_assert_msg(strstr(why, "it ended at once") != NULL, "why: %s", why);
	/* A VM created, its vCPU never run: silence, then TCG. */
	ck_assert_str_eq(accel_with(dir, "silent", "exec sleep 30", why, sizeof(why)), "tcg");
	ck_assert_msg(strstr(why, "guest never ran") != NULL, "why: %s", why);
}
END_TEST

/* One boot (ul_vm_boot_run) of a stand-in for qemu in accel_dir/NAME: the
 * guest's init names a step on the console (-serial file:PATH), then the
 * sh commands `rest` ($share: the share); mkfs.ext4 a stand-in that
 * succeeds.  The boot's results into *b. */
static void boot_with(const char *name, const char *rest, ul_nsec hang_ns, struct ul_vm_boot *b)
{
	static struct ul_vm_kernel k = { .image = "bzImage", .initramfs = "initramfs" };
	static const struct ul_vm_shape shape = { .accel = "tcg", .cpus = 1, .mem_bytes = UL_GiB };
	char qemu[PATH_MAX], mkfs[PATH_MAX], jdir[PATH_MAX], why[256];
	struct ul_journal j = { .fd = -1 };
	struct ul_sup sup;
	FILE *f;

	snprintf(qemu, sizeof(qemu), "%s/%s", accel_dir, name);
	f = fopen(qemu, "w");
	ck_assert_ptr_nonnull(f);
	fprintf(f,
		"#!/bin/sh\nfor a; do case $a in\n"
		"file:*) con=${a#file:};;\n"
		"local,path=*) share=${a#local,path=}; share=${share%%%%,*};;\n"
		"esac; done\n"
		"echo 'ul-vm: init: mounting the share' >>\"$con\"\n%s\n",
		rest);
	ck_assert_int_eq(fclose(f), 0);
	ck_assert_int_eq(chmod(qemu, 0700), 0);
	snprintf(mkfs, sizeof(mkfs), "%s/mkfs", accel_dir);
	f = fopen(mkfs, "w");
	ck_assert_ptr_nonnull(f);
	fprintf(f, "#!/bin/sh\nexit 0\n");
	ck_assert_int_eq(fclose(f), 0);
	ck_assert_int_eq(chmod(mkfs, 0700), 0);
	snprintf(jdir, sizeof(jdir), "%s/journal-%s", accel_dir, name);
	ck_assert_int_eq(mkdir(jdir, 0700), 0);
	setenv("UL_JOURNAL_DIR", jdir, 1);
	ck_assert_int_eq(ul_journal_open(&j), 0);
	snprintf(b->dir, sizeof(b->dir), "%s/boot-%s", accel_dir, name);
	ck_assert_int_eq(mkdir(b->dir, 0700), 0);
	b->kernel = &k;
	b->shape = &shape;
	b->hang_ns = hang_ns;
	b->qemu = qemu;
	b->mkfs = mkfs;
	b->journal = &j;
	snprintf(b->run_uuid, sizeof(b->run_uuid), "00000000-0000-4000-8000-000000000000");
	ck_assert_int_eq(ul_sup_init(&sup), 0);
	ck_assert_int_eq(ul_vm_boot_run(&sup, b, why, sizeof(why)), 0);
	ul_sup_fini(&sup);
	ul_journal_finish(&j);
	unsetenv("UL_JOURNAL_DIR");
}

/* The watchdog: a guest whose init names its steps is not hung before its
 * sign of life first appears (a step may take long under TCG: the bound
 * is then at least 2 min); once it has, silence for hang_ns is a hang,
 * with how far the guest got and the CPU time qemu had used. */
START_TEST(test_boot_watchdog)
{
	struct ul_vm_boot b = { 0 };
	char phase[160];

	/* Quiet for 3 s after naming its step, then qemu ends: not a hang. */
	boot_with("slow-step", "sleep 3", UL_NS_PER_SEC, &b);
	ck_assert_msg(b.end == UL_VM_END_LOST, "end: %s", ul_vm_end_name(b.end));
	/* Up (its sign of life written once), then silent, spinning. */
	memset(&b, 0, sizeof(b));
	boot_with("spins", "date +%s >\"$share/alive\"\nwhile :; do :; done", UL_NS_PER_SEC, &b);
	ck_assert_msg(b.end == UL_VM_END_HUNG, "end: %s", ul_vm_end_name(b.end));
	ck_assert(b.wall_s < 10);
	ck_assert_msg(b.qemu_cpu_s > 0.2 && b.qemu_cpu_s < b.wall_s + 1, "qemu's CPU: %.2f s",
		      b.qemu_cpu_s);
	ul_vm_boot_phase(&b, phase, sizeof(phase));
	ck_assert_str_eq(phase, "the guest's init was mounting the share");
}
END_TEST

Suite *ul_test_suite_vm(void)
{
	Suite *s = suite_create("vm");
	TCase *tc = tcase_create("image");

	tcase_add_test(tc, test_image_release);
	tcase_add_test(tc, test_initramfs);
	tcase_add_test(tc, test_runs_outcome);
	tcase_add_test(tc, test_console_utf8);
	tcase_add_test(tc, test_boot_phase);
	tcase_add_test(tc, test_guest_store_copy);
	tcase_add_test(tc, test_run_sets_own);
	tcase_add_test(tc, test_guest_env_points);
	tcase_add_test(tc, test_initramfs_made_again);
	tcase_add_test(tc, test_guest_files);
	tcase_add_test(tc, test_guest_files_self);
	suite_add_tcase(s, tc);
	tc = tcase_create("accel");
	tcase_set_timeout(tc, 30);
	tcase_add_checked_fixture(tc, accel_setup, accel_teardown);
	tcase_add_test(tc, test_accel_probe);
	tcase_add_test(tc, test_boot_watchdog);
	suite_add_tcase(s, tc);
	return s;
}

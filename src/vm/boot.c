/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * One boot of a kernel under qemu, watched to its end.  The guest's end is
 * read from what it leaves: the run's end mark on the console, a panic
 * line, or silence.  The watchdog counts a kernel as alive while the
 * console or the share's "alive" file (rewritten by the guest every 2 s)
 * changes; after hang_ns without either (at least BOOT_NS until "alive"
 * first appears: the guest's init names its steps on the console before
 * that, and a step may take long under TCG), qemu is stopped and the boot
 * is a hang.  qemu dies with us (the spawn's PR_SET_PDEATHSIG).
 */
#include "core/compat.h"
#include "proc/journal.h"
#include "proc/qemu.h"
#include "proc/supervise.h"
#include "vm/vm.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#define TICK_NS (UL_NS_PER_SEC / 2)
/* A kernel that printed a panic and is still up after this is stopped. */
#define PANIC_GRACE_NS (5 * UL_NS_PER_SEC)
/* The least time a kernel gets to boot before the watchdog calls it hung:
 * a quiet kernel says nothing until the guest's init speaks, which under
 * TCG takes 10-20 s, and longer on a busy host. */
#define BOOT_NS (120 * UL_NS_PER_SEC)
#define DISK_BYTES (2 * UL_GiB)
/* quiet: the kernel's console says only its errors and worse, with their
 * times (nothing in a boot that goes well): a boot stuck before the
 * guest's init shows its RCU stalls, lockups and I/O errors there. */
#define KERNEL_CMDLINE "console=ttyS0 quiet panic=-1 oops=panic no_timer_check rdinit=/init"

const char *ul_vm_end_name(enum ul_vm_end e)
{
	static const char *const names[] = { "finished", "panicked", "hung", "ended unexpectedly",
					     "interrupted" };

	return (unsigned)e < UL_ARRAY_SIZE(names) ? names[e] : "?";
}

/* Run argv to its end under sup: 0 when it exits 0, else -EIO / -EINTR / -errno. */
static int run_tool(struct ul_sup *sup, char *const *argv)
{
	struct ul_child c;
	struct ul_spawn_opts o = { .name = "vm-tool", .argv = argv };
	int rc = ul_spawn(sup, &o, &c);

	if (rc)
		return rc;
	for (;;) {
		struct ul_child *ex = NULL;
		enum ul_wait_result w = ul_sup_wait(sup, -1, 0, &ex);

		if (w == UL_WAIT_INTERRUPTED) {
			(void)ul_sup_stop(sup, &c, UL_NS_PER_SEC);
			return -EINTR;
		}
		if (w == UL_WAIT_CHILD_EXITED && ex == &c)
			return WIFEXITED(c.wstatus) && WEXITSTATUS(c.wstatus) == 0 ? 0 : -EIO;
	}
}

/* A new sparse file of `bytes`: 0 or -errno. */
static int sparse_file(const char *path, uint64_t bytes)
{
	int fd = open(path, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0600);
	int rc = 0;

	if (fd < 0)
		return -errno;
	if (ftruncate(fd, (off_t)bytes) < 0)
		rc = -errno;
	if (close(fd) < 0 && !rc)
		rc = -errno;
	return rc;
}

/* The run's id for the guest (the share is empty before the boot): 0 or -errno. */
static int write_run_uuid(const char *share, const char *uuid)
{
	char p[PATH_MAX + 32];
	FILE *f;
	int rc;

	snprintf(p, sizeof(p), "%s/" UL_VM_RUN_UUID_FILE, share);
	f = fopen(p, "wxe");
	if (!f)
		return -errno;
	rc = fprintf(f, "%s\n", uuid) < 0 ? -EIO : 0;
	if (fclose(f) && !rc)
		rc = -errno;
	return rc;
}

/* The scratch disk (sparse) with an ext4 on it, and the share with the run's id. */
static int make_disk(struct ul_sup *sup, const struct ul_vm_boot *b, char *why, size_t len)
{
	char disk[PATH_MAX + 16], share[PATH_MAX + 16];
	char *mkfs[] = { (char *)b->mkfs,     (char *)"-q", (char *)"-F", (char *)"-E",
			 (char *)"nodiscard", disk,	    NULL };
	int rc;

	snprintf(disk, sizeof(disk), "%s/disk.img", b->dir);
	snprintf(share, sizeof(share), "%s/share", b->dir);
	if (mkdir(share, 0700) < 0) {
		snprintf(why, len, "cannot make %s: %s", share, strerror(errno));
		return -errno;
	}
	rc = write_run_uuid(share, b->run_uuid);
	if (rc) {
		snprintf(why, len, "cannot write %s/" UL_VM_RUN_UUID_FILE ": %s", share,
			 strerror(-rc));
		return rc;
	}
	rc = sparse_file(disk, DISK_BYTES);
	if (!rc)
		rc = run_tool(sup, mkfs);
	if (rc)
		snprintf(why, len, "cannot make the scratch disk %s: %s", disk,
			 rc == -EIO ? "mkfs.ext4 failed" : strerror(-rc));
	return rc;
}

struct qemu_argv {
	char *v[48];
	char buf[8][PATH_MAX + 128];
};

static void build_argv(const struct ul_vm_boot *b, const char *qemu, struct qemu_argv *q)
{
	const struct ul_vm_shape *s = b->shape;
	size_t n = 0;
	bool kvm = !strcmp(s->accel, "kvm");

#define ARG(x) (q->v[n++] = (char *)(x))
#define FMT(i, ...) (snprintf(q->buf[i], sizeof(q->buf[i]), __VA_ARGS__), ARG(q->buf[i]))
	ARG(qemu);
	ARG("-accel");
	ARG(s->accel);
	ARG("-cpu");
	ARG(kvm ? "host" : "max");
	ARG("-smp");
	FMT(0, "%d", s->cpus);
	ARG("-m");
	FMT(1, "%lluM", (unsigned long long)(s->mem_bytes >> 20));
	ARG("-display");
	ARG("none");
	ARG("-no-reboot");
	ARG("-nodefaults");
	ARG("-serial");
	FMT(2, "file:%s/console.log", b->dir);
	ARG("-kernel");
	ARG(b->kernel->image);
	ARG("-initrd");
	ARG(b->kernel->initramfs);
	ARG("-append");
	FMT(5, "%s%s%s", KERNEL_CMDLINE, b->cmdline_extra ? " " : "",
	    b->cmdline_extra ? b->cmdline_extra : "");
	ARG("-drive");
	FMT(3, "file=%s/disk.img,if=virtio,format=raw,cache=unsafe", b->dir);
	ARG("-virtfs");
	/* mapped-xattr: the guest's links, devices, owners and modes are
	 * attributes of plain files here, never a host link to follow. */
	FMT(4, "local,path=%s/share,mount_tag=ulshare,security_model=mapped-xattr,multidevs=remap",
	    b->dir);
	q->v[n] = NULL;
#undef ARG
#undef FMT
}

/* The newest modification of the console or the share's "alive" file (wall
 * s); *up set once "alive" exists (the guest's init is up and answers). */
static time_t last_sign(const struct ul_vm_boot *b, off_t *console_size, bool *up)
{
	char p[PATH_MAX + 16];
	struct stat st;
	time_t t = 0;

	snprintf(p, sizeof(p), "%s/console.log", b->dir);
	if (!stat(p, &st)) {
		t = st.st_mtime;
		*console_size = st.st_size;
	}
	snprintf(p, sizeof(p), "%s/share/alive", b->dir);
	if (!stat(p, &st)) {
		*up = true;
		if (st.st_mtime > t)
			t = st.st_mtime;
	}
	return t;
}

/* The CPU time (user and system, s) process pid used so far; -1 when unreadable. */
static double cpu_seconds(pid_t pid)
{
	char p[64], buf[1024];
	unsigned long long utime, stime;
	const char *after;
	FILE *f;
	size_t n;

	snprintf(p, sizeof(p), "/proc/%d/stat", (int)pid);
	f = fopen(p, "re");
	if (!f)
		return -1;
	n = fread(buf, 1, sizeof(buf) - 1, f);
	fclose(f);
	buf[n] = '\0';
	/* After the name in parentheses: state (field 3) ... utime (14), stime (15). */
	after = strrchr(buf, ')');
	if (!after || sscanf(after + 1, " %*c %*d %*d %*d %*d %*d %*u %*u %*u %*u %*u %llu %llu",
			     &utime, &stime) != 2)
		return -1;
	return (double)(utime + stime) / (double)sysconf(_SC_CLK_TCK);
}

/* How the guest ended, from its console, once qemu is gone. */
static void read_end(struct ul_vm_boot *b)
{
	char tail[4096], panic[256];
	const char *m;

	ul_vm_console_tail(b, 40, tail, sizeof(tail));
	m = strstr(tail, UL_VM_DONE_MARK);
	if (m) {
		b->end = UL_VM_END_DONE;
		b->guest_status = atoi(m + strlen(UL_VM_DONE_MARK));
		return;
	}
	ul_vm_console_panic(b, panic, sizeof(panic));
	b->end = panic[0] ? UL_VM_END_PANIC : UL_VM_END_LOST;
}

/* Watch the running qemu to its end (b->end).  A quiet kernel boots
 * silently: until the guest's init is up the bound is at least BOOT_NS. */
static void watch(struct ul_sup *sup, struct ul_vm_boot *b, struct ul_child *c)
{
	ul_nsec panic_seen = 0;
	time_t since = time(NULL);
	off_t size = 0;
	bool up = false;

	for (;;) {
		struct ul_child *ex = NULL;
		enum ul_wait_result w = ul_sup_wait(sup, -1, ul_now_ns() + TICK_NS, &ex);
		char panic[256];
		time_t sign;

		if (w == UL_WAIT_CHILD_EXITED && ex == c) {
			read_end(b);
			return;
		}
		if (w == UL_WAIT_INTERRUPTED) {
			(void)ul_sup_stop(sup, c, UL_NS_PER_SEC);
			b->end = UL_VM_END_INTERRUPTED;
			return;
		}
		double cpu = cpu_seconds(c->pid);

		if (cpu >= 0)
			b->qemu_cpu_s = cpu;
		sign = last_sign(b, &size, &up);
		if (sign > since)
			since = sign;
		if (!panic_seen && size > 0) {
			ul_vm_console_panic(b, panic, sizeof(panic));
			if (panic[0])
				panic_seen = ul_now_ns();
		}
		if (panic_seen && ul_now_ns() - panic_seen > PANIC_GRACE_NS) {
			(void)ul_sup_stop(sup, c, UL_NS_PER_SEC);
			b->end = UL_VM_END_PANIC;
			return;
		}
		if ((ul_nsec)(time(NULL) - since) * UL_NS_PER_SEC >
		    (up || b->hang_ns > BOOT_NS ? b->hang_ns : BOOT_NS)) {
			(void)ul_sup_stop(sup, c, UL_NS_PER_SEC);
			b->end = UL_VM_END_HUNG;
			return;
		}
	}
}

int ul_vm_boot_run(struct ul_sup *sup, struct ul_vm_boot *b, char *why, size_t len)
{
	static struct qemu_argv q;
	struct ul_child c;
	struct ul_spawn_opts o = { .name = "qemu" };
	char arg[64];
	ul_nsec t0 = ul_now_ns();
	int rc = make_disk(sup, b, why, len);

	if (rc)
		return rc;
	build_argv(b, b->qemu, &q);
	o.argv = q.v;
	rc = ul_spawn(sup, &o, &c);
	if (rc) {
		snprintf(why, len, "cannot start qemu-system-x86_64: %s", strerror(-rc));
		return rc;
	}
	/* Journalled once its pid exists; until then it dies with us anyway. */
	rc = ul_change_qemu_started(b->journal, c.pid, arg, sizeof(arg));
	if (rc) {
		(void)ul_sup_stop(sup, &c, UL_NS_PER_SEC);
		snprintf(why, len, "cannot journal qemu's pid: %s", strerror(-rc));
		return rc;
	}
	watch(sup, b, &c);
	(void)ul_journal_done(b->journal, "qemu", arg);
	b->wall_s = (double)(ul_now_ns() - t0) / UL_NS_PER_SEC;
	return 0;
}

/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * The accelerator a VM gets: KVM when it runs a guest, TCG otherwise, whose
 * timings are an emulator's.  A /dev/kvm that opens and creates a VM is
 * not enough: under nested virtualisation qemu may fail to set up a vCPU
 * (an MSR the outer hypervisor refuses) and exit at once, or set it up and
 * never run it, so that every boot would look like a kernel hang.  So qemu
 * itself is tried with no kernel at all: its firmware (SeaBIOS) greets on
 * the ISA debug console (port 0x402) within milliseconds of the first
 * instruction.  A KVM guest whose first byte arrives within PROBE_NS runs.
 */
#include "core/compat.h"
#include "proc/supervise.h"
#include "vm/vm.h"

#include <errno.h>
#include <fcntl.h>
#include <linux/kvm.h>
#include <stdio.h>
#include <string.h>
#include <sys/ioctl.h>
#include <unistd.h>

/* Long enough for qemu to start on a busy host; KVM firmware speaks in ms. */
#define PROBE_NS (5 * UL_NS_PER_SEC)

/* Does /dev/kvm create a VM?  0, or -1 with why. */
static int kvm_device(char *why, size_t len)
{
	int fd = open("/dev/kvm", O_RDWR | O_CLOEXEC);
	int vm, api;

	if (fd < 0) {
		snprintf(why, len, "/dev/kvm: %s", strerror(errno));
		return -1;
	}
	api = ioctl(fd, KVM_GET_API_VERSION, 0);
	vm = api == KVM_API_VERSION ? ioctl(fd, KVM_CREATE_VM, 0) : -1;
	if (api != KVM_API_VERSION)
		snprintf(why, len, "/dev/kvm: API version %d, not %d", api, KVM_API_VERSION);
	else if (vm < 0)
		snprintf(why, len, "/dev/kvm cannot create a VM: %s", strerror(errno));
	if (vm >= 0)
		close(vm);
	close(fd);
	return vm >= 0 ? 0 : -1;
}

struct probe {
	char *const *argv;
	int *out; /* the spawn's report pipe: [1] is the firmware's console */
	char chardev[64];
};

/* The probe's child: qemu with its debug console on the report pipe and
 * its complaints silenced (they are ours to word). */
static int probe_exec(void *arg)
{
	struct probe *p = arg;
	int null = open("/dev/null", O_WRONLY | O_CLOEXEC);

	if (null >= 0)
		dup2(null, STDERR_FILENO);
	/* The pipe is made close-on-exec; qemu opens it as /dev/fd/N.  argv
	 * holds a pointer to p->chardev: filled here, once the pipe exists. */
	if (fcntl(p->out[1], F_SETFD, 0) < 0)
		return 126;
	snprintf(p->chardev, sizeof(p->chardev), "file,id=fw,path=/dev/fd/%d", p->out[1]);
	execv(p->argv[0], p->argv);
	return 127;
}

/* Does a KVM guest under qemu run its first instructions?  0, or -1 with why. */
static int kvm_qemu(struct ul_sup *sup, const char *qemu, char *why, size_t len)
{
	struct probe p;
	char *argv[] = { (char *)qemu,
			 (char *)"-accel",
			 (char *)"kvm",
			 (char *)"-cpu",
			 (char *)"host",
			 (char *)"-smp",
			 (char *)"1",
			 (char *)"-m",
			 (char *)"64M",
			 (char *)"-display",
			 (char *)"none",
			 (char *)"-nodefaults",
			 (char *)"-no-reboot",
			 (char *)"-chardev",
			 p.chardev,
			 (char *)"-device",
			 (char *)"isa-debugcon,iobase=0x402,chardev=fw",
			 NULL };
	int out[2] = { -1, -1 };
	struct ul_spawn_opts o = {
		.name = "kvm-probe", .fn = probe_exec, .arg = &p, .report_pipe = out
	};
	struct ul_child c;
	ul_nsec until = ul_now_ns() + PROBE_NS;
	bool spoke = false, gone = false;
	int rc;

	p.argv = argv;
	p.out = out;
	p.chardev[0] = '\0';
	rc = ul_spawn(sup, &o, &c);
	if (rc) {
		snprintf(why, len, "cannot start %s: %s", qemu, strerror(-rc));
		return -1;
	}
	while (!spoke) {
		struct ul_child *ex = NULL;
		enum ul_wait_result w = ul_sup_wait(sup, gone ? -1 : out[0], until, &ex);
		char byte;

		if (w == UL_WAIT_READY) {
			ssize_t n = read(out[0], &byte, 1);

			spoke = n > 0;
			gone = n == 0; /* qemu closed it: its exit comes next */
		} else if (w == UL_WAIT_CHILD_EXITED && ex == &c) {
			char how[64];

			ul_child_describe(&c, how, sizeof(how));
			snprintf(why, len,
				 "qemu cannot run a KVM guest here (it ended at once: %s)", how);
			close(out[0]);
			return -1;
		} else if (w == UL_WAIT_TIMEOUT || w == UL_WAIT_INTERRUPTED) {
			(void)ul_sup_stop(sup, &c, UL_NS_PER_SEC);
			close(out[0]);
			if (w == UL_WAIT_INTERRUPTED)
				snprintf(why, len, "interrupted");
			else
				snprintf(why, len,
					 "/dev/kvm creates a VM but its guest never ran "
					 "(no firmware output in %d s)",
					 (int)(PROBE_NS / UL_NS_PER_SEC));
			return -1;
		}
	}
	(void)ul_sup_stop(sup, &c, UL_NS_PER_SEC);
	close(out[0]);
	return 0;
}

const char *ul_vm_accel(struct ul_sup *sup, const char *qemu, char *why, size_t len)
{
	if (kvm_device(why, len) || kvm_qemu(sup, qemu, why, len))
		return "tcg";
	why[0] = '\0';
	return "kvm";
}

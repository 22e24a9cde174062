// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * The accelerator a VM gets: KVM when it works, TCG otherwise, whose
 * timings are an emulator's.  A /dev/kvm that opens and creates a VM is
 * not enough: under nested virtualisation qemu may still fail to set up
 * a vCPU (an MSR the outer hypervisor refuses) and exit at once.  So qemu
 * itself is tried: paused (-S) after its machine reset, a KVM guest that
 * is still there after PROBE_NS works.
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

#define PROBE_NS (3 * UL_NS_PER_SEC)

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

/* The probe's child: qemu with its complaints silenced (they are ours to word). */
static int quiet_exec(void *arg)
{
	char *const *argv = arg;
	int null = open("/dev/null", O_WRONLY | O_CLOEXEC);

	if (null >= 0)
		dup2(null, STDERR_FILENO);
	execv(argv[0], argv);
	return 127;
}

/* Does qemu keep a KVM guest up?  0, or -1 with why. */
static int kvm_qemu(struct ul_sup *sup, const char *qemu, char *why, size_t len)
{
	char *argv[] = { (char *)qemu,	       (char *)"-accel", (char *)"kvm",
			 (char *)"-cpu",       (char *)"host",	 (char *)"-smp",
			 (char *)"1",	       (char *)"-m",	 (char *)"64M",
			 (char *)"-display",   (char *)"none",	 (char *)"-nodefaults",
			 (char *)"-no-reboot", (char *)"-S",	 NULL };
	struct ul_spawn_opts o = { .name = "kvm-probe", .fn = quiet_exec, .arg = argv };
	struct ul_child c;
	ul_nsec until = ul_now_ns() + PROBE_NS;
	int rc = ul_spawn(sup, &o, &c);

	if (rc) {
		snprintf(why, len, "cannot start %s: %s", qemu, strerror(-rc));
		return -1;
	}
	for (;;) {
		struct ul_child *ex = NULL;
		enum ul_wait_result w = ul_sup_wait(sup, -1, until, &ex);

		if (w == UL_WAIT_CHILD_EXITED && ex == &c) {
			char how[64];

			ul_child_describe(&c, how, sizeof(how));
			snprintf(why, len,
				 "qemu cannot run a KVM guest here (it ended at once: %s)", how);
			return -1;
		}
		if (w == UL_WAIT_TIMEOUT || w == UL_WAIT_INTERRUPTED) {
			(void)ul_sup_stop(sup, &c, UL_NS_PER_SEC);
			if (w == UL_WAIT_INTERRUPTED) {
				snprintf(why, len, "interrupted");
				return -1;
			}
			return 0;
		}
	}
}

const char *ul_vm_accel(struct ul_sup *sup, const char *qemu, char *why, size_t len)
{
	if (kvm_device(why, len) || kvm_qemu(sup, qemu, why, len))
		return "tcg";
	why[0] = '\0';
	return "kvm";
}

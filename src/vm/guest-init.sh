#!/bin/busybox sh
# SPDX-License-Identifier: GPL-2.0-or-later
# The guest's init for `underload vm` (in the initramfs it builds): load
# the modules, mount the scratch disk on /tmp and /var/tmp, cgroup v2, the
# share read-write on /run/underload-vm; run `underload run` there, print
# UL-VM-RUN-DONE and power off.  The guest sees nothing of the host but
# this initramfs (busybox, /opt/underload: underload and its helpers, the
# libraries they load at their paths), the scratch disk and the share.
# /env (written by the host) sets UL_LABEL and the run's arguments
# (set --); the share's run-uuid is the run's id the host made for this
# boot (the only run it takes back).  Test hooks, set on the kernel's
# command line (cmd/vm.c: UL_TEST_VM_PANIC, UL_TEST_VM_HANG), act once the
# run is inside a test: ul_panic_test=1 crashes the kernel; ul_hang_test=1
# makes the guest stop making progress.  Each step that may wait is named
# on the console first ("ul-vm: init: STEP", UL_VM_PHASE_MARK): a boot the
# host stops as hung says how far its guest got (vm.h, ul_vm_boot_phase).
/bin/busybox --install -s /bin
export PATH=/bin
mount -t proc proc /proc
mount -t sysfs sysfs /sys
mount -t devtmpfs dev /dev
echo "ul-vm: init: loading the modules"
for m in /mod/*.ko*; do
	[ -e "$m" ] && { insmod "$m" || echo "ul-vm: insmod $m failed"; }
done
eval "$(cat /env)" # also sets the run's arguments (set --)
s=/run/underload-vm
fail() { echo "ul-vm: $*"; poweroff -f; }
# What underload finds by these paths (mkswap, the hooks' programs).
mkdir -p /sbin /usr/bin /usr/sbin
for p in mkswap chrt env taskset; do
	ln -s /bin/busybox /sbin/$p
	ln -s /bin/busybox /usr/bin/$p
done
echo "ul-vm: init: mounting the scratch disk"
for _ in $(seq 100); do [ -b /dev/vda ] && break; sleep 0.1; done
mkdir -p /dev/shm /dev/pts
mount -t tmpfs -o mode=1777 tmpfs /dev/shm
mount -t devpts devpts /dev/pts
mount -t cgroup2 cgroup2 /sys/fs/cgroup || fail "cannot mount cgroup2"
mount -t ext4 /dev/vda /tmp || fail "cannot mount the scratch disk"
mkdir -p /tmp/var-tmp /var/tmp
chmod 1777 /tmp /tmp/var-tmp
mount -o bind /tmp/var-tmp /var/tmp
mount -t tmpfs -o mode=755 tmpfs /run
mkdir -p $s
echo "ul-vm: init: mounting the share"
mount -t 9p -o trans=virtio,version=9p2000.L,msize=524288,cache=mmap ulshare $s ||
	fail "cannot mount the share"
# Signs of life for the host's watchdog while this kernel answers.
(while :; do date +%s >$s/alive; sleep 2; done) &
in_test() { until grep -qs '^at ' $s/journal/*.journal; do sleep 0.2; done; }
if [ -n "${ul_panic_test:-}" ]; then
	(in_test
	 echo "ul-vm: test hook: echo c > /proc/sysrq-trigger"
	 echo c >/proc/sysrq-trigger) &
fi
if [ -n "${ul_hang_test:-}" ]; then
	# Every process but this init stopped (the run, "alive"): nothing
	# prints or writes again while qemu runs on, as with a kernel that
	# livelocked.  Only the host's watchdog ends it.  (busybox has no
	# chrt for a real-time spinner, and the guest has no host program.)
	(in_test
	 echo "ul-vm: test hook: every process stopped"
	 kill -STOP -1) &
fi
echo "ul-vm: kernel $(uname -r) up, $(grep -c ^processor /proc/cpuinfo) CPUs"
echo "ul-vm: init: running underload"
cd /tmp
env -i PATH=/opt/underload:/bin:/sbin:/usr/bin:/usr/sbin HOME=/tmp TERM=dumb LANG=C.UTF-8 \
	UL_JOURNAL_DIR=$s/journal UL_VM_RUN_UUID="$(cat $s/run-uuid)" /opt/underload/underload run \
	--db $s/guest.db --label "$UL_LABEL" "$@" 2>&1
st=$?
echo "UL-VM-RUN-DONE $st"
cd /
sync
umount $s /var/tmp /tmp 2>/dev/null
poweroff -f

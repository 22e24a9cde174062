#!/bin/busybox sh
# The guest's init for `underload vm` (in the initramfs it builds): load
# the modules, mount the host's root read-only over 9p with the scratch
# disk on /tmp and /var/tmp, cgroup v2, the share read-write on
# /run/underload-vm; run `underload run` there, print UL-VM-RUN-DONE and
# power off.  /env (written by the host) sets UL_EXE, UL_PATH, UL_LABEL
# and the run's arguments (set --); the share's run-uuid is the run's id
# the host made for this boot (the only run it takes back).  Test hooks, set on the kernel's command
# line (cmd/vm.c: UL_TEST_VM_PANIC, UL_TEST_VM_HANG), act once the run is
# inside a test: ul_panic_test=1 crashes the kernel; ul_hang_test=1 makes
# the guest stop making progress.
/bin/busybox --install -s /bin
export PATH=/bin
mount -t proc proc /proc
mount -t sysfs sysfs /sys
mount -t devtmpfs dev /dev
for m in /mod/*.ko*; do
	[ -e "$m" ] && { insmod "$m" || echo "ul-vm: insmod $m failed"; }
done
eval "$(cat /env)" # also sets the run's arguments (set --)
n=/newroot
s=$n/run/underload-vm
fail() { echo "ul-vm: $*"; poweroff -f; }
mount -t 9p -o trans=virtio,version=9p2000.L,ro,msize=524288,cache=loose hostroot $n ||
	fail "cannot mount the host's root over 9p"
for _ in $(seq 100); do [ -b /dev/vda ] && break; sleep 0.1; done
mount -t proc proc $n/proc && mount -t sysfs sysfs $n/sys && mount -t devtmpfs dev $n/dev ||
	fail "cannot mount /proc, /sys or /dev"
mkdir -p $n/dev/shm $n/dev/pts
mount -t tmpfs -o mode=1777 tmpfs $n/dev/shm
mount -t devpts devpts $n/dev/pts
mount -t cgroup2 cgroup2 $n/sys/fs/cgroup || fail "cannot mount cgroup2"
# The executable's directory stays visible at its path even under /tmp,
# which the scratch disk covers: held by a bind mount made before it.
d=${UL_EXE%/*}
mount -o bind "$n$d" /keep || fail "cannot hold $d"
mount -t ext4 /dev/vda $n/tmp || fail "cannot mount the scratch disk"
mkdir -p $n/tmp/var-tmp
chmod 1777 $n/tmp $n/tmp/var-tmp
mount -o bind $n/tmp/var-tmp $n/var/tmp
[ -d "$n$d" ] || mkdir -p "$n$d"
mount -o bind /keep "$n$d" || fail "cannot mount $d back"
mount -t tmpfs -o mode=755 tmpfs $n/run
mkdir -p $s
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
	# Real-time throttling off, then a SCHED_FIFO 99 spinner on every CPU:
	# no other task (the run, "alive", the kernel's workers) runs
	# again, and the console falls silent while qemu runs on, as with a
	# kernel that livelocked.  Only the host's watchdog ends it.
	(in_test
	 echo "ul-vm: test hook: a real-time spinner on every CPU"
	 echo -1 >/proc/sys/kernel/sched_rt_runtime_us
	 chroot $n /usr/bin/chrt -f 99 /bin/sh -c 'spin="while :; do :; done"
		for c in $(seq 1 $(($(nproc) - 1))); do taskset -c $c sh -c "$spin" & done
		exec taskset -c 0 sh -c "$spin"') &
fi
echo "ul-vm: kernel $(uname -r) up, $(grep -c ^processor /proc/cpuinfo) CPUs"
chroot $n /usr/bin/env -i PATH="$UL_PATH" HOME=/tmp TERM=dumb LANG=C.UTF-8 \
	UL_JOURNAL_DIR=/run/underload-vm/journal UL_VM_RUN_UUID="$(cat $s/run-uuid)" "$UL_EXE" run \
	--db /run/underload-vm/guest.db --label "$UL_LABEL" "$@" 2>&1
st=$?
echo "UL-VM-RUN-DONE $st"
sync
umount $s $n/var/tmp $n/tmp 2>/dev/null
poweroff -f

# SPDX-License-Identifier: GPL-2.0-or-later
# What the tests of `underload vm` share (t0120-vm.sh, t0121-vm-hang.sh);
# sourced after lib.bash.  Skips the whole file, saying why, on a machine
# that cannot boot a VM; else sets $kernel (Debian's newest image), $rel
# (its release, the runs' label), RUN (a run as short as a run can be:
# TCG is slow and CI time matters) and a private journal directory.
skip_all() { echo "1..0 # SKIP $*"; exit 0; }
[ "$(id -u)" = 0 ] || skip_all "needs root"
command -v qemu-system-x86_64 >/dev/null || skip_all "no qemu-system-x86_64 (package qemu-system-x86)"
kernel=$(ls -1 /boot/vmlinuz-* 2>/dev/null | sort -V | tail -n 1)
[ -n "$kernel" ] || skip_all "no /boot/vmlinuz-* (package linux-image-amd64)"
bb=$(command -v busybox) || skip_all "no busybox (package busybox-static)"
ldd "$bb" >/dev/null 2>&1 && skip_all "$bb is not static (package busybox-static)"
command -v mkfs.ext4 >/dev/null || skip_all "no mkfs.ext4 (package e2fsprogs)"
export UL_JOURNAL_DIR=$TMP/journal
mkdir -m 0700 "$UL_JOURNAL_DIR"
rel=${kernel#/boot/vmlinuz-}
RUN=(run --quick --tests noload --no-progress --interval 100ms --min-points 3 --max-points 3
	-o resp.working-set=1M -o resp.files=4 -o resp.cpu-work=100000)
# "label status,..." of a store's runs, oldest first.
runs() { sqlite3 "$1" "SELECT label || ' ' || status FROM runs ORDER BY id" | paste -sd,; }
# The work directory vm said it made (in its output file $1).
work_of() { sed -n 's/^vm: working in //p' "$1"; }
# Is the work directory named in output file $1 still there?
work_left() { test -e "$(work_of "$1")" && echo left; }

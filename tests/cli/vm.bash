# SPDX-License-Identifier: GPL-2.0-or-later
# What the tests that boot VMs share (t0120-vm.sh, t0121-vm-hang.sh,
# t0122, t0123, t0421-bisect.sh, t0426-bisect-crash.sh); sourced after
# lib.bash.  Skips the whole file, saying why, on a machine that cannot
# boot a VM; else sets $kernel
# (Debian's newest image), $rel (its release, the runs' label), RUN (a run
# as short as a run can be: TCG is slow and CI time matters) and a private
# journal directory.
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
# What vm said of its boots that did not finish (how far each guest got,
# qemu's CPU time, its console's last lines), from its output files $1
# (stdout) and $2 (stderr), as diag lines:
# the cause of an unexpected hang is in the test's log.
unfinished_diag() {
	{ grep -E '^vm: boot [0-9]+( of [0-9]+)?: (the |qemu )' "$1"; grep 'vm: boot' "$2"; } |
		sed 's/^/# /'
}
# like (lib.bash) on the output file $TMP/out: out_like PATTERN DESCRIPTION.
out_like() { like "$(cat "$TMP/out")" "$@"; }
# Wait up to $2 tenths of a second for a line matching $1 in output file $3.
wait_line() { for _ in $(seq "$2"); do grep -q "$1" "$3" && return; sleep 0.1; done; }
# kill -9 `underload $3` (process $1, writing output file $2) a second
# into a boot, then `underload cleanup`: qemu dies with it, and cleanup
# exits 0, removes the work directory and leaves nothing for another.
killed_then_cleanup() {
	sleep 1
	kill -KILL "$1"
	wait "$1" 2>/dev/null
	for _ in $(seq 50); do [ "$(ul_procs)" = 0 ] && break; sleep 0.1; done
	is "$(ul_procs)" 0 "qemu dies with a killed $3"
	"$UL" cleanup >"$TMP/cl" 2>&1
	is $? 0 "cleanup exits 0"
	is "$(work_left "$2")" "" "cleanup removed the work directory"
	is "$("$UL" cleanup 2>&1)" "0 changes undone" "and left nothing for another cleanup"
}

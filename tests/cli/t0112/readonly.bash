# SPDX-License-Identifier: GPL-2.0-or-later
# shellcheck shell=bash
# Sourced by t0112-sweep.sh (root, $SW, $sw0, $RUN): a sweep that cannot
# write a sysctl says why (a read-only /proc/sys, as in a container), not
# that the sysctl is off the allow-list.
ro_proc_sys() { # CMD...: run in a mount namespace where /proc/sys is read-only
	unshare -m sh -c 'mount --bind /proc/sys /proc/sys &&
		mount -o remount,ro,bind /proc/sys && exec "$@"' sh "$@"
}
if ro_proc_sys true 2>/dev/null; then
	ro_proc_sys "$UL" sweep vm.swappiness=10 -- "${RUN[@]}" >/dev/null 2>"$TMP/err"
	is $? 1 "a sweep under a read-only /proc/sys exits 1"
	like "$(cat "$TMP/err")" "cannot change vm.swappiness: Read-only file system" "saying why"
	ok $(grep -q "not a setting a sweep may change" "$TMP/err"; echo $((!$?))) \
		"not that vm.swappiness is off the allow-list"
	is "$(cat "$SW")" "$sw0" "vm.swappiness is untouched"
else
	for _ in 1 2 3 4; do skip "no mount namespace with a read-only /proc/sys here"; done
fi

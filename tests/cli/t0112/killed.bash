# SPDX-License-Identifier: GPL-2.0-or-later
# shellcheck shell=bash
# Sourced by t0112-sweep.sh (root, $SW, $sw0, $RUN, other, wait_change):
# what a killed sweep left behind meets the next sweep and cleanup.
v1=$(other "$sw0" | cut -d, -f1)
v2=$(other "$sw0" | cut -d, -f2)

# The next sweep writes back what a killed one left before it reads the
# original: otherwise it journals the killed sweep's value as the
# original and ends by restoring that.
"$UL" sweep "vm.swappiness=$v1" -- "${RUN[@]}" --min-points 50 --max-points 50 >/dev/null 2>&1 &
pid=$!
wait_change "$SW" "$sw0"
ok $? "a sweep set vm.swappiness to $v1"
ul_kill_all
wait "$pid" 2>/dev/null
is "$(cat "$SW")" "$v1" "after SIGKILL it is left at $v1"
"$UL" sweep "vm.swappiness=$v2" -- "${RUN[@]}" >/dev/null 2>"$TMP/err"
is $? 0 "the next sweep exits 0"
like "$(cat "$TMP/err")" "restored sysctl vm.swappiness $sw0, left by a sweep that was killed" \
	"it first wrote back what the killed sweep left"
like "$(cat "$TMP/err")" "vm.swappiness restored to $sw0" "and ends with the true original"
is "$(cat "$SW")" "$sw0" "vm.swappiness is $sw0 again"
"$UL" cleanup >"$TMP/clean" 2>&1
is $? 0 "cleanup of the killed sweep's run exits 0"
ok $(grep -q "sysctl" "$TMP/clean"; echo $((!$?))) "and finds no sysctl left to restore"
is "$(ls "$UL_JOURNAL_DIR" | wc -l)" 0 "no journal is left"

# cleanup during a live sweep leaves the settings alone: a killed sweep's
# entry (written here: a sweep settles real ones before it starts) waits
# until the live sweep is over, instead of changing the setting under
# its run.
"$UL" sweep "vm.swappiness=$v1" -- "${RUN[@]}" --min-points 50 --max-points 50 \
	>/dev/null 2>"$TMP/err" &
pid=$!
wait_change "$SW" "$sw0"
ok $? "a sweep set vm.swappiness to $v1"
printf 'underload-journal 1 999999999 0\nsysctl vm.swappiness %s\n' "$sw0" \
	>"$UL_JOURNAL_DIR/999999999.journal"
chmod 0600 "$UL_JOURNAL_DIR/999999999.journal"
"$UL" cleanup >"$TMP/clean" 2>&1
is $? 1 "cleanup during the sweep exits 1: something is left for later"
is "$(cat "$SW")" "$v1" "it did not change vm.swappiness under the live sweep"
like "$(cat "$TMP/clean")" "a sweep is changing system settings" "and says why"
kill -INT "$pid"
wait "$pid"
is $? 130 "the sweep, stopped, exits 130"
"$UL" cleanup >"$TMP/clean" 2>&1
is $? 0 "cleanup after the sweep exits 0"
like "$(cat "$TMP/clean")" "restored sysctl vm.swappiness $sw0" "and writes the entry back"
is "$(cat "$SW")" "$sw0" "vm.swappiness is $sw0"
is "$(ls "$UL_JOURNAL_DIR" | wc -l)" 0 "no journal is left"

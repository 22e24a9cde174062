#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-or-later
# underload sweep --within-run: one run whose rounds alternate a sysctl's
# two values A B B A, split into one run a value, labelled as a sweep of
# whole runs labels them, compared; the sysctl back to its original after
# success and after SIGKILL of the sweep and its run followed by
# `underload cleanup`.  What it refuses is refused before anything changes.
. "$(dirname "$0")/lib.bash"

SW=/proc/sys/vm/swappiness
RUN=(run --tests noload "${TINY[@]}")
# Our own journals only: cleanup must not settle other people's runs.
export UL_JOURNAL_DIR=$TMP/journal
mkdir -p "$UL_JOURNAL_DIR" && chmod 700 "$UL_JOURNAL_DIR"
wait_change() { # wait_change FILE ORIGINAL: until it differs (at most 60 s)
	for _ in $(seq 600); do [ "$(cat "$1")" != "$2" ] && return 0; sleep 0.1; done
	return 1
}
# label round setting, one line a cell, in round order
cells() {
	sqlite3 -separator ' ' "$DB" "SELECT r.label, CAST(mr.value AS INTEGER),
		CAST(ms.value AS INTEGER) FROM runs r JOIN cells c ON c.run_id = r.id
		JOIN metrics mr ON mr.cell_id = c.id AND mr.name = 'round'
		JOIN metrics ms ON ms.cell_id = c.id AND ms.name = 'setting'
		ORDER BY mr.value" | tr '\n' ';'
}

# Only one sysctl with two values, no --runs, no --until-decided.
for args in "vm.swappiness=10,100,60" "vm.swappiness=10" "vm.swappiness=10,100 vm.dirty_ratio=10,20" \
	"cpus=0,1" "iosched=none,bfq" "vm.swappiness=10,100 --until-decided"; do
	# shellcheck disable=SC2086 # the words of $args are the arguments
	"$UL" sweep $args --within-run -- "${RUN[@]}" >/dev/null 2>"$TMP/err"
	is $? 2 "sweep $args --within-run is refused with exit 2"
done
"$UL" sweep vm.swappiness=10,100 --within-run -- "${RUN[@]}" --runs 4 >/dev/null 2>"$TMP/err"
is $? 2 "--runs in the run's arguments is refused with exit 2"
like "$(cat "$TMP/err")" "--within-run chooses the rounds" "and says why"
"$UL" sweep vm.swappiness=10,100 -- "${RUN[@]}" --round-sysctl vm.swappiness=10,100 \
	>/dev/null 2>"$TMP/err"
is $? 2 "--round-sysctl in the run's arguments is refused with exit 2"
"$UL" "${RUN[@]}" --runs 4 --round-sysctl vm.swappiness=10,100 >/dev/null 2>"$TMP/err"
is $? 2 "run --round-sysctl outside a sweep is refused with exit 2"
like "$(cat "$TMP/err")" "passed by 'underload sweep --within-run'" "and says why"
"$UL" run micro --tests noload "${TINY[@]}" --runs 4 --round-sysctl vm.swappiness=10,100 \
	>/dev/null 2>"$TMP/err"
is $? 2 "run --round-sysctl of a suite without rounds (micro) is refused with exit 2"
# The sweep itself refuses it, before it writes the first value.
"$UL" sweep vm.swappiness=10,100 --within-run -- run micro --tests noload "${TINY[@]}" \
	>/dev/null 2>"$TMP/err"
is $? 2 "sweep --within-run of a suite without rounds (micro) is refused with exit 2"
like "$(cat "$TMP/err")" "underload sweep: --within-run: the suite micro has no rounds" \
	"by the sweep, saying why"

if [ "$(id -u)" != 0 ] || [ ! -w "$SW" ]; then
	skip "needs root to change sysctls"
	done_testing
fi
# The original, read when no sweep (another test's) has it changed: a
# value read under a live sweep would be "restored" at the end over the
# true original.  Written back only when nobody holds the lock.
# (No lock file yet: no sweep ever ran, none can be running.)
LOCK=/run/underload/settings.lock
unlocked() { if [ -e "$LOCK" ]; then flock -w "$1" "$LOCK" "${@:2}"; else "${@:2}"; fi; }
sw0=$(unlocked 300 cat "$SW")
teardown() {
	ul_kill_all
	[ "$(cat "$SW")" = "$sw0" ] || unlocked 60 sh -c "echo $sw0 >$SW"
	rm -rf "$TMP"
}
trap teardown EXIT
# Two values that differ from the original and from each other.
if [ "$sw0" -lt 50 ]; then a=$((sw0 + 7)) b=$((sw0 + 31)); else a=$((sw0 - 7)) b=$((sw0 - 31)); fi

# The hook records the value each round ran with.
UL_TEST_ROUND_CMD="echo \$UL_ROUND \$(cat $SW) >>$TMP/rounds" \
	"$UL" sweep "vm.swappiness=$a,$b" --within-run -- "${RUN[@]}" >"$TMP/out" 2>"$TMP/err"
is $? 0 "sweep vm.swappiness=$a,$b --within-run exits 0" || sed 's/^/# /' "$TMP/err"
is "$(cat "$SW")" "$sw0" "vm.swappiness is back to $sw0"
is "$(tr '\n' ';' <"$TMP/rounds")" "1 $a;2 $b;3 $b;4 $a;" "the rounds ran with A B B A"
is "$(sqlite3 "$DB" 'SELECT label FROM runs ORDER BY id' | tr '\n' ' ')" \
	"vm.swappiness=$a vm.swappiness=$b " "one run a value, labelled by it; the whole run is gone"
is "$(cells)" \
	"vm.swappiness=$a 1 1;vm.swappiness=$b 2 2;vm.swappiness=$b 3 2;vm.swappiness=$a 4 1;" \
	"each run holds its value's cells, their round and setting"
idb=$(sqlite3 "$DB" "SELECT id FROM runs WHERE label = 'vm.swappiness=$b'")
is "$("$UL" show --env "$idb" --db "$DB" |
	awk '$1 == "sysctl.vm.swappiness:" { print $2 }')" "$b" \
	"the second run's fingerprint shows swappiness $b"
like "$(cat "$TMP/out")" "baseline 'vm.swappiness=$a'" "the comparison follows"
ok $(grep -q "unfair comparison" "$TMP/out"; echo $((!$?))) "the swept setting is expected"
is "$(ls "$UL_JOURNAL_DIR" | wc -l)" 0 "no journal is left"

# A value given twice is an A/A, labelled VALUE and VALUE#2.
rm -f "$DB"
"$UL" sweep "vm.swappiness=$a,$a" --within-run -- "${RUN[@]}" >/dev/null 2>"$TMP/err"
is $? 0 "the A/A vm.swappiness=$a,$a --within-run exits 0" || sed 's/^/# /' "$TMP/err"
is "$(cells)" \
	"vm.swappiness=$a 1 1;vm.swappiness=$a#2 2 2;vm.swappiness=$a#2 3 2;vm.swappiness=$a 4 1;" \
	"labelled vm.swappiness=$a and vm.swappiness=$a#2"
is "$(cat "$SW")" "$sw0" "vm.swappiness is back to $sw0"

# SIGKILL of the sweep and its run mid-run: cleanup puts the original back.
"$UL" sweep "vm.swappiness=$a,$b" --within-run -- "${RUN[@]}" --min-points 40 --max-points 40 \
	>/dev/null 2>&1 &
pid=$!
wait_change "$SW" "$sw0"
ok $? "the sweep changed vm.swappiness"
sleep 1
ul_kill_all
wait "$pid" 2>/dev/null
for _ in $(seq 100); do [ "$(ul_procs)" = 0 ] && break; sleep 0.1; done
ok $([ "$(cat "$SW")" != "$sw0" ]; echo $?) "after SIGKILL vm.swappiness is still changed"
"$UL" cleanup >"$TMP/clean" 2>&1
rc=$?
is $rc 0 "cleanup exits 0"
[ $rc = 0 ] || sed "s/^/# /" "$TMP/clean"
is "$(cat "$SW")" "$sw0" "cleanup restored vm.swappiness to $sw0"
is "$(ul_procs)" 0 "no process is left"
is "$(ls "$UL_JOURNAL_DIR" | wc -l)" 0 "cleanup settled every journal"
done_testing

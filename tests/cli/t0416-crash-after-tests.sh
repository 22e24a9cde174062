#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-or-later
# A machine that goes down in a run's final teardown (every test ended and
# stored, the status not yet): its journal's last "at" names the last
# test, which is stored ok.  Every view says one thing, that the run
# crashed after its last test ended, never "in" that test nor "in an
# unknown test".  The state is made as such a death leaves it: a finished
# run set back to 'running', and its journal from another boot
# ($UL_TEST_BOOT_ID; a test build).
. "$(dirname "$0")/lib.bash"

export UL_JOURNAL_DIR=$TMP/journal
mkdir -m 0700 "$UL_JOURNAL_DIR"
q() { sqlite3 "$DB" "$1"; }

UL_TEST_BOOT_ID=boot-1 "$UL" run "${TINY[@]}" --tests noload,cpuload --label late >/dev/null 2>&1
is "$? $(q "SELECT status FROM runs")" "0 complete" "a run of two tests completes"
uuid=$(q "SELECT uuid FROM runs")
q "UPDATE runs SET status = 'running'"
{
	echo "underload-journal 1 999999999 0 boot-1"
	echo "run $uuid $DB"
	echo "at 0 1 $(q "SELECT started_wall_ns FROM cells WHERE seq = 0") resp noload resp"
	echo "at 1 1 $(q "SELECT started_wall_ns FROM cells WHERE seq = 1") resp cpuload resp"
} >"$UL_JOURNAL_DIR/999999999.journal"
chmod 0600 "$UL_JOURNAL_DIR/999999999.journal"

export UL_TEST_BOOT_ID=boot-2 # the machine came back up
after="after its last test \(resp cpuload \(probe resp\), round 1\) ended, in its teardown or before another began"
out=$("$UL" list --db "$DB" 2>"$TMP/err")
is $? 0 "list exits 0"
like "$(cat "$TMP/err")" "^note: run ${uuid:0:8} crashed \(its machine went down\) $after: marked 'crashed'" \
	"marking it says it crashed after its last test"
like "$out" "^run ${uuid:0:8} \(late\) crashed $after$" "list says the same"
is "$(grep -c 'unknown test\|crashed in ' "$TMP/err" <(echo "$out") | awk -F: '{ s += $2 } END { print s }')" 0 \
	"neither 'in an unknown test' nor 'in' the test that ended"
is "$(q "SELECT status FROM runs") $(q "SELECT group_concat(outcome, ' ') FROM cells")" "crashed ok ok" \
	"the run is crashed, both its tests ok: no crashed cell"
out=$("$UL" show --db "$DB" --format text "$uuid" 2>&1)
like "$out" "^CRASHED: the machine went down $after \(a kernel crash, hang or reboot\); what the run finished is below$" \
	"show says the same, and no test lacks its measurement"
out=$("$UL" compare --db "$DB" late 2>&1)
like "$out" "^crashed: late: run ${uuid:0:8} crashed $after \(its finished tests are compared\)$" \
	"compare says the same"
"$UL" cleanup >/dev/null 2>&1
is "$(find "$UL_JOURNAL_DIR" -type f | wc -l)$(scratch_left)$(ul_procs)" 000 \
	"cleanup leaves no journal, no scratch directory, no process"
done_testing

#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-or-later
# The tests' UL_TEST_* hooks act only in a test build (-Dtest_hooks=true,
# src/core/testhook.h).  In one, UL_TEST_STORE_FAULT fails a commit and
# UL_TEST_BOOT_ID is the boot id a run's journal records, and
# UL_TEST_ROUND_CMD runs before each round.  In any other build (a
# release, a package; tests/run-all runs this file against its
# build-debug/ too) none changes anything, and a `cleanup` given
# another boot id leaves a live run alone.
. "$(dirname "$0")/lib.bash"

export UL_JOURNAL_DIR=$TMP/journal
mkdir -m 0700 "$UL_JOURNAL_DIR"
trap 'ul_kill_all; "$UL" cleanup >/dev/null 2>&1; rm -rf "$TMP"' EXIT
wait_for() { for _ in $(seq 600); do "$@" && return 0; sleep 0.1; done; return 1; }
cells() {
	sqlite3 "$DB" "SELECT count(*) FROM cells c JOIN runs r ON c.run_id = r.id WHERE r.label = '$1'" \
		2>/dev/null || echo 0
}
status() { sqlite3 "$DB" "SELECT status FROM runs WHERE label = '$1'"; }

hooks=$("$UL" --version | sed -n 's/^test hooks: //p')
like "$hooks" '^(yes|no)$' "--version says whether the test hooks are built in"

# A store fault on the first cell's commit.
err=$(UL_TEST_STORE_FAULT=add_cell:1:ENOSPC "$UL" run "${TINY[@]}" --tests noload --label fault \
	2>&1 >/dev/null)
rc=$?
if [ "$hooks" = yes ]; then
	is "$rc" 1 "with hooks: UL_TEST_STORE_FAULT fails the run's commit"
	like "$err" "injected by UL_TEST_STORE_FAULT" "and the error says it was injected"
	rm -f "$DB".recovery-*.json
else
	is "$rc" 0 "without hooks: a run under UL_TEST_STORE_FAULT succeeds"
	is "$(cells fault) $(status fault)" "1 complete" "its cell is stored and it is complete"
fi

# A command before each round (bench/round-alternation.sh changes a sysctl
# with it): it sees the round's number; its failure ends the run.
UL_TEST_ROUND_CMD="echo \"round \$UL_ROUND\" >>'$TMP/rounds.log'" \
	"$UL" run "${TINY[@]}" --tests noload --runs 2 --label rounds >/dev/null
rc=$?
err=$(UL_TEST_ROUND_CMD='exit 3' "$UL" run "${TINY[@]}" --tests noload --runs 2 \
	--label rounds-fail 2>&1 >/dev/null)
rc_fail=$?
if [ "$hooks" = yes ]; then
	is "$rc $(tr '\n' , <"$TMP/rounds.log")" "0 round 1,round 2," \
		"with hooks: UL_TEST_ROUND_CMD runs before each round with UL_ROUND"
	is "$rc_fail" 1 "a failing UL_TEST_ROUND_CMD fails the run"
	like "$err" "UL_TEST_ROUND_CMD before round 1 failed" "and says which round"
else
	is "$rc $(cat "$TMP/rounds.log" 2>/dev/null | wc -l)" "0 0" \
		"without hooks: UL_TEST_ROUND_CMD is not run"
	is "$rc_fail $(cells rounds-fail)" "0 2" "and cannot fail a run"
fi

# Another boot id: what a live run's journal records, and what cleanup does.
UL_TEST_BOOT_ID=boot-hook "$UL" run "${TINY[@]}" --tests noload,cpuload --interval 200ms \
	--min-points 15 --max-points 15 --label live >/dev/null 2>"$TMP/live.err" &
pid=$!
measuring() { [ "$(cells live)" -ge 1 ]; }
wait_for measuring
ok $? "the run is measuring its second test"
journal=$(find "$UL_JOURNAL_DIR" -name '*.journal' | head -n 1)
header=$(head -n 1 "$journal" 2>/dev/null)
if [ "$hooks" = yes ]; then
	like "$header" ' boot-hook$' "with hooks: its journal records UL_TEST_BOOT_ID as the boot id"
else
	like "$header" " $(cat /proc/sys/kernel/random/boot_id)\$" \
		"without hooks: its journal records the kernel's boot id"
	out=$(UL_TEST_BOOT_ID=boot-other "$UL" cleanup 2>&1)
	is "$(tail -n 1 <<<"$out")" "0 changes undone" \
		"a cleanup given another boot id leaves the live run alone"
	[ -f "$journal" ]
	ok $? "and its journal"
fi
wait "$pid"
is $? 0 "the run exits 0"
is "$(cells live) $(status live)" "2 complete" "with both cells, complete"
is "$(find "$UL_JOURNAL_DIR" -type f | wc -l)$(ul_procs)" 00 "no journal and no process left"
done_testing

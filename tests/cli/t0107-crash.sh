#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-or-later
# A kernel that crashes is a result, not a lost run.  A sandboxed run
# (--mem-limit, --swap) is killed with SIGKILL together with all its
# children at once (nothing of underload runs again), then what a reboot
# does is done by hand: the swap file is turned off, the cgroup removed,
# and the boot id changes ($UL_TEST_BOOT_ID stands in for
# /proc/sys/kernel/random/boot_id).  `underload list` must then show the
# run crashed at the test and round it was in, and `underload cleanup`
# leave no swap file, scratch directory or journal entry (crash.bash has
# how the machine dies, and why it is safe from the rest of the machine).
. "$(dirname "$0")/lib.bash"
. "$(dirname "$0")/crash.bash"

# Whatever happens, the swap file is not left on (same boot: a plain cleanup).
trap 'crash_kill >/dev/null 2>&1; swapoff "$SCRATCH"/underload-*/underload-swap-* 2>/dev/null
	"$UL" cleanup >/dev/null 2>&1; rm -rf "$TMP"' EXIT
v2_memory() {
	local m
	for m in $(awk '$0 ~ / - cgroup2 / { print $5 }' /proc/self/mountinfo); do
		grep -qw memory "$m/cgroup.controllers" 2>/dev/null && return 0
	done
	return 1
}
if [ "$(id -u)" != 0 ]; then
	skip "needs root for --swap and --mem-limit"
	done_testing
fi
if ! grep -qE ' - cgroup [^ ]+ [^ ]*[ ,]memory' /proc/self/mountinfo && ! v2_memory; then
	skip "no memory cgroup controller mounted"
	done_testing
fi
swap_files() { find "$SCRATCH" -name 'underload-swap-*' 2>/dev/null | wc -l; }
swap_on() { grep -q "$SCRATCH" /proc/swaps; }

export UL_TEST_BOOT_ID=boot-before
# Long tests (>= 6 s each): time to see the run in the second one.
LONG=(--interval 200ms --min-points 30 --max-points 30)
crash_run_at 1 8ctx-mem "${TINY[@]}" "${LONG[@]}" --mem-limit 64M --swap 32M \
	--tests noload,8ctx-mem --label crash
must $? "the sandboxed run is in 8ctx-mem (its journal says so), stopped there"
is "$(cells crash)" 1 "it stored noload"
swap_on
ok $? "its swap file is on"
uuid=$(q "SELECT uuid FROM runs WHERE label = 'crash'")
cg=$(find /sys/fs/cgroup -maxdepth 6 -type d -name "underload-${uuid:0:8}" 2>/dev/null | head -n 1)
[ -n "$cg" ]
must $? "its memory cgroup exists"
# The machine dies: every process, nobody tears anything down.
crash_kill
must $? "underload and all its children are gone"
is "$(cells crash) $(q "SELECT status FROM runs WHERE label = 'crash'")" "1 running" \
	"the run stored one cell and is still 'running'"

# What a reboot does: swap off, cgroups gone, another boot.
swapoff "$SCRATCH"/underload-*/underload-swap-*
ok $? "the swap file is turned off (as a reboot does)"
wait_for rmdir "$cg"
ok $? "the cgroup is removed (as a reboot does)"
export UL_TEST_BOOT_ID=boot-after

# The next command that reads the store marks the run crashed, at its test.
out=$("$UL" list --db "$DB" 2>"$TMP/err")
is $? 0 "list exits 0"
like "$out" "crash .* crashed " "list shows the run crashed"
like "$out" "run ${uuid:0:8} \(crash\) crashed in resp 8ctx-mem \(probe resp\), round 1" \
	"list names the test and round it crashed in"
like "$(cat "$TMP/err")" "run ${uuid:0:8} crashed .* in resp 8ctx-mem" "list says it marked the run"
is "$(q "SELECT status FROM runs WHERE label = 'crash'")" crashed "the run is stored as crashed"
is "$(q "SELECT c.outcome || ' ' || c.load FROM cells c JOIN runs r ON c.run_id = r.id
	WHERE r.label = 'crash' ORDER BY c.seq")" "ok noload
crashed 8ctx-mem" "its cells: noload ok, 8ctx-mem crashed"
like "$("$UL" show --db "$DB" --format text "$uuid")" "8ctx-mem .*crashed" \
	"show gives 8ctx-mem the outcome crashed"
out=$("$UL" compare --db "$DB" crash 2>&1)
like "$out" "^crashed: crash: run ${uuid:0:8} crashed in resp 8ctx-mem \(probe resp\), round 1" \
	"compare names the crashed run of the label as a finding"
like "$out" "8ctx-mem +\(crashed" "compare's seed table gives 8ctx-mem the outcome crashed"
like "$("$UL" compare --db "$DB" --format json crash 2>&1 >/dev/null)" \
	"label 'crash': run ${uuid:0:8} crashed in resp 8ctx-mem" "compare --format json says it on stderr"
"$UL" report --db "$DB" -o "$TMP/report.html" crash 2>"$TMP/err"
is $? 0 "report exits 0"
like "$(tr -d '\n' <"$TMP/report.html")" "8ctx-mem</h3><p class=\"note\">crashed: crash, run ${uuid:0:8}, round 1: the machine went down" \
	"the report notes the crash under resp 8ctx-mem"
is "$(swap_files) $(scratch_left) $(find "$UL_JOURNAL_DIR" -type f | wc -l)" "1 1 1" \
	"list removed nothing: swap file, scratch directory and journal are still there"

# cleanup removes what it left on disk and settles the journal.
out=$("$UL" cleanup 2>"$TMP/err")
is $? 0 "cleanup exits 0"
like "$out" 'removed swap .*underload-swap-' "cleanup removed the swap file"
like "$out" 'removed scratch .*underload-' "cleanup removed the scratch directory"
is "$(swap_files) $(scratch_left) $(find "$UL_JOURNAL_DIR" -type f | wc -l)" "0 0 0" \
	"no swap file, scratch directory or journal entry is left"
is "$(q "SELECT status FROM runs WHERE label = 'crash'")" crashed "the run stays crashed"
is "$("$UL" cleanup | tail -n 1)" "0 changes undone" "a second cleanup has nothing to do"

# Without list first, cleanup itself marks a crashed run, where it was.
export UL_TEST_BOOT_ID=boot-2
crash_run_at 1 cpuload "${TINY[@]}" "${LONG[@]}" --tests noload,cpuload --label crash2
must $? "a second run is in its second test, stopped there"
crash_kill
must $? "it is gone with all its children"
is "$(cells crash2) $(q "SELECT status FROM runs WHERE label = 'crash2'")" "1 running" \
	"it was killed in its second test"
export UL_TEST_BOOT_ID=boot-3
out=$("$UL" cleanup 2>"$TMP/err")
is $? 0 "cleanup exits 0"
like "$out" "marked run [0-9a-f-]{36} crashed in resp cpuload \(probe resp\), round 1, in $DB" \
	"cleanup marks it crashed at its test"
is "$(q "SELECT status FROM runs WHERE label = 'crash2'")" crashed "it is stored as crashed"
is "$(scratch_left) $(find "$UL_JOURNAL_DIR" -type f | wc -l)" "0 0" "nothing of it is left"
done_testing

#!/usr/bin/env bash
# A kernel that crashes is a result, not a lost run.  A sandboxed run
# (--mem-limit, --swap) is killed with SIGKILL together with all its
# children at once (nothing of underload runs again), then what a reboot
# does is done by hand: the swap file is turned off, the cgroup removed,
# and the boot id changes ($UL_TEST_BOOT_ID stands in for
# /proc/sys/kernel/random/boot_id).  `underload list` must then show the
# run crashed at the test and round it was in, and `underload cleanup`
# leave no swap file, scratch directory or journal entry.  A private
# journal directory keeps every other run on the machine out of it (with
# another boot id, cleanup would take their journals for a dead boot's).
. "$(dirname "$0")/lib.bash"

export UL_JOURNAL_DIR=$TMP/journal
mkdir -m 0700 "$UL_JOURNAL_DIR"
# Whatever happens, the swap file is not left on (same boot: a plain cleanup).
trap 'swapoff "$SCRATCH"/underload-*/underload-swap-* 2>/dev/null
	"$UL" cleanup >/dev/null 2>&1; rm -rf "$TMP"' EXIT
q() { sqlite3 "$DB" "$1" 2>/dev/null; }
cells() { q "SELECT count(*) FROM cells c JOIN runs r ON c.run_id = r.id WHERE r.label = '$1'" || echo 0; }
wait_for() { for _ in $(seq 600); do "$@" && return 0; sleep 0.1; done; return 1; }
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
# The pids of underload and everything it started (tagged by lib.bash).
ul_pids() {
	local f
	for f in /proc/[0-9]*/environ; do
		{ tr '\0' '\n' <"$f" | grep -qxF "UL_TEST_TAG=$TMP"; } 2>/dev/null &&
			{ f=${f#/proc/}; echo "${f%/environ}"; }
	done
}
no_procs() { [ "$(ul_procs)" = 0 ]; }
swap_files() { find "$SCRATCH" -name 'underload-swap-*' 2>/dev/null | wc -l; }
in_second_test() { [ "$(cells crash)" -ge 1 ] && grep -q "$SCRATCH" /proc/swaps; }

export UL_TEST_BOOT_ID=boot-before
# Long tests (>= 6 s each): the kill comes well inside the second one.
LONG=(--interval 200ms --min-points 30 --max-points 30)
"$UL" run "${TINY[@]}" "${LONG[@]}" --mem-limit 64M --swap 32M \
	--tests noload,8ctx-mem --label crash >/dev/null 2>"$TMP/err" &
pid=$!
wait_for in_second_test
ok $? "the sandboxed run stored noload and is in 8ctx-mem, its swap file on"
uuid=$(q "SELECT uuid FROM runs WHERE label = 'crash'")
cg=$(find /sys/fs/cgroup -maxdepth 6 -type d -name "underload-${uuid:0:8}" 2>/dev/null | head -n 1)
[ -n "$cg" ]
ok $? "its memory cgroup exists"
# The machine dies: every process at once, nobody tears anything down.
mapfile -t pids < <(ul_pids)
kill -KILL "${pids[@]}" 2>/dev/null
wait "$pid" 2>/dev/null
wait_for no_procs
ok $? "underload and all its children are gone"
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
"$UL" run "${TINY[@]}" "${LONG[@]}" --tests noload,cpuload --label crash2 >/dev/null 2>&1 &
pid=$!
second_measuring() { [ "$(cells crash2)" -ge 1 ]; }
wait_for second_measuring
ok $? "a second run is in its second test"
mapfile -t pids < <(ul_pids)
kill -KILL "${pids[@]}" 2>/dev/null
wait "$pid" 2>/dev/null
wait_for no_procs
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

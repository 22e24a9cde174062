#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-or-later
# Why was it slow: each resp sample's delay split into its parts (the
# why_* series).  Under cpuload and spawnload the run queue carries most of
# the delay above noload; under --mem-limit with --swap and a footprint
# above the limit, paging waits (swap-in, reclaim, thrashing, and block
# I/O, where this kernel counts swap-in from a swap file) show in the
# memory tests' typical sample and not under noload's; the parts of a sample never add up to more than its wall
# time; kernel.task_delayacct, switched on for the run, is back to its
# value after success, after SIGINT and after kill -9 + `underload cleanup`.
. "$(dirname "$0")/lib.bash"

DA=/proc/sys/kernel/task_delayacct
# A private journal directory keeps other runs on the machine out of cleanup.
export UL_JOURNAL_DIR=$TMP/journal
mkdir -m 0700 "$UL_JOURNAL_DIR"
cells() {
	sqlite3 "$DB" "SELECT count(*) FROM cells c JOIN runs r ON c.run_id = r.id WHERE r.label = '$1'" \
		2>/dev/null || echo 0
}
wait_for() { for _ in $(seq 600); do "$@" && return 0; sleep 0.1; done; return 1; }
v2_memory() {
	local m
	for m in $(awk '$0 ~ / - cgroup2 / { print $5 }' /proc/self/mountinfo); do
		grep -qw memory "$m/cgroup.controllers" 2>/dev/null && return 0
	done
	return 1
}

if [ "$(id -u)" != 0 ] || [ ! -w "$DA" ]; then
	skip "needs root and $DA for delay accounting, --mem-limit and --swap"
	done_testing
fi
if ! grep -qE ' - cgroup [^ ]+ [^ ]*[ ,]memory' /proc/self/mountinfo && ! v2_memory; then
	skip "no memory cgroup controller mounted: --mem-limit is impossible here"
	done_testing
fi
# Another underload run on the machine shares the switch (a shared flock
# on its lock file, proc/delayacct.h) and keeps it on: wait until none
# does, and skip a restore check that one started meanwhile makes moot.
others_hold() {
	local ino
	ino=$(stat -c %i /run/underload/delayacct.lock 2>/dev/null) || return 1
	awk -v ino="$ino" '$2 == "FLOCK" && $6 ~ (":" ino "$") { f = 1 } END { exit !f }' /proc/locks
}
none_hold() { ! others_hold; }
wait_for none_hold || diag "other underload runs keep delay accounting on"
orig=$(cat "$DA")
restored() { # restored DESCRIPTION: task_delayacct is back to $orig
	if others_hold; then
		skip "another underload run holds delay accounting: $1"
	else
		is "$(cat "$DA")" "$orig" "$1"
	fi
}

# One run: the CPU loads and the memory loads in a 64M sandbox whose loads
# want twice that, so the probe's working set is reclaimed.
"$UL" run "${TINY[@]}" --min-points 4 --max-points 4 -o resp.working-set=32M \
	--mem-limit 64M --swap 128M -o 8ctx-mem.footprint=128M -o 2ctx-mem.footprint=128M \
	--tests noload,cpuload,spawnload,8ctx-mem,2ctx-mem --label parts >/dev/null 2>"$TMP/err"
rc=$?
is "$rc" 0 "the run exits 0"
[ "$rc" = 0 ] || diag "$(cat "$TMP/err")"
restored "task_delayacct is back to $orig after the run"
"$UL" show --db "$DB" --format json last >"$TMP/show.json"
# Each check as "STATUS DESCRIPTION" (0 passes), turned into TAP below.
python3 - "$TMP/show.json" >"$TMP/checks" <<'PY'
import json, statistics, sys
def check(good, what):
    print(0 if good else 1, what)
doc = json.load(open(sys.argv[1]))
cells = {c["load"]: c["series"] for c in doc["cells"]}
parts = ["why_oncpu_ns", "why_runq_ns", "why_blkio_ns", "why_swapin_ns", "why_reclaim_ns",
         "why_thrash_ns", "why_compact_ns", "why_other_ns"]
check(sorted(cells) == ["2ctx-mem", "8ctx-mem", "cpuload", "noload", "spawnload"],
      f"every test has a cell ({sorted(cells)})")
for load, s in cells.items():
    # As root, with delay accounting: every part, one per sample.
    check(all(len(s.get(p, [])) == len(s["delay_ns"]) > 0 for p in parts),
          f"{load}: every part has one value per sample ({sorted(k for k in s if k.startswith('why_'))})")
    bad = [i for i, wall in enumerate(s["delay_ns"])
           if any(not isinstance(s[p][i], int) or s[p][i] < 0 for p in parts if p in s)
           or sum(s[p][i] for p in parts if p in s) > wall]
    check(not bad, f"{load}: no part negative, their sum at most the wall time (bad samples: {bad})")
med = lambda load, p: statistics.median(cells[load][p])
for load in ("cpuload", "spawnload"):
    above = med(load, "delay_ns") - med("noload", "delay_ns")
    runq = med(load, "why_runq_ns") - med("noload", "why_runq_ns")
    check(above > 0 and runq >= above / 2,
          f"{load}: the run queue carries most of the delay above noload "
          f"({runq / 1e6:.1f} of {above / 1e6:.1f} ms)")
# Paging waits: swap-in and reclaim, and block I/O, where this kernel
# (6.18, a swap file) counts the wait for a page read back from swap.
# Block I/O is not only paging: the first sample of a run can wait for a
# cold page of a program just built (0.14 ms under ASan, against 0.2-0.8 s
# per sample in the memory tests), so under noload the pure paging parts
# must be zero in every sample and block I/O in the typical one.
pure = ["why_swapin_ns", "why_reclaim_ns", "why_thrash_ns"]
paging = pure + ["why_blkio_ns"]
per_sample = lambda load, ps: [sum(cells[load][p][i] for p in ps)
                               for i in range(len(cells[load]["delay_ns"]))]
for load in ("8ctx-mem", "2ctx-mem"):
    m = statistics.median(per_sample(load, paging))
    check(m > 0, f"{load}: the median sample waits for paging ({m:.0f} ns)")
noload_pure = sum(per_sample("noload", pure))
check(noload_pure == 0, f"noload: no swap-in, reclaim or thrashing ({noload_pure} ns)")
noload_io = per_sample("noload", ["why_blkio_ns"])
check(statistics.median(noload_io) == 0,
      f"noload: the median sample waits for no block I/O ({noload_io} ns)")
least_mem = min(sum(per_sample(load, paging)) for load in ("8ctx-mem", "2ctx-mem"))
check(sum(noload_io) * 100 < least_mem,
      f"noload: block I/O under 1% of a memory test's paging ({sum(noload_io)} of {least_mem} ns)")
PY
ok $? "the checks of the stored parts ran"
while read -r status what; do ok "$status" "$what"; done <"$TMP/checks"

# SIGINT mid-run: switched on while it runs, back afterwards.
on_during() { # on_during LABEL SIGNAL: run, wait for a cell, check, signal
	"$UL" run "${TINY[@]}" --interval 300ms --tests noload,cpuload,spawnload --label "$1" \
		>/dev/null 2>&1 &
	pid=$!
	measuring() { [ "$(cells "$1")" -ge 1 ]; }
	wait_for measuring "$1"
	ok $? "$1: the run stored a cell"
	is "$(cat "$DA")" 1 "$1: task_delayacct is on while the run measures"
	kill -"$2" "$pid"
	wait "$pid" 2>/dev/null
}
on_during interrupted INT
restored "task_delayacct is back to $orig after SIGINT"
on_during killed KILL
if [ "$orig" = 0 ] && none_hold; then
	is "$(cat "$DA")" 1 "after SIGKILL it is still on"
else
	skip "task_delayacct was on before the test, or another run holds it"
fi
out=$("$UL" cleanup 2>&1)
is $? 0 "cleanup exits 0"
restored "task_delayacct is back to $orig after kill -9 + cleanup"
is "$(find "$UL_JOURNAL_DIR" -type f | wc -l)" 0 "no journal is left"
is "$(scratch_left)$(ul_procs)" 00 "no scratch directory and no process left"
done_testing

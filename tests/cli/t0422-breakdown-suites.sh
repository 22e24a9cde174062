#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-or-later
# Why was it slow, beyond resp: contest splits each job over its whole
# process tree, mtest each mtest01 run, fsbench each client's life and
# deadline each cell's window of its periodic task.  In every suite the
# why_* series are there, aligned index for index with the wall time they
# split (contest: wall_ns, mtest: mtest_elapsed_ns, fsbench and deadline:
# why_wall_ns, one per client / per cell), never negative, and never add
# up to more than it; the job's and the run's on-CPU part counts all the
# CPU their process tree burnt, as their rusage does (the kernel's exit
# records alone miss each task's last stretch on a CPU: a short task's
# read as 0); show --format breakdown (and show's JSON) prints every
# suite's tests, fsbench's and deadline's over why_wall_ns.
. "$(dirname "$0")/lib.bash"

if [ "$(id -u)" != 0 ] || [ ! -w /proc/sys/kernel/task_delayacct ]; then
	skip "needs root (taskstats exit records) and kernel.task_delayacct"
	done_testing
fi
# A private journal directory keeps other runs on the machine out of cleanup.
export UL_JOURNAL_DIR=$TMP/journal
mkdir -m 0700 "$UL_JOURNAL_DIR"

BASE=(--dir "$SCRATCH" --db "$DB" --no-progress)
# The job's CPU is burnt in three forked children, none in the job's shell
# (its \$ reach the children's shells: the job's shell keeps them).
LOOP='i=0; while [ \$i -lt 30000 ]; do i=\$((i+1)); done'
JOB="sh -c 'sh -c \"$LOOP\"; sh -c \"$LOOP\"; sh -c \"$LOOP\"; true'"

# suite LABEL ARGS...: one run, its show --format json and breakdown kept.
suite() {
	local label=$1
	shift
	"$UL" run "$@" "${BASE[@]}" --label "$label" >/dev/null 2>"$TMP/$label.err"
	is $? 0 "$label: the run exits 0"
	"$UL" show --db "$DB" --format json last >"$TMP/$label.json" &&
		"$UL" show --db "$DB" --format breakdown last >"$TMP/$label.bd"
	is $? 0 "$label: show --format json and breakdown exit 0"
}
suite contest contest --job "$JOB" --tests noload --runs 2 --quick --no-drop-caches \
	--lead-time 100ms
suite mtest mtest --runs 2 --mtest-target 4M --deadline none --monitor-interval 0
suite fsbench fsbench --clients 2 --runs 2 --duration 1s --warmup 0 --loadfile builtin \
	--monitor-interval 0
suite deadline deadline --tests noload,cpuload --interval 100ms --min-points 3

# Each check as "STATUS DESCRIPTION" (0 passes), turned into TAP below.
python3 - "$TMP" >"$TMP/checks" <<'PY'
import json, statistics, sys
tmp = sys.argv[1]
def check(good, what):
    print(0 if good else 1, what)
ALWAYS = ["why_oncpu_ns", "why_runq_ns", "why_other_ns"]
PARTS = ["why_oncpu_ns", "why_runq_ns", "why_blkio_ns", "why_swapin_ns", "why_reclaim_ns",
         "why_thrash_ns", "why_compact_ns", "why_other_ns"]
# suite: (the wall series, the series the parts align with index for index)
WALL = {"contest": ("wall_ns", "wall_ns"), "mtest": ("mtest_elapsed_ns", "mtest_elapsed_ns"),
        "fsbench": ("why_wall_ns", "fsbench_client_ops"), "deadline": ("why_wall_ns", None)}
for suite, (wall_name, samples_name) in WALL.items():
    doc = json.load(open(f"{tmp}/{suite}.json"))
    cells = [c for c in doc["cells"] if c["suite"] == suite]
    check(len(cells) == 2, f"{suite}: two cells ({len(cells)})")
    for c in cells:
        s, where = c["series"], f"{suite} {c['load']} #{c['seq']}"
        wall = s.get(wall_name, [])
        n = len(s[samples_name]) if samples_name else 1
        check(c["outcome"] == "ok" and len(wall) == n > 0,
              f"{where}: {wall_name} has one value per sample ({len(wall)} of {n})")
        # As root, with delay accounting switched on for the run: every part.
        check(all(len(s.get(p, [])) == n for p in PARTS),
              f"{where}: every part has one value per sample "
              f"({sorted((k, len(v)) for k, v in s.items() if k.startswith('why_'))})")
        bad = [i for i in range(min(n, len(wall)))
               if any(not isinstance(s[p][i], int) or s[p][i] < 0 for p in PARTS if p in s)
               or sum(s[p][i] for p in PARTS if p in s) > wall[i]]
        check(not bad, f"{where}: no part negative, their sum at most the wall time (bad: {bad})")
        # On-CPU holds the tree's whole CPU (the rusage), cut only to the wall time.
        CPU = {"contest": ("user_ns", "sys_ns"), "mtest": ("mtest_user_ns", "mtest_sys_ns")}
        if suite in CPU:
            cpu = [u + y for u, y in zip(*(s.get(k, []) for k in CPU[suite]))]
            oncpu = s.get("why_oncpu_ns", [])
            check(len(oncpu) == len(cpu) == n and
                  all(o >= min(w, c) > 0 for o, w, c in zip(oncpu, wall, cpu)),
                  f"{where}: on-CPU counts the tree's CPU ({oncpu} ns, rusage {cpu} ns, "
                  f"wall {wall} ns)")
        if suite == "contest":
            check(cpu and min(cpu) >= 10e6,
                  f"{where}: the job's children burnt their loops ({cpu} ns)")
    # show's JSON: a row per test, over the wall series.
    rows = [r for r in doc.get("breakdown", []) if r["suite"] == suite]
    loads = sorted({c["load"] for c in cells})
    check(sorted(r["load"] for r in rows) == loads, f"{suite}: a breakdown row per test ({rows})")
    for r in rows:
        pooled = [v for c in cells if c["load"] == r["load"] for v in c["series"].get(wall_name, [])]
        m = statistics.median(pooled) if pooled else None
        check(r["series"] == wall_name and m and abs(r["median"] - m) <= m * 1e-9,
              f"{suite} {r['load']}: the row's median is {wall_name}'s ({r['series']}, {r['median']})")
PY
ok $? "the checks of the stored parts ran"
while read -r status what; do ok "$status" "$what"; done <"$TMP/checks"

# show --format breakdown: a block per suite, a row per test.
like "$(cat "$TMP/contest.bd")" "^suite contest, probe job: median delay" "contest: its block"
like "$(cat "$TMP/contest.bd")" "^  noload +[0-9.]+ [mµn]?s += " "contest: the job's row"
like "$(cat "$TMP/mtest.bd")" "^suite mtest, probe mtest01: median delay" "mtest: its block"
like "$(cat "$TMP/mtest.bd")" "^  mtest01 +[0-9.]+ [mµn]?s += " "mtest: the run's row"
like "$(cat "$TMP/fsbench.bd")" "^suite fsbench, probe fsbench: median delay" "fsbench: its block"
like "$(cat "$TMP/fsbench.bd")" "^  noload +[0-9.]+ [mµn]?s += " "fsbench: the clients' row, in time"
like "$(cat "$TMP/deadline.bd")" "^suite deadline, probe deadline: median delay" "deadline: its block"
like "$(cat "$TMP/deadline.bd")" "^  cpuload +[0-9.]+ [mµn]?s += " "deadline: a test's row"
is "$(find "$UL_JOURNAL_DIR" -type f | wc -l)" 0 "no journal is left"
is "$(scratch_left)$(ul_procs)" 00 "no scratch directory and no process left"
done_testing

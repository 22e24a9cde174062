#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-or-later
# Why it was slow, shown: runs imported here with a breakdown of every
# sample (the why_*_ns series of model/breakdown.def) of known values.
# show --format breakdown prints per test the median delay and the median
# of each part, aligned, with units; a part delay accounting did not count
# is "n/c", never 0; a cell without the always-present parts (or with a
# part not aligned with its samples) shows nothing and no error; the text
# format carries the same block and show's JSON the same numbers.
. "$(dirname "$0")/lib.bash"

# make_runs OUT LABEL:RUNQ_MS:DELAYACCT ...: one run per argument, resp
# suite, tests noload and spawnload of 7 samples each, and a cpuload cell
# without a breakdown.  Sample i of spawnload in run n (from 0): on-CPU
# 51.2 + 0.02 n ms + (i-3) 0.1 ms, run queue RUNQ + 0.3 n ms + (i-3) ms,
# other 7.6 + 0.01 (7n mod 3) ms + (i-3) 0.01 ms, the
# delay-accounting parts 0 (absent when DELAYACCT is 0); noload: on-CPU
# 1 ms, run queue 0.2 ms, other 0.3 ms, each + (i-3) us.  The delay of a
# sample is the sum of its parts.
make_runs() {
	python3 - "$@" <<'PY'
import json, sys, uuid
MS = 1000000
DA = ["why_blkio_ns", "why_swapin_ns", "why_reclaim_ns", "why_thrash_ns", "why_compact_ns"]
def cell(seq, load, parts, delayacct, extra=None):
    series = {k: [int(round(f(i))) for i in range(7)] for k, f in parts.items()}
    if delayacct:
        series.update({k: [0] * 7 for k in DA})
    delay = [sum(v[i] for v in series.values()) for i in range(7)]
    if extra:
        extra(series)
    return {"seq": seq, "suite": "resp", "load": load, "probe": "resp", "outcome": "ok",
            "flags": 0, "note": "", "load_unit": "", "load_units": 0,
            "started_ns": 10**18 + seq, "finished_ns": 10**18 + seq + 1,
            "series": [{"name": "delay_ns", "values": delay}] +
                      [{"name": k, "values": v} for k, v in series.items()],
            "metrics": []}
runs = []
for n, arg in enumerate(sys.argv[2:]):
    label, runq, da = arg.split(":")
    runq, da = float(runq), da == "1"
    noload = {"why_oncpu_ns": lambda i: 1 * MS + (i - 3) * 1000,
              "why_runq_ns": lambda i: 0.2 * MS + (i - 3) * 1000,
              "why_other_ns": lambda i: 0.3 * MS + (i - 3) * 1000}
    spawn = {"why_oncpu_ns": lambda i, n=n: (51.2 + 0.02 * n) * MS + (i - 3) * 0.1 * MS,
             "why_runq_ns": lambda i, r=runq, n=n: (r + 0.3 * n) * MS + (i - 3) * MS,
             "why_other_ns": lambda i, n=n: (7.6 + 0.01 * (n * 7 % 3)) * MS + (i - 3) * 0.01 * MS}
    cells = [cell(0, "noload", noload, da), cell(1, "spawnload", spawn, da),
             # the delay alone: no breakdown
             {**cell(2, "cpuload", {}, False), "series": [{"name": "delay_ns", "values": [5 * MS] * 7}]},
             # a run queue series shorter than the samples: not aligned, no breakdown
             cell(3, "memload", noload, da, lambda s: s["why_runq_ns"].pop())]
    runs.append({"uuid": str(uuid.uuid4()), "label": label, "status": "complete",
                 "tool_version": "test", "argv": "underload run", "suites": "resp",
                 "started_ns": 10**18 + 10**9 * n, "finished_ns": 10**18 + 10**9 * n + 1,
                 "host": {"hostname": "h", "kernel_release": "6.1", "kernel_version": "#1",
                          "arch": "x86_64", "cpu_model": "cpu", "ncpu": 2,
                          "mem_total_bytes": 2**30, "swap_total_bytes": 0},
                 "params": {"interval_ns": 10**8, "min_points": 6, "max_points": 7,
                            "ci_target_centi": 500, "mem_budget_bytes": 2**28,
                            "mem_limit_bytes": 0, "swap_bytes": 0},
                 "cells": cells})
json.dump({"format": "underload-export", "format_version": 1, "runs": runs}, open(sys.argv[1], "w"))
PY
}

make_runs "$TMP/on.json" on:171:1 && make_runs "$TMP/off.json" off:171:0
is $? 0 "the exchange files are written"
"$UL" import --db "$TMP/on.db" "$TMP/on.json" >/dev/null &&
	"$UL" import --db "$TMP/off.db" "$TMP/off.json" >/dev/null
is $? 0 "runs with a breakdown import"

out=$("$UL" show --db "$TMP/on.db" --format breakdown last 2>"$TMP/err")
is "$?:$(cat "$TMP/err")" "0:" "show --format breakdown exits 0, silent on stderr"
like "$out" "^suite resp, probe resp: median delay = median of each part \\(n/c = not counted: delay accounting was off\\)$" \
	"the head says what the numbers are and what n/c means"
like "$out" "^  test +median delay +on-CPU +run queue +I/O +swap-in +reclaim +thrashing +compaction +other$" \
	"the titles name the parts in the registry's order"
like "$out" "^  spawnload +229\\.8 ms += +51\\.20 ms +\\+ +171\\.0 ms +\\+ +0 ns +\\+ +0 ns +\\+ +0 ns +\\+ +0 ns +\\+ +0 ns +\\+ +7\\.600 ms$" \
	"spawnload: 229.8 ms = on-CPU 51.2 + run queue 171.0 + zeros counted + other 7.6"
like "$out" "^  noload +1\\.500 ms += +1\\.000 ms +\\+ +200\\.0 µs .* +\\+ +300\\.0 µs$" "noload: 1.5 ms = 1.0 + 0.2 + ... + 0.3"
! grep -Eq "cpuload|memload" <<<"$out"
ok $? "cells without a breakdown, or with a part not aligned with the samples, show nothing"
# Aligned: the column of "=" and of every "+" is the same on every row.
cols=$(grep -E '^  (noload|spawnload) ' <<<"$out" | sed 's/µ/u/g' |
	awk '{ s = ""; for (i = 1; i <= length($0); i++) { c = substr($0, i, 1); if (c == "=" || c == "+") s = s i "," } print s }' | sort -u | wc -l)
is "$cols" 1 "the operators stand in the same columns on every row"

out=$("$UL" show --db "$TMP/off.db" --format breakdown last 2>"$TMP/err")
is $? 0 "without delay accounting: exits 0"
like "$out" "^  spawnload +229\\.8 ms += +51\\.20 ms +\\+ +171\\.0 ms +\\+ +n/c +\\+ +n/c +\\+ +n/c +\\+ +n/c +\\+ +n/c +\\+ +7\\.600 ms$" \
	"the parts delay accounting did not count are n/c, never 0"

text=$("$UL" show --db "$TMP/on.db" --format text last)
is $? 0 "show --format text exits 0"
like "$text" "^  breakdown: median delay = median of each part" "the text format has the breakdown block"
like "$text" "^  spawnload +229\\.8 ms += +51\\.20 ms +\\+ +171\\.0 ms " "with the same numbers"

"$UL" show --db "$TMP/off.db" --format json last >"$TMP/off-show.json"
is $? 0 "show --format json exits 0"
python3 - "$TMP/off-show.json" <<'PY'
import json, sys
d = json.load(open(sys.argv[1]))
rows = {r["load"]: r for r in d["breakdown"]}
assert sorted(rows) == ["noload", "spawnload"], rows
r = rows["spawnload"]
assert (r["suite"], r["probe"], r["series"], r["n"]) == ("resp", "resp", "delay_ns", 7), r
assert r["median"] == 229.8e6 or abs(r["median"] - 229.8e6) < 1, r
parts = {p["series"]: p for p in r["parts"]}
assert [p["label"] for p in r["parts"]][:2] == ["on-CPU", "run queue"], r["parts"]
assert abs(parts["why_oncpu_ns"]["median"] - 51.2e6) < 1 and abs(parts["why_runq_ns"]["median"] - 171e6) < 1, parts
assert abs(parts["why_other_ns"]["median"] - 7.6e6) < 1, parts
for k in ("why_blkio_ns", "why_swapin_ns", "why_reclaim_ns", "why_thrash_ns", "why_compact_ns"):
    assert parts[k]["counted"] is False and parts[k]["median"] is None, parts[k]
assert parts["why_oncpu_ns"]["counted"] is True, parts
PY
ok $? "JSON: per test the median delay and each part's median, null and counted false when not counted"

# A run without any breakdown: said in one line, exit 0.
python3 - "$TMP/on.json" "$TMP/none.json" <<'PY'
import json, sys
d = json.load(open(sys.argv[1]))
for c in d["runs"][0]["cells"]:
    c["series"] = [s for s in c["series"] if not s["name"].startswith("why_")]
json.dump(d, open(sys.argv[2], "w"))
PY
"$UL" import --db "$TMP/none.db" "$TMP/none.json" >/dev/null
out=$("$UL" show --db "$TMP/none.db" --format breakdown last 2>"$TMP/err")
is "$?:$out" "0:no test of this run has a breakdown of its delay" "a run without a breakdown says so"
! grep -q "breakdown" <<<"$("$UL" show --db "$TMP/none.db" --format text last)"
ok $? "and its text format has no breakdown block"
"$UL" show --db "$TMP/none.db" --format json last >"$TMP/none-show.json"
python3 -c 'import json, sys; assert json.load(open(sys.argv[1]))["breakdown"] == []' "$TMP/none-show.json"
ok $? "and its JSON an empty breakdown"

# compare explains the change: 3 runs a side, run queue 136 -> 171 ms.
# The replicates' (runs') medians differ by run queue 35 + 0.3 x 3 ms,
# on-CPU 0.02 x 3 ms (small but the same in every replicate: significant)
# and other 0 (7n mod 3 takes the same values on both sides): the delay
# +35.96 ms, run queue 35.90 of it (99.8%), on-CPU +60 us.
make_runs "$TMP/cmp.json" base:136:1 base:136:1 base:136:1 cand:136:1 cand:136:1 cand:136:1
python3 - "$TMP/cmp.json" <<'PY'
import json, sys
d = json.load(open(sys.argv[1]))
for r in d["runs"][3:]:
    for c in r["cells"]:
        if c["load"] == "spawnload":
            s = {x["name"]: x for x in c["series"]}
            s["why_runq_ns"]["values"] = [v + 35000000 for v in s["why_runq_ns"]["values"]]
            s["delay_ns"]["values"] = [v + 35000000 for v in s["delay_ns"]["values"]]
json.dump(d, open(sys.argv[1], "w"))
PY
"$UL" import --db "$TMP/cmp.db" "$TMP/cmp.json" >/dev/null
is $? 0 "three runs a side import"
out=$("$UL" compare --db "$TMP/cmp.db" base cand 2>"$TMP/err")
is $? 0 "compare exits 0"
row=$(grep -E '^spawnload +cand ' <<<"$out")
like "$row" " slower +yes .*slower \\+35\\.96 ms: run queue \\+35\\.90 ms \\(100%\\), on-CPU \\+60\\.00 µs$" \
	"the note names the parts that carry the change, largest first, with their share"
! grep -Eq "other \\+|I/O \\+|swap-in \\+" <<<"$row"
ok $? "parts that neither changed significantly nor carry a quarter of it are not named"
row=$(grep -E '^noload +cand ' <<<"$out")
! grep -q "run queue" <<<"$row"
ok $? "a row without a change is not explained"

"$UL" compare --db "$TMP/cmp.db" base cand --format json >"$TMP/cmp-out.json"
is $? 0 "compare --format json exits 0"
python3 - "$TMP/cmp-out.json" <<'PY'
import json, sys
d = json.load(open(sys.argv[1]))
rows = {r["test"]: r for r in d["rows"]}
assert sorted(rows) == ["cpuload", "memload", "noload", "spawnload"], rows.keys()
r = rows["spawnload"]
assert r["verdict"] == "slower" and abs(r["shift"] - 35.96e6) < 1, r
parts = {p["metric"]: p for p in r["parts"]}
assert len(parts) == 8, parts.keys()
q = parts["why_runq_ns"]
assert q["part"] == "run queue" and q["carries"] and q["verdict"] == "slower", q
assert abs(q["shift"] - 35.9e6) < 1 and abs(q["share"] - 35.9 / 35.96) < 1e-9, q
assert q["basis"] == r["basis"] == "replicates" and q["reps_base"] == 3, q
c = parts["why_oncpu_ns"]
assert c["carries"] and abs(c["shift"] - 60000) < 1, c
assert not parts["why_other_ns"]["carries"] and abs(parts["why_other_ns"]["shift"]) < 1, parts["why_other_ns"]
assert not parts["why_blkio_ns"]["carries"], parts["why_blkio_ns"]
assert "parts" in rows["cpuload"] and rows["cpuload"]["parts"] == [], rows["cpuload"]
PY
ok $? "JSON: each row carries its part rows, compared alike, with share and carries"

csv=$("$UL" compare --db "$TMP/cmp.db" base cand --format csv)
is $? 0 "compare --format csv exits 0"
python3 -c '
import csv, sys
rows = {r["test"]: r for r in csv.DictReader(sys.stdin)}
assert len(rows) == 4, rows.keys()
r = rows["spawnload"]
assert r["why_runq_ns_verdict"] == "slower" and abs(float(r["why_runq_ns_shift"]) - 35.9e6) < 1, r
assert abs(float(r["why_runq_ns_share"]) - 35.9 / 35.96) < 1e-9, r
assert abs(float(r["why_oncpu_ns_shift"]) - 60000) < 1 and r["why_oncpu_ns_verdict"] == "slower", r
assert rows["noload"]["why_runq_ns_share"] == "", rows["noload"]
' <<<"$csv"
ok $? "CSV: a row per test, each with its parts' shift, p, verdict and share"
like "$(grep '^resp,delay_ns,ns,spawnload,base,cand,' <<<"$csv")" "run queue \\+35\\.90 ms" "CSV: the note explains"

# Runs without a breakdown: no parts, no explanation, as before.
"$UL" import --db "$TMP/none.db" "$TMP/none.json" >/dev/null
make_runs "$TMP/none2.json" x:200:1 && python3 - "$TMP/none2.json" <<'PY'
import json, sys
d = json.load(open(sys.argv[1]))
for c in d["runs"][0]["cells"]:
    c["series"] = [s for s in c["series"] if not s["name"].startswith("why_")]
json.dump(d, open(sys.argv[1], "w"))
PY
"$UL" import --db "$TMP/none.db" "$TMP/none2.json" >/dev/null
"$UL" compare --db "$TMP/none.db" on x --format json >"$TMP/none-cmp.json" 2>"$TMP/err"
is $? 0 "compare of runs without a breakdown exits 0"
python3 -c 'import json, sys; assert all("parts" not in r for r in json.load(open(sys.argv[1]))["rows"])' "$TMP/none-cmp.json"
ok $? "and its rows have no parts"

done_testing

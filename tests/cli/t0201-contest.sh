#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-or-later
# contest with a tiny CPU-burning job and tiny loads: the seed's table with
# all eight loads, every load counted its work and its CPU; show and compare
# reprint it, newest label first; a failing or missing job is a clear error
# and stores nothing that could pass for a result.
. "$(dirname "$0")/lib.bash"

JOB="sh -c 'i=0; while [ \$i -lt 200000 ]; do i=\$((i+1)); done'"
mkdir -p "$TMP/ls" && touch "$TMP/ls/a" "$TMP/ls/b"
CT=(--dir "$SCRATCH" --db "$DB" --no-progress --quick --no-drop-caches --lead-time 200ms
	--lslr-dir "$TMP/ls" -o io_load.size=16M -o read_load.size=16M -o mem_load.size=32M
	-o process_load.procs=4)
HEAD=$(printf 'Kernel [runs]\t\tTime\tCPU%%\tLoads\tLCPU%%\tRatio')
ROW=$'\t\t[0-9]+\\.[0-9]\t[0-9]+\t[0-9]+\t[0-9]+\t([0-9]+\\.[0-9]{2})$'

out=$("$UL" run contest "${CT[@]}" --label cli-contest --job "$JOB" --runs 1 \
	--format contest,json="$TMP/run.json" 2>"$TMP/err")
rc=$?
is "$rc" 0 "contest run exits 0"
[ "$rc" = 0 ] || diag "$(cat "$TMP/err")"
is "$(grep -E '^[a-z_]+:$' <<<"$out" | tr -d : | paste -sd' ')" \
	"noload process_load io_load mem_load tarc_load tarx_load read_load lslr_load" \
	"one block per load, in contest's order"
is "$(grep -c -xF "$HEAD" <<<"$out")" 8 "the seed's header (tab stops) in every block"
is "$(grep -cE "^cli-contest \\[1\\]$ROW" <<<"$out")" 8 "one row per block: label [runs] Time CPU% Loads LCPU% Ratio"
# LCPU% of noload is its leader's own CPU from "go" to the stop, which it
# records as it takes SIGTERM: ~0.01% in both builds.  Its exit, which
# unmaps what it inherited from the supervisor, is not counted: that cost
# 0.5-1.2 ms of sys in a normal build and 3 ms (10 ms once in CI) under
# ASan, which printed 1 here.  The JSON check below holds it under 0.5%.
like "$(sed -n 3p <<<"$out")" "^cli-contest \\[1\\]"$'\t\t[0-9.]+\t[0-9]+\t0\t0\t1.00$' \
	"noload: no Loads, LCPU% 0, ratio 1.00"
is "$(grep -c '^$' <<<"$out")" 7 "a blank line between blocks, no 'Not counted' section"

python3 - "$TMP/run.json" <<'PY'
import json, sys
doc = json.load(open(sys.argv[1]))
cells = doc["cells"]
assert [c["load"] for c in cells] == ["noload", "process_load", "io_load", "mem_load",
                                       "tarc_load", "tarx_load", "read_load", "lslr_load"], cells
for c in cells:
    assert c["outcome"] == "ok", (c["load"], c["note"])
    wall, user, sys_ = (c["series"][k][0] for k in ("wall_ns", "user_ns", "sys_ns"))
    assert wall > 0 and user > 0 and user + sys_ <= wall * 64, (c["load"], wall, user, sys_)
    m = c["metrics"]
    if c["load"] == "noload":
        assert m["load_cpu_pct"] < 0.5, m  # it sleeps: the integer column prints 0
    else:
        # Loads counts the work while the job ran; the total adds the lead time and the stop.
        assert m["load_units_total"] > 0, (c["load"], m)
        assert c["load_units"] <= m["load_units_total"], (c["load"], c["load_units"], m)
        assert m["load_cpu_pct"] > 0, (c["load"], m)
    assert abs(m["loads"] - c["load_units"] / m["loads_divisor"]) < 1e-9
    assert abs(m["loads_total"] - m["load_units_total"] / m["loads_divisor"]) < 1e-9
PY
ok $? "JSON: every load counted units and used CPU; the job's wall, user and sys"

id=$("$UL" list --db "$DB" | awk '$3 == "cli-contest" { print $1 }')
is "$("$UL" show --db "$DB" --format contest "$id")" "$out" "show --format contest reprints it"
is "$("$UL" compare --db "$DB")" "$out" "compare with one label prints the same table"

# A second label, newer: it comes first; --baseline divides by another label's noload.
"$UL" run contest "${CT[@]}" --label cli-other --job "$JOB" --tests noload,io_load \
	--format contest >/dev/null 2>"$TMP/err"
is $? 0 "second run exits 0"
cmp=$("$UL" compare --db "$DB")
# (compare prints the environment and its own comparison around the seed blocks)
noload_block() { sed -n '/^noload:$/,/^$/p'; }
is "$(noload_block <<<"$cmp" | grep '^cli-' | cut -d' ' -f1 | paste -sd' ')" "cli-other cli-contest" \
	"compare: newest label first in the noload block"
is "$(grep -c '^process_load:$' <<<"$cmp")" 1 "loads of either label get their block"
base=$("$UL" compare --db "$DB" --baseline cli-contest)
like "$(noload_block <<<"$base" | grep '^cli-contest')" "^cli-contest \\[1\\].*"$'\t1.00$' "--baseline: that label's noload is 1.00"
"$UL" compare --db "$DB" --baseline nosuch >/dev/null 2>"$TMP/err"
is $? 2 "--baseline of an unknown label is a usage error"

# A job that fails: a clear error, exit 1, and the cell stored as probe-failed, never as a time.
"$UL" run contest "${CT[@]}" --label cli-fail --job "sh -c 'echo no-such-target >&2; exit 1'" \
	--format contest >"$TMP/out" 2>"$TMP/err"
is $? 1 "a failing job exits 1"
like "$(cat "$TMP/err")" "job 'sh -c 'echo no-such-target >&2; exit 1'' failed \\(exit status 1\\): no-such-target" \
	"the error names the job, its status and its last output"
like "$("$UL" list --db "$DB")" 'cli-fail .* contest +failed +1$' "the run is stored as failed with one cell"
shown=$("$UL" show --db "$DB" --format contest last)
is "$(grep -c '^cli-fail \[' <<<"$shown")" 0 "no row could pass for a result"
like "$shown" '^  cli-fail noload: probe-failed: job .* failed \(exit status 1\)' "the failure is listed"

# A job that does not exist: refused before anything runs or is stored.
before=$("$UL" list --db "$DB" | wc -l)
"$UL" run contest "${CT[@]}" --job /nonexistent/make >/dev/null 2>"$TMP/err"
is $? 2 "a missing job is a usage error"
like "$(cat "$TMP/err")" "--job '/nonexistent/make': cannot execute '/nonexistent/make': No such file" \
	"the error names the job"
"$UL" run contest "${CT[@]}" --job no-such-program-ul >/dev/null 2>"$TMP/err"
like "$(cat "$TMP/err")" "cannot execute 'no-such-program-ul': not found in PATH" "PATH is searched"
is "$("$UL" list --db "$DB" | wc -l)" "$before" "nothing stored"
"$UL" run "${TINY[@]}" --job "$JOB" >/dev/null 2>&1
is $? 2 "contest options without the contest suite are a usage error"

# A load that works only during the lead time: an instant job after 1 s of io_load.
# Kolivas counted the MB written during the compile, so Loads is (nearly) 0 here.
"$UL" run contest "${CT[@]}" --label cli-lead --job true --lead-time 1s --tests io_load \
	--format json="$TMP/lead.json" >/dev/null 2>"$TMP/err"
is $? 0 "instant job under io_load exits 0"
python3 - "$TMP/lead.json" <<'PY'
import json, sys
c = json.load(open(sys.argv[1]))["cells"][0]
m = c["metrics"]
assert c["load"] == "io_load" and c["outcome"] == "ok", c
assert m["load_units_total"] >= 16, m  # it wrote during the lead time
assert c["load_units"] * 5 < m["load_units_total"], (c["load_units"], m)
assert m["measured_ns"] < m["lead_ns"], m
PY
ok $? "Loads counts the job's window only, not the lead time (the total keeps it)"

is "$(scratch_left)" 0 "no scratch directory left behind"
is "$(ul_procs)" 0 "no process left behind"
done_testing

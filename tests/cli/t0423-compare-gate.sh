#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-or-later
# compare as a CI gate (--fail-on): exit 5 when a row's verdict, surviving
# Holm, is the one named, 0 otherwise, whatever the format; an unconfirmed
# call (one run a side) never fails it; --strict's exit 2 comes first.
# Equivalence (--margin): a row is equal within the margin when Schuirmann's
# two one-sided tests on its replicates reject, in text, JSON and CSV; an
# equal row never fails the gate; points alone never show equivalence.
# The labels are made from one real tiny run whose delays are replaced by
# chosen ones (three runs a label), so every verdict is known in advance.
. "$(dirname "$0")/lib.bash"

"$UL" run --dir "$SCRATCH" --db "$TMP/real.db" --no-progress --tests noload \
	--interval 20ms --min-points 6 --max-points 6 -o resp.working-set=0 -o resp.exec=no \
	--label real >/dev/null 2>"$TMP/err"
is $? 0 "a tiny resp run exits 0"
"$UL" export --db "$TMP/real.db" real >"$TMP/real.json"
is $? 0 "and exports"

# synth OUT LABEL=MS,MS,MS ...: each label three runs of the real one, the
# six delays of run i spread +-1% around the i-th median (ms).
synth() {
	python3 - "$TMP/real.json" "$@" <<'PY'
import copy, json, sys, uuid
d = json.load(open(sys.argv[1]))
(run,) = d["runs"]
out, runs, t = sys.argv[2], [], 0
for spec in sys.argv[3:]:
    label, meds = spec.split("=")
    for ms in meds.split(","):
        r = copy.deepcopy(run)
        r["uuid"], r["label"] = str(uuid.uuid4()), label
        t += 10**9
        r["started_ns"] += t
        r["finished_ns"] += t
        for c in r["cells"]:
            c["flags"] = 0
            for s in c["series"]:
                if s["name"] == "delay_ns":
                    m = float(ms) * 1e6
                    s["values"] = [round(m * f) for f in (0.99, 0.995, 1.0, 1.0, 1.005, 1.01)]
        runs.append(r)
d["runs"] = runs
json.dump(d, open(out, "w"))
PY
}
DB=$TMP/gate.db
synth "$TMP/s.json" base=100,102,98 slow=130,132,128 fast=70,71,69 same=100.5,99.5,101 \
	near=103,105,101
"$UL" import --db "$DB" "$TMP/s.json" >/dev/null
is $? 0 "15 runs of 5 labels imported"

"$UL" compare --db "$DB" base slow >"$TMP/out" 2>"$TMP/err"
is $? 0 "without --fail-on a slower row exits 0"
like "$(grep -E '^noload +slow ' "$TMP/out")" " slower +yes " "the row is slower and survives Holm"
"$UL" compare --db "$DB" base slow --fail-on slower >"$TMP/out" 2>"$TMP/err"
is $? 5 "--fail-on slower: a slower row exits 5"
like "$(cat "$TMP/err")" "^error: compare --fail-on slower: resp delay noload: 'slow' is slower than 'base'$" \
	"and names the row on stderr"
like "$(cat "$TMP/out")" "^noload +slow " "after printing the comparison as usual"
for f in json csv; do
	"$UL" compare --db "$DB" base slow --fail-on changed --format $f >/dev/null 2>&1
	is $? 5 "--fail-on changed --format $f: exits 5 too"
done
"$UL" compare --db "$DB" base slow --fail-on faster >/dev/null 2>"$TMP/err"
is $? 0 "--fail-on faster: a slower row passes"
"$UL" compare --db "$DB" base fast --fail-on faster >/dev/null 2>&1
is $? 5 "--fail-on faster: a faster row exits 5"
"$UL" compare --db "$DB" base fast --fail-on slower >/dev/null 2>&1
is $? 0 "--fail-on slower: a faster row passes"
"$UL" compare --db "$DB" base same --fail-on changed >"$TMP/out" 2>&1
is $? 0 "--fail-on changed: no difference proven passes"
like "$(grep -E '^noload +same ' "$TMP/out")" " no difference proven " "(the row is undecided)"
"$UL" compare --db "$DB" base same slow --fail-on slower >/dev/null 2>"$TMP/err"
is $? 5 "one slower row among several fails the gate"
is "$(grep -c 'fail-on' "$TMP/err")" 1 "and only that row is named"

# One run a side, nothing to learn from: an unconfirmed call never fails.
DB1=$TMP/one.db
synth "$TMP/one.json" a=100 b=200
"$UL" import --db "$DB1" "$TMP/one.json" >/dev/null
"$UL" compare --db "$DB1" a b --fail-on changed >"$TMP/out" 2>&1
is $? 0 "--fail-on changed: an unconfirmed call passes"
like "$(grep -E '^noload +b ' "$TMP/out")" " slower \\(unconfirmed\\) " "(the row is unconfirmed)"

# --strict's unfair comparison (exit 2) comes before the gate.
python3 - "$TMP/s.json" "$TMP/unfair.json" <<'PY'
import json, sys
d = json.load(open(sys.argv[1]))
for r in d["runs"]:
    if r["label"] == "slow":
        r["tool_version"] = "0.0-other"
json.dump(d, open(sys.argv[2], "w"))
PY
"$UL" import --db "$TMP/unfair.db" "$TMP/unfair.json" >/dev/null
"$UL" compare --db "$TMP/unfair.db" base slow --strict --fail-on slower >/dev/null 2>&1
is $? 2 "--strict and an unfair comparison exit 2 before the gate's 5"

# Equivalence (--margin): two one-sided tests on the replicate-level test.
out=$("$UL" compare --db "$DB" base same 2>&1)
like "$(grep -E '^noload +same ' <<<"$out")" " no difference proven " \
	"without --margin an A/A is only 'no difference proven'"
! grep -q "equal" <<<"$out"
ok $? "and nothing is called equal"
out=$("$UL" compare --db "$DB" base same near slow --margin 5 2>&1)
is $? 0 "--margin 5 exits 0"
like "$out" "^\\(equivalence: two one-sided tests at alpha 0.05, margin ±5% of the baseline: equal when the 90% CI of the shift lies inside it\\)$" \
	"the table says how equal is decided"
like "$(grep -E '^noload +same ' <<<"$out")" " equal within ±5% +- +- +replicates TOST p 0\\.0[0-4][0-9]*: the 90% CI \\[-[0-9.]+%, \\+[0-9.]+%\\] lies within ±5%" \
	"a shift of 0.3% with 2% run-to-run S.D., 3 v 3: equal within ±5%, no Holm or need, its 90% CI given"
like "$(grep -E '^noload +near ' <<<"$out")" " no difference proven .* not shown equal within ±5%: TOST p 0\\.[1-9]" \
	"+3% with the same spread: neither different nor shown equal"
like "$(grep -E '^noload +slow ' <<<"$out")" " slower +yes .* not shown equal within ±5%: TOST p 1," \
	"+30%: slower, not equal"
"$UL" compare --db "$DB" base same --margin 5% --format json >"$TMP/e.json"
is $? 0 "--margin 5% (with the sign) is accepted too"
python3 - "$TMP/e.json" <<'PY'
import json, sys
d = json.load(open(sys.argv[1]))
assert d["margin_rel"] == 0.05, d["margin_rel"]
(r,) = d["rows"]
assert r["verdict"] == "equal" and r["equivalent"] is True and r["margin_rel"] == 0.05, r
assert r["verdict_difference"] == "no difference proven", r
assert r["tost_p"] < 0.05 and r["tost_p"] == max(r["tost_p_lower"], r["tost_p_upper"]), r
assert -0.05 < r["tost_lo_rel"] < 0 < r["tost_hi_rel"] < 0.05, r
assert abs(r["tost_margin"] - 0.05 * r["rep_mean_base"]) < 1e-6 * r["rep_mean_base"], r
PY
ok $? "JSON: verdict equal, equivalent, the margin, TOST p and its interval"
"$UL" compare --db "$DB" base same --format json | python3 -c '
import json, sys
d = json.load(sys.stdin)
assert d["margin_rel"] is None and d["rows"][0]["equivalent"] is False, d
assert "tost_p" not in d["rows"][0], d'
ok $? "JSON without --margin: no margin, not equivalent, no TOST"
"$UL" compare --db "$DB" base same slow --margin 5 --format csv >"$TMP/e.csv"
python3 - "$TMP/e.csv" <<'PY'
import csv, sys
rows = list(csv.DictReader(open(sys.argv[1], newline="")))
v = {r["candidate"]: r for r in rows}
assert v["same"]["verdict"] == "equal" and v["same"]["equivalent"] == "1", v["same"]
assert float(v["same"]["margin_rel"]) == 0.05 and float(v["same"]["tost_p"]) < 0.05, v["same"]
assert v["slow"]["verdict"] == "slower" and v["slow"]["equivalent"] == "0", v["slow"]
assert float(v["slow"]["tost_lo_rel"]) > 0.05, v["slow"]
PY
ok $? "CSV: verdict, equivalent, margin, TOST p and interval per row"

# A real but small shift, measured tightly: slower, and equal within 5%
# (a change smaller than the margin); the gate then does not fail.
synth "$TMP/t.json" tight=100,100.2,99.8 plus2=102,102.2,101.8
"$UL" import --db "$DB" "$TMP/t.json" >/dev/null
"$UL" compare --db "$DB" tight plus2 --fail-on slower >/dev/null 2>&1
is $? 5 "+2% with 0.2% S.D.: slower, the gate fails"
out=$("$UL" compare --db "$DB" tight plus2 --margin 5 --fail-on slower 2>&1)
is $? 0 "with --margin 5 it is equal within ±5%: the gate passes"
like "$(grep -E '^noload +plus2 ' <<<"$out")" " equal within ±5% +- .*; it differs from 0 too \\(p [0-9.e-]+\\), by less than the margin" \
	"and the note says it differs from 0 by less than the margin"

# One run a side: within-run points never show equivalence.
out=$("$UL" compare --db "$DB1" a b --margin 50 2>&1)
like "$(grep -E '^noload +b ' <<<"$out")" "no equivalence test: run-to-run variation not measured" \
	"one run a side: no equivalence test, and why"

for bad in 0 100 -5 abc 5x; do
	"$UL" compare --db "$DB" base same --margin "$bad" >/dev/null 2>"$TMP/err"
	is $? 2 "--margin $bad is a usage error"
done
like "$(cat "$TMP/err")" "--margin: '5x' is not a percentage in \\(0, 100\\)" "naming the range"

"$UL" compare --db "$DB" base slow --fail-on worse >/dev/null 2>"$TMP/err"
is $? 2 "--fail-on worse is a usage error"
like "$(cat "$TMP/err")" "slower, faster or changed" "naming the choices"

is "$(scratch_left)" 0 "no scratch directory left behind"
is "$(ul_procs)" 0 "no process left behind"
done_testing

#!/usr/bin/env bash
# compare as a CI gate (--fail-on): exit 5 when a row's verdict, surviving
# Holm, is the one named, 0 otherwise, whatever the format; an unconfirmed
# call (one run a side) never fails it; --strict's exit 2 comes first.
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
synth "$TMP/s.json" base=100,102,98 slow=130,132,128 fast=70,71,69 same=100.5,99.5,101
"$UL" import --db "$DB" "$TMP/s.json" >/dev/null
is $? 0 "12 runs of 4 labels imported"

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

"$UL" compare --db "$DB" base slow --fail-on worse >/dev/null 2>"$TMP/err"
is $? 2 "--fail-on worse is a usage error"
like "$(cat "$TMP/err")" "slower, faster or changed" "naming the choices"

is "$(scratch_left)" 0 "no scratch directory left behind"
is "$(ul_procs)" 0 "no process left behind"
done_testing

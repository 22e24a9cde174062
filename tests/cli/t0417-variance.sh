#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-or-later
# underload compare --variance over a store built here: two labels, two
# resp runs each of two rounds (cells).  For each label and test: the
# variance components (points, rounds, runs), never negative, their shares
# of the variance of the mean summing to 1, and the cheapest design
# (stats/varcomp.h) consistent with them: at least one of each, runs 1
# when the between-run component is 0, its machine time what its counts
# and the costs give, its CI half-width within --precision (and one
# repetition fewer at the top would miss it), a tighter --precision never
# asking for fewer repetitions.  Text, JSON and CSV; a label of
# one run has no design and says why; bad options are usage errors.
. "$(dirname "$0")/lib.bash"

RS=(--dir "$SCRATCH" --db "$DB" --no-progress --tests noload --interval 50ms
	--min-points 6 --max-points 6 --runs 2 -o resp.working-set=0 -o resp.exec=no
	--format resp1)
for label in a a b b; do
	"$UL" run "${RS[@]}" --label "$label" -o resp.cpu-work=2000000 >/dev/null 2>"$TMP/err"
	is $? 0 "resp run '$label' of two rounds exits 0"
done
"$UL" run "${RS[@]}" --label solo -o resp.cpu-work=2000000 >/dev/null 2>"$TMP/err"
is $? 0 "resp run 'solo' exits 0"

out=$("$UL" compare --db "$DB" a b solo --variance 2>"$TMP/err")
is $? 0 "compare --variance exits 0"
like "$out" "^variance components \\(raw scale;.*95% CI of \\+-2% of the mean \\(Kalibera and Jones 2013\\)" \
	"the head names the scale, the precision and the reference"
like "$out" "^test +label +runs +cells +points +mean +points CV +rounds CV +runs CV +design" "the columns"
like "$(grep -E '^noload +a ' <<<"$out")" \
	"^noload +a +2 +4 +24 +[0-9.]+ [mu]?s +[0-9.]+%\\*? \\([0-9]+%\\) .* [0-9]+ x [0-9]+ x [0-9]+ +[0-9.e+]+ s$" \
	"label a: 2 runs, 4 cells, 24 points, the components and a design"
like "$(grep -E '^noload +b ' <<<"$out")" " [0-9]+ x [0-9]+ x [0-9]+ " "label b: a design"
like "$(grep -E '^noload +solo ' <<<"$out")" "^noload +solo +1 +2 +12 .* - +\\(one run: run 2 or more" \
	"one run: no between-run component, no design, and why"
! grep -q "between boots" <<<"$out"
ok $? "runs that are not vm boots are not called boots"

check_json() { # FILE PRECISION
	python3 - "$1" "$2" <<'PY'
import json, math, sys
d = json.load(open(sys.argv[1]))
prec = float(sys.argv[2])
assert d["format"] == "underload-compare-variance" and d["format_version"] == 1, d
assert abs(d["precision"] - prec) < 1e-12, d
rows = {r["label"]: r for r in d["rows"]}
assert sorted(rows) == ["a", "b", "solo"], rows
for lab in ("a", "b"):
    r = rows[lab]
    assert r["suite"] == "resp" and r["metric"] == "delay_ns" and r["test"] == "noload", r
    v = r["variance"]
    assert v["scale"] == "raw" and not v["boots"], v
    assert (v["n_runs"], v["n_cells"], v["n_points"]) == (2, 4, 24), v
    assert v["mean"] > 0, v
    levels = [v["points"], v["rounds"], v["runs"]]
    for l in levels:
        assert l["variance"] >= 0 and l["cv"] >= 0 and l["cost_s"] >= 0, l
        assert abs(l["cv"] - math.sqrt(l["variance"]) / v["mean"]) <= 1e-9 * (1 + l["cv"]), l
        assert not l["truncated"] or l["variance"] == 0, l  # below 0: shown as 0
    assert (levels[0]["df"], levels[1]["df"], levels[2]["df"]) == (20, 2, 1), levels
    assert levels[0]["cost_s"] >= 0.05, levels[0]  # the 50ms interval at least
    shares = [l["share"] for l in levels]
    if any(l["variance"] > 0 for l in levels):
        assert abs(sum(shares) - 1) < 1e-9, shares
    g = v["design"]
    assert g is not None, v
    n = [g["points_per_cell"], g["cells_per_run"], g["runs"]]
    assert all(isinstance(x, int) and x >= 1 for x in n), g
    if levels[2]["variance"] == 0:
        assert n[2] == 1, (levels, g)  # nothing between runs: one run
    c = [l["cost_s"] for l in levels]
    t = n[2] * (c[2] + n[1] * (c[1] + n[0] * c[0]))
    assert abs(g["machine_time_s"] - t) <= 1e-9 * t, (g, c)
    if not g["capped"]:
        assert g["half_width_rel"] <= prec + 1e-12, g
        # the count of the top level with variance is the least that reaches it
        var = [l["variance"] for l in levels]
        top = max(i for i in range(3) if var[i] > 0) if any(var) else None
        if top is not None:
            unit = sum(var[i] / math.prod(n[i:top]) for i in range(top + 1))
            hw = lambda k: 1.959963984540054 * math.sqrt(unit / k) / v["mean"]
            assert n[top] == 1 or hw(n[top] - 1) > prec, (g, unit)
    print(lab, [round(l["cv"] * 100, 3) for l in levels], n, file=sys.stderr)
s = rows["solo"]["variance"]
assert s["design"] is None and s["runs"]["variance"] is None and "one run" in s["why"], s
PY
}
"$UL" compare --db "$DB" a b solo --variance --format json >"$TMP/v.json" 2>"$TMP/err"
is $? 0 "compare --variance --format json exits 0"
check_json "$TMP/v.json" 0.02 2>"$TMP/py"
ok $? "JSON: components >= 0 with their CVs, shares summing to 1, a consistent design"
while read -r line; do diag "CVs % (points, rounds, runs), design: $line"; done <"$TMP/py"

"$UL" compare --db "$DB" a b solo --variance --precision 0.5% --format json >"$TMP/v5.json"
check_json "$TMP/v5.json" 0.005 2>"$TMP/py"
ok $? "--precision 0.5%: a design consistent with it"
python3 - "$TMP/v.json" "$TMP/v5.json" <<'PY'
import json, sys
a, b = (json.load(open(f)) for f in sys.argv[1:])
for ra, rb in zip(a["rows"], b["rows"]):
    if ra["variance"]["design"] is None:
        continue
    da, db = ra["variance"]["design"], rb["variance"]["design"]
    keys = ("points_per_cell", "cells_per_run", "runs")
    assert all(db[k] >= da[k] for k in keys), (da, db)
    assert db["machine_time_s"] >= da["machine_time_s"], (da, db)
PY
ok $? "a tighter precision asks for no fewer repetitions and no less machine time"

csv=$("$UL" compare --db "$DB" a b solo --variance --format csv)
is $? 0 "compare --variance --format csv exits 0"
is "$(wc -l <<<"$csv")" 4 "CSV: a header and one row per label"
is "$(head -1 <<<"$csv" | tr -d '\r' | cut -d, -f1-9)" "label,suite,metric,unit,test,runs,cells,points,mean" "CSV header"
like "$(grep '^a,' <<<"$csv")" "^a,resp,delay_ns,ns,noload,2,4,24," "CSV row of a"

"$UL" compare --db "$DB" a b --variance --precision 0 >/dev/null 2>"$TMP/err"
is $? 2 "--precision 0 is a usage error"
like "$(cat "$TMP/err")" "--precision: '0' is not a percentage" "and says why"
"$UL" compare --db "$DB" a b --variance --format lmbench2 >/dev/null 2>"$TMP/err"
is $? 2 "--variance --format lmbench2 is a usage error"
like "$("$UL" compare --help)" "--variance" "--help lists --variance"

done_testing

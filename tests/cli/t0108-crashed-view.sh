#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-or-later
# A crash is the outcome of the test it happened in, for its label, in
# every view: label A has two runs, label B three, the newest of which the
# machine went down under in 2ctx-mem (killed as in t0107, then another
# boot id).  show, a command that only reads, marks it crashed first and
# heads it CRASHED with where; its JSON has crashed_in; compare's
# 2ctx-mem row reads "CRASHED in 1 of 3" with the other runs' verdict in
# its note and the counts in its JSON and CSV, its noload row says that it
# pools the crashed run's finished cell; with the crashed run alone the
# row is untested and still CRASHED; a crash is a result, so both exit 0;
# the HTML report opens with a CRASHED line and marks the verdict table.
. "$(dirname "$0")/lib.bash"
. "$(dirname "$0")/crash.bash"
trap 'crash_kill >/dev/null 2>&1; "$UL" cleanup >/dev/null 2>&1; rm -rf "$TMP"' EXIT

export UL_TEST_BOOT_ID=boot-1
TESTS=(--tests noload,2ctx-mem)
rc=0
for label in A A B B; do
	"$UL" run "${TINY[@]}" "${TESTS[@]}" --label "$label" >/dev/null 2>"$TMP/crash-err" || rc=1
done
must $rc "four runs of labels A and B complete"
# Long tests (>= 6 s each): time to see the run in the second one.
LONG=(--interval 200ms --min-points 30 --max-points 30)
crash_run_at 1 2ctx-mem "${TINY[@]}" "${LONG[@]}" "${TESTS[@]}" --label B
must $? "B's third run is in 2ctx-mem, stopped there"
crash_kill
must $? "the machine went down under it: no process of it is left"
uuid=$(q "SELECT uuid FROM runs WHERE status = 'running'")
like "$uuid" '^[0-9a-f-]{36}$' "it is stored as running"
export UL_TEST_BOOT_ID=boot-2

# show only reads, and marks it crashed before it shows it.
out=$("$UL" show --db "$DB" --format text "$uuid" 2>"$TMP/err")
is $? 0 "show exits 0: a crash is a result"
like "$(cat "$TMP/err")" "run ${uuid:0:8} crashed .* in resp 2ctx-mem \(probe resp\), round 1: marked" \
	"show marked the run crashed first"
like "$out" "^CRASHED: the machine went down during resp 2ctx-mem \(probe resp\), round 1 " \
	"show heads the run CRASHED, saying where"
like "$out" "2ctx-mem .*crashed" "its 2ctx-mem test has the outcome crashed"
"$UL" show --db "$DB" --format json "$uuid" >"$TMP/crashed.json" &&
	"$UL" show --db "$DB" --format json 1 >"$TMP/complete.json"
is $? 0 "show --format json exits 0"
python3 - "$TMP/crashed.json" "$TMP/complete.json" <<'PY'
import json, sys
d = json.load(open(sys.argv[1]))
w = d["crashed_in"]
assert d["run"]["status"] == "crashed", d["run"]
assert (w["suite"], w["load"], w["probe"], w["seq"], w["round"]) == ("resp", "2ctx-mem", "resp", 1, 1), w
assert w["where"] == "resp 2ctx-mem (probe resp), round 1", w
assert json.load(open(sys.argv[2]))["crashed_in"] is None
PY
ok $? "the JSON's crashed_in names the test, seq and round; null for a complete run"

# compare: the crash is the 2ctx-mem row's outcome for B.
out=$("$UL" compare --db "$DB" A B 2>"$TMP/err")
is $? 0 "compare exits 0: a crash is a result"
like "$out" "^crashed: B: run ${uuid:0:8} crashed in resp 2ctx-mem" "compare names the crashed run first"
like "$out" "^candidate 'B' \(3 runs pooled: [0-9, ]+; 1 of 3 crashed\)" "its head counts B's crashed runs"
like "$out" "^baseline 'A' \(2 runs pooled: [0-9]+, [0-9]+\)" "and says nothing of A's, none crashed"
like "$out" "^2ctx-mem +B .* CRASHED in 1 of 3 " "the 2ctx-mem row reads CRASHED in 1 of 3"
like "$(grep '^2ctx-mem  *B ' <<<"$out")" "candidate crashed here in 1 of 3 runs \(nothing measured\); the other runs: " \
	"its note gives the counts and the other runs' verdict"
like "$(grep '^noload  *B ' <<<"$out")" "candidate pools the finished cells of 1 crashed run" \
	"the noload row says it pools the crashed run's finished cell"
"$UL" compare --db "$DB" --format json A B >"$TMP/cmp.json" 2>"$TMP/err" &&
	"$UL" compare --db "$DB" --format json A "run:$uuid" >"$TMP/alone.json" 2>>"$TMP/err"
is $? 0 "compare --format json exits 0"
python3 - "$TMP/cmp.json" "$TMP/alone.json" <<'PY'
import json, sys
rows = {r["test"]: r for r in json.load(open(sys.argv[1]))["rows"]}
r = rows["2ctx-mem"]
assert r["outcome"] == "crashed" and r["tested"], r
assert (r["crashed_cand"], r["reached_cand"], r["crashed_base"], r["reached_base"]) == (1, 3, 0, 2), r
assert r["cells_cand"] == 2 and r["pooled_crashed_cand"] == 0, r
r = rows["noload"]
assert r["outcome"] == "compared" and r["crashed_cand"] == 0, r
assert r["pooled_crashed_cand"] == 1 and r["cells_cand"] == 3 and r["pooled_crashed_base"] == 0, r
rows = {r["test"]: r for r in json.load(open(sys.argv[2]))["rows"]}
r = rows["2ctx-mem"]
assert r["outcome"] == "crashed" and not r["tested"], r
assert (r["crashed_cand"], r["reached_cand"]) == (1, 1), r
assert r["why"] == "the candidate crashed here: nothing measured", r
PY
ok $? "JSON: the counts per side, the outcome, and an untested row for the crashed run alone"
like "$("$UL" compare --db "$DB" A "run:$uuid")" "^2ctx-mem +B .* CRASHED in 1 of 1 " \
	"the crashed run alone: the row is CRASHED in 1 of 1"
"$UL" compare --db "$DB" --format csv A B >"$TMP/cmp.csv" 2>"$TMP/err"
is $? 0 "compare --format csv exits 0"
python3 - "$TMP/cmp.csv" <<'PY'
import csv, sys
rows = {r["test"]: r for r in csv.DictReader(open(sys.argv[1], newline=""))}
assert (rows["2ctx-mem"]["crashed_cand"], rows["2ctx-mem"]["reached_cand"]) == ("1", "3"), rows
assert rows["noload"]["crashed_cand"] == "0", rows
PY
ok $? "CSV: crashed and reached counts per side"

# The report: the crash above everything, and in the verdict table; a
# label names all its finished runs there too, so it counts as compare does.
"$UL" report --db "$DB" -o "$TMP/report.html" A B 2>"$TMP/err"
is $? 0 "report exits 0"
page=$(tr -d '\n' <"$TMP/report.html")
like "$page" "</h1><p>.*</p><p class=\"crash\">CRASHED: B, run ${uuid:0:8}: the machine went down during resp 2ctx-mem \(probe resp\), round 1" \
	"the page opens with a CRASHED line"
like "$page" "B \(3 runs, samples pooled; 1 of 3 crashed\)" "its head counts B's crashed runs"
like "$page" "<td>2ctx-mem</td><td>B</td><td colspan=\"9\" class=\"crash\">CRASHED: the candidate in 1 of 3 runs, the baseline in 0 of 2" \
	"the verdict table marks B's 2ctx-mem crashed"
done_testing

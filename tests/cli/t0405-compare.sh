#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-or-later
# underload compare over a store built here: resp labels that really differ
# (10x the probe's CPU work) are called slower with a CI above zero, with the
# probe-option difference flagged unfair (--strict exits 2); too few points
# give "no difference proven" with the points needed; runs of one label
# pool; resp compares only the fixed first --min-points points; deadline,
# mtest and contest comparisons print their seed tables and verdict rows;
# json and csv carry the same rows, member for column; the header lists settings and states
# that matter, aligned (--env all: every one); bad options are usage errors.
. "$(dirname "$0")/lib.bash"

# The probe reduced to its CPU work, so the work ratio is the delay ratio.
RS=(--dir "$SCRATCH" --db "$DB" --no-progress --tests noload --interval 50ms
	-o resp.working-set=0 -o resp.exec=no --format resp1)
"$UL" run "${RS[@]}" --label fast --min-points 8 --max-points 8 \
	-o resp.cpu-work=2000000 >/dev/null 2>"$TMP/err"
is $? 0 "resp run 'fast' exits 0"
"$UL" run "${RS[@]}" --label slow --min-points 8 --max-points 8 \
	-o resp.cpu-work=20000000 >/dev/null 2>"$TMP/err"
is $? 0 "resp run 'slow' exits 0"

out=$("$UL" compare --db "$DB" fast slow 2>"$TMP/err")
is $? 0 "compare fast slow exits 0"
like "$out" "^baseline 'fast' \\(run 1\\)$" "the first named is the baseline, its run named"
like "$out" "^candidate 'slow' \\(run 2\\)$" "the candidate and its run"
like "$out" "^  probe options +fast +.*resp.cpu-work=2000000 +\\(unfair\\)$" \
	"the probe options differ, per label, marked unfair"
like "$out" "^warning: unfair comparison: probe options differ" "an unfair-comparison warning line"
is "$(grep -c '^label ' <<<"$out")" 2 "one resp1 block per label"
like "$out" "^resp delay \\(ns, lower is better\\): verdict by replicates" "the native table names metric, direction and unit"
like "$out" "^\\(points: Mann-Whitney U" "and the test of the points"
row=$(grep -E '^noload +slow ' <<<"$out")
# one run a side: the call rests on within-run points alone, so it is
# qualified, with the replicates to run (see t0409 for replicates)
like "$row" "^noload +slow +1/1 +8 +8 .* \\+[0-9.]+% \\[\\+[0-9.]+%, \\+[0-9.]+%\\] +(<0\\.0001|0\\.0[0-9]+) +slower \\(unconfirmed\\) +yes +>=3 +points +run-to-run variation not measured" \
	"10x the work, one run a side: slower but unconfirmed, CI above zero, survives Holm"

# The verdict first: the summary's line per row above the environment
# and the details; colour only on a terminal (or --color=always), never
# with NO_COLOR set, never into a pipe.
is "$(head -n 1 <<<"$out" | cut -d, -f1)" "summary: each candidate against 'fast'" \
	"the summary is the first line"
like "$(sed -n 3p <<<"$out")" "^  resp delay +noload +slow +\\+[0-9.]+% \\[\\+[0-9.]+%, \\+[0-9.]+%\\] +slower \\(unconfirmed\\) +yes( |$)" \
	"its row: change, CI, verdict, Holm"
before=$(sed -n '/^baseline /q;p' <<<"$out")
like "$before" "noload +slow .* slower" "and it comes before the environment"
is "$(grep -c $'\x1b' <<<"$out")" 0 "no colour into a pipe"
like "$("$UL" compare --db "$DB" fast slow --color=always | sed -n 3p)" $'\x1b\\[31mslower \\(unconfirmed\\)\x1b\\[0m' \
	"--color=always: slower is red"
tty_out=$(script -qec "$UL compare --db $DB fast slow" /dev/null)
like "$(sed -n 3p <<<"$tty_out")" $'\x1b\\[31mslower' "auto: coloured on a terminal"
tty_out=$(NO_COLOR=1 script -qec "$UL compare --db $DB fast slow" /dev/null)
is "$(grep -c $'\x1b' <<<"$tty_out")" 0 "NO_COLOR: no colour on a terminal"
tty_out=$(script -qec "$UL compare --db $DB fast slow --color=never" /dev/null)
is "$(grep -c $'\x1b' <<<"$tty_out")" 0 "--color=never: no colour on a terminal"
"$UL" compare --db "$DB" fast slow --color=sometimes >/dev/null 2>&1
is $? 2 "--color=sometimes is a usage error"

"$UL" compare --db "$DB" fast slow --strict >/dev/null 2>"$TMP/err"
is $? 2 "--strict: an unfair comparison exits 2"
like "$(cat "$TMP/err")" "--strict" "and says why"

out=$("$UL" compare --db "$DB" fast slow --alpha 0.0001)
like "$(grep -E '^noload +slow ' <<<"$out")" "no difference proven +- .*too few points for any verdict: ~[0-9]+/side needed" \
	"8 v 8 cannot reach alpha 0.0001: no difference proven, and the points needed"

out=$("$UL" compare --db "$DB" fast slow --test welch)
like "$out" "^\\(points: Welch's t" "--test welch names the test of the points"
like "$(grep -E '^noload +slow ' <<<"$out")" " slower \\(unconfirmed\\) " "Welch agrees: slower (unconfirmed)"

# Replicates enough that the verdict is determined: a second run of each
# label, of three rounds, so 4 replicates a side (Welch df >= 3: 10x the
# work is called slower unless the replicate medians of a side vary by
# more than half their mean).  fast's is adaptive: pooled, only the first
# 5 points of each of its cells tested.
"$UL" run "${RS[@]}" --label slow --min-points 8 --max-points 8 --runs 3 \
	-o resp.cpu-work=20000000 >/dev/null 2>"$TMP/err"
is $? 0 "a second run of 'slow', three replicates, exits 0"
"$UL" run "${RS[@]}" --label fast --min-points 5 --max-points 9 --ci-target 0.01% --runs 3 \
	-o resp.cpu-work=2000000 >/dev/null 2>"$TMP/err"
is $? 0 "adaptive resp run exits 0"
"$UL" compare --db "$DB" fast slow --format json >"$TMP/c.json"
is $? 0 "compare --format json exits 0"
python3 - "$TMP/c.json" <<'PY'
import json, sys
d = json.load(open(sys.argv[1]))
assert d["format"] == "underload-compare" and d["format_version"] == 2, d
assert [g["label"] for g in d["groups"]] == ["fast", "slow"], d["groups"]
assert [r["id"] for r in d["groups"][0]["runs"]] == [4, 1], d["groups"][0]
(r,) = d["rows"]
assert r["suite"] == "resp" and r["test"] == "noload" and r["tested"], r
assert r["runs_base"] == 2 and r["n_base"] == 8 + 3 * 5, r  # up to 9 taken, first 5 tested
assert r["prefix_base"] == 5 and r["prefix_cand"] == 0, r
assert r["shift_lo"] <= r["shift"] <= r["shift_hi"] and r["shift"] > 0, r
# 4 replicates a side judge by Welch on their medians: 10x the work is slower
assert r["basis"] == "replicates" and r["reps_base"] == 4 and r["reps_cand"] == 4, r
assert r["df"] >= 3, r
assert r["verdict"] == "slower" and r["p"] <= 0.05 and r["holm_survives"], r
assert r["ci_lo_rel"] > 0, r
assert any(e["what"] == "probe options" and e["unfair"] for e in d["environment"]), d["environment"]
PY
ok $? "JSON: pooled runs, fixed prefix of the adaptive cells, slower by 4 v 4 replicates, CI above zero"

"$UL" compare --db "$DB" fast slow --per-run --format json >"$TMP/r.json"
python3 - "$TMP/r.json" <<'PY'
import json, sys
d = json.load(open(sys.argv[1]))
(r,) = d["rows"]
assert d["unit"] == "run", d["unit"]
assert r["tested"] and r["basis"] == "replicates", r
assert r["runs_base"] == 2 and r["reps_base"] == 2 and r["reps_cand"] == 2, r
PY
ok $? "--per-run: runs are the replicates, two a side"

csv=$("$UL" compare --db "$DB" fast slow --format csv)
is "$(wc -l <<<"$csv")" 2 "CSV: a header and one row"
is "$(head -1 <<<"$csv" | tr -d '\r' | cut -d, -f1-6)" "suite,metric,unit,test,baseline,candidate" "CSV header"
like "$(sed -n 2p <<<"$csv")" "^resp,delay_ns,ns,noload,fast,slow,2,2,23,32,.*,slower,.*,4,4,replicates,0," "CSV row"
# One row table feeds both: every member of a JSON row is the CSV column
# of that name with the same value (with --margin: the TOST members too).
"$UL" compare --db "$DB" fast slow --margin 5 --format json >"$TMP/m.json" &&
	"$UL" compare --db "$DB" fast slow --margin 5 --format csv >"$TMP/m.csv"
is $? 0 "compare --margin 5 writes json and csv"
python3 - "$TMP/m.json" "$TMP/m.csv" <<'PY'
import csv, json, sys
rows = json.load(open(sys.argv[1]))["rows"]
table = list(csv.DictReader(open(sys.argv[2], newline="")))
assert len(rows) == len(table) == 1, (rows, table)
assert "tost_p" in rows[0] and "rep_sd_base" in rows[0], rows[0]
for j, c in zip(rows, table):
    for k, v in j.items():
        if k == "parts":  # the parts' rows: CSV columns of their own
            continue
        assert k in c, "CSV has no column " + k
        if v is None or isinstance(v, str):
            assert c[k] == (v or ""), (k, v, c[k])
        elif isinstance(v, bool):
            assert c[k] == ("1" if v else "0"), (k, v, c[k])
        else:
            assert float(c[k]) == v, (k, v, c[k])
PY
ok $? "a JSON row's members are the CSV row's columns, same values"
like "$("$UL" compare --db "$DB" fast slow)" "only the first 5 points of each run" \
	"text says the adaptive cells are cut to their fixed prefix"

# deadline: one table per label, a latency row.
DL=(--dir "$SCRATCH" --db "$DB" --no-progress --interval 200ms --min-points 3 --tests noload)
"$UL" run deadline "${DL[@]}" --label dl-a --format deadline >/dev/null 2>"$TMP/err" &&
	"$UL" run deadline "${DL[@]}" --label dl-b --format deadline >/dev/null 2>"$TMP/err"
is $? 0 "two deadline runs exit 0"
out=$("$UL" compare --db "$DB" dl-a dl-b --suite deadline)
is $? 0 "compare --suite deadline exits 0"
is "$(grep -c '^deadline probe: audio' <<<"$out")" 2 "one deadline table per label"
like "$out" "^deadline latency \\(ns, lower is better\\)" "the deadline comparison"
like "$(grep -E '^noload +dl-b ' <<<"$out")" " (faster|slower|no difference proven) " "a verdict for noload"
like "$out" "^== deadline ==$" "the suite's section"
is "$(grep -c '^== resp ==$' <<<"$out")" 0 "--suite shows only that suite"

# mtest: one averages block per label, an elapsed row.
MT=(--dir "$SCRATCH" --db "$DB" --no-progress --runs 3 --mtest-target 8M --format mtest)
"$UL" run mtest "${MT[@]}" --label mt-a >/dev/null 2>"$TMP/err" &&
	"$UL" run mtest "${MT[@]}" --label mt-b >/dev/null 2>"$TMP/err"
is $? 0 "two mtest runs exit 0"
out=$("$UL" compare --db "$DB" mt-a mt-b)
is "$(grep -c '^Averages for 3 mtest01 runs$' <<<"$out")" 2 "one averages block per label, its replicates pooled"
like "$(grep -E '^mtest01 +mt-b ' <<<"$out")" "^mtest01 +mt-b +3/3 +3 +3 .* replicates " \
	"3 mtest01 runs a side: 3 replicates, judged by them"

# contest: the seed's blocks with one row per label, a Time row per load.
JOB="sh -c 'i=0; while [ \$i -lt 100000 ]; do i=\$((i+1)); done'"
CT=(contest --dir "$SCRATCH" --db "$DB" --no-progress --quick --no-drop-caches --lead-time 200ms
	--mem-limit 1G --tests noload,process_load -o process_load.procs=2 --runs 2 --job "$JOB"
	--format contest)
"$UL" run "${CT[@]}" --label ct-a >/dev/null 2>"$TMP/err" &&
	"$UL" run "${CT[@]}" --label ct-b >/dev/null 2>"$TMP/err"
rc=$?
is $rc 0 "two contest runs exit 0"
[ "$rc" = 0 ] || diag "$(cat "$TMP/err")"
out=$("$UL" compare --db "$DB" ct-a ct-b --suite contest)
like "$out" "^ct-a \\[2\\]"$'\t' "contest block has the baseline's row"
like "$out" "^ct-b \\[2\\]"$'\t' "and the candidate's"
like "$out" "^contest Time \\(ns, lower is better\\)" "the contest comparison"
is "$(grep -cE '^(noload|process_load) +ct-b +2/2 +2 +2 .* replicates ' <<<"$out")" 2 \
	"a row per load, 2 rounds = 2 replicates a side, judged by them"

# Every label by default: newest run of each, oldest label first.
out=$("$UL" compare --db "$DB" --format json)
python3 - <<PY
import json
d = json.loads('''$out''')
labels = [g["label"] for g in d["groups"]]
assert labels == ["slow", "fast", "dl-a", "dl-b", "mt-a", "mt-b", "ct-a", "ct-b"], labels
assert all(len(g["runs"]) == 1 for g in d["groups"]), d["groups"]
assert d["groups"][1]["runs"][0]["id"] == 4, d["groups"][1]
PY
ok $? "default: every label, newest run of each, oldest first"

# The header shows what matters: a settings difference, and states only
# when they cross a threshold (a doctor warning, free memory below a
# --mem-limit budget); every other state (uptime, load, page cache, top
# processes) only with --env all, and always in the JSON.  Made by editing
# an export of run 1, so nothing else differs.
"$UL" export --db "$DB" 1 >"$TMP/one.json"
python3 - "$TMP/one.json" "$TMP/env.json" <<'PY'
import copy, json, sys, uuid
d = json.load(open(sys.argv[1]))
(base,) = d["runs"]
base["label"] = "base"
base["fingerprint"]["doctor"]["busy"] = "info: quiet"
def variant(label, edit):
    r = copy.deepcopy(base)
    r["uuid"], r["label"] = str(uuid.uuid4()), label
    r["started_ns"] += 10**9
    r["finished_ns"] += 10**9
    fp = r["fingerprint"]
    fp["activity"]["uptime_s"] = 123456
    fp["activity"]["loadavg"] = "9.99 9.99 9.99 3/333 33333"
    fp["activity"]["top_cpu"] = ["a-much-longer-process-name[4242] 99% CPU"]
    fp["memory"]["page_cache_kb"] = 1
    edit(r, fp)
    return r
def moments(r, fp):
    pass
def setting(r, fp):
    fp["sysctl"]["vm.swappiness"] = "1" if fp["sysctl"].get("vm.swappiness") != "1" else "2"
    fp["doctor"]["busy"] = "warn: other processes used 40% of a CPU"
def limited(r, fp):
    r["params"]["mem_limit_bytes"] = r["params"]["mem_budget_bytes"] = 256 << 20
    fp["memory"]["available_kb"] = 100000
d["runs"] = [base, variant("later", moments), variant("a-long-candidate-label", setting),
             variant("limited", limited)]
json.dump(d, open(sys.argv[2], "w"))
PY
"$UL" import --db "$TMP/env.db" "$TMP/env.json" >/dev/null
is $? 0 "runs differing in states, a setting and a limit imported"
out=$("$UL" compare --db "$TMP/env.db" base later)
like "$out" "^environment: no differences in settings, hardware or kernel \\([0-9]+ of the moment, such as uptime and load: --env all\\)$" \
	"states alone: no difference listed, their count and --env all named"
! grep -Eq "uptime_s|loadavg|top_cpu|page_cache" <<<"$out"
ok $? "uptime, load, top processes and page cache are not listed by default"
out=$("$UL" compare --db "$TMP/env.db" base later --env all)
like "$out" "^environment differences:$" "--env all: every difference"
like "$out" "^  activity\\.uptime_s +base +[0-9]+$" "the uptime listed"
like "$out" "^ +later +123456$" "with the candidate's value"
out=$("$UL" compare --db "$TMP/env.db" base a-long-candidate-label limited)
like "$out" "^environment differences \\([0-9]+ more of the moment, such as uptime and load: --env all\\):$" \
	"a setting differs: listed, and the states left out counted"
like "$out" "^  sysctl\\.vm\\.swappiness +base +[0-9]+ +\\(unfair\\)$" "the setting, unfair"
like "$out" "^  doctor\\.busy +base +info: quiet +\\(a doctor warn in 'a-long-candidate-label'\\)$" \
	"a doctor warning is a state that matters, with why"
like "$out" "^  memory\\.available_kb +base +[0-9]+ +\\(below the memory budget \\(256 MiB\\) in 'limited'\\)$" \
	"free memory below a --mem-limit budget matters, with why"
! grep -Eq "uptime_s|loadavg|top_cpu|page_cache" <<<"$out"
ok $? "but not the uptime, load, top processes or page cache"
"$UL" compare --db "$TMP/env.db" base a-long-candidate-label limited --env all >"$TMP/all.txt"
python3 - "$TMP/all.txt" <<'PY'
import re, sys
lines = open(sys.argv[1]).read().split("\n")
start = lines.index("environment differences:") + 1
block = []
for l in lines[start:]:
    if not l.startswith("  "):
        break
    block.append(l)
labels = ("base", "a-long-candidate-label", "limited")
cols = set()
for l in block:
    m = re.match(r"^  (.*?) +(" + "|".join(labels) + r")( +)", l)
    assert m, l
    cols.add((m.start(2), m.end(3)))
assert len(block) >= 3 * 6 and len(cols) == 1, (cols, block)
PY
ok $? "--env all: labels and values start in one column whatever the widths"
"$UL" compare --db "$TMP/env.db" base later a-long-candidate-label limited --format json >"$TMP/env.out"
python3 - "$TMP/env.out" <<'PY'
import json, sys
env = {e["what"]: e for e in json.load(open(sys.argv[1]))["environment"]}
for k in ("activity.uptime_s", "activity.loadavg", "activity.top_cpu", "memory.page_cache_kb"):
    assert env[k]["shown"] is False and env[k]["kind"] == "state", env[k]
assert env["sysctl.vm.swappiness"]["shown"] and env["sysctl.vm.swappiness"]["kind"] == "setting", env
assert env["doctor.busy"]["shown"] and env["doctor.busy"]["note"].startswith("a doctor warn"), env
assert env["memory.available_kb"]["shown"] and "memory budget" in env["memory.available_kb"]["note"], env
assert env["memory budget"]["shown"] and env["memory budget"]["unfair"], env
PY
ok $? "JSON: every difference kept, each with its kind and whether it is shown"

# Bad input.
"$UL" compare --db "$DB" fast slow --alpha 0 2>"$TMP/err"; is $? 2 "--alpha 0 is a usage error"
like "$(cat "$TMP/err")" "--alpha" "naming the option"
"$UL" compare --db "$DB" fast slow --test t 2>/dev/null; is $? 2 "--test t is a usage error"
"$UL" compare --db "$DB" fast slow --format xml 2>/dev/null; is $? 2 "--format xml is a usage error"
"$UL" compare --db "$DB" fast nosuch 2>"$TMP/err"; is $? 2 "an unknown label is a usage error"
like "$(cat "$TMP/err")" "nosuch" "naming it"
"$UL" compare --db "$DB" --suite nosuch 2>/dev/null; is $? 2 "an unknown suite is a usage error"

is "$(scratch_left)" 0 "no scratch directory left behind"
is "$(ul_procs)" 0 "no process left behind"
done_testing

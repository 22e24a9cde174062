#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-or-later
# --runs N in every suite of one cell per test and round (resp, deadline,
# micro, mtest, fsbench): every test once per round, rounds interleaved
# (A B A B, not A A B B), each round stored as its own cell with its round
# number (the metric "round"), read back from the store by `export`.
# Without --runs a cell is round 1 and there is one per test.  mtest's and
# fsbench's blocks pool a test's replicates; a store of the old layout
# (their rounds inside one cell) still shows and compares.
. "$(dirname "$0")/lib.bash"

# check_rounds FILE SUITE ROUNDS TEST...: the suite's cells in FILE (an
# export), by seq, are TEST... of round 1, then TEST... of round 2, ...
check_rounds() {
	python3 - "$@" <<'PY'
import json, sys
path, suite, rounds, tests = sys.argv[1], sys.argv[2], int(sys.argv[3]), sys.argv[4:]
runs = json.load(open(path))["runs"]
assert len(runs) == 1, len(runs)
cells = sorted((c for c in runs[0]["cells"] if c["suite"] == suite), key=lambda c: c["seq"])
test = (lambda c: c["probe"]) if suite == "micro" else (lambda c: c["load"])
got = [(test(c), {m["name"]: m["value"] for m in c["metrics"]}.get("round")) for c in cells]
want = [(t, float(r)) for r in range(1, rounds + 1) for t in tests]
if got != want:
    sys.exit("by seq got %s, want %s" % (got, want))
bad = [c["seq"] for c in cells if c["outcome"] != "ok" or not c["series"][0]["values"]]
if bad:
    sys.exit("cells without data: %s" % bad)
PY
}

# resp: two tests, two rounds, one probe kept across them.
"$UL" run resp "${TINY[@]}" --runs 2 --tests noload,cpuload --label reps-resp \
	--format text >"$TMP/out" 2>"$TMP/err"
rc=$?
is "$rc" 0 "run resp --runs 2 exits 0"
[ "$rc" = 0 ] || diag "$(cat "$TMP/err")"
"$UL" export --db "$DB" reps-resp >"$TMP/resp.json"
check_rounds "$TMP/resp.json" resp 2 noload cpuload 2>"$TMP/why"
ok $? "resp: stored noload, cpuload of round 1, then of round 2"
[ -s "$TMP/why" ] && diag "$(cat "$TMP/why")"
is "$(sed -nE 's/^[ !] (noload|cpuload) (#[0-9]+) .*/\1\2/p' "$TMP/out" | tr '\n' ' ')" \
	'noload#1 noload#2 cpuload#1 cpuload#2 ' "text: a test's rounds together, each named"
like "$(cat "$TMP/out")" 'ratio = median / noload median of the same round' \
	"text: each ratio against its own round's noload"

# deadline: the same interleaving.
"$UL" run deadline --dir "$SCRATCH" --db "$DB" --no-progress --interval 100ms --min-points 3 \
	--runs 3 --tests noload,cpuload --label reps-dl --format deadline >"$TMP/out" 2>"$TMP/err"
rc=$?
is "$rc" 0 "run deadline --runs 3 exits 0"
[ "$rc" = 0 ] || diag "$(cat "$TMP/err")"
"$UL" export --db "$DB" reps-dl >"$TMP/dl.json"
check_rounds "$TMP/dl.json" deadline 3 noload cpuload 2>"$TMP/why"
ok $? "deadline: three interleaved rounds stored"
[ -s "$TMP/why" ] && diag "$(cat "$TMP/why")"
is "$(grep -E '^ *(noload|cpuload) #[123] ' "$TMP/out" | awk '{ print $1 $2 }' | tr '\n' ' ')" \
	"noload#1 noload#2 noload#3 cpuload#1 cpuload#2 cpuload#3 " "deadline table: a row per round, test by test"

# micro: the issue's example, then two tests under two loads.
"$UL" run micro --dir "$SCRATCH" --db "$DB" --no-progress --runs 2 --quick --tests lat-null \
	--label reps-micro1 >/dev/null 2>"$TMP/err"
rc=$?
is "$rc" 0 "run micro --runs 2 --quick --tests lat-null exits 0"
[ "$rc" = 0 ] || diag "$(cat "$TMP/err")"
"$UL" export --db "$DB" reps-micro1 >"$TMP/m1.json"
check_rounds "$TMP/m1.json" micro 2 lat-null 2>"$TMP/why"
ok $? "micro: two replicates of lat-null stored"
[ -s "$TMP/why" ] && diag "$(cat "$TMP/why")"

"$UL" run micro --dir "$SCRATCH" --db "$DB" --no-progress --runs 2 --quick \
	--tests lat-null,lat-nullio --label reps-micro2 --format lmbench2 >"$TMP/out" 2>"$TMP/err"
rc=$?
is "$rc" 0 "run micro --runs 2 with two tests exits 0"
[ "$rc" = 0 ] || diag "$(cat "$TMP/err")"
"$UL" export --db "$DB" reps-micro2 >"$TMP/m2.json"
check_rounds "$TMP/m2.json" micro 2 lat-null lat-nullio 2>"$TMP/why"
ok $? "micro: lat-null, lat-nullio, then again"
[ -s "$TMP/why" ] && diag "$(cat "$TMP/why")"
is "$(grep -oE ' under noload #[0-9]+ ' "$TMP/out" | tr -d ' ' | tr '\n' ' ')" \
	"undernoload#1 undernoload#2 " "lmbench2: a row per round"

# Without --runs: one cell per test, round 1.
"$UL" run micro --dir "$SCRATCH" --db "$DB" --no-progress --quick --tests lat-null \
	--label reps-once --format json=/dev/null >/dev/null 2>"$TMP/err"
is $? 0 "run micro without --runs exits 0"
"$UL" export --db "$DB" reps-once >"$TMP/once.json"
check_rounds "$TMP/once.json" micro 1 lat-null 2>"$TMP/why"
ok $? "one round without --runs"
[ -s "$TMP/why" ] && diag "$(cat "$TMP/why")"

# mtest: its one test, two rounds, a cell each; the seed's block pools them.
MT=(--dir "$SCRATCH" --db "$DB" --no-progress --quick --runs 2 --mtest-target 8M
	--monitor-interval 0)
"$UL" run mtest "${MT[@]}" --label reps-mt --format mtest,text >"$TMP/out" 2>"$TMP/err"
rc=$?
is "$rc" 0 "run mtest --quick --runs 2 exits 0"
[ "$rc" = 0 ] || diag "$(cat "$TMP/err")"
"$UL" export --db "$DB" reps-mt >"$TMP/mt.json"
check_rounds "$TMP/mt.json" mtest 2 mtest01 2>"$TMP/why"
ok $? "mtest: two replicates of mtest01 stored, rounds 1 and 2"
[ -s "$TMP/why" ] && diag "$(cat "$TMP/why")"
is "$(grep -c '^Averages for 2 mtest01 runs$' "$TMP/out")" 1 "mtest: one seed block over both replicates"
like "$(cat "$TMP/out")" 'audio dropouts: [0-9]+ of [0-9]+ periods missed' "with the dropouts of both"
is "$(grep -c '^mtest01: 2 runs of 8388608 bytes' "$TMP/out")" 1 "one native block, both runs"
is "$(sed -nE 's/^[ !] (mtest01) (#[0-9]+) .*/\1\2/p' "$TMP/out" | tr '\n' ' ')" \
	'mtest01#1 mtest01#2 ' "text: a row per replicate"

# fsbench: two loads, two rounds: noload, cpuload, then again.
FS=(--dir "$SCRATCH" --db "$DB" --no-progress --quick --runs 2 --clients 2 --duration 1s
	--warmup 0 --loadfile builtin --monitor-interval 0 --under noload,cpuload)
"$UL" run fsbench "${FS[@]}" --label reps-fs --format dbench,text >"$TMP/out" 2>"$TMP/err"
rc=$?
is "$rc" 0 "run fsbench --quick --runs 2 under two loads exits 0"
[ "$rc" = 0 ] || diag "$(cat "$TMP/err")"
"$UL" export --db "$DB" reps-fs >"$TMP/fs.json"
check_rounds "$TMP/fs.json" fsbench 2 noload cpuload 2>"$TMP/why"
ok $? "fsbench: noload, cpuload of round 1, then of round 2"
[ -s "$TMP/why" ] && diag "$(cat "$TMP/why")"
is "$(grep -E '^fsbench under [a-z]+, run ' "$TMP/out" | tr '\n' '|')" \
	"fsbench under noload, run 1 of 2:|fsbench under noload, run 2 of 2:|fsbench under cpuload, run 1 of 2:|fsbench under cpuload, run 2 of 2:|" \
	"dbench: a load's rounds together"
is "$(grep -cE '^fsbench under (noload|cpuload): 2 clients, 2 runs of 1 s' "$TMP/out")" 2 \
	"one native block a load, its two rounds pooled"

# The same measurements in the old layout (rounds inside one cell, no
# round metric), as stores of earlier versions hold them: shown with the
# same blocks, compared as one replicate a side.
python3 - "$TMP/mt.json" "$TMP/fs.json" "$TMP/old.json" "$TMP/drop.json" <<'PY'
import json, sys
out = None
for k, path in enumerate(sys.argv[1:3]):
    d = json.load(open(path))
    run = d["runs"][0]
    merged = {}
    for c in sorted(run["cells"], key=lambda c: c["seq"]):
        c["metrics"] = [m for m in c["metrics"] if m["name"] != "round"]
        key = (c["suite"], c["load"], c["probe"])
        if key not in merged:
            merged[key] = c
            continue
        have = {s["name"]: s for s in merged[key]["series"]}
        for s in c["series"]:
            if s["name"] in have:
                have[s["name"]]["values"] += s["values"]
            else:
                merged[key]["series"].append(s)
    run["cells"] = list(merged.values())
    for i, c in enumerate(run["cells"]):
        c["seq"] = i
    run["uuid"] = "00000000-0000-4000-8000-00000000000%d" % (k + 1)
    run["label"] = "old-" + run["label"]
    if out is None:
        out = d
    else:
        out["runs"].append(run)
json.dump(out, open(sys.argv[3], "w"))

# mtest's new-layout run twice more, as labels whose replicates dropped
# 0 and 1, then 50 and 51 of 1000 audio periods: counts with an exposure.
d = json.load(open(sys.argv[1]))
run = d["runs"][0]
runs = []
for k, (label, missed) in enumerate((("drop-a", (0, 1)), ("drop-b", (50, 51)))):
    r = json.loads(json.dumps(run))
    r["uuid"] = "00000000-0000-4000-8000-00000000001%d" % k
    r["label"] = label
    for c, m in zip(sorted(r["cells"], key=lambda c: c["seq"]), missed):
        c["metrics"] = [x for x in c["metrics"] if not x["name"].startswith("dl_")]
        c["metrics"] += [{"name": "dl_periods", "value": 1000}, {"name": "dl_missed", "value": m}]
    runs.append(r)
d["runs"] = runs
json.dump(d, open(sys.argv[4], "w"))
PY
"$UL" import --db "$DB" "$TMP/old.json" >/dev/null 2>"$TMP/err"
is $? 0 "an old-layout export imports"
"$UL" show --db "$DB" 00000000-0000-4000-8000-000000000001 --format mtest >"$TMP/old" 2>"$TMP/err"
is "$(head -1 "$TMP/old")" "Averages for 2 mtest01 runs" "old mtest cell: the same block"
is "$("$UL" show --db "$DB" 00000000-0000-4000-8000-000000000002 --format dbench | grep -E '^fsbench under [a-z]+, run ' | tr '\n' '|')" \
	"fsbench under noload, run 1 of 2:|fsbench under noload, run 2 of 2:|fsbench under cpuload, run 1 of 2:|fsbench under cpuload, run 2 of 2:|" \
	"old fsbench cells: the same dbench headings"
cmp=$("$UL" compare --db "$DB" old-reps-mt reps-mt --suite mtest 2>&1)
like "$cmp" '^mtest01 +reps-mt +1/2 +2 +2 ' "compare: an old cell is one replicate, the new run two"
cmp=$("$UL" compare --db "$DB" old-reps-fs reps-fs --suite fsbench 2>&1)
like "$cmp" '^cpuload +reps-fs +1/2 +2 +2 ' "compare: the same for fsbench"
"$UL" import --db "$DB" "$TMP/drop.json" >/dev/null 2>"$TMP/err"
is $? 0 "two runs of mtest replicates with dropouts import"
cmp=$("$UL" compare --db "$DB" drop-a drop-b --suite mtest 2>&1)
like "$(sed -n '/^mtest dropouts /,/^$/p' <<<"$cmp" | grep -E '^mtest01 +drop-b ')" \
	'^mtest01 +drop-b +2/2 +2 +2 .* slower +yes +[0-9]+ +replicates .*1 of 2000 base, 101 of 2000 cand \(rate test p' \
	"compare: dropouts as a rate per replicate cell, 2 a side, and as counts: more is slower"

is "$(scratch_left)" 0 "no scratch directory left"
is "$(ul_procs)" 0 "no process left"
done_testing

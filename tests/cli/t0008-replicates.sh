#!/usr/bin/env bash
# --runs N in the suites of one cell per test (resp, deadline, micro):
# every test once per round, rounds interleaved (A B A B, not A A B B),
# each round stored as its own cell with its round number (the metric
# "round"), read back from the store by `export`.  Without --runs a cell
# is round 1 and there is one per test.
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

is "$(scratch_left)" 0 "no scratch directory left"
is "$(ul_procs)" 0 "no process left"
done_testing

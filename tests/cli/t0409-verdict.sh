#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-or-later
# compare's verdict rests on replicates: 3 runs a side are judged by Welch
# on their medians (a 10x shift called, the replicates needed given); one
# run a side without history is never a bare slower/faster (qualified,
# run-to-run variation not measured, replicates to run); with earlier
# repeated runs of the same configuration in the store, one run a side is
# judged with the run-to-run variance learned from them.
. "$(dirname "$0")/lib.bash"

RS=(--dir "$SCRATCH" --no-progress --tests noload --interval 20ms --min-points 6
	--max-points 6 -o resp.working-set=0 -o resp.exec=no --format resp1)
run_resp() { # run_resp DB LABEL WORK
	"$UL" run "${RS[@]}" --db "$1" --label "$2" -o resp.cpu-work="$3" >/dev/null 2>"$TMP/err"
}

DB1=$TMP/reps.db
rc=0
for i in 1 2 3; do
	run_resp "$DB1" fast 2000000 || rc=1
	run_resp "$DB1" slow 20000000 || rc=1
done
is $rc 0 "three runs a side exit 0"
out=$("$UL" compare --db "$DB1" fast slow)
is $? 0 "compare exits 0"
like "$out" "^baseline 'fast' \\(3 runs pooled: [0-9]+, [0-9]+, [0-9]+\\)$" \
	"the header counts a label's runs, then names them"
row=$(grep -E '^noload +slow ' <<<"$out")
like "$row" "^noload +slow +3/3 +18 +18 .* slower +yes +[0-9]+ +replicates +run-to-run S\\.D\\. " \
	"3 v 3 replicates: Welch on their medians calls 10x the work slower, replicates needed, S.D. per side"
"$UL" compare --db "$DB1" fast slow --format json >"$TMP/r.json"
python3 - "$TMP/r.json" <<'PY'
import json, sys
d = json.load(open(sys.argv[1]))
assert d["format_version"] == 2, d
(r,) = d["rows"]
assert r["basis"] == "replicates" and r["reps_base"] == 3 and r["reps_cand"] == 3, r
assert r["n_base"] == 18 and r["verdict"] == "slower" and r["p"] < 0.05, r
assert r["rep_sd_base"] > 0 and r["rep_mean_cand"] > 5 * r["rep_mean_base"], r
assert r["need_per_side"] >= 2 and not r["need_is_floor"], r
PY
ok $? "JSON: the replicate-level test, its S.D.s and the replicates needed"

# One run a side, nothing to learn from: qualified, whatever the call.
DB2=$TMP/one.db
run_resp "$DB2" a 2000000 && run_resp "$DB2" b 20000000
is $? 0 "one run a side exits 0"
out=$("$UL" compare --db "$DB2" a b)
row=$(grep -E '^noload +b ' <<<"$out")
like "$row" "^noload +b +1/1 +6 +6 .* (slower \\(unconfirmed\\)|no difference proven) .* >=[0-9]+ +points +run-to-run variation not measured \\(1 v 1 replicates\\): run [0-9]+ or more per side \\(--runs\\)" \
	"one run a side: the call is qualified, with the replicates to run"
! grep -Eq " (slower|faster) +(yes|no) " <<<"$row"
ok $? "never a bare slower or faster"

# The same with earlier repeated runs of the configuration in the store.
for i in 1 2 3; do run_resp "$DB2" history 2000000; done
run_resp "$DB2" c 2000000
out=$("$UL" compare --db "$DB2" c b)
row=$(grep -E '^noload +b ' <<<"$out")
like "$row" "^noload +b +1/1 .* learned +1 v 1 replicates: run-to-run S\\.D\\. [0-9.e+-]+% learned from 1 label with replicates \\(df 2\\)" \
	"one run a side with history: judged with the variance learned from it"
! grep -q "unconfirmed" <<<"$row"
ok $? "and not qualified"

# Runs of labels with one run teach nothing: 70 of them, older than the
# history (more than compare's window of 64 runs read), must not push the
# repeated runs out of what compare learns from.
"$UL" export --db "$DB2" c >"$TMP/c.json"
python3 - "$TMP/c.json" "$TMP/many.json" <<'PY'
import copy, json, sys, uuid
d = json.load(open(sys.argv[1]))
(run,) = d["runs"]
runs = []
for i in range(70):
    r = copy.deepcopy(run)
    r["uuid"] = str(uuid.uuid4())
    r["label"] = "single%d" % i
    r["started_ns"] -= 10**12 + i
    r["finished_ns"] -= 10**12 + i
    runs.append(r)
d["runs"] = runs
json.dump(d, open(sys.argv[2], "w"))
PY
"$UL" import --db "$DB2" "$TMP/many.json" >/dev/null
is $? 0 "70 older runs of single-run labels imported"
out=$("$UL" compare --db "$DB2" c b)
row=$(grep -E '^noload +b ' <<<"$out")
like "$row" "^noload +b +1/1 .* learned +1 v 1 replicates: run-to-run S\\.D\\. [0-9.e+-]+% learned from 1 label with replicates" \
	"the history is still learned from behind 70 single-run labels"

# One run of --runs 3 holds three replicates of its own: it is history too.
DB4=$TMP/runs.db
"$UL" run "${RS[@]}" --db "$DB4" --label rounds --runs 3 -o resp.cpu-work=2000000 >/dev/null 2>"$TMP/err"
is $? 0 "one run of three rounds exits 0"
run_resp "$DB4" d 2000000 && run_resp "$DB4" e 20000000
out=$("$UL" compare --db "$DB4" d e)
row=$(grep -E '^noload +e ' <<<"$out")
like "$row" "^noload +e +1/1 .* learned +1 v 1 replicates: run-to-run S\\.D\\. [0-9.e+-]+% learned from 1 label with replicates \\(df 2\\)" \
	"a single run's rounds (--runs 3) are history with df 2"

# mtest --quick: each replicate (a cell a round) flagged no-pressure
# exactly when it paged nothing.
DB3=$TMP/mt.db
"$UL" run mtest --quick --runs 2 --db "$DB3" --dir "$SCRATCH" --no-progress --label q \
	--format mtest >"$TMP/mt.out" 2>&1
is $? 0 "mtest --quick exits 0"
"$UL" show last --db "$DB3" --format json >"$TMP/mt.json"
python3 - "$TMP/mt.json" <<'PY'
import json, sys
d = json.load(open(sys.argv[1]))
cells = [c for c in d["cells"] if c["suite"] == "mtest"]
assert len(cells) == 2, cells
for c in cells:
    m = c["metrics"]
    paged = any(m.get(k, 0) > 0 for k in ("cg_swap_bytes", "cg_majflt", "swap_out_pages", "probe_majflt"))
    assert m["pressure_reached"] == (1 if paged else 0), m
    assert ("no-pressure" in c["flags"]) == (not paged), c["flags"]
    assert paged or c["note"].startswith("it paged nothing"), c["note"]
PY
ok $? "mtest: no-pressure flag and pressure_reached agree with the paging measured"

is "$(scratch_left)" 0 "no scratch directory left behind"
is "$(ul_procs)" 0 "no process left behind"
done_testing

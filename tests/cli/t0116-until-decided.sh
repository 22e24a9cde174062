#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-or-later
# underload sweep -o ITEM.NAME=V1,V2 and --until-decided: a probe option
# swept like a setting (the run's -o), a value given twice an A/A labelled
# VALUE and VALUE#2, and the sequential A/B: runs in pairs A B, B A, ...
# until every test is decided, or --max-runs or --budget; --fail-on's exit
# 5; the options it refuses; without the user's points, the pilot that
# designs them and the sequence's restart after it.  Nothing is left.
. "$(dirname "$0")/lib.bash"

RUN=(run --tests noload --dir "$SCRATCH" --db "$DB" --no-progress --interval 100ms
	--min-points 5 --max-points 6 -o resp.working-set=4M -o resp.files=20)
labels() { sqlite3 "$1" "SELECT label FROM runs ORDER BY id" | paste -sd ' '; }

# Refused before anything runs.
refuse() { # refuse WHY ARGS...: exit 2, nothing stored
	local why=$1
	shift
	"$UL" sweep "$@" >/dev/null 2>"$TMP/err"
	is $? 2 "refused: $why"
}
refuse "--until-decided with three values" -o resp.cpu-work=1,2,3 --until-decided -- "${RUN[@]}"
refuse "--max-runs without --until-decided" -o resp.cpu-work=1,2 --max-runs 4 -- "${RUN[@]}"
refuse "--budget without --until-decided" -o resp.cpu-work=1,2 --budget 1m -- "${RUN[@]}"
refuse "--repeat with --until-decided" -o resp.cpu-work=1,2 --repeat 2 --until-decided \
	-- "${RUN[@]}"
refuse "--fail-on of an unknown verdict" -o resp.cpu-work=1,2 --fail-on worse -- "${RUN[@]}"
refuse "-o of no such option" -o resp.nosuch=1,2 -- "${RUN[@]}"
like "$(cat "$TMP/err")" "probe 'resp'" "and says whose option it is not"
refuse "-o out of range" -o resp.cpu-work=-5,2 -- "${RUN[@]}"
refuse "-o without ITEM." -o cpu-work=1,2 -- "${RUN[@]}"
refuse "the swept -o in the run's arguments too" -o resp.cpu-work=1,2 -- "${RUN[@]}" \
	-o resp.cpu-work=7
like "$(cat "$TMP/err")" "resp.cpu-work is swept" "and says which"
[ -e "$DB" ]
is $? 1 "nothing was stored"

# A 4x task decided slower; --fail-on slower exits 5.
UL_TEST_DECIDE_READS=1 "$UL" sweep -o resp.cpu-work=3000000,12000000 --until-decided \
	--max-runs 24 --fail-on slower -- "${RUN[@]}" >"$TMP/out" 2>"$TMP/err"
is $? 5 "a 4x task: --fail-on slower exits 5"
grep '^sweep: pair' "$TMP/err" | sed 's/^/# /'
grep -q "^error: sweep --fail-on slower: resp delay noload: 'resp.cpu-work=12000000' is slower than 'resp.cpu-work=3000000'$" "$TMP/err"
ok $? "the gate names the row that tripped it, as compare's does"
res=$(sed -n '/^until decided:/,$p' "$TMP/out")
like "$res" "^until decided: 'resp.cpu-work=12000000' against 'resp.cpu-work=3000000' \(the baseline\): decided after [0-9]+ pairs" \
	"it stops once decided, and says so"
like "$res" "^resp noload delay +\+[0-9.]+% \[\+[0-9.]+%, \+[0-9.]+%\] +slower$" \
	"the row: the change, its interval above 0, slower"
pairs=$(sed -n 's/.*decided after \([0-9]*\) pairs.*/\1/p' <<<"$res")
n=$(sqlite3 "$DB" "SELECT count(*) FROM runs WHERE status = 'complete'")
is "$n" "$((2 * pairs))" "every run of every pair is stored"
# Balanced blocks: A B, B A, A B, ...
want=$(for ((p = 0; p < pairs; p++)); do
	if ((p % 2)); then echo B A; else echo A B; fi
done | paste -sd ' ')
got=$(labels "$DB" | sed 's/resp.cpu-work=3000000/A/g; s/resp.cpu-work=12000000/B/g')
is "$got" "$want" "the sides run A B, B A, ..."
# A look loads only its pair's runs (the hook says how many it loaded).
is "$(grep -c '^sweep: look [0-9]* loaded 2 runs$' "$TMP/err")" "$pairs" \
	"each look loads the two runs of its pair, not all the runs so far"
is "$(grep -c '^sweep: look ' "$TMP/err")" "$pairs" "and there is one look a pair"
grep -q '^sweep: pair 1: 0 of 1 tests decided; least decided: resp noload delay .*; pairs still needed: known after 2$' "$TMP/err"
ok $? "the progress line after a pair gives the interval and what is still needed"
grep -q "^the first 3 pairs are the pilot's" "$TMP/out"
is $? 1 "the user's points: no pilot, the sequence does not restart"

# An A/A by repetition, stopped by --max-runs before it could bound anything.
"$UL" sweep -o resp.cpu-work=3000000,3000000 --until-decided --max-runs 5 \
	-- "${RUN[@]}" --db "$TMP/aa.db" >"$TMP/out" 2>"$TMP/err"
is $? 0 "an A/A stopped by --max-runs exits 0"
is "$(labels "$TMP/aa.db")" "resp.cpu-work=3000000 resp.cpu-work=3000000#2 resp.cpu-work=3000000#2 resp.cpu-work=3000000" \
	"a value given twice: VALUE and VALUE#2, two pairs (a third would pass 5 runs)"
like "$(cat "$TMP/out")" "budget reached after 2 pairs \(4 runs" "it says the budget ended it"
like "$(cat "$TMP/out")" "^resp noload delay +[-+][0-9.]+% \[unbounded\] +open$" \
	"two pairs bound nothing: the row stays open"
like "$(cat "$TMP/out")" "^1 test open: too few pairs to bound a change$" "and it says why"

# --budget: no pair is started that would end after it.
"$UL" sweep -o resp.cpu-work=3000000,3000000 --until-decided --budget 1s \
	-- "${RUN[@]}" --db "$TMP/b.db" >"$TMP/out" 2>"$TMP/err"
is $? 0 "--budget 1s exits 0"
like "$(cat "$TMP/out")" "budget reached after 1 pair \(2 runs" "one pair, then the budget"

# Without the user's points (no --min-points, --max-points, --quick): a
# pilot of 3 pairs at the run's points, then every run at the points a
# cell of the cheapest design (Kalibera and Jones); the notes after the
# result give the variance components of each side.
"$UL" sweep -o resp.cpu-work=1000000,1000000 --until-decided --max-runs 14 \
	-- run --tests noload --dir "$SCRATCH" --db "$TMP/p.db" --no-progress --interval 1ms \
	-o resp.working-set=4M -o resp.files=20 >"$TMP/out" 2>"$TMP/err"
is $? 0 "an A/A at the run's points exits 0"
pts=$(sed -n 's/^sweep: after the pilot of 3 pairs: \([0-9]*\) points a cell from now on, the cheapest design .*/\1/p' "$TMP/err")
ok $((pts >= 3 && pts <= 100 ? 0 : 1)) "after the pilot, the design's points a cell, within 3..100: '$pts'"
is "$(sqlite3 "$TMP/p.db" "SELECT min_points || '-' || max_points FROM runs ORDER BY id" | paste -sd ' ')" \
	"5-20 5-20 5-20 5-20 5-20 5-20 $(printf "$pts-$pts %.0s" 1 2 3 4 5 6 7)$pts-$pts" \
	"the pilot's runs take the run's points, the later runs the design's"
# The sequence restarts after the pilot (stats/seqab.h): the pilot's pairs
# decide nothing, and the first pair after them bounds nothing on its own
# (pooled with the pilot's, four pairs would be bounded).
is "$(grep -c "^sweep: pair [123] (the pilot's): 0 of 1 tests decided" "$TMP/err")" 3 \
	"the pilot's pairs say so on their progress lines"
like "$(grep '^sweep: pair 4:' "$TMP/err")" "least decided: resp noload delay [-+][0-9.]+% \[unbounded\]" \
	"the sequence restarts after the pilot: one pair after it bounds nothing"
like "$(cat "$TMP/out")" "^the first 3 pairs are the pilot's, which designs the points a cell: the sequence restarts after them \(alpha 0 in the pilot, 0.05 after it\)$" \
	"the result says so"
like "$(cat "$TMP/out")" "^variance components \(the S.D. of each level as a CV of the mean" \
	"the notes give the variance components"
for side in resp.cpu-work=1000000 'resp.cpu-work=1000000#2'; do
	like "$(cat "$TMP/out")" "^  resp noload delay '$side': within a cell [0-9.]+%\*?, between rounds \(one a run: with the runs\), between runs [0-9.]+%\*?; cheapest design for \+-5%: [0-9]+ points? a round, 1 round a run, [0-9]+ runs?$" \
		"of each side: within a cell, between rounds, between runs, and the design"
done
is "$(sqlite3 "$DB" "SELECT DISTINCT min_points || '-' || max_points FROM runs")" "5-6" \
	"the user's points (--min-points, --max-points) are left alone"
# A --max-runs without room for the pilot and the 4 pairs after it: no pilot.
"$UL" sweep -o resp.cpu-work=1000000,1000000 --until-decided --max-runs 2 \
	-- run --tests noload --dir "$SCRATCH" --db "$TMP/np.db" --no-progress --interval 1ms \
	-o resp.working-set=4M -o resp.files=20 >"$TMP/out" 2>"$TMP/err"
is $? 0 "--max-runs 2 at the run's points exits 0"
is "$(grep -c "pilot" "$TMP/out" "$TMP/err" | paste -sd ' ')" "$TMP/out:0 $TMP/err:0" \
	"--max-runs 2 leaves no room for a pilot: none is run or said"

# Without --until-decided, -o sweeps as any setting, and compare's --fail-on.
"$UL" sweep -o resp.cpu-work=3000000,3000001 -- "${RUN[@]}" --db "$TMP/o.db" >"$TMP/out" 2>"$TMP/err"
is $? 0 "sweep -o exits 0"
is "$(labels "$TMP/o.db")" "resp.cpu-work=3000000 resp.cpu-work=3000001" "a run per value"
like "$(cat "$TMP/out")" "^candidate 'resp.cpu-work=3000001'" "then compare"
is "$(grep -c '^warning: unfair' "$TMP/out")" 0 "the swept probe option is the expected difference"
# The same sequence on PostgreSQL: the looks read the runs back from there.
if [ -z "${UL_TEST_PG_URI:-}" ]; then
	skip "PostgreSQL: UL_TEST_PG_URI is unset (tests/pg-cluster start prints one)"
elif ! "$UL" --version | grep -Eq '^stores:.* postgresql( |$)'; then
	skip "PostgreSQL: this underload is built without it (-Dpostgresql)"
elif ! command -v psql >/dev/null; then
	skip "PostgreSQL: no psql (postgresql-client) to make a schema"
else
	schema=ul_t0116_$$
	sep='?'
	[[ $UL_TEST_PG_URI == *\?* ]] && sep='&'
	PG="$UL_TEST_PG_URI${sep}options=-csearch_path%3D$schema"
	psql -X -q -v ON_ERROR_STOP=1 -d "$UL_TEST_PG_URI" -c "CREATE SCHEMA $schema"
	ok $? "PostgreSQL: a schema of this test"
	trap 'psql -X -q -d "$UL_TEST_PG_URI" -c "DROP SCHEMA IF EXISTS $schema CASCADE" \
		>/dev/null 2>&1; rm -rf "$TMP"' EXIT
	"$UL" sweep -o resp.cpu-work=3000000,12000000 --until-decided --max-runs 24 \
		-- "${RUN[@]}" --db "$PG" >"$TMP/out" 2>"$TMP/err"
	is $? 0 "PostgreSQL: a 4x task, until decided, exits 0"
	like "$(cat "$TMP/out")" "^resp noload delay +\+[0-9.]+% \[\+[0-9.]+%, \+[0-9.]+%\] +slower$" \
		"PostgreSQL: decided slower"
	pairs=$(sed -n 's/^until decided:.* decided after \([0-9]*\) pairs.*/\1/p' "$TMP/out")
	is "$(psql -X -At -d "$PG" -c "SELECT count(*) FROM runs WHERE status = 'complete'")" \
		"$((2 * pairs))" "PostgreSQL: every run of every pair is stored there"
fi
is "$(ul_procs)" 0 "no process is left"
is "$(scratch_left)" 0 "no scratch is left"
done_testing

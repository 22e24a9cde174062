#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-or-later
# The documented exchange formats: the JSON Schemas of docs/schema/ hold
# for the real output of a short run of every suite (the json format) and
# for the export of all of them; a document the schema does not describe
# is refused (so the check can fail); compare's json follows its own
# schema and a run's crashed_in the run schema; the CSV export has its documented
# columns.  The validator is Debian's python3-jsonschema.
. "$(dirname "$0")/lib.bash"

schemas=$(cd "$(dirname "$0")/../../docs/schema" && pwd)
check=$(dirname "$0")/schema-check.py
if ! python3 -c 'import jsonschema' 2>/dev/null; then
	echo "1..0 # SKIP python3-jsonschema is not installed (Debian package python3-jsonschema)"
	exit 0
fi

JOB="sh -c 'i=0; while [ \$i -lt 20000 ]; do i=\$((i+1)); done'"
COMMON=(--dir "$SCRATCH" --db "$DB" --no-progress)
declare -A args=(
	[resp]="--interval 100ms --min-points 5 --max-points 6 --tests noload,cpuload
		-o resp.working-set=4M -o resp.files=20"
	[deadline]="--interval 200ms --min-points 5 --tests noload"
	[mtest]="--runs 1 --mtest-target 4M --deadline none --monitor-interval 0"
	[contest]="--quick --no-drop-caches --lead-time 200ms --runs 1 --tests noload"
	[fsbench]="--clients 2 --duration 1s --warmup 0 --loadfile builtin --monitor-interval 0"
	[micro]="--quick --tests lat-null"
)
suites=$("$UL" list suites | awk '{ print $1 }')
for s in $suites; do
	[ -n "${args[$s]-}" ] || { ok 1 "t0602 knows how to run suite $s briefly"; continue; }
	extra=()
	[ "$s" = contest ] && extra=(--job "$JOB")
	# shellcheck disable=SC2086 # the suite's arguments are words
	"$UL" run "$s" "${COMMON[@]}" ${args[$s]} "${extra[@]}" --label "schema-$s" \
		--format json="$TMP/$s.json" >/dev/null 2>"$TMP/$s.err"
	rc=$?
	is "$rc" 0 "a short $s run exits 0"
	[ "$rc" = 0 ] || diag "$(tail -n 5 "$TMP/$s.err")"
	out=$("$check" "$schemas/run-output.schema.json" "$TMP/$s.json" 2>&1)
	is "$?:$out" "0:" "$s: the json output follows run-output.schema.json"
done

"$UL" export --db "$DB" -o "$TMP/export.json"
ok $? "export writes every run"
out=$("$check" "$schemas/export.schema.json" "$TMP/export.json" 2>&1)
is "$?:$out" "0:" "the export follows export.schema.json"
is "$(python3 -c 'import json, sys; print(len(json.load(open(sys.argv[1]))["runs"]))' \
	"$TMP/export.json")" "$(echo "$suites" | wc -w)" "and holds a run of every suite"

# compare's json: a second resp label against the first, with a margin
# (its TOST members) and without.
# shellcheck disable=SC2086 # the suite's arguments are words
"$UL" run resp "${COMMON[@]}" ${args[resp]} --label schema-resp2 >/dev/null 2>"$TMP/err"
is $? 0 "a second short resp run exits 0"
for margin in "" "--margin 5"; do
	# shellcheck disable=SC2086 # the option is words
	"$UL" compare --db "$DB" schema-resp schema-resp2 $margin --format json >"$TMP/compare.json"
	is $? 0 "compare ${margin:+$margin }--format json exits 0"
	out=$("$check" "$schemas/compare.schema.json" "$TMP/compare.json" 2>&1)
	is "$?:$out" "0:" "compare's json ${margin:+with $margin }follows compare.schema.json"
done
is "$(python3 -c 'import json, sys; print(len(json.load(open(sys.argv[1]))["rows"]))' \
	"$TMP/compare.json")" 2 "and has a row per resp test"

# Each schema refuses what it does not describe: the check can fail.
python3 - "$TMP/export.json" "$TMP/resp.json" "$TMP" <<'EOF'
import json, sys
ex, ro, tmp = json.load(open(sys.argv[1])), json.load(open(sys.argv[2])), sys.argv[3]
del ex["runs"][0]["uuid"]
ex["runs"][0]["cells"][0]["series"][0]["values"].append(1.5)
ro["run"]["suites"] = "resp"
ro["cells"][0]["flags"] = 5
json.dump(ex, open(tmp + "/bad-export.json", "w"))
json.dump(ro, open(tmp + "/bad-run.json", "w"))
EOF
python3 - "$TMP/compare.json" "$TMP/resp.json" "$TMP" <<'EOF'
import json, sys
co, ro, tmp = json.load(open(sys.argv[1])), json.load(open(sys.argv[2])), sys.argv[3]
co["rows"][0]["verdict"] = "worse"
del co["rows"][1]["p"]
ro["crashed_in"] = {"suite": "resp"}
json.dump(co, open(tmp + "/bad-compare.json", "w"))
json.dump(ro, open(tmp + "/bad-crashed.json", "w"))
EOF
out=$("$check" "$schemas/compare.schema.json" "$TMP/bad-compare.json" 2>&1)
is "$?" 1 "compare.schema.json refuses an unknown verdict and a tested row without p"
like "$out" "rows/0/verdict: 'worse' is not one of" "naming the verdict"
like "$out" "rows/1: 'p' is a required property" "and the missing p"
out=$("$check" "$schemas/run-output.schema.json" "$TMP/bad-crashed.json" 2>&1)
is "$?" 1 "run-output.schema.json refuses a crashed_in without its test"
like "$out" "crashed_in: " "naming crashed_in"
is "$(python3 -c 'import json, sys; print(json.load(open(sys.argv[1]))["crashed_in"])' \
	"$TMP/resp.json")" None "a run that did not crash has crashed_in null"
out=$("$check" "$schemas/export.schema.json" "$TMP/bad-export.json" 2>&1)
is "$?" 1 "export.schema.json refuses a run without uuid and a real sample"
like "$out" "'uuid' is a required property" "naming the missing uuid"
like "$out" "values/[0-9]+: 1.5 is not of type 'integer'" "and the real sample"
out=$("$check" "$schemas/run-output.schema.json" "$TMP/bad-run.json" 2>&1)
is "$?" 1 "run-output.schema.json refuses suites as a string and flags as a number"
like "$out" "run/suites: 'resp' is not of type 'array'" "naming suites"
out=$("$check" "$schemas/run-output.schema.json" "$TMP/export.json" 2>&1)
is "$?" 1 "the json output's schema refuses an export document"

# CSV: the columns the man page documents, one row per raw sample.
"$UL" export --db "$DB" --format csv -o "$TMP/export.csv"
ok $? "export --format csv"
is "$(head -n 1 "$TMP/export.csv" | tr -d '\r')" \
	"run_uuid,label,host,suite,test,probe,metric,unit,index,value" "the CSV header"
units=$(awk -F, 'NR > 1 { print $7 "=" $8 }' "$TMP/export.csv" | sort -u | tr -d '\r' | tr '\n' ' ')
like "$units" '(^| )delay_ns=ns ' "a delay_ns row's unit is ns"
like "$units" '(^| )op_ps=ps ' "micro's op_ps rows are in ps"
man=$(cd "$(dirname "$0")/../.." && pwd)/docs/underload.1
for col in run_uuid label host suite test probe metric unit index value; do
	grep -q "^\.B $col\$" "$man" || { diag "man page: no entry for CSV column $col"; break; }
done
ok $? "the man page documents every CSV column"
done_testing

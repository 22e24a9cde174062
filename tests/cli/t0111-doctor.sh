#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-or-later
# underload doctor: one line a check with a severity; it catches a CPU hog
# started on purpose (two busy loops on this machine, killed in a trap) as
# a blocker, and `run --strict` refuses to start because of it (exit 2,
# nothing stored, nothing left), while a plain run stores the finding
# (show --env, the text report).  Exit status 3 with a blocker, 4 with
# warnings only, 0 otherwise.
. "$(dirname "$0")/lib.bash"

HOGS=()
stop_hogs() {
	((${#HOGS[@]})) && kill "${HOGS[@]}" 2>/dev/null
	((${#HOGS[@]})) && wait "${HOGS[@]}" 2>/dev/null
	HOGS=()
}
trap 'stop_hogs; rm -rf "$TMP"' EXIT

# The exit status the lines call for.
expected_status() {
	if grep -q '^blocker ' <<<"$1"; then echo 3
	elif grep -q '^warn ' <<<"$1"; then echo 4
	else echo 0; fi
}

"$UL" doctor --help >/dev/null
is $? 0 "doctor --help exits 0"
"$UL" doctor extra >/dev/null 2>&1
is $? 2 "an operand is a usage error"
"$UL" doctor --window 10ms >/dev/null 2>&1
is $? 2 "a window under 100ms is a usage error"

out=$("$UL" doctor --dir "$SCRATCH" --window 500ms 2>"$TMP/err")
rc=$?
is "$(grep -cE '^(info|warn|blocker) +[a-z]+ +[^ ]' <<<"$out")" 8 "one line a check, each with a severity"
is "$(wc -l <<<"$out")" 8 "and nothing else"
is "$rc" "$(expected_status "$out")" "the exit status follows the worst severity"
like "$out" "^(info|warn|blocker) +disk +[0-9.]+ GiB free under $SCRATCH" "the disk check looks at --dir"

out=$("$UL" doctor --dir "$TMP/nowhere" --window 100ms 2>"$TMP/err")
is $? 3 "a --dir that does not exist: exit 3"
like "$out" "^blocker +disk +cannot check $TMP/nowhere" "a disk blocker says why"

# Two busy loops: the machine's two CPUs taken.
for i in 1 2; do
	(while :; do :; done) &
	HOGS+=($!)
done
HOG_RE="bash\\[(${HOGS[0]}|${HOGS[1]})\\]"
sleep 0.5
out=$("$UL" doctor --dir "$SCRATCH" --window 1s 2>"$TMP/err")
is $? 3 "with a CPU hog: doctor exits 3"
like "$out" "^blocker +busy +other processes used [0-9]+% of a CPU over 1\\.[0-9] s \\(.*$HOG_RE" \
	"a busy blocker names a hog among the busiest"
like "$out" "; stop them or wait until they finish" "and says what to do"

"$UL" run "${TINY[@]}" --tests noload --strict >"$TMP/out" 2>"$TMP/err"
is $? 2 "run --strict refuses to start with the hog"
like "$(cat "$TMP/err")" "^error: run --strict: underload doctor finds this machine not ready" \
	"it says why"
like "$(cat "$TMP/err")" "^  busy blocker: other processes used" "naming the blocker"
is "$("$UL" list --db "$DB" 2>/dev/null | tail -n +2 | wc -l)" 0 "no run was stored"
is "$(scratch_left)" 0 "no scratch directory was made"

"$UL" run "${TINY[@]}" --tests noload --format text >"$TMP/out" 2>"$TMP/err"
is $? 0 "without --strict the run goes ahead"
stop_hogs
like "$(cat "$TMP/out")" "^doctor:  busy blocker: other processes used" \
	"the text report shows the blocker found at the start"
env=$("$UL" show --db "$DB" --env last)
like "$env" "^  doctor\\.busy: +blocker: other processes used" "show --env has the doctor's findings"
like "$env" "^  activity\\.top_cpu: .*$HOG_RE" "and the busiest processes at the start, a hog among them"
is "$(grep -c '^  doctor\.' <<<"$env")" 8 "every check's finding is stored"
"$UL" report --db "$DB" --output "$TMP/r.html" last >/dev/null 2>"$TMP/err"
is $? 0 "report exits 0"
like "$(cat "$TMP/r.html")" "<tr class=\"warn\"><th>doctor: busy</th><td>blocker: other processes" \
	"the HTML report shows and highlights it"
"$UL" show --db "$DB" --format json last >"$TMP/r.json" 2>"$TMP/err"
is $? 0 "show --format json exits 0"
python3 - "$TMP/r.json" <<'PY'
import json, sys
run = json.load(open(sys.argv[1]))["run"]
doc = run["fingerprint"]["doctor"]
assert doc["busy"].startswith("blocker: other processes used"), doc
assert len(doc) == 8, sorted(doc)
assert run["fingerprint"]["cpu"]["cpus"] == "all", run["fingerprint"]["cpu"]
PY
ok $? "the json report carries the fingerprint with the doctor's findings"
is "$(ul_procs)" 0 "nothing left running"

done_testing

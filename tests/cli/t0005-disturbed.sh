#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-or-later
# A CPU hog outside the run makes the noload baseline "disturbed": the cell
# is flagged in every format, resp1 and text print a warning line, and the
# foreign CPU is recorded (the hog is not a descendant of underload).
. "$(dirname "$0")/lib.bash"

sh -c 'while :; do :; done' &
hog=$!
trap 'kill $hog 2>/dev/null; rm -rf "$TMP"' EXIT
out=$("$UL" run "${TINY[@]}" --tests noload --format resp1,text,json="$TMP/run.json" 2>"$TMP/err")
rc=$?
kill $hog
wait $hog 2>/dev/null
is "$rc" 0 "a disturbed run still finishes with exit 0 (the flag is a warning)"
[ "$rc" = 0 ] || diag "$(cat "$TMP/err")"
like "$out" $'\nwarning: the noload baseline was disturbed: [0-9.]+% of a CPU was used outside the run' \
	"resp1 warns under its table"
like "$out" $'\ndisturbed: noload \\([0-9.]+% of a CPU used outside the run\\)' "and names the cell"
resp1=$(sed '/^label:/,$d' <<<"$out")
is "$(grep '^ ' <<<"$resp1" | wc -l)" 5 \
	"grep '^ ' still extracts resp1's table alone (4 header lines and the noload row)"
is "$(grep '^ ' <<<"$resp1" | grep -c 'disturbed')" 0 "the notes never begin with a space"
like "$out" '! noload .* ok(\+noisy)?\+disturbed' "text marks the cell"
python3 - "$TMP/run.json" <<'PY'
import json, sys
c = json.load(open(sys.argv[1]))["cells"][0]
m = c["metrics"]
assert "disturbed" in c["flags"], c["flags"]
assert m["foreign_cpu_pct"] >= 30, m  # a spinning shell: most of one CPU
assert m["foreign_cpu_pct"] > m["foreign_margin_pct"], m
assert m["run_cpu_pct"] >= 0 and m["kthread_cpu_pct"] >= 0, m
PY
ok $? "JSON: the flag, the foreign CPU share above its error margin"
is "$(scratch_left)" 0 "no scratch directory left behind"
is "$(ul_procs)" 0 "no process left behind"
done_testing

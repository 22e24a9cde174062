#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-or-later
# `underload report` on real tiny runs of two labels (one hostile): the page
# is written, opens with the verdicts' summary above the environment,
# is opened in headless Chromium, which logs nothing to its console,
# draws a screenshot that is not blank and whose DOM holds the SVG elements
# expected for these runs; `--format svg` writes the same figures as
# well-formed SVG files; bad input is refused with exit 2.
. "$(dirname "$0")/lib.bash"

HERE=$(cd "$(dirname "$0")" && pwd)
HOSTILE='<script>alert(1)</script>'
R=(--dir "$SCRATCH" --db "$DB" --no-progress --interval 100ms --min-points 5
	--monitor-interval 100ms --format resp1)
RP=(-o resp.working-set=4M -o resp.files=20) # the resp probe's: resp runs only

# How many of the resp runs (bd) and of the deadline runs (dbd) have a
# breakdown of their samples (the why_* series: the kernel's schedstat at
# least, wherever it has one).
bd=0 dbd=0
count_breakdown() { # the last run's, counted in the variable named $1
	local -n count=$1
	local out
	out=$("$UL" show --db "$DB" --format breakdown last 2>&1)
	grep -q '^  [a-z]' <<<"$out" && count=$((count + 1))
	grep -q '^no test of this run has a breakdown' <<<"$out" || grep -q '^  [a-z]' <<<"$out"
	ok $? "show --format breakdown of the last run: a table or the line saying there is none"
}

# 8 points a side: under cpuload the probe's delay is bimodal (it shares
# two CPUs with the hogs or not), and with 5 a side one low candidate
# point left twice the CPU work at p 0.056 (CI of 2026-12-01).
"$UL" run "${R[@]}" "${RP[@]}" --min-points 8 --max-points 8 --tests noload,cpuload --label base >/dev/null 2>"$TMP/err"
is $? 0 "resp run of label base"
count_breakdown bd
"$UL" run "${R[@]}" "${RP[@]}" --min-points 8 --max-points 8 --tests noload,cpuload --label "$HOSTILE" -o resp.cpu-work=68000000 \
	>/dev/null 2>"$TMP/err"
is $? 0 "resp run of the hostile label, twice the CPU work"
count_breakdown bd
[ "$bd" = 2 ] || diag "only $bd of the 2 resp runs have a breakdown of their delay here"
"$UL" run deadline "${R[@]}" --format deadline,json="$TMP/dl.json" --tests noload,cpuload \
	--label base >/dev/null 2>"$TMP/err"
is $? 0 "deadline run of label base"
count_breakdown dbd

"$UL" report --db "$DB" base "$HOSTILE" -o "$TMP/r.html" 2>"$TMP/err"
rc=$?
is "$rc" 0 "report exits 0"
[ "$rc" = 0 ] || diag "$(cat "$TMP/err")"
page=$(cat "$TMP/r.html")
is "$(grep -c '<script' <<<"$page")" 0 "no <script> in the page: the label is escaped"
like "$page" '&lt;script&gt;alert\(1\)&lt;/script&gt;' "the hostile label is shown as text"
is "$(grep -Eco '(src|href)="https?:' <<<"$page")" 0 "nothing loaded from the network"
figures=$(grep -o '<figure ' <<<"$page" | wc -l)
# resp: the comparison, 2 tests x 3 plots; deadline's 2 tests (base only):
# timeline, CDF and box each; monitors: 5 charts for each of the 3 runs;
# why it was slow: each suite's stacked bars (resp's, and deadline's when
# its run has a breakdown) and each sample's parts per test and label with
# a breakdown of more than one sample (a deadline cell's is one: its window).
why=$((bd > 0 ? 1 + 2 * bd : 0)) why_dl=$((dbd > 0 ? 1 : 0))
is "$figures" $((1 + 2 * 3 + 2 * 3 + 3 * 5 + why + why_dl)) "figures: comparison, every test, each run's monitors, why"
if [ "$bd" = 1 ]; then
	like "$page" '<p class="note">No breakdown of the delay \(recorded without one\) in: [^<]*, run [0-9a-f]{8}\.</p>' \
		"the run without a breakdown is named"
else
	! grep -q 'No breakdown of the delay' <<<"$page"
	ok $? "no line about runs without a breakdown"
fi
marked=$(grep -o 'red ticks: [0-9]* missed' <<<"$page" | awk '{ s += $3 } END { print s }')
stored=$(python3 -c 'import json, sys
print(int(sum(c["metrics"]["dl_missed"] for c in json.load(open(sys.argv[1]))["cells"])))' "$TMP/dl.json")
is "$marked" "$stored" "the deadline timelines mark as many missed periods as the probe counted"
like "$page" '<td>cpuload</td><td>&lt;script&gt;alert\(1\)&lt;/script&gt;</td>.*<td>slower' \
	"twice the CPU work is called slower under cpuload"

# The verdict first: a summary of every row above the environment, the
# slower verdict coloured (its class styled), the row's flags beside it.
first=$(grep -o '<h2 id="[a-z]*"' <<<"$page" | head -n 2 | tr '\n' ' ')
is "$first" '<h2 id="summary" <h2 id="environment" ' "the summary opens the page, the environment below it"
like "$page" '^<tr><td>resp delay</td><td>cpuload</td><td>&lt;script&gt;alert\(1\)&lt;/script&gt;</td><td>\+[0-9.]+%</td><td>\[\+[0-9.]+%, \+[0-9.]+%\]</td><td class="worse">slower' \
	"its row: change, CI and the slower verdict, coloured"
like "$page" 'td\.worse\{color:#b00' "the page's style colours a worse verdict"

# Chromium: the DOM it built, its console, a screenshot.
browser() { # browser OUTFILE ARGS...: runs headless Chromium, stderr to $TMP/console
	local out=$1
	shift
	timeout 120 chromium --headless --no-sandbox --disable-gpu --hide-scrollbars \
		--user-data-dir="$TMP/chromium" --enable-logging=stderr --v=0 "$@" \
		>"$out" 2>"$TMP/console"
}
console_lines() { grep -c ':CONSOLE' "$TMP/console"; }
if ! command -v chromium >/dev/null; then
	for i in 1 2 3 4 5 6 7 8 9 10 11 12; do skip "chromium is not installed (Debian package chromium)"; done
else
	# The harness itself must notice console messages, or its "none" means nothing.
	printf '<!DOCTYPE html><p>x</p><script>console.error("boom")</script>' >"$TMP/bad.html"
	browser "$TMP/bad.dom" --dump-dom "file://$TMP/bad.html"
	is "$(console_lines)" 1 "the harness sees a page's console error"

	browser "$TMP/dom.html" --dump-dom "file://$TMP/r.html"
	is $? 0 "chromium loads the report"
	is "$(console_lines)" 0 "the page logs nothing to the console (no error, no blocked load)"
	[ "$(console_lines)" = 0 ] || diag "$(grep ':CONSOLE' "$TMP/console")"
	dom=$(cat "$TMP/dom.html")
	n() { grep -o "$1" <<<"$dom" | wc -l; }
	is "$(n '<svg ')" "$figures" "DOM: one <svg> per figure"
	is "$(n 'class="ul-pts"')" 4 "DOM: a scatter of every sample per resp test and label"
	is "$(n 'class="ul-bar"')" 2 "DOM: a bar per resp test against the baseline"
	is "$(n 'class="ul-cdf"')" 6 "DOM: a CDF line per test and label (deadline: one label)"
	is "$(n 'class="ul-box"')" 6 "DOM: a box per test and label"
	is "$(n 'class="ul-line"')" $((2 + 3 * (2 + 5 + 2 + 2 + 1))) \
		"DOM: the deadline timelines and every monitor line of the 3 runs"
	is "$(n 'class="ul-cell"')" $((3 * 2 * 5)) "DOM: each run's 2 cells marked on its 5 charts"
	is "$(n 'class="ul-total"')" $((2 * (bd + dbd))) "DOM: a stacked bar per test and label with a breakdown"
	is "$(n 'class="ul-chart ul-strata"')" $((2 * bd)) \
		"DOM: each sample's parts per resp test and label (deadline's cells are one whole each)"

	browser "$TMP/shot.out" --window-size=1000,1800 --screenshot="$TMP/shot.png" "file://$TMP/r.html"
	read -r w h ink colours < <(python3 "$HERE/png.py" stats "$TMP/shot.png")
	is "$w x $h" "1000 x 1800" "screenshot taken at the window size"
	like "$ink $colours" '^0\.(0[1-9]|[1-9])[0-9]* [0-9]{3,}' \
		"screenshot is not blank (ink $ink, $colours colours)"
fi

rm -rf "$TMP/svg"
out=$("$UL" report --db "$DB" base "$HOSTILE" --format svg -o "$TMP/svg" 2>"$TMP/err")
is $? 0 "--format svg exits 0"
is "$out" "$figures plots written to $TMP/svg/" "and says how many files it wrote"
python3 - "$TMP/svg" "$figures" <<'PY'
import os, sys, xml.etree.ElementTree as ET
d, want = sys.argv[1], int(sys.argv[2])
files = sorted(os.listdir(d))
assert len(files) == want and all(f.endswith(".svg") for f in files), files
for f in files:
    root = ET.parse(os.path.join(d, f)).getroot()  # well-formed XML, or this raises
    assert root.tag == "{http://www.w3.org/2000/svg}svg", (f, root.tag)
    assert not list(root.iter("{http://www.w3.org/2000/svg}script")), f
assert files[0] == "01-resp-versus-baseline.svg", files[0]
PY
ok $? "every SVG file parses as XML, one per figure, with safe names"

# A label names every finished run of it, as compare pools them: a second
# resp run of base is drawn beside the first, its samples pooled.
"$UL" run "${R[@]}" "${RP[@]}" --min-points 8 --max-points 8 --tests noload,cpuload --label base >/dev/null 2>"$TMP/err"
is $? 0 "a second resp run of label base"
"$UL" report --db "$DB" base -o "$TMP/two.html" 2>"$TMP/err"
is $? 0 "report of label base" || diag "$(cat "$TMP/err")"
two=$(cat "$TMP/two.html")
ids=$("$UL" list --db "$DB" --label base | awk '$1 ~ /^[0-9]+$/ { print $1 }')
is "$(wc -w <<<"$ids")" 3 "base has 3 runs"
for id in $ids; do
	like "$two" "Monitors of run $id " "run $id of base is in the report"
done
like "$two" 'base \(3 runs, samples pooled' "base's 3 runs (2 resp, 1 deadline) are counted"
is "$(grep -o 'n = 16 (base)' <<<"$two" | wc -l)" 6 \
	"every resp plot (2 tests x 3) draws both runs' 8 samples"

"$UL" report --db "$DB" base --format pdf -o "$TMP/x" 2>"$TMP/err"
is $? 2 "an unknown --format is a usage error"
like "$(cat "$TMP/err")" "--format 'pdf': expected html or svg" "naming what is accepted"
"$UL" report --db "$DB" base --format svg 2>"$TMP/err"
is $? 2 "--format svg without -o is a usage error"
"$UL" report --db "$DB" no-such-label -o "$TMP/x.html" 2>"$TMP/err"
is $? 2 "an unknown label or run is a usage error"
like "$(cat "$TMP/err")" "'no-such-label' is neither a label nor a run" "saying so"
[ ! -e "$TMP/x.html" ]
ok $? "and nothing is written"
"$UL" report --db "$DB" base --baseline nope -o "$TMP/x.html" 2>"$TMP/err"
is $? 2 "--baseline must be one of the labels"
is "$(ul_procs)" 0 "no process left"
done_testing

#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-or-later
# A whole resp run with tiny sizes: the resp1 table has all seven rows, the
# run is listed, `show` reprints it byte for byte, JSON has every sample.
. "$(dirname "$0")/lib.bash"

out=$("$UL" run "${TINY[@]}" --label cli-test --format resp1,json="$TMP/run.json" 2>"$TMP/err")
rc=$?
is "$rc" 0 "run exits 0"
[ "$rc" = 0 ] || diag "$(cat "$TMP/err")"
like "$(head -n 1 <<<"$out")" '^  Starting [0-9]+ CPU run with [0-9]+ MB RAM, minimum 5 data points at 0.1 sec intervals$' \
	"resp1 header line"
is "$(sed -n 2p <<<"$out")" " " "resp1 second line is one space"
is "$(sed -n 4p <<<"$out")" "           Test        low       high    median     average     S.D.    ratio" \
	"resp1 column header"
rows=$(tail -n +5 <<<"$out" | grep '^ ' | awk '{ print $1 }' | paste -sd' ') # notes under the table (disturbed cells) do not begin with a space
is "$rows" "noload smallwrite largewrite cpuload spawnload 8ctx-mem 2ctx-mem" "seven rows in the seed's order"
like "$(sed -n 5p <<<"$out")" '^ +noload( +[0-9]+\.[0-9]{3}){4} +[0-9]+\.[0-9]{3} +1\.000$' "noload row, ratio 1.000"
like "$(sed -n 8p <<<"$out")" '^ +cpuload( +[0-9]+\.[0-9]{3}){6}$' "cpuload row has six numbers"

list=$("$UL" list --db "$DB")
like "$list" 'cli-test .* resp +complete +7$' "list shows the run complete with 7 tests"
id=$(tail -n 1 <<<"$list" | awk '{ print $1 }')
shown=$("$UL" show --db "$DB" --format resp1 "$id")
is "$shown" "$out" "show reprints the resp1 table identically"
uuid=$(python3 -c 'import json,sys; print(json.load(open(sys.argv[1]))["run"]["uuid"])' "$TMP/run.json")
is "$("$UL" show --db "$DB" --format resp1 "${uuid:0:8}")" "$out" "show accepts a uuid prefix"
is "$("$UL" show --db "$DB" --format resp1 last)" "$out" "show accepts 'last'"
default=$("$UL" show --db "$DB" last)
is "$(head -n 8 <<<"$default")" "$(head -n 8 <<<"$out")" "show prints resp1 first by default for a resp run"
like "$default" 'suite resp, probe resp' "then the native text table"

python3 - "$TMP/run.json" "$DB" <<'PY'
import json, sqlite3, sys
doc = json.load(open(sys.argv[1]))
assert doc["format"] == "underload-results" and doc["format_version"] >= 1
cells = doc["cells"]
assert [c["load"] for c in cells] == ["noload", "smallwrite", "largewrite", "cpuload", "spawnload", "8ctx-mem", "2ctx-mem"], cells
for c in cells:
    pts = c["series"]["delay_ns"]
    assert 5 <= len(pts) <= 6, (c["load"], len(pts))
    assert all(isinstance(p, int) and p > 0 for p in pts)
    if c["load"] != "noload":
        assert c["load_units"] > 0, (c["load"], c["load_units"])
PY
ok $? "JSON holds every raw sample and a load counter per cell"

"$UL" show --db "$DB" 999999 2>"$TMP/err" >/dev/null
is $? 2 "show of an unknown run exits 2"

# A memory load whose workers cannot map their share (ulimit -v) dies, and
# its note says why: the errno a worker recorded, not just the exit status.
# (A sanitizer's runtime reserves terabytes of address space: no ulimit -v.)
if grep -aq __asan_init "$UL_REAL"; then
	skip "an ASan build cannot start under ulimit -v"
	skip "an ASan build cannot start under ulimit -v"
else
	(ulimit -v 120000 && exec "$UL" run "${TINY[@]}" --tests noload,8ctx-mem \
		-o 8ctx-mem.footprint=1G --label ulimit-v) >/dev/null 2>&1
	is $? 4 "a memory load that cannot map its memory fails the run with exit 4"
	like "$(sqlite3 "$DB" "SELECT c.note FROM cells c JOIN runs r ON c.run_id = r.id WHERE r.label = 'ulimit-v' AND c.load = '8ctx-mem'")" \
		"^load '8ctx-mem' died .*\(exit status 1\): Cannot allocate memory \(ENOMEM\)$" \
		"the note gives the cause: ENOMEM"
fi
is "$(scratch_left)" 0 "no scratch directory left behind"
is "$(ul_procs)" 0 "no process left behind"
done_testing

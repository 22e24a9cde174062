#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-or-later
# The deadline suite with tiny settings: the per-load table (latency mean,
# S.D., p99, max, stall, missed, % met, % CPU), every periodic wake-up and
# the sampler's records stored per cell, bad profiles refused up front.
. "$(dirname "$0")/lib.bash"

DL=(--dir "$SCRATCH" --db "$DB" --no-progress --interval 200ms --min-points 5)

out=$("$UL" run deadline "${DL[@]}" --tests noload,cpuload --label dl-test \
	--format deadline,json="$TMP/dl.json" 2>"$TMP/err")
rc=$?
is "$rc" 0 "deadline run exits 0"
[ "$rc" = 0 ] || diag "$(cat "$TMP/err")"
like "$(sed -n 1p <<<"$out")" \
	'^deadline probe: audio, period 50\.000 ms \(20\.0 Hz\), work 2\.500 ms \(5\.0% of a CPU\), SCHED_OTHER$' \
	"profile line: audio (interbench's: 20 Hz, 5%) at normal priority"
is "$(sed -n 3p <<<"$out")" \
	"      Load      Mean      S.D.       p99       Max     Stall   Missed   % met   % CPU" \
	"column header"
num='[0-9]+\.[0-9]+'
like "$(sed -n 4p <<<"$out")" "^ +noload( +$num){5} +[0-9]+( +$num){2}$" "noload row"
like "$(sed -n 5p <<<"$out")" "^ +cpuload( +$num){5} +[0-9]+( +$num){2}$" "cpuload row"

python3 - "$TMP/dl.json" <<'PY'
import json, sys
doc = json.load(open(sys.argv[1]))
cells = doc["cells"]
assert [c["load"] for c in cells] == ["noload", "cpuload"], cells
for c in cells:
    assert list(c["series"])[0] == "dl_lat_ns", list(c["series"])[:3]
    lat = c["series"]["dl_lat_ns"]
    m = c["metrics"]
    # one record per elapsed period: about 1 s at 20 Hz
    assert 12 <= len(lat) <= 28, (c["load"], len(lat))
    assert m["dl_periods"] == len(lat) and m["dl_met"] + m["dl_missed"] == m["dl_periods"], m
    assert 0 <= m["dl_met_pct"] <= 100 and 0 < m["dl_cpu_pct"] <= 100, m
    assert m["dl_lat_max_ns"] == max(lat), (m["dl_lat_max_ns"], max(lat))
    assert m["dl_rt"] == 0 and m["dl_profile"] == 1
    t = c["series"]["mon_t_ns"]
    assert len(t) >= 2 and t == sorted(t), t
    assert all(len(c["series"][k]) == len(t) for k in c["series"] if k.startswith("mon_"))
    assert "psi_memory_some_pct" in m or "swap_in_mib" in m, m
PY
ok $? "JSON: every period's latency, consistent counts and the sampler's records per cell"

"$UL" run deadline "${DL[@]}" --tests noload --deadline radio >/dev/null 2>"$TMP/err"
is $? 2 "an unknown profile is a usage error"
like "$(cat "$TMP/err")" "--deadline: expected audio, video, audio-50hz or PERIOD:WORK" "and says what is accepted"
"$UL" run deadline "${DL[@]}" --tests noload --deadline 10ms:12ms >/dev/null 2>"$TMP/err"
is $? 2 "work longer than the period is refused"

out=$("$UL" run deadline "${DL[@]}" --tests noload --deadline 10ms:25% --deadline-rt \
	--format deadline 2>"$TMP/err")
is $? 0 "custom profile with --deadline-rt runs"
if [ "$(id -u)" = 0 ]; then
	like "$(sed -n 1p <<<"$out")" 'custom, period 10\.000 ms \(100\.0 Hz\), work 2\.500 ms \(25\.0% of a CPU\), SCHED_FIFO$' \
		"custom profile, SCHED_FIFO granted to root"
else
	like "$(sed -n 1p <<<"$out")" 'custom, period 10\.000 ms .*SCHED_(FIFO|OTHER)' "custom profile, class recorded"
fi

is "$(scratch_left)" 0 "no scratch directory left behind"
is "$(ul_procs)" 0 "no process left behind"
done_testing

#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-or-later
# What the breakdown of resp's samples (why_* series, issue 31) costs:
# resp's noload delay with the breakdown recorded (delay accounting on,
# taskstats read around each sample) against without (UL_BREAKDOWN=0,
# kernel.task_delayacct as found, 0 expected), side by side in one
# sitting: ROUNDS short runs alternating on, off, on, off ..., so drift
# of the machine falls on both.  Then the bytes each stored sample costs:
# the why_* rows of the SQLite store (packed values plus names) per
# sample, and the difference of the two stores (one per mode, the same
# runs and points) after VACUUM, per sample (page-granular: large POINTS
# or ROUNDS make it meaningful).
#
# usage: bench/breakdown-cost.sh [ROUNDS] [POINTS] [BUILD_DIR]
# Needs root (delay accounting, taskstats).  Not run by CI.  Prints per
# mode the median delay, its spread (interquartile range, and min..max of
# the per-run medians), the relative cost of on against off (aim: under
# 1% of off's median), and the bytes per stored sample.
set -euo pipefail
rounds=${1:-10}
points=${2:-30}
ul=$(cd "${3:-build}" && pwd)/underload
tmp=$(mktemp -d /tmp/ul-bench.XXXXXX)
trap 'rm -rf "$tmp"' EXIT
[ "$(id -u)" = 0 ] || { echo "needs root: delay accounting and taskstats" >&2; exit 1; }
da=/proc/sys/kernel/task_delayacct
[ "$(cat "$da")" = 0 ] ||
	echo "note: $da is on already: 'off' runs measure the recorder without the kernel's switch" >&2

one() { # one MODE ROUND: a noload resp run into MODE's store
	local env=()
	[ "$1" = off ] && env=(UL_BREAKDOWN=0)
	env "${env[@]}" "$ul" run resp --tests noload --db "$tmp/$1.db" --dir "$tmp" --no-progress \
		--interval 200ms --min-points "$points" --max-points "$points" --deadline none \
		--label "$1-$2" --format json="$tmp/$1-$2.json" >/dev/null 2>"$tmp/err" ||
		{ cat "$tmp/err" >&2; exit 1; }
}

for r in $(seq "$rounds"); do
	if [ $((r % 2)) = 1 ]; then one on "$r"; one off "$r"; else one off "$r"; one on "$r"; fi
	printf 'round %d/%d done\n' "$r" "$rounds" >&2
done
[ "$(cat "$da")" = 0 ] || echo "warning: $da is $(cat "$da") after the runs" >&2
for m in on off; do sqlite3 "$tmp/$m.db" VACUUM; done

why_bytes=$(sqlite3 "$tmp/on.db" "SELECT coalesce(sum(length(packed) + length(name)), 0) FROM series WHERE name LIKE 'why\_%' ESCAPE '\'")
python3 - "$tmp" "$rounds" "$(stat -c %s "$tmp/on.db")" "$(stat -c %s "$tmp/off.db")" "$why_bytes" <<'PY'
import glob, json, os, statistics, sys
tmp, rounds, on_bytes, off_bytes, why_bytes = sys.argv[1], *map(int, sys.argv[2:6])
def q(v, f):
    v = sorted(v); i = (len(v) - 1) * f; lo = int(i)
    return v[lo] + (v[min(lo + 1, len(v) - 1)] - v[lo]) * (i - lo)
res, samples = {}, {}
for mode in ("on", "off"):
    all_, meds = [], []
    for f in sorted(glob.glob(f"{tmp}/{mode}-*.json")):
        cell = json.load(open(f))["cells"][0]
        d = cell["series"]["delay_ns"]
        if mode == "on" and not any(k.startswith("why_") for k in cell["series"]):
            sys.exit(f"{f}: the 'on' run recorded no breakdown")
        if mode == "off" and any(k.startswith("why_") for k in cell["series"]):
            sys.exit(f"{f}: the 'off' run recorded a breakdown")
        all_ += d; meds.append(statistics.median(d))
    res[mode] = (statistics.median(all_), q(all_, .25), q(all_, .75), min(meds), max(meds))
    samples[mode] = len(all_)
print(f"resp noload, {rounds} alternating runs per mode, {samples['on']} samples each, "
      f"{os.cpu_count()} CPUs, {os.uname().release}")
print(f"{'mode':<5} {'median ms':>10} {'IQR ms':>18} {'run medians ms':>20}")
for mode in ("on", "off"):
    m, a, b, lo, hi = res[mode]
    print(f"{mode:<5} {m / 1e6:>10.3f} {a / 1e6:>8.3f}..{b / 1e6:<8.3f} {lo / 1e6:>9.3f}..{hi / 1e6:<9.3f}")
cost = (res["on"][0] - res["off"][0]) / res["off"][0] * 100
print(f"cost of the breakdown: {cost:+.2f}% of off's median (aim: under 1%)")
print(f"bytes per stored sample: {why_bytes / samples['on']:.1f} in the why_* rows; "
      f"store files after VACUUM differ by {(on_bytes - off_bytes) / samples['on']:.1f} "
      f"(on {on_bytes} B, off {off_bytes} B)")
PY

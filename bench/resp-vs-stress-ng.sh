#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-or-later
# Accuracy of the resp loads against a Debian-packaged peer, same machine,
# same run: the resp probe's median delay under underload's own cpuload and
# spawnload, and under stress-ng's --cpu and --fork stressors, each as a
# ratio to the noload median measured in the same repeat.  If underload's
# loads stress the machine like the peer's, the ratios agree.
#
# usage: bench/resp-vs-stress-ng.sh [REPEATS] [BUILD_DIR]
# Not run by CI.  Prints medians and spread (min..max, IQR) over repeats.
set -euo pipefail
repeats=${1:-5}
ul=${2:-build}/underload
command -v stress-ng >/dev/null || { echo "needs stress-ng (apt-get install stress-ng)" >&2; exit 3; }
tmp=$(mktemp -d /tmp/ul-bench.XXXXXX)
trap 'pkill -P $$ stress-ng 2>/dev/null || true; rm -rf "$tmp"' EXIT
ncpu=$(nproc)
common=(--db "$tmp/r.db" --dir "$tmp" --no-progress --interval 300ms --min-points 10 --max-points 10
	--format json="$tmp/out.json")

median_of() { # median_of FILE LOAD: the probe's median delay in ms for LOAD
	python3 - "$1" "$2" <<'PY'
import json, statistics, sys
doc = json.load(open(sys.argv[1]))
cell = [c for c in doc["cells"] if c["load"] == sys.argv[2]][0]
print(statistics.median(cell["series"]["delay_ns"]) / 1e6)
PY
}

under_peer() { # under_peer STRESS-NG-ARGS...: probe median (ms) while stress-ng runs
	stress-ng "$@" --timeout 120s >/dev/null 2>&1 &
	local peer=$!
	sleep 1
	"$ul" run "${common[@]}" --tests noload >/dev/null
	kill "$peer"
	# Stopped by our SIGTERM (0 or 143); anything else: stress-ng failed.
	local rc=0
	wait "$peer" 2>/dev/null || rc=$?
	[ "$rc" = 0 ] || [ "$rc" = 143 ] || { echo "stress-ng $* failed ($rc)" >&2; exit 1; }
	median_of "$tmp/out.json" noload
}

: >"$tmp/ratios"
for r in $(seq "$repeats"); do
	"$ul" run "${common[@]}" --tests noload,cpuload,spawnload >/dev/null
	base=$(median_of "$tmp/out.json" noload)
	cpu=$(median_of "$tmp/out.json" cpuload)
	spawn=$(median_of "$tmp/out.json" spawnload)
	peer_cpu=$(under_peer --cpu "$ncpu")
	peer_fork=$(under_peer --fork 4)
	echo "$r $base $cpu $spawn $peer_cpu $peer_fork" | tee -a "$tmp/ratios" >&2
done

python3 - "$tmp/ratios" <<'PY'
import statistics, sys
rows = [list(map(float, l.split()[1:])) for l in open(sys.argv[1])]
def show(name, vals):
    q = statistics.quantiles(vals, n=4) if len(vals) >= 2 else [vals[0]] * 3
    print(f"{name:32s} median {statistics.median(vals):6.3f}  min..max {min(vals):6.3f}..{max(vals):6.3f}  IQR {q[2]-q[0]:6.3f}")
print(f"repeats: {len(rows)}; noload median delay (ms): {statistics.median(r[0] for r in rows):.2f}")
show("underload cpuload / noload", [r[1] / r[0] for r in rows])
show("stress-ng --cpu N / noload", [r[3] / r[0] for r in rows])
show("underload spawnload / noload", [r[2] / r[0] for r in rows])
show("stress-ng --fork 4 / noload", [r[4] / r[0] for r in rows])
PY

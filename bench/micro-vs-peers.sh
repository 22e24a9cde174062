#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-or-later
# Accuracy and cost of the micro suite against Debian-packaged peers that
# measure the same things, on the same machine, alternating tool by tool in
# each round; medians (and min..max) over the rounds, and the ratio
# underload / peer per measurement.
#
#   underload            peer (Debian package)                 definition matched
#   lat-null             perf bench syscall basic (linux-perf)  getppid() per call
#   lat-pipe-1cpu        taskset -c 0 perf bench sched pipe     pipe round trip, 2 processes
#                                                               on one CPU (perf cannot put
#                                                               its two ends on two CPUs)
#   bw-bcopy             perf bench mem memcpy -s SIZE          memcpy of SIZE, binary GB
#   bw-mem-wr            perf bench mem memset -s SIZE          store every byte of SIZE
#   bw-mem-rd            sysbench memory read (sysbench)        read every word of SIZE
#   bw-mem-wr            sysbench memory write                  write every word of SIZE
#   ctx-2p0k-1cpu ovh    taskset -c 0 hackbench -p -g1 -f1 -s8  one 8-byte pipe write+read
#                        (rt-tests), time per message
# SIZE is the micro suite's bandwidth working set (2 x LLC within
# [8M, 256M]), read from the run's JSON.  Also times a default
# `underload run micro` and `--quick` (wall seconds).
#
# usage: [WALL=no] bench/micro-vs-peers.sh [ROUNDS] [BUILD_DIR]      (ROUNDS >= 5)
# Not run by CI.  Needs linux-perf, rt-tests, sysbench, python3.
set -euo pipefail
rounds=${1:-5}
ul=$(realpath "${2:-build}/underload")
for t in perf hackbench sysbench python3; do
	command -v "$t" >/dev/null || { echo "needs $t" >&2; exit 3; }
done
tmp=$(mktemp -d /tmp/ul-bench.XXXXXX)
trap 'rm -rf "$tmp"' EXIT
tests=lat-null,lat-pipe-1cpu,ctx-2p0k-1cpu,bw-bcopy,bw-mem-rd,bw-mem-wr
common=(--db "$tmp/r.db" --dir "$tmp" --no-progress --format "json=$tmp/out.json")

# ul_values: "name value" lines from the last run's JSON (ns or MiB/s).
ul_values() {
	python3 - "$tmp/out.json" <<'PY'
import json, statistics, sys
doc = json.load(open(sys.argv[1]))
for c in doc["cells"]:
    s = c["series"]
    if "op_ps" in s:
        print(c["probe"], statistics.median(s["op_ps"]) / 1e3)
    if "bw_bytes_s" in s:
        print(c["probe"], statistics.median(s["bw_bytes_s"]) / 2**20)
    if "overhead_ns" in c["metrics"]:
        print(c["probe"] + ".overhead", c["metrics"]["overhead_ns"])
PY
}

# The bandwidth working set of the micro suite on this machine, in MiB.
llc_kib=$(cat /sys/devices/system/cpu/cpu0/cache/index*/size 2>/dev/null | sed 's/K$//' |
	sort -n | tail -1)
size_mib=$((2 * ${llc_kib:-4096} / 1024))
[ "$size_mib" -lt 8 ] && size_mib=8
[ "$size_mib" -gt 256 ] && size_mib=256

perf_usecs() { "$@" 2>&1 | awk '/usecs\/op/ {print $1 * 1000}'; }  # -> ns
perf_bw() { # perf bench mem ... -> MiB/s (perf prints binary units)
	"$@" 2>&1 | awk '/B\/sec/ {v=$1; if ($2 ~ /^GB/) v*=1024; if ($2 ~ /^KB/) v/=1024; print v}'
}
sysbench_bw() { # sysbench memory OPER -> MiB/s
	sysbench memory --memory-block-size="${size_mib}M" --memory-total-size=$((size_mib * 64))M \
		--memory-oper="$1" --memory-access-mode=seq --threads=1 run |
		sed -n 's/.*(\([0-9.]*\) MiB\/sec).*/\1/p'
}
hackbench_ns() { # time per 8-byte message, one sender and one receiver on CPU 0
	taskset -c 0 hackbench -p -g 1 -f 1 -l 200000 -s 8 | awk '/^Time:/ {print $2 * 1e9 / 200000}'
}

: >"$tmp/rows"
for r in $(seq "$rounds"); do
	"$ul" run micro "${common[@]}" --tests "$tests" >/dev/null
	ul_values | sed -e "s/^lat-pipe-1cpu/lat_pipe_pinned/" -e "s/^ctx-2p0k-1cpu/ctx-2p0k/" \
		-e "s/^/ul /" >>"$tmp/rows"
	echo "peer lat-null $(perf_usecs perf bench syscall basic --loop 2000000)" >>"$tmp/rows"
	echo "peer lat_pipe_pinned $(perf_usecs taskset -c 0 perf bench sched pipe -l 100000)" >>"$tmp/rows"
	echo "peer bw-bcopy $(perf_bw perf bench mem memcpy -f default -s "${size_mib}MB" -l 20)" >>"$tmp/rows"
	echo "peer bw-mem-wr $(perf_bw perf bench mem memset -f default -s "${size_mib}MB" -l 20)" >>"$tmp/rows"
	echo "peer bw-mem-rd $(sysbench_bw read)" >>"$tmp/rows"
	echo "peer bw-mem-wr.sysbench $(sysbench_bw write)" >>"$tmp/rows"
	echo "peer ctx-2p0k.overhead $(hackbench_ns)" >>"$tmp/rows"
	echo "round $r done" >&2
done

# Wall time of a whole default run and of --quick (WALL=no skips them).
for mode in default quick; do
	[ "${WALL:-yes}" = no ] && break
	args=()
	[ "$mode" = quick ] && args=(--quick)
	start=$(date +%s.%N)
	"$ul" run micro "${common[@]}" "${args[@]}" >/dev/null
	echo "wall $mode $(echo "$(date +%s.%N) - $start" | bc)" >>"$tmp/rows"
done

python3 - "$tmp/rows" "$size_mib" <<'PY'
import statistics, sys
rows = [l.split() for l in open(sys.argv[1]) if len(l.split()) == 3]
def vals(tool, name):
    return [float(v) for t, n, v in rows if t == tool and n == name]
pairs = [
    ("null call (ns)", "lat-null", "lat-null", "perf bench syscall basic"),
    ("pipe round trip, 1 CPU (ns)", "lat_pipe_pinned", "lat_pipe_pinned", "taskset perf sched pipe"),
    ("memcpy (MiB/s)", "bw-bcopy", "bw-bcopy", "perf bench mem memcpy"),
    ("memory write (MiB/s)", "bw-mem-wr", "bw-mem-wr", "perf bench mem memset"),
    ("memory write (MiB/s)", "bw-mem-wr", "bw-mem-wr.sysbench", "sysbench memory write"),
    ("memory read (MiB/s)", "bw-mem-rd", "bw-mem-rd", "sysbench memory read"),
    ("pipe write+read (ns)", "ctx-2p0k.overhead", "ctx-2p0k.overhead", "hackbench -p, 1 CPU"),
]
def fmt(v):
    return f"{statistics.median(v):10.1f} ({min(v):.1f}..{max(v):.1f})" if v else "         -"
print(f"rounds: {max(len(vals('ul', 'lat-null')), 0)}; bandwidth size {sys.argv[2]} MiB")
print(f"{'measurement':28s} {'underload median (min..max)':>34s} {'peer median (min..max)':>34s} {'ratio':>6s}  peer")
for title, ul, peer, peer_name in pairs:
    u, p = vals("ul", ul), vals("peer", peer)
    ratio = statistics.median(u) / statistics.median(p) if u and p and statistics.median(p) else float("nan")
    print(f"{title:28s} {fmt(u):>34s} {fmt(p):>34s} {ratio:6.2f}  {peer_name}")
for t, n, v in rows:
    if t == "wall":
        print(f"wall time of run micro ({n}): {float(v):.1f} s")
PY

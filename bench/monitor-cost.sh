#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-or-later
# The sampler monitor's own cost: the CPU share of its child (ul:sampler)
# at --monitor-interval 1s and 100ms, from the kernel's exact run time of
# that process (/proc/PID/schedstat, ns; /proc/PID/stat ticks as a
# fallback), measured over DURATION seconds of an otherwise idle resp run
# (noload, no deadline probe), REPEATS times per interval.
#
# usage: bench/monitor-cost.sh [REPEATS] [DURATION] [BUILD_DIR]
# Not run by CI.  Prints per interval the median CPU share, its spread
# (min..max over repeats) and the cost of one sample in microseconds.
set -euo pipefail
repeats=${1:-5}
duration=${2:-20}
ul=$(cd "${3:-build}" && pwd)/underload
tmp=$(mktemp -d /tmp/ul-bench.XXXXXX)
run_pid=
cleanup() {
	if [ -n "$run_pid" ] && kill -0 "$run_pid" 2>/dev/null; then
		kill -INT "$run_pid" 2>/dev/null || true
		wait "$run_pid" 2>/dev/null || true
	fi
	rm -rf "$tmp"
}
trap cleanup EXIT
tck=$(getconf CLK_TCK)

# The sampler child of the run started with tag $1 (its environment has it).
find_sampler() {
	local f pid
	for f in /proc/[0-9]*/comm; do
		[ "$(cat "$f" 2>/dev/null)" = "ul:sampler" ] || continue
		pid=${f#/proc/}
		pid=${pid%/comm}
		if tr '\0' '\n' <"/proc/$pid/environ" 2>/dev/null | grep -qxF "UL_BENCH_TAG=$1"; then
			echo "$pid"
			return 0
		fi
	done
	return 1
}

# CPU time of a process in ns: schedstat's run time, else utime + stime.
cpu_ns() {
	local s
	if s=$(cut -d' ' -f1 "/proc/$1/schedstat" 2>/dev/null) && [ "$s" -gt 0 ]; then
		echo "$s"
	else
		awk -v t="$tck" '{ sub(/.*\) /, ""); print ($12 + $13) * 1e9 / t }' "/proc/$1/stat"
	fi
}

now_ns() { date +%s%N; }

measure() { # measure INTERVAL REPEAT: prints "share_pct us_per_sample"
	local tag="$tmp/$1-$2" pid a b ta tb samples interval_ns
	UL_BENCH_TAG=$tag "$ul" run resp --tests noload --db "$tmp/r.db" --dir "$tmp" --no-progress \
		--interval 1s --min-points 1000 --max-points 1000 --deadline none \
		--monitor-interval "$1" --format text >/dev/null 2>&1 &
	run_pid=$!
	for _ in $(seq 200); do pid=$(find_sampler "$tag") && break; sleep 0.05; done
	[ -n "${pid:-}" ] || { echo "no ul:sampler process appeared" >&2; exit 1; }
	sleep 2 # past start-up
	ta=$(now_ns); a=$(cpu_ns "$pid")
	sleep "$duration"
	tb=$(now_ns); b=$(cpu_ns "$pid")
	kill -INT "$run_pid"
	# 130: interrupted by our SIGINT; anything else, the run failed.
	local rc=0
	wait "$run_pid" 2>/dev/null || rc=$?
	run_pid=
	[ "$rc" = 130 ] || { echo "the run ended with $rc, not 130 (interrupted)" >&2; exit 1; }
	case $1 in *ms) interval_ns=$((${1%ms} * 1000000)) ;; *s) interval_ns=$((${1%s} * 1000000000)) ;; esac
	samples=$(( (tb - ta) / interval_ns ))
	awk -v a="$a" -v b="$b" -v ta="$ta" -v tb="$tb" -v n="$samples" \
		'BEGIN { printf "%.4f %.1f\n", (b - a) * 100 / (tb - ta), (b - a) / 1000 / n }'
}

printf '%s\n' "sampler CPU share over ${duration}s, $repeats repeats, $(nproc) CPUs, $(uname -r)"
printf '%-10s %12s %22s %16s\n' interval "median %CPU" "spread (min..max)" "us per sample"
for interval in 1s 100ms; do
	: >"$tmp/res"
	for r in $(seq "$repeats"); do
		measure "$interval" "$r" >>"$tmp/res"
	done
	python3 - "$tmp/res" "$interval" <<'PY'
import statistics, sys
rows = [tuple(map(float, l.split())) for l in open(sys.argv[1]) if l.strip()]
share = [r[0] for r in rows]
us = [r[1] for r in rows]
print("%-10s %11.4f%% %10.4f..%-10.4f %16.1f" % (sys.argv[2], statistics.median(share),
      min(share), max(share), statistics.median(us)))
PY
done

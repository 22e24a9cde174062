#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-or-later
# underload's fsbench against Debian's dbench 4.00 on this machine: the same
# loadfile (/usr/share/dbench/client.txt), client count, duration and
# warm-up (dbench's default: a fifth of the duration), in the same scratch
# file system, alternating (the order flips every round), RUNS rounds each.
# Prints every run, then medians, min..max and the ratio of medians of
# throughput (MB/s, 10^6 bytes read + written per second) and of operations
# per second (sum of the operation table's counts / duration), bytes per
# operation and the CPU each tool used (user + sys, all its processes).  Replaying the same trace, the ratio should lie in
# 0.85..1.15.
#   usage: bench/fsbench-vs-dbench.sh [UNDERLOAD]   (default: build/underload)
#   env:   RUNS (5), CLIENTS (4), DURATION seconds (20), DIR (/var/tmp)
set -euo pipefail
UL=$(realpath "${1:-build/underload}")
RUNS=${RUNS:-5}
CLIENTS=${CLIENTS:-4}
DURATION=${DURATION:-20}
DIR=${DIR:-/var/tmp}
LOADFILE=/usr/share/dbench/client.txt

if ! command -v dbench >/dev/null || [ ! -r "$LOADFILE" ]; then
	echo "installing Debian's dbench (apt-get install dbench)" >&2
	apt-get install -y --no-install-recommends dbench >/dev/null
fi
work=$(mktemp -d "$DIR/fsbench-bench.XXXXXX")
trap 'rm -rf "$work"' EXIT
mkdir -p "$work/dbench" "$work/ul"

# ops_per_s FILE: sum of the Count column of a dbench-style table / DURATION.
ops_per_s() {
	awk -v d="$DURATION" '/^ ----------/ { t = 1; next } t && NF == 4 { n += $2 } t && NF == 0 { t = 0 }
		END { printf "%.1f", n / d }' "$1"
}

# The CPU (user + sys seconds) of the whole tool, children included
# (bash's `time` counts every reaped descendant).
TIMEFORMAT='%U %S'

run_dbench() {
	{ time (cd "$work/dbench" && dbench -c "$LOADFILE" -t "$DURATION" -D "$work/dbench" \
		"$CLIENTS" >"$work/out" 2>&1); } 2>"$work/cpu"
	echo "dbench $(awk '/^Throughput/ { print $2 }' "$work/out") $(ops_per_s "$work/out")" \
		"$(awk '{ print $1 + $2 }' "$work/cpu")"
}

run_ul() {
	{ time "$UL" run fsbench --dir "$work/ul" --db "$work/results.db" --no-progress \
		--monitor-interval 0 --clients "$CLIENTS" --duration "${DURATION}s" \
		--loadfile "$LOADFILE" --format dbench >"$work/out" 2>&1; } 2>"$work/cpu"
	echo "underload $(awk '/^Throughput/ { print $2 }' "$work/out") $(ops_per_s "$work/out")" \
		"$(awk '{ print $1 + $2 }' "$work/cpu")"
}

echo "# $(uname -r), $(nproc) CPUs, scratch fs: $(df -T "$DIR" | awk 'NR == 2 { print $2 }')" \
	"($DIR); $CLIENTS clients, ${DURATION}s, $LOADFILE; $(date -u +%FT%TZ)"
: >"$work/results"
for i in $(seq "$RUNS"); do
	if [ $((i % 2)) = 1 ]; then
		run_dbench | tee -a "$work/results"
		run_ul | tee -a "$work/results"
	else
		run_ul | tee -a "$work/results"
		run_dbench | tee -a "$work/results"
	fi
done

# stats TOOL COLUMN: "median min max" of that column of the tool's runs.
stats() {
	awk -v t="$1" -v c="$2" '$1 == t { print $c }' "$work/results" | sort -g |
		awk '{ v[NR] = $1 } END { m = NR % 2 ? v[(NR + 1) / 2] : (v[NR / 2] + v[NR / 2 + 1]) / 2;
			printf "%.2f %.2f %.2f", m, v[1], v[NR] }'
}
echo
printf '%-10s %4s %11s %15s %12s %19s %9s %10s\n' tool runs "MB/s median" "min..max" \
	"ops/s median" "min..max" "bytes/op" "CPU s/run"
for t in dbench underload; do
	read -r m lo hi <<<"$(stats "$t" 2)"
	read -r om olo ohi <<<"$(stats "$t" 3)"
	read -r cm _ <<<"$(stats "$t" 4)"
	printf '%-10s %4d %11.2f %15s %12.1f %19s %9.0f %10.2f\n' "$t" "$RUNS" "$m" "$lo..$hi" \
		"$om" "$olo..$ohi" "$(awk -v a="$m" -v b="$om" 'BEGIN { print (b > 0 ? a * 1e6 / b : 0) }')" \
		"$cm"
done
read -r dm _ <<<"$(stats dbench 2)"
read -r um _ <<<"$(stats underload 2)"
read -r dom _ <<<"$(stats dbench 3)"
read -r uom _ <<<"$(stats underload 3)"
awk -v u="$um" -v d="$dm" -v uo="$uom" -v do_="$dom" 'BEGIN {
	printf "ratio underload/dbench of medians: throughput %.3f, ops/s %.3f (expected 0.85..1.15)\n",
		u / d, uo / do_ }'

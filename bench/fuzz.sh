#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-or-later
# The long fuzzing run: each libFuzzer target of tests/fuzz for SECONDS
# (default 900), one at a time, under nice -n 19, then a table of
# executions, time, corpus size, new corpus entries and crashes per target.
#   usage: bench/fuzz.sh [SECONDS_PER_TARGET] [TARGET...]
#   targets: import_json loadfile options store_db (all by default)
#   env:   BUILD (build-fuzz-long), the clang build it makes or reuses with
#          CC=clang meson setup BUILD -Dfuzz=true -Dtests=false
# The corpus grows in BUILD/corpus/TARGET (seeded from tests/fuzz/corpus
# and tests/fuzz/regress, kept between runs); each crashing input lands in
# BUILD/artifacts/TARGET/ (crash-*, leak-*, timeout-*, oom-*) and the
# target is restarted for the time left, so one crash does not end the
# run.  A crash found is fixed in the source and its input added under
# tests/fuzz/regress/TARGET/, which tests/fuzz/t0701-fuzz.sh replays in CI.
# Reproduce one: BUILD/tests/fuzz/fuzz_TARGET FILE.
# Exits 1 when any target crashed.
set -euo pipefail
cd "$(dirname "$0")/.."
SECONDS_PER_TARGET=${1:-900}
[ $# -eq 0 ] || shift
TARGETS=("$@")
[ ${#TARGETS[@]} -gt 0 ] || TARGETS=(import_json loadfile options store_db)
BUILD=${BUILD:-build-fuzz-long}
MAX_RESTARTS=20

if [ ! -d "$BUILD" ]; then
	CC=clang meson setup "$BUILD" -Dfuzz=true -Dtests=false >/dev/null
fi
meson compile -C "$BUILD" >/dev/null
# store_db writes its database files here; gone at exit.
tmp=$(mktemp -d "${TMPDIR:-/tmp}/ul-fuzz-run.XXXXXX")
trap 'rm -rf "$tmp"' EXIT

# stat NAME LOG: the sum of libFuzzer's final "stat::NAME: N" lines.
stat_sum() { awk -v k="stat::$1:" '$1 == k { s += $2 } END { print s + 0 }' "$2"; }

# fuzz_one TARGET: run it for SECONDS_PER_TARGET (restarting after a
# crash), then print its table row.
fuzz_one() {
	local t=$1 corpus=$BUILD/corpus/$1 art=$BUILD/artifacts/$1 log=$BUILD/fuzz-$1.log
	local dict=() start end left before after crashes0 execs took restarts=0
	mkdir -p "$corpus" "$art"
	[ -f "tests/fuzz/$t.dict" ] && dict=(-dict="tests/fuzz/$t.dict")
	before=$(find "$corpus" -type f | wc -l)
	crashes0=$(find "$art" -type f | wc -l)
	: >"$log"
	start=$(date +%s)
	end=$((start + SECONDS_PER_TARGET))
	while left=$((end - $(date +%s))) && [ "$left" -gt 0 ] && [ $restarts -le $MAX_RESTARTS ]; do
		TMPDIR=$tmp nice -n 19 "$BUILD/tests/fuzz/fuzz_$t" -max_total_time="$left" \
			-timeout=10 -rss_limit_mb=2048 -print_final_stats=1 \
			-artifact_prefix="$art/" "${dict[@]}" "$corpus" "tests/fuzz/corpus/$t" \
			$([ -d "tests/fuzz/regress/$t" ] && echo "tests/fuzz/regress/$t") \
			>>"$log" 2>&1 || restarts=$((restarts + 1))
	done
	after=$(find "$corpus" -type f | wc -l)
	took=$(($(date +%s) - start))
	execs=$(stat_sum number_of_executed_units "$log")
	printf '%-12s %8s %12s %9s %8s %8s %8s\n' "$t" "$took" "$execs" \
		"$((execs / (took > 0 ? took : 1)))" "$after" "$((after - before))" \
		"$(($(find "$art" -type f | wc -l) - crashes0))"
}

printf '%-12s %8s %12s %9s %8s %8s %8s\n' target seconds executions exec/s corpus new crashes
any=0
for t in "${TARGETS[@]}"; do
	[ -x "$BUILD/tests/fuzz/fuzz_$t" ] || { echo "no target '$t'" >&2; exit 2; }
	row=$(fuzz_one "$t")
	echo "$row"
	[ "$(awk '{ print $7 }' <<<"$row")" = 0 ] || any=1
done
[ $any = 0 ] || echo "crashing inputs: $BUILD/artifacts/ (logs: $BUILD/fuzz-TARGET.log)"
exit $any

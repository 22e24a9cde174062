#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-or-later
# The libFuzzer targets (tests/fuzz/fuzz_*.c), bounded for CI: built with
# clang in build-fuzz/ (-Dfuzz=true: ASan+UBSan, leak check on), each
# replays its seed corpus and every crash kept under tests/fuzz/regress/,
# then fuzzes for FUZZ_SECONDS (default 20) from the seeds.  A crashing
# input is kept in build-fuzz/ci-artifacts/TARGET/.  tests/run-all runs
# this once (not per build); bench/fuzz.sh is the long run.
# Skips with a reason only where clang or its libFuzzer runtime is absent.
# env: UL_FUZZ_BUILD (build-fuzz), FUZZ_SECONDS (20)
cd "$(dirname "$0")/../.."
. tests/cli/lib.bash
BUILD=${UL_FUZZ_BUILD:-build-fuzz}
FUZZ_SECONDS=${FUZZ_SECONDS:-20}
TARGETS=(import_json loadfile options store_db)

if ! command -v clang >/dev/null; then
	echo "1..0 # skip clang is not installed (Debian: clang, libclang-rt-14-dev)"
	exit 0
fi
printf 'int LLVMFuzzerTestOneInput(const char *d, unsigned long n);\n%s\n' \
	'int LLVMFuzzerTestOneInput(const char *d, unsigned long n) { return d && n > 99; }' \
	>"$TMP/probe.c"
if ! clang -fsanitize=fuzzer "$TMP/probe.c" -o "$TMP/probe" 2>"$TMP/probe.err"; then
	echo "1..0 # skip clang cannot link libFuzzer (Debian: libclang-rt-14-dev): $(head -n 1 "$TMP/probe.err")"
	exit 0
fi

# check RC DESCRIPTION LOG PATTERN: ok, and on failure LOG's lines matching PATTERN.
check() {
	ok "$1" "$2"
	[ "$1" = 0 ] || grep -E "$4" "$3" | tail -n 30 | sed 's/^/# /'
}

if [ ! -d "$BUILD" ]; then
	CC=clang meson setup "$BUILD" -Dfuzz=true -Dtests=false >"$TMP/setup.log" 2>&1
	check $? "meson setup $BUILD -Dfuzz=true" "$TMP/setup.log" .
fi
meson compile -C "$BUILD" >"$TMP/compile.log" 2>&1
check $? "the fuzz targets build" "$TMP/compile.log" .

# The targets' own files (store_db's database) go here: nothing may stay.
mkdir -p "$TMP/fuzztmp"
for t in "${TARGETS[@]}"; do
	exe=$BUILD/tests/fuzz/fuzz_$t
	inputs=(tests/fuzz/corpus/"$t"/*)
	[ -d "tests/fuzz/regress/$t" ] && inputs+=(tests/fuzz/regress/"$t"/*)
	TMPDIR=$TMP/fuzztmp "$exe" "${inputs[@]}" >"$TMP/$t.replay.log" 2>&1
	check $? "$t: ${#inputs[@]} corpus and regression inputs pass" "$TMP/$t.replay.log" \
		'Running:|ERROR|SUMMARY|runtime error|fuzz:|#[0-9]+ '

	dict=()
	[ -f "tests/fuzz/$t.dict" ] && dict=(-dict="tests/fuzz/$t.dict")
	mkdir -p "$TMP/corpus/$t" "$BUILD/ci-artifacts/$t"
	TMPDIR=$TMP/fuzztmp "$exe" -max_total_time="$FUZZ_SECONDS" -timeout=10 -rss_limit_mb=2048 \
		-print_final_stats=1 -artifact_prefix="$BUILD/ci-artifacts/$t/" "${dict[@]}" \
		"$TMP/corpus/$t" "tests/fuzz/corpus/$t" >"$TMP/$t.fuzz.log" 2>&1
	rc=$?
	diag "$t: $(awk '$1 == "stat::number_of_executed_units:" { print $2 }' "$TMP/$t.fuzz.log") executions in ${FUZZ_SECONDS}s"
	check $rc "$t: fuzzed ${FUZZ_SECONDS}s without a crash, leak or timeout" "$TMP/$t.fuzz.log" \
		'ERROR|SUMMARY|runtime error|fuzz:|Test unit written|Seed:|#[0-9]+ '
done
is "$(find "$TMP/fuzztmp" -mindepth 1 | wc -l)" 0 "the targets left no file behind"
done_testing

#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-or-later
# Chaos in full: TRIALS trials (default 120), each a run of one suite
# (resp, deadline, mtest, contest, fsbench, micro in turn, resp sandboxed
# with --swap and --mem-limit every third trial when root) under the tiny
# settings of its CLI test, with a random catchable terminating signal
# (src/core/signals.h) or, one trial in eight, KILL then `underload
# cleanup`, at a random moment up to MAX_DELAY seconds (default 6).  Each
# trial checks that nothing was left (process, scratch, swap file, cgroup,
# journal, temporary output file), that every cell reported before the
# signal is stored and that no signal was swallowed; at the end the
# store's integrity check and the vm sysctls.  The trials are
# tests/cli/chaos.bash, which tests/cli/t0106-chaos.sh runs bounded.
#
# usage: bench/chaos.sh [TRIALS] [BUILD_DIR] [MAX_DELAY]
# Not run by CI.  TAP output, a summary line; exits 1 on any failure.
set -uo pipefail
trials=${1:-120}
export UL_EXE
UL_EXE=$(cd "${2:-build}" && pwd)/underload
maxd=${3:-6}
cd "$(dirname "$0")/.." || exit 1
. tests/cli/lib.bash
. tests/cli/chaos.bash
trap '"$UL" cleanup >/dev/null 2>&1; rm -rf "$TMP"' EXIT

sysctls=$(chaos_sysctls)
start=$SECONDS
for i in $(seq 0 $((trials - 1))); do
	sig=$(shuf -n1 -e "${CHAOS_SIGNALS[@]}")
	[ $((RANDOM % 8)) = 0 ] && sig=KILL
	chaos_trial "${CHAOS_SUITES[$((i % ${#CHAOS_SUITES[@]}))]}" "$sig" "$maxd"
done
chaos_final "$sysctls"
echo "summary line: $chaos_n trials in $((SECONDS - start)) s, $chaos_left with leftovers," \
	"$chaos_lost cells lost, $chaos_swallowed signals swallowed, $chaos_bad failed"
done_testing

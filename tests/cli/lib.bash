# SPDX-License-Identifier: GPL-2.0-or-later
# TAP helpers for the CLI tests (run by prove).  Each test script sources
# this file, calls plan N, then ok/is/like; a private temp dir is removed
# at exit.  UL_EXE names the binary (default: build/underload).
set -u
UL=${UL_EXE:-$(cd "$(dirname "$0")/../.." && pwd)/build/underload}
TMP=$(mktemp -d /tmp/ul-cli.XXXXXX)
export XDG_DATA_HOME=$TMP/data
unset UNDERLOAD_DB # a user's or a lab's store is never a test's default
DB=$TMP/results.db
SCRATCH=$TMP/scratch
mkdir -p "$SCRATCH"
_n=0
_fail=0
trap 'rm -rf "$TMP"' EXIT

plan() { echo "1..$1"; }
ok() { # ok CONDITION-EXIT-STATUS DESCRIPTION
	_n=$((_n + 1))
	if [ "$1" = 0 ]; then echo "ok $_n - $2"; else echo "not ok $_n - $2"; _fail=1; fi
}
is() { # is GOT EXPECTED DESCRIPTION
	_n=$((_n + 1))
	if [ "$1" = "$2" ]; then
		echo "ok $_n - $3"
	else
		echo "not ok $_n - $3"
		echo "#   got:      '$1'"
		echo "#   expected: '$2'"
		_fail=1
	fi
}
like() { # like TEXT REGEX DESCRIPTION
	_n=$((_n + 1))
	if grep -Eq -- "$2" <<<"$1"; then
		echo "ok $_n - $3"
	else
		echo "not ok $_n - $3"
		echo "#   text:  '$1'"
		echo "#   regex: '$2'"
		_fail=1
	fi
}
skip() { _n=$((_n + 1)); echo "ok $_n # skip $1"; }
diag() { echo "# $*"; }

# "$UL" is a wrapper that tags underload's environment, and so that of
# every process it starts: leftovers are found precisely even with other
# runs on the machine.
UL_REAL=$UL
UL=$TMP/underload
printf '#!/bin/sh\nUL_TEST_TAG=%s exec %s "$@"\n' "$TMP" "$UL_REAL" >"$UL"
chmod +x "$UL"
# The checks that inject a fault or hold a run (UL_TEST_*) need a build
# that obeys the hooks: tests/run-all configures -Dtest_hooks=true.
if "$UL_REAL" --version 2>/dev/null | grep -qx 'test hooks: no'; then
	diag "$UL_REAL has no test hooks (-Dtest_hooks=true): checks that rely on a UL_TEST_* hook fail"
fi
# The pids of the processes started through "$UL" still alive (underload
# or its children), one a line.
ul_pids() {
	local f pid
	for f in /proc/[0-9]*/environ; do
		pid=${f#/proc/}
		pid=${pid%/environ}
		{ tr '\0' '\n' <"$f" | grep -qxF "UL_TEST_TAG=$TMP"; } 2>/dev/null && echo "$pid"
	done
	return 0
}
# How many there are.
ul_procs() { ul_pids | wc -l; }
# SIGKILL every one of them (the run and its children, or a sweep and its
# runs) and wait up to 10 s for each to be reaped: a zombie's journal
# still looks alive to cleanup.
ul_kill_all() {
	local pid pids=()
	for pid in $(ul_pids); do
		kill -KILL "$pid" 2>/dev/null && pids+=("$pid")
	done
	for pid in "${pids[@]}"; do
		for _ in $(seq 100); do [ -e "/proc/$pid" ] || break; sleep 0.1; done
	done
	return 0
}
# Scratch directories left in $SCRATCH.
scratch_left() { find "$SCRATCH" -mindepth 1 -maxdepth 1 | wc -l; }

# strace_usable WHAT: 0 when strace can trace a run of this build; else
# prints a skip that gives the reason and "WHAT not checked" (WHAT such as
# "the system calls are"), and returns 1.  LeakSanitizer cannot work in a
# traced process (it ptrace-stops threads itself), and underload-forker
# runs with an empty environment, where no ASAN_OPTIONS can turn it off:
# on a sanitizer build the normal build's run checks WHAT.
strace_usable() {
	local sanitized
	sanitized=$("$UL" --version | sed -n 's/.*sanitizers: //p')
	if [ "$sanitized" != none ]; then
		skip "a sanitizer build ($sanitized) cannot run under strace: $1 checked on the normal build"
		return 1
	fi
	if ! command -v strace >/dev/null; then
		skip "strace is not installed: $1 not checked"
		return 1
	fi
	return 0
}

# median: the median of the numbers on stdin, one a line (of an even
# count, the mean of the two middle ones, to 17 significant digits);
# nothing when there are none.
median() {
	sort -g | awk 'NF { v[++n] = $1 }
		END {
			if (n % 2) print v[(n + 1) / 2]
			else if (n) printf "%.17g\n", (v[n / 2] + v[n / 2 + 1]) / 2
		}'
}

# Tiny sizes so a whole resp run takes seconds (never the defaults).
TINY=(--dir "$SCRATCH" --db "$DB" --no-progress --interval 100ms --min-points 5 --max-points 6
	-o resp.working-set=4M -o resp.files=20
	-o largewrite.size=16M -o smallwrite.files=4
	-o 8ctx-mem.footprint=16M -o 2ctx-mem.footprint=16M)
# Print the plan at the end (TAP allows it) and exit with the verdict.
done_testing() { echo "1..$_n"; exit $_fail; }

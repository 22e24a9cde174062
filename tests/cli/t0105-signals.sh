#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-or-later
# Every catchable terminating signal ends a run like SIGTERM: loads
# stopped, swap file off and removed, cgroup and scratch directory gone,
# the run stored as interrupted, exit 130 (core/signals.h has the table).
# A signal during the final teardown is not lost.  SIGPIPE is ignored: a
# closed pipe is an error, not a death; a file past `ulimit -f` (SIGXFSZ,
# EFBIG) is an error with a message.  A kill -9 while an output file is
# written leaves no temporary.
. "$(dirname "$0")/lib.bash"

export UL_JOURNAL_DIR=$TMP/journal
mkdir -m 0700 "$UL_JOURNAL_DIR"
# A failing run (a signal that kills) must not leave its swap file on.
trap '"$UL" cleanup >/dev/null 2>&1; rm -rf "$TMP"' EXIT
q() { sqlite3 "$DB" "$1" 2>/dev/null; }
cells() { q "SELECT count(*) FROM cells c JOIN runs r ON c.run_id = r.id WHERE r.label = '$1'" || echo 0; }
wait_for() { for _ in $(seq 600); do "$@" && return 0; sleep 0.1; done; return 1; }
measuring() { [ "$(cells "$1")" -ge 1 ]; }
# What a run labelled $1 left: processes, scratch, swap files of ours,
# its cgroup, journals.  "0 0 0 0 0" when nothing.
leftovers() {
	local uuid cg=0
	uuid=$(q "SELECT uuid FROM runs WHERE label = '$1'")
	[ -n "$uuid" ] && cg=$(find /sys/fs/cgroup -maxdepth 6 -type d -name "underload-${uuid:0:8}" 2>/dev/null | wc -l)
	echo "$(ul_procs) $(scratch_left) $(grep -c "$SCRATCH" /proc/swaps) $cg $(find "$UL_JOURNAL_DIR" -type f | wc -l)"
}

# kill -l names, as bash's kill takes them.
SIGNALS=(HUP INT QUIT TERM USR1 USR2 ALRM VTALRM PROF XCPU XFSZ PWR IO STKFLT RTMIN RTMIN+1 RTMAX)
for sig in "${SIGNALS[@]}"; do
	label="sig-$sig"
	# env --default-signal: whatever this shell ignores (nohup: SIGHUP;
	# a background job: SIGINT, SIGQUIT) is the default again in the run.
	env --default-signal "$UL" run "${TINY[@]}" --interval 300ms --label "$label" >/dev/null 2>"$TMP/err" &
	pid=$!
	wait_for measuring "$label"
	kill -s "$sig" "$pid"
	wait "$pid"
	rc=$?
	sleep 0.2
	is "$rc $(q "SELECT status FROM runs WHERE label = '$label'") $(leftovers "$label")" \
		"130 interrupted 0 0 0 0 0" "SIG$sig: exit 130, stored interrupted, nothing left"
done

# A signal ignored when underload started (nohup, trap '' HUP) stays
# ignored: the run goes on and completes.
label=sig-ignored-hup
(trap '' HUP && exec "$UL" run "${TINY[@]}" --interval 300ms --label "$label") >/dev/null 2>"$TMP/err" &
pid=$!
wait_for measuring "$label"
kill -s HUP "$pid"
wait "$pid"
rc=$?
is "$rc $(q "SELECT status FROM runs WHERE label = '$label'") $(leftovers "$label")" \
	"0 complete 0 0 0 0 0" "SIGHUP ignored at start (nohup): the run completes, nothing left"

# With a swap file and a memory cgroup (root, a memory controller).
v2_memory() {
	local m
	for m in $(awk '$0 ~ / - cgroup2 / { print $5 }' /proc/self/mountinfo); do
		grep -qw memory "$m/cgroup.controllers" 2>/dev/null && return 0
	done
	return 1
}
has_swap() { grep -q "$SCRATCH" /proc/swaps; }
if [ "$(id -u)" != 0 ]; then
	skip "needs root for --swap and --mem-limit"
	skip "needs root for --swap and --mem-limit"
elif ! grep -qE ' - cgroup [^ ]+ [^ ]*[ ,]memory' /proc/self/mountinfo && ! v2_memory; then
	skip "no memory cgroup controller mounted"
	skip "no memory cgroup controller mounted"
else
	for sig in QUIT USR1; do
		label="sandbox-$sig"
		"$UL" run "${TINY[@]}" --interval 300ms --swap 32M --mem-limit 64M --label "$label" \
			>/dev/null 2>"$TMP/err" &
		pid=$!
		wait_for measuring "$label"
		has_swap
		ok $? "SIG$sig sandbox: the swap file is on before the signal"
		kill -s "$sig" "$pid"
		wait "$pid"
		rc=$?
		sleep 0.2
		is "$rc $(q "SELECT status FROM runs WHERE label = '$label'") $(leftovers "$label")" \
			"130 interrupted 0 0 0 0 0" "SIG$sig: swap off and removed, cgroup gone, interrupted"
	done
fi

# A SIGINT during the final teardown (status stored, signals still
# blocked: a test seam holds there) is not lost.
hold=$TMP/teardown-hold
UL_TEST_TEARDOWN_HOLD=$hold "$UL" run "${TINY[@]}" --tests noload --label late >/dev/null 2>"$TMP/err" &
pid=$!
held() { [ -e "$hold" ]; }
wait_for held
ok $? "the run reached the end of its teardown"
kill -INT "$pid"
wait "$pid"
is $? 130 "a SIGINT during the final teardown ends the command with exit 130"
is "$(leftovers late)" "0 0 0 0 0" "nothing left after a SIGINT during the teardown"

# SIGPIPE: `run 2>&1 | head -c 1` closes the pipe at the first byte of
# progress; the run goes on, is stored complete, leaves nothing, and
# exits 1 (its results could not be printed).
RUNNOPROG=("${TINY[@]/--no-progress/--progress}")
"$UL" run "${RUNNOPROG[@]}" --tests noload,cpuload --label pipe 2>&1 | head -c 1 >/dev/null
rc=${PIPESTATUS[0]}
sleep 0.2
is "$rc $(q "SELECT status FROM runs WHERE label = 'pipe'") $(leftovers pipe)" \
	"1 complete 0 0 0 0 0" "a closed pipe: exit 1, not SIGPIPE; stored complete, nothing left"

# SIGXFSZ: a swap file past `ulimit -f` is an error with a message.
if [ "$(id -u)" = 0 ]; then
	(ulimit -f 10000 && exec "$UL" run "${TINY[@]}" --tests noload --swap 64M --label xfsz) \
		>/dev/null 2>"$TMP/err"
	is "$? $(leftovers xfsz)" "1 0 0 0 0 0" "--swap past ulimit -f: exit 1, nothing left"
	like "$(cat "$TMP/err")" "--swap 64M: .*File too large" "the error says the file is too large"
else
	skip "needs root for --swap"
	skip "needs root for --swap"
fi

# SIGKILL while an output file is written (a test seam holds there, the
# data written, before it is named): no temporary is left, the old file
# stays whole (chaos trial 118 of bench/chaos.sh left FILE.tmpXXXXXX).
out=$TMP/out.json
echo old >"$out"
hold=$TMP/outfile-hold
UL_TEST_OUTFILE_HOLD=$hold "$UL" export --db "$DB" -o "$out" >/dev/null 2>&1 &
pid=$!
wait_for test -e "$hold"
ok $? "export reached the end of writing its output"
kill -KILL "$pid"
wait "$pid" 2>/dev/null
is "$(cat "$out") $(compgen -G "$out.tmp*" | wc -l)" "old 0" \
	"a kill -9 while the output is written: no temporary left, the old file whole"

done_testing

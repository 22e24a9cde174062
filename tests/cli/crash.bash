# SPDX-License-Identifier: GPL-2.0-or-later
# A machine that goes down under a run, shared by t0107-crash.sh and
# t0108-crashed-view.sh; sourced after lib.bash ($UL, $TMP, $DB, ul_procs).
#
# crash_run_at starts a run, waits in the run's own journal for the test
# it must die in and freezes the run's supervisor there at once (SIGSTOP:
# no test ends and no cell is stored while the checks and the slow scan of
# /proc for its children run); crash_kill then SIGKILLs underload and
# every process it started, again until none is left (a load's child
# forked after a scan), so that nothing of underload runs again: as if
# the machine went down.  A private journal directory keeps every other run on
# the machine out (with another boot id, cleanup would take their journals
# for a dead boot's).

export UL_JOURNAL_DIR=$TMP/journal
mkdir -p -m 0700 "$UL_JOURNAL_DIR"

q() { sqlite3 "$DB" "$1" 2>/dev/null; }
cells() { q "SELECT count(*) FROM cells c JOIN runs r ON c.run_id = r.id WHERE r.label = '$1'" || echo 0; }
# wait_for CMD...: until CMD succeeds, for 120 s at most (by the clock:
# polls are slow on a busy machine).
wait_for() {
	local end=$((SECONDS + 120))
	while [ "$SECONDS" -lt "$end" ]; do
		"$@" && return 0
		sleep 0.1
	done
	"$@"
}
# The pids of underload and everything it started (tagged by lib.bash).
ul_pids() {
	local f
	for f in /proc/[0-9]*/environ; do
		{ tr '\0' '\n' <"$f" | grep -qxF "UL_TEST_TAG=$TMP"; } 2>/dev/null &&
			{ f=${f#/proc/}; echo "${f%/environ}"; }
	done
}
no_procs() { [ "$(ul_procs)" = 0 ]; }

# crash_run_at SEQ LOAD RUN-ARGS...: start `underload run RUN-ARGS` in the
# background (its pid in CRASH_PID, stderr in $TMP/crash-err), wait until
# its journal says it began cell SEQ, resp's test LOAD, and stop it there.
# The journal's "at" record is written as the cell begins: a state that
# lasts the whole test, where the store's cell count and /proc/swaps only
# say that the run is somewhere after the first test (and a poll that
# misses a short test waits for a state that is gone).  Fails (1) when
# the run ended first or the wait timed out.
crash_run_at() {
	local seq=$1 load=$2 end=$((SECONDS + 120))
	shift 2
	"$UL" run "$@" >/dev/null 2>"$TMP/crash-err" &
	CRASH_PID=$!
	while [ "$SECONDS" -lt "$end" ]; do
		grep -qs "^at $seq 1 [0-9]* resp $load resp\$" "$UL_JOURNAL_DIR"/* &&
			kill -STOP "$CRASH_PID" && return 0
		kill -0 "$CRASH_PID" 2>/dev/null || return 1
		sleep 0.1
	done
	return 1
}

# crash_kill: the machine dies under the run started by crash_run_at (and
# at exit, a run left stopped by a failed test dies so, before cleanup).
crash_kill() {
	local pids round
	[ -n "${CRASH_PID:-}" ] || return 0
	for round in 1 2 3 4 5; do
		mapfile -t pids < <(ul_pids)
		[ "${#pids[@]}" = 0 ] && break
		kill -KILL "${pids[@]}" 2>/dev/null
		sleep 0.2
	done
	wait "$CRASH_PID" 2>/dev/null
	wait_for no_procs
}

# must STATUS DESCRIPTION: ok, and when it failed (a step the rest
# depends on), say what the run said and stop here rather than print a
# page of consequences.
must() {
	ok "$1" "$2"
	[ "$1" = 0 ] && return 0
	diag "the run's stderr: $(cat "$TMP/crash-err" 2>/dev/null)"
	echo "Bail out! $2"
	exit 1
}

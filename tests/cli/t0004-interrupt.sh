#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-or-later
# SIGINT mid-run: exit 130, no process of the run alive, no scratch file,
# the run stored as interrupted with its finished cells.  A second SIGINT
# during the stop aborts at once and still cleans up.
. "$(dirname "$0")/lib.bash"

# cells LABEL: cells stored so far for the run labelled LABEL.
cells() {
	sqlite3 "$DB" "SELECT count(*) FROM cells c JOIN runs r ON c.run_id = r.id WHERE r.label = '$1'" \
		2>/dev/null || echo 0
}

# wait_cells LABEL N: until the store holds N cells of that run (at most 60 s).
wait_cells() {
	for _ in $(seq 600); do
		[ "$(cells "$1")" -ge "$2" ] && return 0
		sleep 0.1
	done
	return 1
}

"$UL" run "${TINY[@]}" --interval 300ms --label sigint >/dev/null 2>"$TMP/err" &
pid=$!
wait_cells sigint 2
ok $? "two cells were stored while running"
kill -INT "$pid"
wait "$pid"
is $? 130 "SIGINT ends the run with exit 130"
sleep 0.2
is "$(ul_procs)" 0 "no process of the run is alive"
is "$(scratch_left)" 0 "no scratch directory is left"
is "$(sqlite3 "$DB" "SELECT status FROM runs WHERE label = 'sigint'")" interrupted "the run is stored as interrupted"
n=$(sqlite3 "$DB" "SELECT count(*) FROM cells c JOIN runs r ON c.run_id = r.id WHERE r.label = 'sigint' AND c.outcome = 'ok'")
[ "$n" -ge 2 ]; ok $? "its finished cells are kept ($n ok)"
like "$("$UL" list --db "$DB")" 'sigint .* interrupted' "list shows it interrupted"

# Twice: the second SIGINT skips grace periods.
"$UL" run "${TINY[@]}" --interval 300ms --label twice >/dev/null 2>"$TMP/err" &
pid=$!
wait_cells twice 2
kill -INT "$pid"; kill -INT "$pid"
wait "$pid"
is $? 130 "two SIGINTs end the run with exit 130"
sleep 0.2
is "$(ul_procs)" 0 "no process left after two SIGINTs"
is "$(scratch_left)" 0 "no scratch directory left after two SIGINTs"

# SIGTERM behaves like SIGINT.
"$UL" run "${TINY[@]}" --interval 300ms --label term >/dev/null 2>"$TMP/err" &
pid=$!
wait_cells term 1
kill -TERM "$pid"
wait "$pid"
is $? 130 "SIGTERM ends the run with exit 130"
is "$(ul_procs)" 0 "no process left after SIGTERM"
is "$(scratch_left)" 0 "no scratch directory left after SIGTERM"
# A SIGINT that arrives while a load is being stopped is not lost: the
# cpuload leader holds its stop (test seam) and the signal lands there.
hold=$TMP/stop-hold
UL_TEST_LOAD_STOP_HOLD=$hold "$UL" run "${TINY[@]}" --tests cpuload,noload --label instop \
	>/dev/null 2>"$TMP/err" &
pid=$!
for _ in $(seq 600); do [ -e "$hold" ] && break; sleep 0.1; done
[ -e "$hold" ]; ok $? "the load's stop began"
kill -INT "$pid"
wait "$pid"
is $? 130 "SIGINT during a load's stop ends the run with exit 130"
is "$(sqlite3 "$DB" "SELECT status FROM runs WHERE label = 'instop'")" interrupted \
	"the run is stored as interrupted"
is "$(sqlite3 "$DB" "SELECT group_concat(c.load) FROM cells c JOIN runs r ON c.run_id = r.id WHERE r.label = 'instop'")" \
	cpuload "the measured cell is kept and no further test ran"
is "$(ul_procs)" 0 "no process left after a SIGINT during a stop"
is "$(scratch_left)" 0 "no scratch directory left after a SIGINT during a stop"
done_testing

# SPDX-License-Identifier: GPL-2.0-or-later
# shellcheck shell=bash
# Sourced by t0112-sweep.sh (root, $SW, $sw0, $RUN, other, wait_change):
# every terminating signal stops a sweep as SIGINT does, the settings
# written back, exit 130, as it stops `run` (core/signals.h); SIGQUIT
# too when the sweep's parent left it ignored.
v1=$(other "$sw0" | cut -d, -f1)
for sig in USR1 USR2 ALRM XFSZ QUIT; do
	(
		trap '' QUIT # inherited ignored: still a request to stop
		exec "$UL" sweep "vm.swappiness=$v1" -- "${RUN[@]}" --min-points 50 --max-points 50 \
			>/dev/null 2>"$TMP/err"
	) &
	pid=$!
	wait_change "$SW" "$sw0"
	kill "-$sig" "$pid"
	wait "$pid"
	is $? 130 "SIG$sig: the sweep exits 130"
	is "$(cat "$SW")" "$sw0" "after SIG$sig vm.swappiness is $sw0"
done
for _ in $(seq 100); do [ "$(ul_procs)" = 0 ] && break; sleep 0.1; done
is "$(ul_procs)" 0 "no process is left"
is "$(ls "$UL_JOURNAL_DIR" | wc -l)" 0 "nothing is left for cleanup"

# A signal between fork() and the wait for the run reaches the run: the
# sweep's return from fork() is held 3 s (strace), the signal comes 1 s
# into it; a sweep that lost it would wait for the whole run (20 s).
if strace_usable "the window between fork() and the wait is" &&
	strace -o /dev/null true 2>/dev/null; then
	v3=$(($(other "$sw0" | cut -d, -f2) + 1))
	start=$(date +%s)
	strace -o /dev/null -e trace=clone,clone3,fork,vfork \
		-e inject=clone,clone3,fork,vfork:delay_exit=3000000:when=1 \
		"$UL" sweep "vm.swappiness=$v3" -- "${RUN[@]}" --min-points 100 --max-points 100 \
		>/dev/null 2>"$TMP/err" &
	tracer=$!
	for _ in $(seq 100); do grep -q "round 1/1" "$TMP/err" && break; sleep 0.1; done
	sleep 1
	kill -TERM "$(pgrep -P "$tracer")"
	wait "$tracer"
	is $? 130 "a signal while fork() returns: the sweep exits 130"
	ok $([ $(($(date +%s) - start)) -lt 14 ]; echo $?) "within 14 s: the run was stopped"
	is "$(sqlite3 "$DB" "SELECT count(*) FROM runs WHERE label = 'vm.swappiness=$v3' AND status <> 'interrupted'")" \
		0 "the run did not run to its end"
	is "$(cat "$SW")" "$sw0" "vm.swappiness is $sw0"
fi

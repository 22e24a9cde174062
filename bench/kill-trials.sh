#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-or-later
# Kill trials: quick resp runs (plain, and sandboxed with --mem-limit 256M
# --swap 256M every third trial when root) get, at a random moment, one of
# the catchable terminating signals (the table in src/core/signals.h), KILL
# (followed by `underload cleanup`) or STOP + CONT.  Afterwards every
# trial is checked for what it left: processes of the run, scratch
# directories, swap files, cgroups named after the run, journals, the
# run's status, whether cells stored before the signal were kept, and
# whether a signal sent to a live run was swallowed (exit 0).
#
# usage: bench/kill-trials.sh [TRIALS] [BUILD_DIR] [TESTS]
# TESTS: the resp tests of each run (default: five of the seven, so a run
# lasts some 10-30 s on a busy 2-CPU machine).
# Not run by CI (a few minutes).  Prints one line per trial and a summary;
# exits 1 if anything was left behind, a cell was lost, a status is wrong
# or a cleanup failed, and 2 at once if a query of the results store fails.
set -euo pipefail
trials=${1:-40}
ul=$(cd "${2:-build}" && pwd)/underload
tests=${3:-noload,smallwrite,largewrite,cpuload,8ctx-mem}
tmp=$(mktemp -d /tmp/ul-kill.XXXXXX)
pid= # the trial's run until it is waited for
# Whatever ends the script (a failed query ends it mid-trial), a run still
# going is stopped with SIGTERM, on which it cleans up after itself (a
# STOP trial's run is continued first, or it would never act on it), and
# waited for before its directory goes.
finish() {
	if [ -n "$pid" ] && kill -CONT "$pid" 2>/dev/null && kill -TERM "$pid" 2>/dev/null; then
		wait "$pid" || echo "kill-trials: stopped the run of the trial under way (exit $?)" >&2
	fi
	rm -rf "$tmp"
}
trap finish EXIT
export UL_JOURNAL_DIR=$tmp/journal # ours alone: other runs' journals stay out
mkdir -m 0700 "$UL_JOURNAL_DIR" "$tmp/scratch"
db=$tmp/r.db
sandbox_ok=0
if [ "$(id -u)" = 0 ] && grep -qE 'cgroup2? .*memory|cgroup .*[ ,]memory' /proc/self/mountinfo; then
	sandbox_ok=1
fi
opts=(--quick --tests "$tests" --db "$db" --dir "$tmp/scratch" --no-progress --interval 200ms --min-points 5
	--max-points 5 -o resp.working-set=4M -o resp.files=20 -o largewrite.size=64M
	-o smallwrite.files=4 -o 8ctx-mem.footprint=64M -o 2ctx-mem.footprint=64M)

# q SQL: sqlite3's answer from the results store; nothing while no run has
# made the store yet (no file, or a file with no tables at all).  A
# failed query (a bad statement, a damaged or unreadable store, a lock
# held past 10 s) is reported on stderr with sqlite3's own message and
# returns 2, which ends the script (set -e) at the assignment calling q.
sq() { sqlite3 -bail -cmd '.timeout 10000' "$db" "$1"; }
q() {
	local tables
	[ -e "$db" ] || return 0
	if tables=$(sq 'SELECT count(*) FROM sqlite_master') &&
		{ [ "$tables" = 0 ] || sq "$1"; }; then
		return 0
	fi
	echo "kill-trials: a query of $db failed: $1" >&2
	return 2
}
# Processes whose environment carries this trial's tag.
tagged() {
	local n=0 f
	for f in /proc/[0-9]*/environ; do
		{ tr '\0' '\n' <"$f" | grep -qxF "UL_KILL_TAG=$1"; } 2>/dev/null && n=$((n + 1))
	done
	echo "$n"
}

# The catchable terminating signals, as src/core/signals.h lists them.
CATCHABLE=(HUP INT QUIT TERM USR1 USR2 ALRM VTALRM PROF XCPU XFSZ PWR IO STKFLT RTMIN RTMAX)
# Has the run exited (bash reaps a background job as it ends; until it
# does, the job is a zombie)?
exited() {
	local state
	state=$(awk '{ print $3 }' "/proc/$1/stat" 2>/dev/null) || return 0
	[ -z "$state" ] || [ "$state" = Z ]
}

declare -A count exits statuses
bad=0 lost=0 left_total=0 swallowed=0 cleanup_failed=0
for i in $(seq "$trials"); do
	label=t$i
	sig=$(shuf -n1 -e "${CATCHABLE[@]}" KILL STOP)
	delay=$(awk -v r="$RANDOM" 'BEGIN { printf "%.2f", 0.2 + (r % 1500) / 100 }')
	sb=()
	kind=plain
	if [ "$sandbox_ok" = 1 ] && [ $((i % 3)) = 0 ]; then
		sb=(--mem-limit 256M --swap 256M)
		kind=sandbox
	fi
	# Default dispositions, as from a terminal: a script's background job
	# starts with SIGINT and SIGQUIT ignored (nohup adds SIGHUP), which a
	# run honours only until it blocks them.
	UL_KILL_TAG=$tmp/$i env --default-signal "$ul" run "${opts[@]}" "${sb[@]}" --label "$label" \
		>/dev/null 2>"$tmp/err.$i" &
	pid=$!
	sleep "$delay"
	before=$(q "SELECT count(*) FROM cells c JOIN runs r ON c.run_id = r.id WHERE r.label = '$label'")
	alive=1
	exited "$pid" && alive=0
	# A kill that fails found the run gone (bash reaped it meanwhile): the
	# signal reached no live run, so it cannot have been swallowed.
	case $sig in
	STOP)
		kill -STOP "$pid" 2>/dev/null || alive=0
		sleep "$(awk -v r="$RANDOM" 'BEGIN { printf "%.2f", 0.2 + (r % 300) / 100 }')"
		kill -CONT "$pid" 2>/dev/null || alive=0
		;;
	*) kill -"$sig" "$pid" 2>/dev/null || alive=0 ;;
	esac
	set +e
	wait "$pid"
	rc=$?
	set -e
	pid=
	cleanup_ok=1
	if [ "$sig" = KILL ]; then
		crc=0
		"$ul" cleanup >"$tmp/cleanup.$i" 2>&1 || crc=$?
		if [ "$crc" != 0 ]; then
			rc="$rc+cleanup-failed"
			cleanup_ok=0
			cleanup_failed=$((cleanup_failed + 1))
		fi
	fi
	sleep 0.2
	status=$(q "SELECT status FROM runs WHERE label = '$label'")
	after=$(q "SELECT count(*) FROM cells c JOIN runs r ON c.run_id = r.id WHERE r.label = '$label'")
	uuid=$(q "SELECT uuid FROM runs WHERE label = '$label'")
	procs=$(tagged "$tmp/$i")
	scratch=$(find "$tmp/scratch" -mindepth 1 -maxdepth 1 | wc -l)
	swaps=$(awk -v p="$tmp/" 'index($1, p) == 1 { n++ } END { print n + 0 }' /proc/swaps)
	cgroups=0
	[ -n "$uuid" ] && cgroups=$(find /sys/fs/cgroup -maxdepth 6 -type d -name "underload-${uuid:0:8}" 2>/dev/null | wc -l)
	journals=$(find "$UL_JOURNAL_DIR" -type f | wc -l)
	left=$((procs + scratch + swaps + cgroups + journals))
	# What each signal must give.  A catchable one: 130 and interrupted
	# (or no run yet); 130 and complete when it came during the final
	# teardown; death by the signal (128+N) before the run started or once
	# it was stored, while the results are printed; 0 and complete only
	# when the run had exited before the signal (else it was swallowed).
	# KILL + cleanup: interrupted (complete once the run was stored).
	# STOP/CONT: a normal end.
	want_ok=$cleanup_ok
	case $sig in
	KILL)
		# complete: it came after the run stored its end (printing).
		[ "$status" = interrupted ] || [ -z "$status" ] || [ "$status" = complete ] ||
			want_ok=0 ;;
	STOP) [ "$rc" = 0 ] && [ "$status" = complete ] || want_ok=0 ;;
	*)
		died=$((128 + $(kill -l "$sig")))
		if [ "$rc" = 0 ] && [ "$alive" = 1 ]; then
			swallowed=$((swallowed + 1))
			want_ok=0
		fi
		[ "$alive" = 0 ] && [ "$rc" = 0 ] && [ "$status" = complete ] ||
			{ [ "$rc" = 130 ] && [ "$status" = interrupted ]; } ||
			{ [ "$rc" = 130 ] && [ "$status" = complete ]; } ||
			{ [ -z "$status" ] && [ "$rc" = 130 ]; } ||
			{ [ "$rc" = "$died" ] && { [ -z "$status" ] || [ "$status" = complete ]; }; } ||
			want_ok=0 ;;
	esac
	[ "${after:-0}" -ge "${before:-0}" ] || lost=$((lost + before - after))
	[ "$want_ok" = 1 ] || bad=$((bad + 1))
	left_total=$((left_total + left))
	count[$sig]=$((${count[$sig]:-0} + 1))
	exits["$sig rc=$rc"]=$((${exits["$sig rc=$rc"]:-0} + 1))
	statuses["$sig ${status:-none}"]=$((${statuses["$sig ${status:-none}"]:-0} + 1))
	printf 'trial %3d %-7s %-4s at %5ss: exit %-3s status %-11s cells %s->%s left %d%s\n' \
		"$i" "$kind" "$sig" "$delay" "$rc" "${status:-none}" "${before:-0}" "${after:-0}" "$left" \
		"$([ "$want_ok" = 1 ] || echo '  <-- unexpected')"
	# An unexpected trial shows what the run (and its cleanup) said, and
	# so does one whose swap file took retries to turn off.
	if [ "$want_ok" != 1 ] || [ "$left" != 0 ] || grep -q swapoff "$tmp/err.$i"; then
		sed 's/^/    run: /' "$tmp/err.$i"
		[ -f "$tmp/cleanup.$i" ] && sed 's/^/    cleanup: /' "$tmp/cleanup.$i"
	fi
	# Nothing may stay for the next trial: cleanup, then by hand what it
	# could not undo (an active swap file cannot be unlinked).  A cleanup
	# or removal that fails is reported and counted.
	if [ "$left" != 0 ]; then
		crc=0
		"$ul" cleanup >"$tmp/leftover.$i" 2>&1 || crc=$?
		sed 's/^/    leftover cleanup: /' "$tmp/leftover.$i"
		if [ "$crc" != 0 ]; then
			echo "    leftover cleanup FAILED (exit $crc)"
			cleanup_failed=$((cleanup_failed + 1))
		fi
		for f in $(awk -v t="$tmp" 'index($1, t) == 1 { print $1 }' /proc/swaps); do
			swapoff "$f" && continue
			echo "    leftover swap file $f: swapoff by hand FAILED"
			cleanup_failed=$((cleanup_failed + 1))
		done
		if ! rm -rf "${tmp:?}/scratch/"*; then
			echo "    leftover scratch could not be removed"
			cleanup_failed=$((cleanup_failed + 1))
		fi
	fi
done
echo "summary: $trials trials on $(nproc) CPUs (machine shared with other work)"
for k in "${!count[@]}"; do echo "  $k: ${count[$k]} trials"; done | sort
for k in "${!exits[@]}"; do echo "  exit   $k: ${exits[$k]}"; done | sort
for k in "${!statuses[@]}"; do echo "  status $k: ${statuses[$k]}"; done | sort
echo "  leftovers (processes+scratch+swap+cgroups+journals): $left_total"
echo "  cells lost: $lost"
echo "  signals swallowed (a live run exited 0): $swallowed"
echo "  unexpected exit/status: $bad"
echo "  failed cleanups (after KILL, of leftovers, by hand): $cleanup_failed"
echo "summary line: $trials trials, $left_total leftovers, $lost cells lost, $swallowed signals swallowed, $bad unexpected, $cleanup_failed failed cleanups"
[ "$left_total" = 0 ] && [ "$lost" = 0 ] && [ "$bad" = 0 ] && [ "$cleanup_failed" = 0 ]

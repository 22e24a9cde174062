# SPDX-License-Identifier: GPL-2.0-or-later
# Chaos trials, shared by tests/cli/t0106-chaos.sh (bounded) and
# bench/chaos.sh (in full); sourced after tests/cli/lib.bash, which gives
# $UL, $TMP, $DB, $SCRATCH, ul_procs and the TAP helpers.
#
# A trial runs one suite under tiny settings, sends one signal at a random
# moment (a catchable terminating one from the table in src/core/signals.h,
# or KILL followed by `underload cleanup`), and checks what every signal
# must leave: an exit status the man page allows for it, no process,
# scratch directory, swap file, cgroup, journal or temporary output file,
# and every cell reported before the signal in the store.  chaos_final
# checks the store's integrity and that no sysctl changed.

# The catchable terminating signals, as src/core/signals.h lists them.
CHAOS_SIGNALS=(HUP INT QUIT TERM USR1 USR2 ALRM VTALRM PROF XCPU XFSZ PWR IO STKFLT RTMIN RTMAX)
CHAOS_SUITES=(resp deadline mtest contest fsbench micro)

export UL_JOURNAL_DIR=$TMP/journal # ours alone: other runs' journals stay out
mkdir -p -m 0700 "$UL_JOURNAL_DIR" "$TMP/out" "$TMP/ls"
CHAOS_SANDBOX=0
if [ "$(id -u)" = 0 ] && grep -qE 'cgroup2? .*memory|cgroup .*[ ,]memory' /proc/self/mountinfo; then
	CHAOS_SANDBOX=1
fi
chaos_lost=0 chaos_left=0 chaos_bad=0 chaos_swallowed=0 chaos_n=0

# The tiny options of each suite (those of its own CLI test).
chaos_opts() { # chaos_opts SUITE: into the array CHAOS_OPTS
	local common=(--dir "$SCRATCH" --db "$DB" --progress)
	case $1 in
	resp) CHAOS_OPTS=("${common[@]}" --interval 100ms --min-points 5 --max-points 6
		--tests noload,smallwrite,cpuload,8ctx-mem -o resp.working-set=4M -o resp.files=20
		-o smallwrite.files=4 -o 8ctx-mem.footprint=16M) ;;
	deadline) CHAOS_OPTS=("${common[@]}" --interval 200ms --min-points 5 --tests noload,cpuload) ;;
	mtest) CHAOS_OPTS=("${common[@]}" --monitor-interval 50ms --runs 2 --mtest-target 8M) ;;
	contest) CHAOS_OPTS=("${common[@]}" --quick --no-drop-caches --lead-time 200ms --runs 1
		--lslr-dir "$TMP/ls" -o io_load.size=16M -o read_load.size=16M -o mem_load.size=32M
		-o process_load.procs=4 --tests noload,process_load,io_load
		--job "sh -c 'i=0; while [ \$i -lt 200000 ]; do i=\$((i+1)); done'") ;;
	fsbench) CHAOS_OPTS=("${common[@]}" --monitor-interval 0 --clients 2 --duration 1s
		--warmup 0 --runs 2 --loadfile builtin) ;;
	micro) CHAOS_OPTS=("${common[@]}" --quick --tests lat-null,lat-pipe,bw-pipe) ;;
	esac
}

chaos_q() { sqlite3 "$DB" "$1" 2>/dev/null; }
chaos_cells() {
	chaos_q "SELECT count(*) FROM cells c JOIN runs r ON c.run_id = r.id WHERE r.label = '$1'" ||
		echo 0
}
# Cells progress had moved past before the signal: "[SUITE i/n] TEST:"
# lines name the cell being measured, so i-1 of them were finished.
chaos_reported() { # chaos_reported FILE
	tr '\r' '\n' <"$1" | sed -n 's/^\[[a-z]* \([0-9]*\)\/[0-9]*\].*/\1/p' | sort -n | tail -n 1 |
		awk '{ print $1 - 1 } END { if (!NR) print 0 }'
}
chaos_exited() { # has PID exited (gone, or a zombie not yet reaped)?
	local state
	state=$(awk '{ print $3 }' "/proc/$1/stat" 2>/dev/null) || return 0
	[ -z "$state" ] || [ "$state" = Z ]
}
# What a run left: "procs scratch swaps cgroups journals tempfiles".
chaos_leftovers() { # chaos_leftovers UUID
	local cg=0
	[ -n "$1" ] && cg=$(find /sys/fs/cgroup -maxdepth 6 -type d -name "underload-${1:0:8}" 2>/dev/null | wc -l)
	echo "$(ul_procs) $(find "$SCRATCH" -mindepth 1 -maxdepth 1 | wc -l)" \
		"$(grep -c "^$SCRATCH/" /proc/swaps) $cg $(find "$UL_JOURNAL_DIR" -type f | wc -l)" \
		"$(find "$TMP/out" -name '*.tmp*' | wc -l)"
}

# chaos_trial SUITE SIGNAL MAX_DELAY_S: one trial, one TAP line.
chaos_trial() {
	local suite=$1 sig=$2 maxd=$3 label delay pid rc alive before reported after status uuid
	local left ok=1 why="" sb=()
	chaos_n=$((chaos_n + 1))
	label=chaos-$chaos_n-$suite-$sig
	chaos_opts "$suite"
	if [ "$suite" = resp ] && [ "$CHAOS_SANDBOX" = 1 ] && [ $((chaos_n % 3)) = 0 ]; then
		sb=(--swap 32M --mem-limit 128M)
	fi
	delay=$(awk -v r="$RANDOM" -v m="$maxd" 'BEGIN { printf "%.2f", 0.1 + (r % 1000) / 1000 * m }')
	# Default dispositions, as from a terminal: a script's background job
	# starts with SIGINT and SIGQUIT ignored (nohup adds SIGHUP), which a
	# run honours only until it blocks them (chaos trials 70 and 107).
	env --default-signal "$UL" run "$suite" "${CHAOS_OPTS[@]}" "${sb[@]}" --label "$label" \
		--format "text,json=$TMP/out/$label.json" >/dev/null 2>"$TMP/progress" &
	pid=$!
	sleep "$delay"
	reported=$(chaos_reported "$TMP/progress")
	before=$(chaos_cells "$label")
	[ "$reported" -gt "$before" ] && before=$reported
	# Alive right before the signal: a run may end during the queries.
	alive=1
	chaos_exited "$pid" && alive=0
	kill -s "$sig" "$pid" 2>/dev/null
	wait "$pid" 2>/dev/null
	rc=$?
	[ "$sig" = KILL ] && { "$UL" cleanup >"$TMP/cleanup.out" 2>&1 || why="$why cleanup failed;"; }
	sleep 0.2
	after=$(chaos_cells "$label")
	status=$(chaos_q "SELECT status FROM runs WHERE label = '$label'")
	uuid=$(chaos_q "SELECT uuid FROM runs WHERE label = '$label'")
	left=$(chaos_leftovers "$uuid")
	if [ "$left" != "0 0 0 0 0 0" ]; then
		why="$why left (procs scratch swaps cgroups journals tmpfiles) $left;"
		chaos_left=$((chaos_left + 1))
		tr '\r' '\n' <"$TMP/progress" | grep -E '^(error|warning|note)' | sed 's/^/# run: /'
		"$UL" cleanup >"$TMP/leftover.out" 2>&1 || why="$why cleanup of the leftovers failed;"
		sed 's/^/# leftover cleanup: /' "$TMP/leftover.out"
		rm -rf "${SCRATCH:?}"/* "$TMP"/out/*.tmp* || why="$why leftovers could not be removed;"
	fi
	if [ "${after:-0}" -lt "$before" ]; then
		why="$why $before cells reported, $after stored;"
		chaos_lost=$((chaos_lost + before - after))
	fi
	if [ "$sig" = KILL ]; then
		[ "$status" = interrupted ] || [ -z "$status" ] || [ "$status" = complete ] ||
			why="$why status $status after KILL and cleanup;"
	elif [ "$rc" = 0 ] && [ "$alive" = 1 ]; then
		why="$why a live run exited 0 (signal swallowed);"
		chaos_swallowed=$((chaos_swallowed + 1))
	else
		# 130 (interrupted; complete if it came during the teardown),
		# 128+N (died of it before the run began or once it was stored),
		# 4 or 0 only when the run had ended first.
		case "$rc:$status" in
		130:interrupted | 130:complete | 130: | "$((128 + $(kill -l "$sig"))):complete" | \
			"$((128 + $(kill -l "$sig"))):") ;;
		0:complete | 4:complete) [ "$alive" = 0 ] || why="$why exit $rc status $status;" ;;
		*) why="$why exit $rc status ${status:-none};" ;;
		esac
	fi
	[ -z "$why" ] || { ok=0; chaos_bad=$((chaos_bad + 1)); }
	_n=$((_n + 1))
	if [ "$ok" = 1 ]; then
		echo "ok $_n - $suite SIG$sig at ${delay}s: exit $rc, ${status:-no run}, cells $before->$after, nothing left"
	else
		echo "not ok $_n - $suite SIG$sig at ${delay}s:$why"
		_fail=1
	fi
}

# Writable vm sysctls, to compare before and after (not the triggers).
chaos_sysctls() {
	local f
	for f in /proc/sys/vm/*; do
		case ${f##*/} in drop_caches | compact_memory | stat_refresh) continue ;; esac
		[ -w "$f" ] && [ -r "$f" ] && printf '%s=%s\n' "${f##*/}" "$(tr '\n\t' '  ' <"$f")"
	done 2>/dev/null
}

chaos_final() { # chaos_final SYSCTLS_BEFORE
	is "$(chaos_q 'PRAGMA integrity_check')" ok "the store's integrity check passes"
	is "$(chaos_sysctls)" "$1" "no vm sysctl changed"
	echo "# chaos: $chaos_n trials, $chaos_left with leftovers, $chaos_lost cells lost," \
		"$chaos_swallowed signals swallowed, $chaos_bad failed"
}

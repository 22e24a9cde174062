#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-or-later
# micro's multi-process tests run in two placements, each a test of its
# own: NAME-1cpu (every end on one CPU) and NAME-2cpu (the other ends on a
# second CPU).  Checked twice: by what each end recorded about itself once
# pinned (its affinity mask and sched_getcpu(), metrics of the cell), and
# from outside, by reading both ends' Cpus_allowed_list in /proc while a
# long measurement runs.  --cpu-pin moves the first CPU; the plain name
# selects both placements; with one CPU only the first exists.
. "$(dirname "$0")/lib.bash"

M=(--dir "$SCRATCH" --db "$DB" --no-progress)
# The CPUs this test may use, lowest first: the run's defaults.
mapfile -t CPUS < <(taskset -cp $$ | sed 's/.*: //' | tr ',' '\n' |
	awk -F- '{ for (c = $1; c <= ($2 == "" ? $1 : $2); c++) print c }' | sort -n)

# metric JSON PROBE NAME: a metric of the cell measuring PROBE.
metric() { jq -r --arg p "$2" --arg m "$3" '.cells[] | select(.probe == $p) | .metrics[$m]' "$1"; }

# one_cpu [TASKSET...]: on one CPU only the -1cpu placement runs.
one_cpu() {
	"$@" "$UL" run micro "${M[@]}" --quick --label one --tests lat-pipe --format json="$TMP/one.json" \
		>/dev/null 2>"$TMP/err"
	is $? 0 "run lat-pipe on one CPU ${*:+($*)}"
	is "$(jq -c '[.cells[].probe]' "$TMP/one.json")" '["lat-pipe-1cpu"]' \
		"one CPU: only the -1cpu placement runs"
}
if [ "${#CPUS[@]}" -lt 2 ]; then
	one_cpu
	skip "one CPU (${CPUS[*]}): the -2cpu placements do not exist"
	done_testing
fi
one_cpu taskset -c "${CPUS[0]}"
A=${CPUS[0]} B=${CPUS[1]}

"$UL" run micro "${M[@]}" --quick --label placed --tests lat-pipe,ctx-2p0k,bw-tcp,lat-connect \
	--format json="$TMP/p.json" >/dev/null 2>"$TMP/err"
is $? 0 "run lat-pipe, ctx-2p0k, bw-tcp, lat-connect"
is "$(jq -c '[.cells[].probe]' "$TMP/p.json")" \
	'["ctx-2p0k-1cpu","ctx-2p0k-2cpu","lat-pipe-1cpu","lat-pipe-2cpu","lat-connect-1cpu","lat-connect-2cpu","bw-tcp-1cpu","bw-tcp-2cpu"]' \
	"a plain name selects both placements, in summary order"
for t in lat-pipe ctx-2p0k bw-tcp lat-connect; do
	is "$(metric "$TMP/p.json" "$t-1cpu" place_cpus)/$(metric "$TMP/p.json" "$t-1cpu" affinity_self)/$(metric "$TMP/p.json" "$t-1cpu" affinity_peers)" \
		"1/$((1 << A))/$((1 << A))" "$t-1cpu: both ends were pinned to CPU $A"
	is "$(metric "$TMP/p.json" "$t-1cpu" ran_on_self)/$(metric "$TMP/p.json" "$t-1cpu" ran_on_peer)" \
		"$A/$A" "$t-1cpu: both ends ran on CPU $A"
	is "$(metric "$TMP/p.json" "$t-2cpu" place_cpus)/$(metric "$TMP/p.json" "$t-2cpu" affinity_self)/$(metric "$TMP/p.json" "$t-2cpu" affinity_peers)" \
		"2/$((1 << A))/$((1 << B))" "$t-2cpu: the measuring end pinned to CPU $A, the other to $B"
	is "$(metric "$TMP/p.json" "$t-2cpu" ran_on_self)/$(metric "$TMP/p.json" "$t-2cpu" ran_on_peer)" \
		"$A/$B" "$t-2cpu: the ends ran on CPUs $A and $B"
done

# --cpu-pin: the first CPU of the placements; the other end takes the next.
"$UL" run micro "${M[@]}" --quick --label pin --tests lat-unix --cpu-pin "$B" \
	--format json="$TMP/pin.json" >/dev/null 2>"$TMP/err"
is $? 0 "--cpu-pin $B"
is "$(metric "$TMP/pin.json" lat-unix-1cpu affinity_self)/$(metric "$TMP/pin.json" lat-unix-1cpu affinity_peers)" \
	"$((1 << B))/$((1 << B))" "--cpu-pin $B: lat-unix-1cpu on CPU $B"
other=$(metric "$TMP/pin.json" lat-unix-2cpu place_cpu1)
is "$(metric "$TMP/pin.json" lat-unix-2cpu affinity_self)/$(metric "$TMP/pin.json" lat-unix-2cpu affinity_peers)" \
	"$((1 << B))/$((1 << other))" "--cpu-pin $B: lat-unix-2cpu measures on $B, its peer on $other"
[ "$other" != "$B" ]; ok $? "--cpu-pin $B: the second CPU ($other) is another CPU"

# From outside: while a long measurement runs, the two processes named
# ul:lat-pipe-Ncp (comm is cut to 15 characters) -- the probe and the
# helper it forked -- have the CPUs the placement promises.
# ends COMM: "pid ppid cpus_allowed_list" of each process of ours named COMM.
ends() {
	local f pid
	for f in /proc/[0-9]*/comm; do
		[ "$(cat "$f" 2>/dev/null)" = "$1" ] || continue
		pid=${f#/proc/}
		pid=${pid%/comm}
		{ tr '\0' '\n' <"/proc/$pid/environ" | grep -qxF "UL_TEST_TAG=$TMP"; } 2>/dev/null || continue
		awk '/^PPid:/ { pp = $2 } /^Cpus_allowed_list:/ { c = $2 } END { print pp, c }' \
			"/proc/$pid/status" | sed "s/^/$pid /"
	done
}
# watch TEST COMM WANT: WANT = "probe's CPUs/helper's CPUs".
watch() {
	local pid lines="" n=0 probe helper
	"$UL" run micro "${M[@]}" --label "watch-$1" --tests "$1" --min-batch 1s --batches 30 \
		>/dev/null 2>"$TMP/err" &
	pid=$!
	for _ in $(seq 300); do
		lines=$(ends "$2")
		n=$(grep -c . <<<"$lines")
		[ "$n" -ge 2 ] && break
		sleep 0.1
	done
	# A helper pins itself just after its fork: look again a little later.
	sleep 0.3
	lines=$(ends "$2")
	n=$(grep -c . <<<"$lines")
	is "$n" 2 "$1: two processes named $2"
	# The helper is the one whose parent is the other.
	helper=$(awk 'NR == FNR { pid[$1] = 1; next } ($2 in pid) { print $3 }' <(echo "$lines") <(echo "$lines"))
	probe=$(awk 'NR == FNR { pp[$2] = 1; next } ($1 in pp) { print $3 }' <(echo "$lines") <(echo "$lines"))
	is "$probe/$helper" "$3" "$1: /proc says probe/helper may run on $3"
	kill -INT "$pid"
	wait "$pid"
	is $? 130 "$1: SIGINT ends the run"
}
watch lat-pipe-1cpu ul:lat-pipe-1cp "$A/$A"
watch lat-pipe-2cpu ul:lat-pipe-2cp "$A/$B"
sleep 0.2
is "$(ul_procs)" 0 "no process of the runs is alive"
is "$(scratch_left)" 0 "no scratch directory is left"
done_testing

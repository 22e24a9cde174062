#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-or-later
# run --cpus LIST: the measured scene runs in a cpuset of those CPUs, the
# seed header calls it a 1 CPU run, the fingerprint stores the list, and
# the cpuset is gone afterwards (also after SIGKILL + `underload cleanup`).
. "$(dirname "$0")/lib.bash"

# The affinity of every tagged process named ul:* (loads and probes), one
# "comm list" line each.
scene_affinity() {
	local pid d comm cpus
	for pid in $(ul_pids); do
		d=/proc/$pid
		comm=$(cat "$d/comm" 2>/dev/null) || continue
		case $comm in ul:*) ;; *) continue ;; esac
		# A process that ended between the two reads has no affinity left.
		cpus=$(awk '/^Cpus_allowed_list:/ { print $2 }' "$d/status" 2>/dev/null)
		[ -n "$cpus" ] || continue
		echo "$comm $cpus"
	done
}
# The cpuset cgroup directory process $1 is in when it is one of ours.
cpuset_of() {
	local rel
	rel=$(awk -F: '$2 ~ /(^|,)cpuset(,|$)/ || ($1 == 0 && $2 == "") { print $3 }' \
		"/proc/$1/cgroup" 2>/dev/null | grep underload- | head -1)
	[ -n "$rel" ] || return 1
	find /sys/fs/cgroup -maxdepth 6 -type d -path "*$rel" 2>/dev/null | head -1
}
# Our own journals only: cleanup must not settle other people's runs.
export UL_JOURNAL_DIR=$TMP/journal
mkdir -p "$UL_JOURNAL_DIR" && chmod 700 "$UL_JOURNAL_DIR"

# Bad lists are refused before anything starts.
for v in x 0-x 1-0 "" 99999; do
	"$UL" run --dir "$SCRATCH" --db "$DB" --quick --tests noload --cpus "$v" 2>"$TMP/err" >/dev/null
	is $? 2 "--cpus '$v' is refused with exit 2"
	like "$(cat "$TMP/err")" "--cpus: " "--cpus '$v': says why"
done

if [ "$(id -u)" != 0 ]; then
	skip "needs root for a cpuset cgroup"
	done_testing
fi
if ! grep -qE ' - cgroup [^ ]+ [^ ]*[ ,]cpuset' /proc/self/mountinfo &&
	! grep -qsw cpuset "$(awk '$0 ~ / - cgroup2 / { print $5; exit }' /proc/self/mountinfo)/cgroup.controllers"; then
	skip "no cpuset cgroup controller mounted: the run would pin by affinity"
	done_testing
fi

"$UL" run --cpus 0 --quick --tests noload,cpuload --dir "$SCRATCH" --db "$DB" --no-progress \
	--label cpus0 >"$TMP/out" 2>"$TMP/err" &
pid=$!
: >"$TMP/seen"
cg=
while kill -0 "$pid" 2>/dev/null; do
	scene_affinity >>"$TMP/seen"
	[ -n "$cg" ] || cg=$(cpuset_of "$pid")
	sleep 0.5
done
wait "$pid"
rc=$?
ok $((rc != 0 && rc != 4)) "run --cpus 0 finishes (exit $rc)"
like "$(head -1 "$TMP/out")" "^  Starting 1 CPU run with" "the header says 'Starting 1 CPU run'"
like "$(cat "$TMP/seen")" "^ul:cpuload " "cpuload processes were seen during the run"
is "$(awk '$1 == "ul:cpuload" { print $2 }' "$TMP/seen" | sort -u | tr '\n' ' ')" "0 " \
	"every cpuload process was allowed CPU 0 only"
is "$(awk '{ print $2 }' "$TMP/seen" | sort -u | tr '\n' ' ')" "0 " \
	"every load and probe process was allowed CPU 0 only"
like "$("$UL" show --env last --db "$DB")" "cpu\.cpus: +0$" "the fingerprint stores cpu.cpus 0"
like "$cg" "/underload-[0-9a-f]{8}$" "the run was in a cpuset of its own ($cg)"
ok $([ -n "$cg" ] && [ ! -e "$cg" ]; echo $?) "the cpuset is gone after the run"
is "$(ul_procs)" 0 "no process is left"

# A run without --cpus is an N-CPU run on every CPU.
"$UL" run --quick --tests noload --dir "$SCRATCH" --db "$DB" --no-progress --label all \
	>"$TMP/out" 2>"$TMP/err"
like "$(head -1 "$TMP/out")" "^  Starting $(nproc) CPU run" "without --cpus: Starting $(nproc) CPU run"
like "$("$UL" show --env last --db "$DB")" "cpu\.cpus: +all$" "the fingerprint says cpu.cpus all"

# A sweep of cpus: the CPU list is the comparison's expected difference,
# not an unfair one; compare alone calls it unfair.
if [ "$(nproc)" -ge 2 ]; then
	"$UL" sweep cpus=0,0-1 -- run --quick --tests noload --dir "$SCRATCH" --db "$TMP/sweep.db" \
		--no-progress >"$TMP/sweep" 2>&1
	is $? 0 "sweep cpus=0,0-1 exits 0"
	like "$(cat "$TMP/sweep")" "^  cpu\.cpus +cpus=0 +0$" "the comparison lists cpu.cpus"
	like "$(cat "$TMP/sweep")" "^  CPU count +cpus=0 +1$" "and the CPU count"
	ok $(grep -Eq "unfair comparison: (cpu\.cpus|CPU count)|cpu\.cpus .*\(unfair\)" \
		"$TMP/sweep"; echo $((!$?))) "the swept CPUs are not an unfair difference"
	out=$("$UL" compare cpus=0 cpus=0-1 --db "$TMP/sweep.db" 2>&1)
	like "$out" "unfair comparison: cpu\.cpus" "without --expect compare calls cpu.cpus unfair"
else
	skip "one CPU: no sweep of cpus"
fi

# SIGKILL mid-run leaves the cpuset; cleanup removes it.
"$UL" run --cpus 0 --quick --tests noload,cpuload --dir "$SCRATCH" --db "$DB" --no-progress \
	>/dev/null 2>&1 &
pid=$!
cg=
for _ in $(seq 300); do cg=$(cpuset_of "$pid") && break; sleep 0.1; done
like "$cg" "/underload-[0-9a-f]{8}$" "the killed run is in its cpuset ($cg)"
sleep 2
kill -KILL "$pid"
wait "$pid" 2>/dev/null
for _ in $(seq 100); do [ "$(ul_procs)" = 0 ] && break; sleep 0.1; done
ok $([ -d "$cg" ]; echo $?) "the cpuset stays after SIGKILL"
"$UL" cleanup >"$TMP/clean" 2>&1
is $? 0 "cleanup after SIGKILL succeeds"
like "$(cat "$TMP/clean")" "removed cgroup .*underload-" "cleanup says it removed the cgroup"
ok $([ -n "$cg" ] && [ ! -e "$cg" ]; echo $?) "cleanup removed the cpuset"
is "$(ul_procs)" 0 "no process is left after cleanup"
done_testing

#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-or-later
# underload sweep: one run per setting, interleaved, labelled by the
# setting, the sysctls restored afterwards, after SIGINT, and after SIGKILL
# of the sweep and its runs followed by `underload cleanup`; the comparison
# at the end takes the swept setting as the expected difference.
. "$(dirname "$0")/lib.bash"

SW=/proc/sys/vm/swappiness
VP=/proc/sys/vm/vfs_cache_pressure
RUN=(run --quick --tests noload --interval 200ms --dir "$SCRATCH" --db "$DB" --no-progress)
# Our own journals only: cleanup must not settle other people's runs.
export UL_JOURNAL_DIR=$TMP/journal
mkdir -p "$UL_JOURNAL_DIR" && chmod 700 "$UL_JOURNAL_DIR"
# Two values of a sysctl that differ from its current one.
other() { if [ "$1" -lt 50 ]; then echo "$(($1 + 7)),$(($1 + 31))"; else echo "$(($1 - 7)),$(($1 - 31))"; fi; }
wait_change() { # wait_change FILE ORIGINAL: until it differs (at most 60 s)
	for _ in $(seq 600); do [ "$(cat "$1")" != "$2" ] && return 0; sleep 0.1; done
	return 1
}

# Bad input is refused before anything changes.
for args in "vm.nosuch=1" "vm.swappiness=ten" "vm.swappiness=" "kernel.hostname=1" "=1" \
	"kernel.sched_rt_period_us=1000000"; do
	"$UL" sweep "$args" -- "${RUN[@]}" >/dev/null 2>"$TMP/err"
	is $? 2 "sweep $args is refused with exit 2"
done
# The run's arguments are read as run reads them (getopt_long): every
# abbreviation of --label, and of a swept option, is refused.
for label in "--label x" "--label=x" "--lab x" "--labe=x"; do
	# shellcheck disable=SC2086 # the words of $label are the arguments
	"$UL" sweep vm.swappiness=10 -- "${RUN[@]}" $label >/dev/null 2>"$TMP/err"
	is $? 2 "'$label' in the run's arguments is refused"
	like "$(cat "$TMP/err")" "the sweep labels its runs: no --label" "and says why"
done
"$UL" sweep mem-limit=64M,128M -- "${RUN[@]}" --mem-lim=64M >/dev/null 2>"$TMP/err"
is $? 2 "a swept option abbreviated in the run's arguments (--mem-lim) is refused"
like "$(cat "$TMP/err")" "--mem-limit is swept" "and says why"
# A leading zero is octal to the kernel (010 is 8): refused, not run as 8.
"$UL" sweep vm.swappiness=010,011 -- "${RUN[@]}" >/dev/null 2>"$TMP/err"
is $? 2 "vm.swappiness=010,011 is refused with exit 2"
like "$(cat "$TMP/err")" "vm.swappiness=010: .*leading zeros .*octal" "saying the kernel reads it as octal"
# Every allowed sysctl is bounded: no allowed value can take the machine
# down.  vfs_cache_pressure=0 never reclaims the dentry and inode caches.
"$UL" sweep vm.vfs_cache_pressure=0 -- "${RUN[@]}" >/dev/null 2>"$TMP/err"
is $? 2 "vm.vfs_cache_pressure=0 is refused with exit 2"
like "$(cat "$TMP/err")" "out of the sweep's bounds 10\.\.1000" "naming the bounds"
# Half the memory as a reserve would starve the host: tried only when the
# harmless out-of-bounds value above was refused, never on a build that
# does not bound (it would run it).
half=$(($(awk '$1 == "MemTotal:" { print $2 }' /proc/meminfo) / 2))
if grep -q "out of the sweep's bounds" "$TMP/err"; then
	"$UL" sweep "vm.min_free_kbytes=$half" -- "${RUN[@]}" >/dev/null 2>"$TMP/err"
	is $? 2 "vm.min_free_kbytes=$half (half of MemTotal) is refused with exit 2"
	like "$(cat "$TMP/err")" "5% of MemTotal" "saying why"
else
	ok 1 "vm.min_free_kbytes=$half not tried: this build does not bound sysctls"
	ok 1 "and so cannot refuse it"
fi
"$UL" sweep vm.swappiness=10 "${RUN[@]}" >/dev/null 2>"$TMP/err"
is $? 2 "without '-- run' the sweep is refused"
like "$(cat "$TMP/err")" "expected '-- run ARGS" "and says what it expected"

if [ "$(id -u)" != 0 ] || [ ! -w "$SW" ]; then
	skip "needs root to change sysctls"
	done_testing
fi
sw0=$(cat "$SW")
vp0=$(cat "$VP")
# Whatever happens, the host gets its values back (after our processes).
teardown() {
	ul_kill_all
	echo "$sw0" >"$SW"
	echo "$vp0" >"$VP"
	rm -rf "$TMP"
}
trap teardown EXIT

# The small sweep: four runs, A B A B, the original back afterwards.
"$UL" sweep vm.swappiness=10,100 --repeat 2 -- "${RUN[@]}" >"$TMP/out" 2>"$TMP/err"
is $? 0 "sweep vm.swappiness=10,100 --repeat 2 exits 0"
is "$(cat "$SW")" "$sw0" "vm.swappiness is back to $sw0"
like "$(cat "$TMP/err")" "vm.swappiness restored to $sw0" "the sweep says it restored it"
is "$(sqlite3 "$DB" 'SELECT label FROM runs ORDER BY id' | tr '\n' ' ')" \
	"vm.swappiness=10 vm.swappiness=100 vm.swappiness=10 vm.swappiness=100 " \
	"four runs, interleaved, labelled by the setting"
is "$("$UL" show --env 1 --db "$DB" | awk '$1 == "sysctl.vm.swappiness:" { print $2 }')" 10 \
	"the first run ran with swappiness 10"
is "$("$UL" show --env 2 --db "$DB" | awk '$1 == "sysctl.vm.swappiness:" { print $2 }')" 100 \
	"the second run ran with swappiness 100"
like "$(cat "$TMP/out")" "baseline 'vm.swappiness=10'" "the comparison follows"
like "$(cat "$TMP/out")" "sysctl\.vm\.swappiness +vm\.swappiness=10 +10$" \
	"the comparison names the swept difference"
ok $(grep -q "unfair comparison: sysctl.vm.swappiness" "$TMP/out"; echo $((!$?))) \
	"the swept setting is not an unfair difference"
out=$("$UL" compare vm.swappiness=10 vm.swappiness=100 --db "$DB" 2>&1)
like "$out" "unfair comparison: sysctl.vm.swappiness" "without --expect compare calls it unfair"
out=$("$UL" compare vm.swappiness=10 vm.swappiness=100 --db "$DB" --expect 'sysctl.vm.swapp*' 2>&1)
ok $(grep -q "unfair comparison: sysctl.vm.swappiness" <<<"$out"; echo $((!$?))) \
	"compare --expect takes a pattern"
is "$(ls "$UL_JOURNAL_DIR" | wc -l)" 0 "no journal is left"

# SIGKILL of the sweep and its run mid-run leaves the settings changed;
# cleanup puts every one back.
"$UL" sweep "vm.swappiness=$(other "$sw0")" "vm.vfs_cache_pressure=$(other "$vp0")" \
	-- "${RUN[@]}" --min-points 50 --max-points 50 >/dev/null 2>&1 &
pid=$!
wait_change "$VP" "$vp0"
ok $? "the sweep changed the settings"
sleep 1
ul_kill_all
wait "$pid" 2>/dev/null
for _ in $(seq 100); do [ "$(ul_procs)" = 0 ] && break; sleep 0.1; done
ok $([ "$(cat "$SW")" != "$sw0" ] && [ "$(cat "$VP")" != "$vp0" ]; echo $?) \
	"after SIGKILL both settings are still changed"
"$UL" cleanup >"$TMP/clean" 2>&1
is $? 0 "cleanup exits 0"
is "$(cat "$SW")" "$sw0" "cleanup restored vm.swappiness to $sw0"
is "$(cat "$VP")" "$vp0" "cleanup restored vm.vfs_cache_pressure to $vp0"
like "$(cat "$TMP/clean")" "sysctl vm.swappiness $sw0" "cleanup names the sysctl it restored"
is "$(ul_procs)" 0 "no process is left"
is "$(ls "$UL_JOURNAL_DIR" | wc -l)" 0 "cleanup settled every journal" || cat "$TMP/clean" | sed 's/^/# /'

# SIGINT stops the sweep and restores without cleanup.
"$UL" sweep "vm.swappiness=$(other "$sw0")" "vm.vfs_cache_pressure=$(other "$vp0")" \
	-- "${RUN[@]}" --min-points 50 --max-points 50 >/dev/null 2>"$TMP/err" &
pid=$!
wait_change "$VP" "$vp0"
ok $? "the second sweep changed the settings"
"$UL" sweep vm.swappiness=1 -- "${RUN[@]}" >/dev/null 2>"$TMP/err2"
is $? 1 "a second sweep of sysctls at the same time is refused"
like "$(cat "$TMP/err2")" "another sweep .*is changing system settings" "and says why"
# The lock is a file lock: it holds in another network namespace too (an
# abstract socket name does not).
if unshare -n true 2>/dev/null; then
	unshare -n "$UL" sweep vm.swappiness=1 -- "${RUN[@]}" >/dev/null 2>"$TMP/err2"
	is $? 1 "a second sweep in another network namespace is refused"
	like "$(cat "$TMP/err2")" "another sweep .*is changing system settings" "and says why"
else
	skip "unshare -n is not permitted here"
	skip "unshare -n is not permitted here"
fi
flock -n -E 99 /run/underload/settings.lock true
is $? 99 "the lock is a flock on /run/underload/settings.lock, held by the sweep"
sleep 1
kill -INT "$pid"
wait "$pid"
is $? 130 "SIGINT: the sweep exits 130"
is "$(cat "$SW")" "$sw0" "after SIGINT vm.swappiness is $sw0"
is "$(cat "$VP")" "$vp0" "after SIGINT vm.vfs_cache_pressure is $vp0"
for _ in $(seq 100); do [ "$(ul_procs)" = 0 ] && break; sleep 0.1; done
is "$(ul_procs)" 0 "no process is left"
is "$(ls "$UL_JOURNAL_DIR" | wc -l)" 0 "nothing is left for cleanup"
flock -n /run/underload/settings.lock true
ok $? "the lock ended with the sweep"
. "$(dirname "$0")/t0112/killed.bash"
. "$(dirname "$0")/t0112/signals.bash"
. "$(dirname "$0")/t0112/readonly.bash"
done_testing

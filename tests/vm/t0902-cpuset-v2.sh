#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-or-later
# run --cpus on cgroup v2 (run inside the VM of tests/vm/run, where cgroup
# v2 has the cpuset and memory controllers): the header says "Starting 1
# CPU run", the loads run in a v2 cgroup of the run whose
# cpuset.cpus.effective is 0, every process of the scene is allowed CPU 0
# only, alone and with --mem-limit (then the cpuset is set in the run's
# memory cgroup, a process being in one v2 group, and what stays outside
# it is pinned by affinity), and nothing is left afterwards.
. "$(dirname "$0")/../cli/lib.bash"

if [ "$(id -u)" != 0 ]; then
	skip "needs root"
	done_testing
fi
cg2=$(awk '$9 == "cgroup2" { print $5; exit }' /proc/self/mountinfo)
if [ -z "$cg2" ] || ! grep -qw cpuset "$cg2/cgroup.controllers" 2>/dev/null ||
	grep -qE ' - cgroup [^ ]+ [^ ]*[ ,]cpuset' /proc/self/mountinfo; then
	skip "no cgroup v2 with the cpuset controller (run tests/vm/run)"
	done_testing
fi
if [ "$(nproc)" -lt 2 ]; then
	skip "one CPU: --cpus 0 would change nothing"
	done_testing
fi
# Our own journals only.
export UL_JOURNAL_DIR=$TMP/journal
mkdir -p "$UL_JOURNAL_DIR" && chmod 700 "$UL_JOURNAL_DIR"

# Every tagged process named ul:* (loads and probes): "comm affinity
# cgroup cpuset.cpus.effective" a line.  Without a fork: under TCG each
# exec over 9p costs a good part of a second, and a slow scan misses short
# loads.  A process that exits while it is read is left out.
scene() {
	local d comm e env tagged k v aff line rel eff
	for d in /proc/[0-9]*; do
		read -r comm 2>/dev/null <"$d/comm" || continue
		[[ $comm == ul:* ]] || continue
		mapfile -d '' -t env 2>/dev/null <"$d/environ" || continue
		tagged=0
		for e in "${env[@]}"; do [ "$e" = "UL_TEST_TAG=$TMP" ] && tagged=1; done
		[ "$tagged" = 1 ] || continue
		aff= rel= eff=
		while read -r k v; do [ "$k" = Cpus_allowed_list: ] && aff=$v; done 2>/dev/null <"$d/status"
		while IFS= read -r line; do [[ $line == 0::* ]] && rel=${line#0::}; done 2>/dev/null <"$d/cgroup"
		[ -n "$rel" ] && read -r eff 2>/dev/null <"$cg2$rel/cpuset.cpus.effective"
		[ -n "$aff" ] && [ -n "$eff" ] && echo "$comm $aff $rel $eff"
	done
}
ul_cgroups() { find "$cg2" -maxdepth 6 -type d -name 'underload-*' 2>/dev/null | wc -l; }

for extra in "" "--mem-limit 256M"; do
	name="--cpus 0${extra:+ $extra}"
	# shellcheck disable=SC2086 # extra is words
	"$UL" run --cpus 0 $extra --quick --tests noload,cpuload --dir "$SCRATCH" --db "$DB" \
		--no-progress >"$TMP/out" 2>"$TMP/err" &
	pid=$!
	: >"$TMP/seen"
	while kill -0 "$pid" 2>/dev/null; do
		scene >>"$TMP/seen"
		sleep 0.1
	done
	wait "$pid"
	rc=$?
	ok $((rc != 0 && rc != 4)) "run $name finishes (exit $rc)"
	[ "$rc" = 0 ] || [ "$rc" = 4 ] || diag "$(tail -n 5 "$TMP/err")"
	like "$(head -1 "$TMP/out")" "^  Starting 1 CPU run with" "$name: the header says 'Starting 1 CPU run'"
	like "$(cat "$TMP/seen")" "^ul:cpuload " "$name: cpuload processes were seen"
	diag "$name: $(sort -u "$TMP/seen" | tr '\n' ';')"
	is "$(awk '{ print $2 }' "$TMP/seen" | sort -u | tr '\n' ' ')" "0 " \
		"$name: every load and probe was allowed CPU 0 only"
	like "$(awk '$1 ~ /^ul:(cpuload|noload)$/ { print $3 }' "$TMP/seen" | sort -u | tr '\n' ' ')" \
		"^(/[^ ]*)?/underload-[0-9a-f]{8} $" "$name: the loads ran in one v2 cgroup of the run"
	is "$(awk '$1 ~ /^ul:(cpuload|noload)$/ { print $4 }' "$TMP/seen" | sort -u | tr '\n' ' ')" \
		"0 " "$name: its cpuset.cpus.effective is 0"
	# Without a memory group the supervisor is in the cpuset: all of it is.
	[ -z "$extra" ] &&
		like "$(awk '{ print $3 }' "$TMP/seen" | sort -u | tr '\n' ' ')" \
			"^(/[^ ]*)?/underload-[0-9a-f]{8} $" "$name: every process ran in it"
	like "$("$UL" show --env last --db "$DB")" "cpu\.cpus: +0$" "$name: the fingerprint stores cpu.cpus 0"
	is "$(ul_cgroups)" 0 "$name: no cgroup is left"
	is "$(ul_procs)" 0 "$name: no process is left"
done
is "$(ls "$UL_JOURNAL_DIR" | wc -l)" 0 "no journal is left"
done_testing

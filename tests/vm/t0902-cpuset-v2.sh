#!/usr/bin/env bash
# run --cpus on cgroup v2 (run inside the VM of tests/vm/run, where cgroup
# v2 has the cpuset and memory controllers): the header says "Starting 1
# CPU run", every load and probe runs in a v2 cgroup of the run whose
# cpuset.cpus.effective is 0 and is allowed CPU 0 only, alone and with
# --mem-limit (then the cpuset is set in the run's memory cgroup, a process
# being in one v2 group), and nothing is left afterwards.
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
# cgroup cpuset.cpus.effective" a line.
scene() {
	local f d comm rel
	for f in /proc/[0-9]*/environ; do
		d=${f%/environ}
		{ tr '\0' '\n' <"$f" | grep -qxF "UL_TEST_TAG=$TMP"; } 2>/dev/null || continue
		comm=$(cat "$d/comm" 2>/dev/null) || continue
		case $comm in ul:*) ;; *) continue ;; esac
		rel=$(sed -n 's/^0:://p' "$d/cgroup" 2>/dev/null)
		echo "$comm $(awk '/^Cpus_allowed_list:/ { print $2 }' "$d/status" 2>/dev/null)" \
			"$rel $(cat "$cg2$rel/cpuset.cpus.effective" 2>/dev/null || echo -)"
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
		sleep 0.5
	done
	wait "$pid"
	rc=$?
	ok $((rc != 0 && rc != 4)) "run $name finishes (exit $rc)"
	[ "$rc" = 0 ] || [ "$rc" = 4 ] || diag "$(tail -n 5 "$TMP/err")"
	like "$(head -1 "$TMP/out")" "^  Starting 1 CPU run with" "$name: the header says 'Starting 1 CPU run'"
	like "$(cat "$TMP/seen")" "^ul:cpuload " "$name: cpuload processes were seen"
	is "$(awk '{ print $2 }' "$TMP/seen" | sort -u | tr '\n' ' ')" "0 " \
		"$name: every load and probe was allowed CPU 0 only"
	like "$(awk '{ print $3 }' "$TMP/seen" | sort -u | tr '\n' ' ')" "^(/[^ ]*/)?underload-[0-9a-f]{8} $" \
		"$name: all in one v2 cgroup of the run"
	is "$(awk '{ print $4 }' "$TMP/seen" | sort -u | tr '\n' ' ')" "0 " \
		"$name: its cpuset.cpus.effective is 0"
	like "$("$UL" show --env last --db "$DB")" "cpu\.cpus: +0$" "$name: the fingerprint stores cpu.cpus 0"
	is "$(ul_cgroups)" 0 "$name: no cgroup is left"
	is "$(ul_procs)" 0 "$name: no process is left"
done
is "$(ls "$UL_JOURNAL_DIR" | wc -l)" 0 "no journal is left"
done_testing

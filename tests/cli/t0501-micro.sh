#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-or-later
# The micro suite: a quick run of a few measurements prints the lmbench2
# summary and the native table and stores every batch; --tests takes
# names, tables and aliases; --under runs a load meanwhile; bad names are
# refused; SIGINT while a ring of 16 processes or a TCP server runs leaves
# no process and no scratch file behind.
. "$(dirname "$0")/lib.bash"

M=(--dir "$SCRATCH" --db "$DB" --no-progress)

out=$("$UL" run micro "${M[@]}" --quick --label q1 --tests lat-null,lat-pipe-1cpu,bw-pipe-1cpu \
	--format lmbench2,micro,json="$TMP/q1.json" 2>"$TMP/err")
is $? 0 "run micro --quick exits 0"
like "$out" '^ +U N D E R L O A D   M I C R O   S U M M A R Y$' "lmbench2 title, not LMbench's"
like "$out" '^Processor, Processes - times in microseconds - smaller is better$' "processor table"
like "$out" "^$(hostname | cut -c1-9) +q1 [ 0-9]{4} +[0-9.]{4} " "a processor row with the null call"
like "$out" '^lat-pipe-1cpu +5 +[0-9.]+ +[0-9.]+ +[0-9.]+ +[0-9.]+  ns ' "native row with spread"
like "$out" '^bw-pipe-1cpu +5 .* MiB/s ' "bandwidth row in MiB/s"
n=$(jq '[.cells[] | select(.series.batch_ns | length == 5)] | length' "$TMP/q1.json")
is "$n" 3 "JSON keeps every batch of the three cells"
n=$(jq '[.cells[] | .series | (.op_ps // .bw_bytes_s)[] | select(. <= 0)] | length' "$TMP/q1.json")
is "$n" 0 "every batch is positive"

out=$("$UL" run micro "${M[@]}" --quick --label q2 --tests null,bw_mem --format json="$TMP/q2.json" \
	2>"$TMP/err")
is $? 0 "aliases null and bw_mem"
is "$(jq -c '[.cells[].probe]' "$TMP/q2.json")" '["lat-null","bw-bcopy","bw-fcp","bw-mem-rd","bw-mem-wr"]' \
	"aliases select their measurements in summary order"

"$UL" run micro "${M[@]}" --quick --label q3 --tests lat-null --under cpuload \
	--format json="$TMP/q3.json" >/dev/null 2>"$TMP/err"
is $? 0 "--under cpuload"
is "$(jq -r '.cells[0].load' "$TMP/q3.json")" cpuload "the cell was measured under cpuload"

# compare --format lmbench2: one row per label, a label's runs pooled.
"$UL" run micro "${M[@]}" --quick --label q1 --tests lat-null --format json="$TMP/q1b.json" \
	>/dev/null 2>"$TMP/err"
is $? 0 "a second q1 run"
out=$("$UL" compare --db "$DB" q1 q2 --format lmbench2 2>"$TMP/err")
is $? 0 "compare --format lmbench2 exits 0"
like "$out" '^ +U N D E R L O A D   M I C R O   S U M M A R Y$' "lmbench2 summary title"
proc=$(sed -n '/^Processor, Processes/,/^$/p' <<<"$out")
is "$(grep -cE '^[^ ]+ +q1 ' <<<"$proc")" 1 "one processor row for q1's two runs"
is "$(grep -cE '^[^ ]+ +q2 ' <<<"$proc")" 1 "one processor row for q2"
is "$(grep -c 'median base' <<<"$out")" 0 "no comparison table in the lmbench2 format"
"$UL" compare --db "$DB" q1 q2 --format lmbench2 --suite resp >/dev/null 2>"$TMP/err"
is $? 2 "lmbench2 with another --suite is a usage error"

"$UL" run micro "${M[@]}" --quick --tests nosuch >/dev/null 2>"$TMP/err"
is $? 2 "an unknown test is a usage error"
like "$(cat "$TMP/err")" "unknown test 'nosuch'" "named in the message"
"$UL" run micro "${M[@]}" --quick --under nosuch >/dev/null 2>"$TMP/err"
is $? 2 "an unknown --under load is a usage error"
like "$(cat "$TMP/err")" "nosuch" "named in the message"

# LMbench's definitions, seen from outside with strace: lm-exec and lm-sh
# run in the small underload-forker helper with an empty environment,
# which execs underload-hello (through sh -c) with an empty environment,
# as lat_proc execs /tmp/hello; lm-stat looks up a 1-component name from
# a directory fd.
if strace_usable "the exec'd target and the path are"; then
	# -v: environments in full; -s: paths in full.
	strace -f -qq -v -s 512 -e trace=execve,newfstatat,statx,openat -o "$TMP/strace" \
		"$UL" run micro "${M[@]}" --quick --batches 1 --min-batch 1ms --label defs \
		--tests lm-exec,lm-sh,lm-stat --format json="$TMP/defs.json" >/dev/null 2>"$TMP/err"
	is $? 0 "lm-exec, lm-sh, lm-stat under strace"
	like "$(cat "$TMP/strace")" 'execve\("[^"]*/underload-forker", \["underload-forker", "exec", "[^"]*/underload-hello", [^]]*\], \[\]\) = 0' \
		"lm-exec's helper is underload-forker with an empty environment"
	like "$(cat "$TMP/strace")" 'execve\("[^"]*/underload-hello", \["[^"]*/underload-hello"\], \[\]\) = 0' \
		"the exec'd target is underload-hello with an empty environment"
	like "$(cat "$TMP/strace")" 'execve\("/bin/sh", \["sh", "-c", "[^"]*/underload-hello"\], \[\]\) = 0' \
		"lm-sh runs sh -c underload-hello with an empty environment"
	like "$(cat "$TMP/strace")" '(newfstatat|statx)\([0-9]+, "XXX", ' "lm-stat: a 1-component name from a directory fd"
	# The shell exports PWD itself (so it does under lat_proc): nothing else.
	is "$(grep -E 'execve\("[^"]*/underload-hello"' "$TMP/strace" | grep -cvE '\], (\[\]|\["PWD=[^"]*"\])\) = 0')" 0 \
		"no exec of the target carries an environment but the shell's PWD"
	is "$(jq '[.cells[] | select(.probe == "lm-exec") | .metrics.target_env_n][0]' "$TMP/defs.json")" 0 \
		"the helper records an empty environment"
	vm=$(jq '[.cells[] | select(.probe == "lm-exec") | .metrics.forker_vm_kib][0]' "$TMP/defs.json")
	[ "${vm%.*}" -lt 8192 ]
	ok $? "the helper is a small process as lat_proc is: VmSize $vm KiB, under 8 MiB"
fi

# procs_named NAME: processes of ours whose comm is NAME.
procs_named() {
	local n=0 f
	for f in /proc/[0-9]*/comm; do
		[ "$(cat "$f" 2>/dev/null)" = "$1" ] || continue
		{ tr '\0' '\n' <"${f%comm}environ" | grep -qxF "UL_TEST_TAG=$TMP"; } 2>/dev/null &&
			n=$((n + 1))
	done
	echo "$n"
}

# interrupt_during TEST COMM MIN: SIGINT once MIN processes named COMM run.
interrupt_during() {
	local pid n=0
	"$UL" run micro "${M[@]}" --label "int-$1" --tests "$1" --min-batch 1s --batches 30 >/dev/null \
		2>"$TMP/err" &
	pid=$!
	# Until a deadline, not a count of scans: a ring test measures its
	# overhead first (--batches x --min-batch, 30 s here) and forks its
	# ring only then; the run goes on as long again.
	local deadline=$((SECONDS + 150))
	while [ "$SECONDS" -lt "$deadline" ] && kill -0 "$pid" 2>/dev/null; do
		n=$(procs_named "$2")
		[ "$n" -ge "$3" ] && break
		sleep 0.1
	done
	[ "$n" -ge "$3" ]; ok $? "$1: $n processes named $2 were running"
	[ "$n" -ge "$3" ] || { echo "at ${SECONDS}s:"; ps -eo pid,ppid,stat,etimes,comm | grep -F ' ul:'; cat "$TMP/err"; } |
		sed 's/^/# /'
	kill -INT "$pid"
	wait "$pid"
	is $? 130 "$1: SIGINT ends the run with exit 130"
	sleep 0.2
	is "$(ul_procs)" 0 "$1: no process of the run is alive"
	is "$(scratch_left)" 0 "$1: no scratch directory is left"
}
# (comm is cut to 15 characters)
interrupt_during ctx-16p64k-1cpu ul:ctx-16p64k-1 16
interrupt_during lat-tcp-1cpu ul:lat-tcp-1cpu 2
done_testing

#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-or-later
# The fsbench suite: a tiny timed run (dbench lines, native block, show
# identical), one pass of a hand-written loadfile (bytes stored = the
# trace's own totals x clients, every client's end recorded), a malformed
# loadfile refused before anything runs, fsbench as a load of resp, every
# client directory gone after SIGINT, and a full disk as a per-cell
# failure that loses nothing else.
. "$(dirname "$0")/lib.bash"

FSB=(--dir "$SCRATCH" --db "$DB" --no-progress --monitor-interval 0)

# series LABEL NAME: the values of a series of the run's fsbench cells, one a line.
series() {
	sqlite3 "$DB" "SELECT x.value FROM cell_samples x JOIN runs r ON x.run_id = r.id
		WHERE r.label = '$1' AND x.suite = 'fsbench' AND x.series = '$2' ORDER BY x.seq, x.idx"
}

out=$("$UL" run fsbench "${FSB[@]}" --label tiny --clients 2 --duration 1s --warmup 1s \
	--runs 2 --loadfile builtin 2>"$TMP/err")
is $? 0 "a tiny fsbench run succeeds"
is "$(grep -cE '^Throughput [0-9.e+]+ MB/sec  2 clients  2 procs  max_latency=[0-9]+\.[0-9]{3} ms$' <<<"$out")" 2 \
	"the dbench format prints one Throughput line per run"
like "$out" '^ Operation      Count    AvgLat    MaxLat$' "and dbench's operation table"
like "$out" '^ ReadX +[0-9]+ +[0-9]+\.[0-9]{3} +[0-9]+\.[0-9]{3}$' "with a ReadX row"
like "$out" 'fsbench under noload: 2 clients, 2 runs of 1 s after a 1 s warm-up; built-in trace' \
	"the native block names the plan"
like "$out" 'MB/s \(read\+written\) +[0-9.]+ +[0-9.]+ +[0-9.]+' "and the throughput's median, min, max"
like "$out" 'client min/max ops +[01]\.[0-9]{3}' "and the client spread"
like "$out" 'NTCreateX +[0-9.]+ +[0-9.]+ +[0-9.]+ +[0-9.]+ +[0-9.]+ +0$' "per-op latency, no mismatch"
show=$("$UL" show last --db "$DB" 2>/dev/null)
is "$show" "$out" "show prints the same report from the store"
is "$(series tiny fsbench_mismatches | sort -u)" 0 "the built-in trace meets every expected status"
"$UL" run fsbench "${FSB[@]}" --label tiny2 --clients 2 --duration 1s --warmup 0 \
	--runs 2 --loadfile builtin --format dbench >/dev/null 2>"$TMP/err"
cmp=$("$UL" compare tiny tiny2 --db "$DB" --suite fsbench 2>&1)
like "$cmp" '^fsbench throughput \(B/s, higher is better\)' "compare tests the throughput of fsbench"
like "$cmp" '^fsbench ops/s \(ops/s, higher is better\)' "and the operations per second it derives"
like "$cmp" '^noload +tiny2 +2/2 +2 +2 ' "one row per --under load, both labels' rounds (a cell each: two replicates a side)"
is "$(ul_procs)" 0 "no process left"
is "$(scratch_left)" 0 "no scratch directory left"

# One pass of a hand-written trace: 3 clients, each writes 70000 and reads 4096 + 3904.
cat >"$TMP/trace.txt" <<'EOF'
# small trace
Deltree "\clients\client1" NT_STATUS_OK
Mkdir "\clients" NT_STATUS_OK
NTCreateX "\clients\client1" 0x1 0x2 1 NT_STATUS_OK
Close 1 NT_STATUS_OK
NTCreateX "\clients\client1\f.dat" 0x40 0x5 2 NT_STATUS_OK
WriteX 2 0 65536 65536 NT_STATUS_OK
WriteX 2 65536 4464 4464 NT_STATUS_OK
ReadX 2 0 4096 4096 NT_STATUS_OK
ReadX 2 66096 8192 3904 NT_STATUS_OK
Close 2 NT_STATUS_OK
QUERY_PATH_INFORMATION "\clients\client1\missing" 1004 NT_STATUS_OK
Unlink "\clients\client1\f.dat" 0x6 NT_STATUS_OK
EOF
"$UL" run fsbench "${FSB[@]}" --label once --clients 3 --duration once \
	--loadfile "$TMP/trace.txt" --format dbench >"$TMP/out" 2>"$TMP/err"
is $? 0 "one pass of a loadfile succeeds"
is "$(series once fsbench_write_bytes)" $((3 * 70000)) "bytes written = the trace's total x clients"
is "$(series once fsbench_read_bytes)" $((3 * 8000)) "bytes read = what the trace's reads return x clients"
is "$(series once fsbench_mismatches)" 3 "the mismatched status is counted once per client"
is "$(series once fsbench_client_finish_ns | wc -l)" 3 "every client's end is recorded"
is "$(series once fsbench_ops)" $((3 * 12)) "every operation of every client is counted"

# A malformed loadfile: one line naming file and line, nothing runs.
printf 'Close 1 NT_STATUS_OK\nWriteX 1 0 many 4096 NT_STATUS_OK\n' >"$TMP/bad.txt"
"$UL" run fsbench "${FSB[@]}" --label bad --loadfile "$TMP/bad.txt" >/dev/null 2>"$TMP/err"
is $? 2 "a malformed loadfile is a usage error"
like "$(cat "$TMP/err")" "bad.txt:2: WriteX: expected a number for argument 3, got 'many'" \
	"the error names the file, the line and what was expected"
is "$(sqlite3 "$DB" "SELECT count(*) FROM runs WHERE label = 'bad'")" 0 "nothing was run"
"$UL" run resp "${FSB[@]}" --clients 2 >/dev/null 2>"$TMP/err"
is $? 2 "fsbench options without the fsbench suite are refused"

# fsbench as a load of resp: it counts operations.
"$UL" run resp "${TINY[@]}" --label asload --tests fsbench -o fsbench.clients=2 \
	-o fsbench.builtin=yes --format text >"$TMP/out" 2>"$TMP/err"
is $? 0 "resp runs under the fsbench load"
units=$(sqlite3 "$DB" "SELECT c.load_units FROM cells c JOIN runs r ON c.run_id = r.id
	WHERE r.label = 'asload' AND c.load = 'fsbench'")
[ "${units:-0}" -gt 0 ]; ok $? "the fsbench load counted its operations ($units)"

# SIGINT while the clients run: exit 130, no client directory, no process.
"$UL" run fsbench "${FSB[@]}" --label sigint --clients 3 --duration 60s --warmup 0 \
	--loadfile builtin >/dev/null 2>"$TMP/err" &
pid=$!
for _ in $(seq 300); do
	[ "$(find "$SCRATCH" -path '*/fsbench/clients/client*' -maxdepth 4 -type d 2>/dev/null | wc -l)" -ge 3 ] && break
	sleep 0.1
done
n=$(find "$SCRATCH" -path '*/fsbench/clients/client*' -maxdepth 4 -type d | wc -l)
is "$n" 3 "three client directories exist while running"
kill -INT "$pid"
wait "$pid"
is $? 130 "SIGINT ends the run with exit 130"
sleep 0.2
is "$(find "$SCRATCH" -path '*clients/client*' | wc -l)" 0 "every client directory is gone"
is "$(ul_procs)" 0 "no client process is left"
is "$(scratch_left)" 0 "no scratch directory is left"
is "$(sqlite3 "$DB" "SELECT status FROM runs WHERE label = 'sigint'")" interrupted \
	"the run is stored as interrupted"

# Disk full: a 6 MiB tmpfs as --dir; each cell fails on its own, the run
# is stored whole and nothing is left behind.
small=$TMP/small
mkdir -p "$small"
if mount -t tmpfs -o size=6m tmpfs "$small" 2>/dev/null; then
	"$UL" run fsbench --dir "$small" --db "$DB" --no-progress --monitor-interval 0 \
		--label full --clients 2 --duration 20s --warmup 0 --loadfile builtin \
		--disk-reserve 0 --under noload,cpuload >"$TMP/out" 2>"$TMP/err"
	is $? 4 "a full disk finishes the run flagged (exit 4)"
	like "$(cat "$TMP/err")" 'fsbench under noload: run 1: client [0-9]+: the scratch file system is full during [A-Za-z_]+ .*No space left on device' \
		"the error says which client hit a full disk, and where"
	is "$(sqlite3 "$DB" "SELECT group_concat(c.load || '=' || c.outcome, ' ') FROM cells c JOIN runs r ON c.run_id = r.id WHERE r.label = 'full'")" \
		"noload=probe-failed cpuload=probe-failed" "every cell ran and is stored with its failure"
	is "$(sqlite3 "$DB" "SELECT status FROM runs WHERE label = 'full'")" complete "the run is complete"
	"$UL" run fsbench --dir "$small" --db "$DB" --no-progress --monitor-interval 0 \
		--label reserve --clients 2 --duration 20s --warmup 0 --loadfile builtin \
		--disk-reserve 3M >"$TMP/out" 2>"$TMP/err"
	is $? 4 "reaching --disk-reserve is a per-cell failure too"
	like "$(cat "$TMP/err")" 'free space fell below --disk-reserve' "and says so"
	# Two clients near the reserve: each writes only its share of the
	# headroom between looks at the free space, so the reserve, not a full
	# disk, stops them every time (checked every 64 writes, 2% of runs
	# ended "full during WriteX").
	said=0
	for _ in $(seq 10); do
		"$UL" run fsbench --dir "$small" --db "$DB" --no-progress --monitor-interval 0 \
			--label reserve --clients 2 --duration 20s --warmup 0 --loadfile builtin \
			--disk-reserve 3M >"$TMP/out" 2>"$TMP/err"
		[ $? = 4 ] && grep -q 'free space fell below --disk-reserve' "$TMP/err" &&
			said=$((said + 1))
	done
	is "$said" 10 "ten runs more: the reserve stops every one, never a full disk"
	is "$(find "$small" -mindepth 1 | wc -l)" 0 "nothing is left on the small file system"
	is "$(ul_procs)" 0 "no process left after the disk-full runs"
	umount "$small"
else
	skip "cannot mount a tmpfs here (not root?): disk-full tests skipped"
fi
done_testing

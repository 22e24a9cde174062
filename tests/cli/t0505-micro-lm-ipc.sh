#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-or-later
# The communication columns against lmbench3's programs (lat_connect,
# bw_tcp), where underload's definition is knowingly not theirs, pinned
# from outside:
#  - TCP conn: the server listens with a backlog of SOMAXCONN (4096), not
#    lat_connect's 100, so no SYN is dropped on a full accept queue and no
#    connect waits the 1 s SYN retransmit (lmbench3's figure does, when
#    its client outruns its server's accept(): TcpExtListenOverflows).
#    Counted in a network namespace of the test's own, whose counters no
#    other program touches;
#  - TCP bw: the client asks for the bytes of a batch and counts every
#    byte it reads (bw_tcp counts 10 MiB a message and drops the excess of
#    its last read() of each from its count): the helper's 10 MiB writes
#    add up to what the client asked for, no more; both ends' buffers
#    start on a page, as bw_tcp's valloc()ed ones;
#  - ctxsw: the overhead subtracted (the ring's pipes and sums in one
#    process) is its median batch, as lat_ctx subtracts the median of its
#    overhead repetitions (benchmp's figure), not the fastest.
# The placements of both ends are pinned in t0502, the system calls of the
# other lmbench2 columns in t0503.
. "$(dirname "$0")/lib.bash"

M=(--dir "$SCRATCH" --db "$DB" --no-progress --quick)

if strace_usable "the calls are"; then
	# One file a process (-ff): no call is split by another's.
	mkdir "$TMP/st"
	strace -ff -qq -o "$TMP/st/s" -e trace=listen,write,read \
		"$UL" run micro "${M[@]}" --batches 2 --min-batch 2ms --label traced \
		--tests lat-connect-1cpu,lm-bw-tcp-1cpu >/dev/null 2>"$TMP/err"
	is $? 0 "lat-connect-1cpu and lm-bw-tcp-1cpu under strace"
	is "$(cat "$TMP"/st/s.* | grep -cE '^listen\([0-9]+, 4096\) += 0')" 2 \
		"TCP conn, TCP bw: each listener's backlog is SOMAXCONN (4096), not lat_connect's 100"
	is "$(cat "$TMP"/st/s.* | grep -c '^listen(')" 2 "no other listen()"
	# The client: the process of the 10 MiB reads; its requests are
	# 8-byte writes (a little-endian byte count) on the same socket.
	client=$(grep -lE '^read\([0-9]+, "x*"\.\.\., 10485760\)' "$TMP"/st/s.*)
	is "$(wc -w <<<"$client")" 1 "TCP bw: one client"
	counts=$(python3 - "$client" <<'PY'
import re, sys
asked = got = 0
fd = None
for line in open(sys.argv[1]):
    m = re.match(r'read\((\d+), "x*"\.\.\., 10485760\) += (\d+)', line)
    if m:
        fd = fd or m.group(1)
        got += int(m.group(2))
for line in open(sys.argv[1]):
    m = re.match(r'write\((\d+), "(.*)", 8\) += 8', line)
    if m and m.group(1) == fd:
        raw = m.group(2).encode().decode("unicode_escape").encode("latin-1")
        asked += int.from_bytes(raw, "little")
print(asked, got)
PY
	)
	read -r asked got <<<"$counts"
	sent=$(cat "$TMP"/st/s.* | grep -cE '^write\([0-9]+, "x*"\.\.\., 10485760\) += 10485760')
	[ "${asked:-0}" -gt 0 ]; ok $? "TCP bw: the client asked for $asked bytes"
	is "$got" "$asked" "TCP bw: it read, and counted, exactly what it asked for"
	is "$((sent * 10485760))" "$asked" "TCP bw: the helper wrote exactly that ($sent x 10 MiB)"
	# The buffers' addresses (raw arguments): each starts on a page, as
	# bw_tcp's valloc()ed ones (a kernel copy into a buffer 16 bytes past a
	# page, malloc's, is slower a byte).
	mkdir "$TMP/raw"
	strace -ff -qq -o "$TMP/raw/s" -e trace=read,write -e raw=read,write \
		"$UL" run micro "${M[@]}" --batches 2 --min-batch 2ms --label raw \
		--tests lm-bw-tcp-1cpu >/dev/null 2>"$TMP/err"
	is $? 0 "lm-bw-tcp-1cpu under strace, raw arguments"
	bufs=$(cat "$TMP"/raw/s.* | grep -E '^(read|write)\(0x[0-9a-f]+, 0x[0-9a-f]+, 0xa00000\)')
	nr=$(grep -c '^read' <<<"$bufs") nw=$(grep -c '^write' <<<"$bufs")
	[ "$nr" -gt 0 ] && [ "$nw" -gt 0 ]; ok $? "TCP bw: $nr 10 MiB reads and $nw writes traced"
	is "$(grep -vcE '^[a-z]+\(0x[0-9a-f]+, 0x[0-9a-f]*000, ' <<<"$bufs")" 0 \
		"TCP bw: every 10 MiB read and write has a page-aligned buffer"
fi

# metric JSON PROBE NAME: a metric of the cell measuring PROBE.
metric() { jq -r --arg p "$2" --arg m "$3" '.cells[] | select(.probe == $p) | .metrics[$m]' "$1"; }
"$UL" run micro "${M[@]}" --label ctx --tests ctx-2p0k-1cpu --format json="$TMP/ctx.json" >/dev/null 2>"$TMP/err"
is $? 0 "run ctx-2p0k-1cpu"
ovh=$(metric "$TMP/ctx.json" ctx-2p0k-1cpu overhead_ns)
batches=$(jq '.cells[] | select(.probe == "ctx-2p0k-1cpu") | .series.overhead_ps[]' "$TMP/ctx.json")
med=$(median <<<"$batches")
least=$(sort -g <<<"$batches" | head -n 1)
n=$(grep -c . <<<"$batches")
[ "${n:-0}" -ge 3 ]; ok $? "ctxsw: $n overhead batches recorded"
python3 -c "import sys; sys.exit(abs($ovh * 1000 - $med) > 1)"
ok $? "ctxsw: the overhead subtracted (${ovh} ns a hop) is the median batch ($med ps; the fastest: $least ps)"

if ! command -v unshare >/dev/null || ! command -v ip >/dev/null || ! command -v nstat >/dev/null; then
	skip "unshare, ip or nstat missing: the accept queue overflows are not counted"
elif ! unshare -n true 2>/dev/null; then
	skip "no network namespace may be made here: the accept queue overflows are not counted"
else
	out=$(UL="$UL" unshare -n bash -c 'ip link set lo up || exit 9
		"$UL" run micro "$@" --label netns --tests lat-connect >/dev/null || exit 8
		nstat -asz TcpExtListenOverflows TcpExtListenDrops' bash "${M[@]}" 2>"$TMP/err")
	is $? 0 "lat-connect, both placements, in a network namespace of its own"
	like "$out" 'TcpExtListenOverflows +0 ' "TCP conn: no connection overflowed the accept queue"
	like "$out" 'TcpExtListenDrops +0 ' "TCP conn: no SYN was dropped (no connect waited a retransmit)"
fi
sleep 0.2
is "$(ul_procs)" 0 "no process of the runs is alive"
is "$(scratch_left)" 0 "no scratch directory is left"
done_testing

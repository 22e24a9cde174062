#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-or-later
# The lmbench2 format's columns side by side with lmbench3 measuring the
# same thing on the same machine, as one table: per column the median over
# the rounds of each tool's figure with its range [min-max], the ratio
# underload / lmbench3 and whether it lies within 0.9-1.1.  Rounds
# alternate the tools (odd rounds underload first, even rounds lmbench
# first).  Every quantity is one line of the table QUANTITIES below: the
# underload test and series, and the lmbench3 command with the parser of
# its output.  The two-process columns are the -1cpu placement, as the
# lmbench2 format shows them (LMBENCH_SCHED=SINGLE or the server on the
# client's CPU); TWO_CPU=yes adds the -2cpu tests (UNIQUE or the server on
# the second CPU: about 80 s more a round).  Not run by CI.
#
# usage: [ROUNDS=5] [PROFILE=quick|default] [MAIN=yes] [TWO_CPU=yes] [KEYS=k1,k2] [SCRATCH=DIR] [RAW=FILE] bench/micro-vs-lmbench.sh LMBENCH_BIN_DIR BUILD_DIR
#
# SCRATCH=DIR: where both tools' files go (default /tmp).  File creates
# are the file system's: on an ext4 without a journal both tools' creates
# swing between ~80 us and ~800 us (the inode allocator's
# recently_deleted() scan); SCRATCH=/dev/shm compares them on tmpfs.
#
# KEYS=fork,exec,...: only the quantities with these keys (the first field
# of each QUANTITIES line; all by default).  RAW=FILE keeps every round's
# figures (lines TOOL KEY VALUE).
#
# The table gives per column the ratio of the two medians with its 95%
# interval (a bootstrap over each tool's rounds) and a verdict: "yes"
# within 0.9-1.1; "noise" outside, but the interval reaches the band (the
# rounds cannot tell the ratio from one inside it); "no" the interval is
# outside the band too: a difference that needs an explanation.
#
# PROFILE=quick (the default): underload --quick (5 batches of >= 10 ms)
# against lmbench -N 5 with ENOUGH=10000 (5 repetitions of >= 10 ms);
# PROFILE=default: 11 x 100 ms against -N 11, ENOUGH=100000.  MAIN=yes
# adds the main-memory latency (lat_mem_rd walks every range up to 4 x LLC:
# minutes a round).  Needs python3, taskset.  Each round says how long
# each tool took.
#
# lmbench3 is built by hand from its public source and never copied into
# this project (it is GPL with a publication clause of its own).  Build:
#   fetch github:intel/lmbench (commit 941a0dc here) into /tmp/lmbench
#   apt-get install libtirpc-dev        # rpc/rpc.h is no longer in glibc
#   printf '#!/bin/sh\nexec gcc -I/usr/include/tirpc -fcommon "$@" -ltirpc\n' >/tmp/lmbench/cc-tirpc
#   chmod +x /tmp/lmbench/cc-tirpc; cd /tmp/lmbench/src
#   make OS=x86_64-linux-gnu CC=/tmp/lmbench/cc-tirpc
#   -> LMBENCH_BIN_DIR=/tmp/lmbench/bin/x86_64-linux-gnu (its own -O flags)
# libtirpc goes last on each link line, so only the programs that call it
# (lib_tcp's portmapper calls) load it: lat_proc and its /tmp/hello must
# link libc alone, as on a system with RPC in libc.  A build that links
# libtirpc everywhere (-Wl,--no-as-needed -ltirpc) loads 9 more libraries
# into hello and lat_proc, which made exec proc 0.67 and fork proc 1.21
# (the script refuses it).
# Which lmbench3 program and mode gives each column is getsummary's choice
# (scripts/getsummary, scripts/lmbench): Mem read and Mem write are
# "Memory read/write bandwidth", bw_mem frd and fwr (every word), not the
# "partial" rd and wr (every fourth word); File reread is bw_file_rd
# io_only; TCP bandwidth is bw_tcp -m 10M (the last, largest message of
# its run).  Bandwidths are in lmbench3's MB/s: 10^6 bytes.  lmbench's
# timing constants come from its own probes, as its scripts do: TIMING_O
# from timing_o, LOOP_O from loop_o (measured once, here).
# Differences of the tools' loops, not the machine (the man page's lmbench2
# section says so for each column): Bcopy (hand) and Mem read are 64-bit
# word loops in underload, 4-byte int loops in bw_mem (fcp, frd) that are
# instruction-bound at -O (as fast at 16k as at 64m); Mem write stores in
# ascending order in underload, each 512-byte block from its end down in
# bw_mem fwr, which is what makes fwr slow at 64m.  Underload reads higher.
set -euo pipefail
[ $# -eq 2 ] || { sed -n 's/^# usage: //p' "$0" >&2; exit 2; }
L=$(realpath "$1")
ul=$(realpath "$2/underload")
rounds=${ROUNDS:-5}
case ${PROFILE:-quick} in
quick) ul_prof=(--quick) N=5 ENOUGH=10000 ;;
default) ul_prof=() N=11 ENOUGH=100000 ;;
*) echo "PROFILE is quick or default" >&2; exit 2 ;;
esac
for t in python3 taskset; do
	command -v "$t" >/dev/null || { echo "needs $t" >&2; exit 3; }
done
[ -x "$L/lat_syscall" ] || { echo "$L has no lmbench binaries" >&2; exit 3; }
for p in lat_proc hello; do
	extra=$(ldd "$L/$p" | awk '$1 !~ /^(linux-vdso|libc\.so|libm\.so|\/lib.*ld-linux)/ { print $1 }' | paste -sd' ')
	[ -z "$extra" ] || { echo "$L/$p links $extra: build lmbench as this script's header says" >&2; exit 3; }
done

tmp=$(mktemp -d "${SCRATCH:-/tmp}/ul-vs-lm.XXXXXX")
# $tmp/server: the lmbench server running (it daemonizes; its -S stops it;
# a file, since it is started in a command substitution's subshell).
cleanup() {
	[ ! -s "$tmp/server" ] || "$L/$(cat "$tmp/server")" -S 127.0.0.1 >/dev/null 2>&1 || true
	rm -f /tmp/hello
	rm -rf "$tmp"
}
trap cleanup EXIT
trap 'exit 130' INT TERM
export ENOUGH TIMING_O LOOP_O
TIMING_O=$("$L/timing_o")
LOOP_O=$("$L/loop_o")

# The CPUs of the placements: the two lowest we may use (underload's default).
mapfile -t CPUS < <(taskset -cp $$ | sed 's/.*: //' | tr ',' '\n' |
	awk -F- '{ for (c = $1; c <= ($2 == "" ? $1 : $2); c++) print c }' | sort -n)
A=${CPUS[0]} B=${CPUS[1]:-}
[ -n "$B" ] || { echo "needs two CPUs" >&2; exit 3; }
[ "$A" = 0 ] && [ "$B" = 1 ] || { echo "lmbench's SINGLE/UNIQUE use CPUs 0 and 1" >&2; exit 3; }

# Sizes: underload's bandwidth working set (2 x LLC within [8M, 256M]) and
# its main-memory range (4 x LLC, at least 8M), from the same sysfs.
llc_kib=$(cat /sys/devices/system/cpu/cpu0/cache/index*/size 2>/dev/null | sed 's/K$//' |
	sort -n | tail -1)
bw=$((2 * ${llc_kib:-4096} / 1024))
[ "$bw" -lt 8 ] && bw=8
[ "$bw" -gt 256 ] && bw=256
main=$((4 * ${llc_kib:-2048} / 1024))
[ "$main" -lt 8 ] && main=8

cd "$tmp"
mkdir fs
touch XXX                                    # stat/open: a 1-component name, as lm-stat
# mmap, page fault, prot fault: lmbench's 8m $FILE, written as its script's
# lmdd writes it (bs=8k fsync=1) and as underload writes its own: the
# writes set the page cache's folio sizes, and lat_mmap's write faults map
# a folio each (52 faults on this file, 1 on one written in 1 MiB writes).
dd if=/dev/zero of=f8m bs=8k count=1024 conv=fsync status=none
dd if=/dev/zero of=fbw bs=1M count="$bw" status=none
cp "$L/hello" /tmp/hello                     # lat_proc execs /tmp/hello (hard-wired)

# --- lmbench3 commands (each prints lmbench's output on stdout) ---
# lm [VAR=VALUE...] PROG ARGS: an lmbench program with -N.
lm() {
	local pre=()
	while [[ $1 == *=* ]]; do pre+=("$1"); shift; done
	local prog=$1
	shift
	env "${pre[@]}" "$L/$prog" -N "$N" "$@" 2>&1
}
# lm_clean PROG ARGS: with an empty environment but lmbench's timing
# constants (lat_proc's shell inherits it; its exec passes none).
lm_clean() {
	local prog=$1
	shift
	env -i ENOUGH="$ENOUGH" TIMING_O="$TIMING_O" LOOP_O="$LOOP_O" "$L/$prog" -N "$N" "$@" 2>&1
}
# lm_nullio: getsummary's null I/O, the mean of "Simple read" and "Simple write".
lm_nullio() {
	local r w
	r=$(lm lat_syscall read | usecs)
	w=$(lm lat_syscall write | usecs)
	python3 -c "print(($r + $w) / 2)"
}
# served CPU PROG ARGS: PROG's server (-s) on CPU, the client on CPU A
# against 127.0.0.1, the server stopped by the client's -S.  Fails when
# the client or the stop failed (a server that was gone is a failed run).
served() {
	local cpu=$1 prog=$2 rc=0 stop=0
	shift 2
	echo "$prog" >"$tmp/server"
	taskset -c "$cpu" "$L/$prog" -s >/dev/null 2>&1
	sleep 0.3
	taskset -c "$A" "$L/$prog" -N "$N" "$@" 127.0.0.1 2>&1 || rc=$?
	"$L/$prog" -S 127.0.0.1 >/dev/null 2>&1 || stop=$?
	: >"$tmp/server"
	[ "$rc" != 0 ] || rc=$stop
	[ "$rc" = 0 ] || echo "$prog failed ($rc)" >&2
	return "$rc"
}
# once NAME COMMAND...: COMMAND's output, run once a round (lat_fs and
# lat_mem_rd give several columns each).
once() {
	local f=$tmp/once.$1
	shift
	[ -s "$f" ] || "$@" >"$f" 2>&1 || { cat "$f" >&2; rm -f "$f"; return 1; }
	cat "$f"
}
# Parsers of lmbench's output: the number before "microseconds" or
# "MB/sec"; field 2 of the last "SIZE VALUE" line; field 2 of the line
# whose field 1 is $1 (lat_ctx: processes; lat_mem_rd: size in MB);
# lat_fs's rate in field $2 of size $1's line as us per file.
usecs() { awk '{ for (i = 2; i <= NF; i++) if ($i == "microseconds") v = $(i - 1) } END { print v }'; }
# usecs0: as usecs, but no output at all is 0: lat_sig prot prints nothing
# when its net (faults less catch) is 0 (lib_timing's micro() skips a 0),
# and underload's net clamps at 0 too; dropping those rounds would keep
# only lmbench's high ones on a busy machine.
usecs0() { awk '{ n++; for (i = 2; i <= NF; i++) if ($i == "microseconds") v = $(i - 1) } END { print (n ? v : 0) }'; }
mbs() { awk '{ for (i = 2; i <= NF; i++) if ($i == "MB/sec") v = $(i - 1) } END { print v }'; }
col2() { awk 'NF >= 2 && $1 ~ /^[0-9.]+$/ { v = $2 } END { print v }'; }
field_at() { awk -v k="$1" '$1 == k { v = $2 } END { print v }'; }
fsrate() { awk -v k="$1" -v f="$2" '$1 == k && $f > 0 { v = 1e6 / $f } END { print v }'; }
num() { cat; }

# --- the quantities: KEY|COLUMN|UNIT|UNDERLOAD TEST|SERIES|PARSER|LMBENCH COMMAND ---
QUANTITIES="
null|null call|us|lat-null|op_ps|usecs|lm lat_syscall null
nullio|null I/O|us|lat-nullio|op_ps|num|lm_nullio
stat|stat|us|lm-stat|op_ps|usecs|lm lat_syscall stat XXX
openclose|open clos|us|lm-openclose|op_ps|usecs|lm lat_syscall open XXX
select|selct TCP|us|lm-select|op_ps|usecs|lm lat_select -n 100 tcp
siginst|sig inst|us|lat-siginst|op_ps|usecs|lm lat_sig install
sighndl|sig hndl|us|lm-sighndl|op_ps|usecs|lm lat_sig catch
fork|fork proc|us|lm-fork|op_ps|usecs|lm_clean lat_proc fork
exec|exec proc|us|lm-exec|op_ps|usecs|lm_clean lat_proc exec
sh|sh proc|us|lm-sh|op_ps|usecs|lm_clean lat_proc shell"
places=1cpu
[ "${TWO_CPU:-no}" = yes ] && places="1cpu 2cpu"
for p in $places; do
	[ $p = 1cpu ] && sched=SINGLE cpu=$A || sched=UNIQUE cpu=$B
	for q in 2:0 2:16 2:64 8:16 8:64 16:16 16:64; do
		n=${q%:*} k=${q#*:}
		QUANTITIES+="
ctx-${n}p${k}k-$p|${n}p/${k}K ctxsw $p|us|ctx-${n}p${k}k-$p|op_ps|field_at $n|lm LMBENCH_SCHED=$sched lat_ctx -s $k $n"
	done
	QUANTITIES+="
pipe-$p|Pipe $p|us|lat-pipe-$p|op_ps|usecs|lm LMBENCH_SCHED=$sched lat_pipe
unix-$p|AF UNIX $p|us|lat-unix-$p|op_ps|usecs|lm LMBENCH_SCHED=$sched lat_unix
udp-$p|UDP $p|us|lat-udp-$p|op_ps|usecs|served $cpu lat_udp
tcp-$p|TCP $p|us|lat-tcp-$p|op_ps|usecs|served $cpu lat_tcp
connect-$p|TCP conn $p|us|lat-connect-$p|op_ps|usecs|served $cpu lat_connect"
done
QUANTITIES+="
create0k|0K File Create|us|lat-create0k|op_ps|fsrate 0k 3|once fs lm lat_fs fs
delete0k|0K File Delete|us|lat-delete0k|op_ps|fsrate 0k 4|once fs lm lat_fs fs
create10k|10K File Create|us|lat-create10k|op_ps|fsrate 10k 3|once fs lm lat_fs fs
delete10k|10K File Delete|us|lat-delete10k|op_ps|fsrate 10k 4|once fs lm lat_fs fs
mmap|Mmap Latency|us|lm-mmap|op_ps|col2|lm lat_mmap 8m f8m
protfault|Prot Fault|us|lm-protfault|op_ps|usecs0|lm lat_sig prot f8m
pagefault|Page Fault|us|lm-pagefault|op_ps|usecs|lm lat_pagefault f8m"
for p in $places; do
	[ $p = 1cpu ] && sched=SINGLE cpu=$A || sched=UNIQUE cpu=$B
	QUANTITIES+="
bw-pipe-$p|Pipe bw $p|MB/s|bw-pipe-$p|bw_bytes_s|mbs|lm LMBENCH_SCHED=$sched bw_pipe
bw-unix-$p|AF UNIX bw $p|MB/s|bw-unix-$p|bw_bytes_s|mbs|lm LMBENCH_SCHED=$sched bw_unix
bw-tcp-$p|TCP bw $p|MB/s|lm-bw-tcp-$p|bw_bytes_s|mbs|served $cpu bw_tcp -m 10M"
done
QUANTITIES+="
file-rd|File reread|MB/s|lm-file-rd|bw_bytes_s|col2|lm bw_file_rd ${bw}m io_only fbw
mmap-rd|Mmap reread|MB/s|bw-mmap-rd|bw_bytes_s|col2|lm bw_mmap_rd ${bw}m mmap_only fbw
bcopy|Bcopy (libc)|MB/s|bw-bcopy|bw_bytes_s|col2|lm bw_mem ${bw}m bcopy
fcp|Bcopy (hand)|MB/s|bw-fcp|bw_bytes_s|col2|lm bw_mem ${bw}m fcp
mem-rd|Mem read|MB/s|bw-mem-rd|bw_bytes_s|col2|lm bw_mem ${bw}m frd
mem-wr|Mem write|MB/s|bw-mem-wr|bw_bytes_s|col2|lm bw_mem ${bw}m fwr
l1|L1 \$ (1K)|ns|lm-mem|l1_ps|field_at 0.00098|once mem lm lat_mem_rd 1 128
l2|L2 \$ (128K)|ns|lm-mem|l2_ps|field_at 0.12500|once mem lm lat_mem_rd 1 128"
[ "${MAIN:-no}" = yes ] && QUANTITIES+="
main|Main mem (${main}M)|ns|lm-mem|main_ps|col2|once main lm lat_mem_rd $main 128"
QUANTITIES=${QUANTITIES#$'\n'}
if [ -n "${KEYS:-}" ]; then
	QUANTITIES=$(awk -F'|' -v keys="$KEYS" 'BEGIN { n = split(keys, k, ","); for (i = 1; i <= n; i++) want[k[i]] = 1 }
		want[$1]' <<<"$QUANTITIES")
	[ -n "$QUANTITIES" ] || { echo "KEYS=$KEYS selects no quantity" >&2; exit 2; }
fi
echo "$QUANTITIES" >"$tmp/quantities"

rows=$tmp/rows # TOOL KEY VALUE, one a line
lm_round() {
	local key title unit test series parser cmd v
	rm -f "$tmp"/once.*
	while IFS='|' read -r key title unit test series parser cmd; do
		local t0=$SECONDS
		v=$(eval "$cmd" </dev/null | $parser)
		echo "$((SECONDS - t0)) $key" >>"$tmp/secs.lm-keys"
		if [ -n "$v" ]; then echo "lm $key $v" >>"$rows"; else echo "no lmbench value for $key" >&2; fi
	done <"$tmp/quantities"
}

ul_round() {
	local tests
	tests=$(cut -d'|' -f4 "$tmp/quantities" | sort -u | paste -sd,)
	"$ul" run micro --db "$tmp/r.db" --dir "$tmp" --no-progress "${ul_prof[@]}" --tests "$tests" \
		--format json="$tmp/ul.json" >/dev/null 2>"$tmp/ul.err" || { cat "$tmp/ul.err" >&2; exit 1; }
	python3 - "$tmp/ul.json" "$tmp/quantities" >>"$rows" <<'PY'
import json, statistics, sys
cells = {c["probe"]: c for c in json.load(open(sys.argv[1]))["cells"] if c["outcome"] == "ok"}
scale = {"us": 1e-6, "MB/s": 1e-6, "ns": 1e-3}  # from ps, bytes/s (MB = 10^6 bytes), ps
for line in open(sys.argv[2]).read().splitlines():
    key, title, unit, test, series = line.split("|")[:5]
    v = cells.get(test, {}).get("series", {}).get(series)
    # The memory table: the fastest batch, as lat_mem_rd keeps the minimum
    # of its repetitions (and the lmbench2 format shows it); else the median.
    if v:
        print("ul", key, (min(v) if test == "lm-mem" else statistics.median(v)) * scale[unit])
    else:
        print(f"no underload value for {key}", file=sys.stderr)
PY
}

echo "load average before: $(cut -d' ' -f1-3 /proc/loadavg)" >"$tmp/load"
# timed NAME COMMAND: COMMAND, adding its seconds to $tmp/secs.NAME.
timed() {
	local t0=$SECONDS
	"${@:2}"
	echo $((SECONDS - t0)) >>"$tmp/secs.$1"
}
for r in $(seq "$rounds"); do
	if [ $((r % 2)) = 1 ]; then timed ul ul_round; timed lm lm_round; else timed lm lm_round; timed ul ul_round; fi
	echo "round $r of $rounds done: underload $(tail -1 "$tmp/secs.ul") s, lmbench3 $(tail -1 "$tmp/secs.lm") s (load $(cut -d' ' -f1-3 /proc/loadavg))" >&2
done
echo "load average after: $(cut -d' ' -f1-3 /proc/loadavg)" >>"$tmp/load"

[ -z "${RAW:-}" ] || cp "$rows" "$RAW"
python3 - "$rows" "$rounds" "${PROFILE:-quick}" "$tmp/quantities" <<'PY'
import random, statistics, sys
rows = [l.split() for l in open(sys.argv[1]) if len(l.split()) == 3]
def vals(tool, key):
    return [float(v) for t, k, v in rows if t == tool and k == key]
def fmt(v):
    if not v:
        return "-"
    m = statistics.median(v)
    d = 3 if m < 10 else 1 if m < 100 else 0
    return f"{m:.{d}f} [{min(v):.{d}f}-{max(v):.{d}f}]"
# The 95% interval of the ratio of medians: a percentile bootstrap that
# resamples each tool's rounds apart (seeded, so a table is reproducible).
rng = random.Random(20261202)
def ratio_ci(u, l, reps=4000):
    rs = []
    for _ in range(reps):
        ml = statistics.median(rng.choices(l, k=len(l)))
        if ml > 0:
            rs.append(statistics.median(rng.choices(u, k=len(u))) / ml)
    rs.sort()
    return (rs[int(0.025 * len(rs))], rs[int(0.975 * len(rs)) - 1]) if len(rs) >= 100 else None
print(f"rounds: {sys.argv[2]}, profile {sys.argv[3]}; median over the rounds [min-max]; ratio with its 95% bootstrap interval")
print("verdict: yes = ratio within 0.9-1.1; noise = outside, but its interval reaches the band; no = its interval is outside the band too")
print(f"{'column':18s} {'unit':4s} {'underload':>26s} {'lmbench3':>26s} {'ratio':>6s} {'95% interval':>13s} {'verdict':7s}  underload test | lmbench3 command")
count = {"yes": 0, "noise": 0, "no": 0}
outside = []
for line in open(sys.argv[4]).read().splitlines():
    key, title, unit, test, series, parser, cmd = line.split("|")
    u, l = vals("ul", key), vals("lm", key)
    ratio = statistics.median(u) / statistics.median(l) if u and l and statistics.median(l) > 0 else None
    ci = ratio_ci(u, l) if ratio is not None else None
    if ratio is None:
        ok = "-"
    elif 0.9 <= ratio <= 1.1:
        ok = "yes"
    elif ci and ci[0] <= 1.1 and ci[1] >= 0.9:
        ok = "noise"
    else:
        ok = "no"
        outside.append(key)
    if ok in count:
        count[ok] += 1
    r = f"{ratio:6.2f}" if ratio is not None else f"{'-':>6s}"
    c = f"[{ci[0]:.2f}-{ci[1]:.2f}]" if ci else "-"
    print(f"{title:18s} {unit:4s} {fmt(u):>26s} {fmt(l):>26s} {r} {c:>13s} {ok:7s}  {test} {series} | {cmd}")
n = sum(count.values())
print(f"within 0.9-1.1: {count['yes']} of {n}; outside but within the noise: {count['noise']}; "
      f"outside beyond the noise: {count['no']}" + (f" ({','.join(outside)})" if outside else ""))
PY
cat "$tmp/load"
echo "lmbench3's slowest quantities (s, all rounds):" $(awk '{ s[$2] += $1 } END { for (k in s) print s[k], k }' "$tmp/secs.lm-keys" | sort -rn | head -6)

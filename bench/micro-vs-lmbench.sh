#!/usr/bin/env bash
# The lmbench2 format's quantities side by side with lmbench3 measuring
# the same thing on the same machine: rounds alternate the two tools (odd
# rounds underload first, even rounds lmbench first); per quantity the
# median over the rounds of each tool's own figure, the spread (min..max),
# and the ratio underload / lmbench.  Each row names the underload test
# and the lmbench command (LMBENCH_SCHED=SINGLE/UNIQUE and taskset give
# lmbench the placement of the -1cpu/-2cpu tests).  Not run by CI.
#
# usage: [ROUNDS=3] [PROFILE=quick|default] [MAIN=yes] bench/micro-vs-lmbench.sh LMBENCH_BIN_DIR BUILD_DIR
#
# Short configuration (PROFILE=quick, the default): underload --quick (5
# batches of >= 10 ms) against lmbench -N 5 with ENOUGH=10000 (5
# repetitions of >= 10 ms); PROFILE=default: 11 x 100 ms against -N 11,
# ENOUGH=100000.  MAIN=yes adds lmbench's main-memory latency (lat_mem_rd
# walks every range up to 4 x LLC: minutes a round).  Needs python3, bc.
#
# lmbench3 is built by hand from its public source and never copied into
# this project (it is GPL with a publication clause of its own).  Build:
#   fetch github:intel/lmbench (commit 941a0dc here) into /tmp/lmbench
#   apt-get install libtirpc-dev        # rpc/rpc.h is no longer in glibc
#   cd /tmp/lmbench/src
#   make OS=x86_64-linux-gnu CC="gcc -I/usr/include/tirpc -fcommon -Wl,--no-as-needed -ltirpc"
#   -> LMBENCH_BIN_DIR=/tmp/lmbench/bin/x86_64-linux-gnu (its own -O flags)
# Bandwidths are in lmbench3's MB/s: 10^6 bytes (lib_timing.c, bw_mem.c).
# lmbench's timing constants come from its own probes, as its scripts do:
# TIMING_O from timing_o, LOOP_O from loop_o (measured once, here).
set -euo pipefail
[ $# -eq 2 ] || { sed -n 's/^# usage: //p' "$0" >&2; exit 2; }
L=$(realpath "$1")
ul=$(realpath "$2/underload")
rounds=${ROUNDS:-3}
case ${PROFILE:-quick} in
quick) ul_prof=(--quick) N=5 ENOUGH=10000 ;;
default) ul_prof=() N=11 ENOUGH=100000 ;;
*) echo "PROFILE is quick or default" >&2; exit 2 ;;
esac
for t in python3 taskset bc; do
	command -v "$t" >/dev/null || { echo "needs $t" >&2; exit 3; }
done
[ -x "$L/lat_syscall" ] || { echo "$L has no lmbench binaries" >&2; exit 3; }

tmp=$(mktemp -d /tmp/ul-vs-lm.XXXXXX)
servers=()
cleanup() {
	for p in "${servers[@]}"; do kill -KILL "$p" 2>/dev/null || true; done
	rm -f /tmp/hello
	rm -rf "$tmp"
}
trap cleanup EXIT
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
bw_mib=$((2 * ${llc_kib:-4096} / 1024))
[ "$bw_mib" -lt 8 ] && bw_mib=8
[ "$bw_mib" -gt 256 ] && bw_mib=256
main_mib=$((4 * ${llc_kib:-2048} / 1024))
[ "$main_mib" -lt 8 ] && main_mib=8

cd "$tmp"
mkdir fs
touch XXX                                   # stat/open: a 1-component name, as lm-stat
dd if=/dev/zero of=f8m bs=1M count=8 status=none  # mmap, page fault, prot fault (lmbench's 8m)
dd if=/dev/zero of=fbw bs=1M count="$bw_mib" status=none
cp "$L/hello" /tmp/hello                    # lat_proc execs /tmp/hello (hard-wired)

rows=$tmp/rows
: >"$rows"
# row TOOL QUANTITY VALUE
row() {
	if [ -n "$3" ]; then echo "$1 $2 $3" >>"$rows"; else echo "no $1 value for $2" >&2; fi
}
# usecs: the number before "microseconds"; mbs: before "MB/sec"; col N:
# field N of the last line (bw_mem, bw_file_rd, lat_mmap: "SIZE VALUE").
usecs() { awk '{ for (i = 2; i <= NF; i++) if ($i == "microseconds") v = $(i - 1) } END { print v }'; }
mbs() { awk '{ for (i = 2; i <= NF; i++) if ($i == "MB/sec") v = $(i - 1) } END { print v }'; }
col() { awk -v f="$1" 'NF >= f { v = $f } END { print v }'; }

# A server of lmbench's (-s) on CPU $1, stopped by the client's -S later.
server() {
	taskset -c "$1" "$L/$2" -s &
	servers+=($!)
	sleep 0.3
}

lm_round() {
	local q p sched cpu
	row lm null "$("$L/lat_syscall" -N $N null 2>&1 | usecs)"
	local r w
	r=$("$L/lat_syscall" -N $N read 2>&1 | usecs)
	w=$("$L/lat_syscall" -N $N write 2>&1 | usecs)
	row lm nullio "$(echo "($r + $w) / 2" | bc -l)"
	row lm stat "$("$L/lat_syscall" -N $N stat XXX 2>&1 | usecs)"
	row lm openclose "$("$L/lat_syscall" -N $N open XXX 2>&1 | usecs)"
	row lm select "$("$L/lat_select" -N $N -n 100 tcp 2>&1 | usecs)"
	row lm siginst "$("$L/lat_sig" -N $N install 2>&1 | usecs)"
	row lm sighndl "$("$L/lat_sig" -N $N catch 2>&1 | usecs)"
	row lm protfault "$("$L/lat_sig" -N $N prot f8m 2>&1 | usecs)"
	row lm fork "$(env -i "$L/lat_proc" -N $N fork 2>&1 | usecs)"
	row lm exec "$(env -i "$L/lat_proc" -N $N exec 2>&1 | usecs)"
	row lm sh "$(env -i "$L/lat_proc" -N $N shell 2>&1 | usecs)"
	for p in 1cpu 2cpu; do
		[ $p = 1cpu ] && sched=SINGLE cpu=$A || sched=UNIQUE cpu=$B
		for q in "0 2" "16 2" "64 2" "16 8" "64 8" "16 16" "64 16"; do
			set -- $q
			row lm "ctx-${2}p${1}k-$p" "$(LMBENCH_SCHED=$sched "$L/lat_ctx" -N $N -s "$1" "$2" 2>&1 |
				awk -v n="$2" '$1 == n { v = $2 } END { print v + 0 }')"
		done
		row lm "lat-pipe-$p" "$(LMBENCH_SCHED=$sched "$L/lat_pipe" -N $N 2>&1 | usecs)"
		row lm "lat-unix-$p" "$(LMBENCH_SCHED=$sched "$L/lat_unix" -N $N 2>&1 | usecs)"
		row lm "bw-pipe-$p" "$(LMBENCH_SCHED=$sched "$L/bw_pipe" -N $N 2>&1 | mbs)"
		row lm "bw-unix-$p" "$(LMBENCH_SCHED=$sched "$L/bw_unix" -N $N 2>&1 | mbs)"
		server "$cpu" lat_udp
		row lm "lat-udp-$p" "$(taskset -c "$A" "$L/lat_udp" -N $N 127.0.0.1 2>&1 | usecs)"
		"$L/lat_udp" -S 127.0.0.1 >/dev/null 2>&1 || true
		server "$cpu" lat_tcp
		row lm "lat-tcp-$p" "$(taskset -c "$A" "$L/lat_tcp" -N $N 127.0.0.1 2>&1 | usecs)"
		"$L/lat_tcp" -S 127.0.0.1 >/dev/null 2>&1 || true
		server "$cpu" lat_connect
		row lm "lat-connect-$p" "$(taskset -c "$A" "$L/lat_connect" -N $N 127.0.0.1 2>&1 | usecs)"
		"$L/lat_connect" -S 127.0.0.1 >/dev/null 2>&1 || true
		server "$cpu" bw_tcp
		row lm "bw-tcp-$p" "$(taskset -c "$A" "$L/bw_tcp" -N $N -m 65536 127.0.0.1 2>&1 | mbs)"
		"$L/bw_tcp" -S 127.0.0.1 >/dev/null 2>&1 || true
	done
	"$L/lat_fs" -N $N fs 2>"$tmp/fs.out" || true
	row lm create0k "$(awk '$1 == "0k" && $3 > 0 { print 1e6 / $3 }' "$tmp/fs.out")"
	row lm delete0k "$(awk '$1 == "0k" && $4 > 0 { print 1e6 / $4 }' "$tmp/fs.out")"
	row lm create10k "$(awk '$1 == "10k" && $3 > 0 { print 1e6 / $3 }' "$tmp/fs.out")"
	row lm delete10k "$(awk '$1 == "10k" && $4 > 0 { print 1e6 / $4 }' "$tmp/fs.out")"
	row lm mmap "$("$L/lat_mmap" -N $N 8m f8m 2>&1 | col 2)"
	row lm pagefault "$("$L/lat_pagefault" -N $N f8m 2>&1 | usecs)"
	row lm file-rd "$("$L/bw_file_rd" -N $N "${bw_mib}m" io_only fbw 2>&1 | col 2)"
	row lm mmap-rd "$("$L/bw_mmap_rd" -N $N "${bw_mib}m" mmap_only fbw 2>&1 | col 2)"
	row lm bcopy "$("$L/bw_mem" -N $N "${bw_mib}m" bcopy 2>&1 | col 2)"
	row lm fcp "$("$L/bw_mem" -N $N "${bw_mib}m" fcp 2>&1 | col 2)"
	row lm mem-rd "$("$L/bw_mem" -N $N "${bw_mib}m" rd 2>&1 | col 2)"
	row lm mem-wr "$("$L/bw_mem" -N $N "${bw_mib}m" wr 2>&1 | col 2)"
	# lmbench's own default summary size (its script's MB=8) for the gap.
	row lm mem-rd-8m "$("$L/bw_mem" -N $N 8m rd 2>&1 | col 2)"
	row lm mem-wr-8m "$("$L/bw_mem" -N $N 8m wr 2>&1 | col 2)"
	# The memory table: stride 128 (getsummary's), L1 at 1 KiB, L2 at
	# 128 KiB, main memory at the largest range.
	"$L/lat_mem_rd" -N $N 1 128 2>"$tmp/mem.out"
	row lm l1 "$(awk '$1 == "0.00098" { print $2 }' "$tmp/mem.out")"
	row lm l2 "$(awk '$1 == "0.12500" { print $2 }' "$tmp/mem.out")"
	# Its main memory walks every range up to the largest (~100 ranges,
	# minutes): only with MAIN=yes.
	if [ "${MAIN:-no}" = yes ]; then
		"$L/lat_mem_rd" -N $N "$main_mib" 128 2>"$tmp/mem.out"
		row lm main "$(awk 'NF == 2 && $1 ~ /^[0-9.]+$/ { v = $2 } END { print v }' "$tmp/mem.out")"
	fi
}

ul_round() {
	"$ul" run micro --db "$tmp/r.db" --dir "$tmp" --no-progress "${ul_prof[@]}" \
		--format json="$tmp/ul.json" >/dev/null 2>"$tmp/ul.err" || { cat "$tmp/ul.err" >&2; exit 1; }
	python3 - "$tmp/ul.json" >>"$rows" <<'PY'
import json, statistics, sys
names = {"lat-null": "null", "lat-nullio": "nullio", "lm-stat": "stat",
         "lm-openclose": "openclose", "lat-select": "select", "lat-siginst": "siginst",
         "lm-sighndl": "sighndl", "lat-protfault": "protfault", "lm-fork": "fork",
         "lm-exec": "exec", "lm-sh": "sh", "lat-create0k": "create0k",
         "lat-delete0k": "delete0k", "lat-create10k": "create10k",
         "lat-delete10k": "delete10k", "lm-mmap": "mmap", "lm-pagefault": "pagefault",
         "bw-file-rd": "file-rd", "bw-mmap-rd": "mmap-rd", "bw-bcopy": "bcopy",
         "bw-fcp": "fcp", "bw-mem-rd": "mem-rd", "bw-mem-wr": "mem-wr",
         "lat-sighndl": "sighndl-gross", "lat-pagefault": "pagefault-perfault"}
for c in json.load(open(sys.argv[1]))["cells"]:
    if c["outcome"] != "ok":
        continue
    p, s = c["probe"], c["series"]
    q = names.get(p, p if p.endswith("cpu") else None)
    if p == "lm-mem":
        for k in ("l1", "l2", "main"):
            print("ul", k, statistics.median(s[k + "_ps"]) / 1e3)
    elif q and "op_ps" in s:
        print("ul", q, statistics.median(s["op_ps"]) / 1e6)
    elif q and "bw_bytes_s" in s:
        print("ul", q, statistics.median(s["bw_bytes_s"]) / 1e6)  # lmbench's MB: 10^6
PY
}

echo "load average before: $(cut -d' ' -f1-3 /proc/loadavg)" >"$tmp/load"
for r in $(seq "$rounds"); do
	if [ $((r % 2)) = 1 ]; then ul_round; lm_round; else lm_round; ul_round; fi
	echo "round $r of $rounds done ($(cut -d' ' -f1-3 /proc/loadavg))" >&2
done
echo "load average after: $(cut -d' ' -f1-3 /proc/loadavg)" >>"$tmp/load"

python3 - "$rows" "$rounds" "${PROFILE:-quick}" "$bw_mib" "$main_mib" <<'PY'
import statistics, sys
rows = [l.split() for l in open(sys.argv[1]) if len(l.split()) == 3]
def vals(tool, q):
    return [float(v) for t, n, v in rows if t == tool and n == q]
# (table column, quantity, unit, underload test, lmbench command)
cols = [
    ("null call", "null", "us", "lat-null", "lat_syscall null"),
    ("null I/O", "nullio", "us", "lat-nullio", "lat_syscall read+write / 2"),
    ("stat", "stat", "us", "lm-stat", "lat_syscall stat XXX"),
    ("open clos", "openclose", "us", "lm-openclose", "lat_syscall open XXX"),
    ("selct TCP", "select", "us", "lat-select", "lat_select -n 100 tcp"),
    ("sig inst", "siginst", "us", "lat-siginst", "lat_sig install"),
    ("sig hndl", "sighndl", "us", "lm-sighndl", "lat_sig catch"),
    ("fork proc", "fork", "us", "lm-fork", "env -i lat_proc fork"),
    ("exec proc", "exec", "us", "lm-exec", "env -i lat_proc exec"),
    ("sh proc", "sh", "us", "lm-sh", "env -i lat_proc shell"),
]
for p, sched in (("1cpu", "SINGLE"), ("2cpu", "UNIQUE")):
    for n, k in ((2, 0), (2, 16), (2, 64), (8, 16), (8, 64), (16, 16), (16, 64)):
        t = f"ctx-{n}p{k}k-{p}"
        cols.append((f"{n}p/{k}K {p}", t, "us", t, f"LMBENCH_SCHED={sched} lat_ctx -s {k} {n}"))
for p, how in (("1cpu", "SINGLE / server on CPU 0"), ("2cpu", "UNIQUE / server on CPU 1")):
    for t, prog in (("lat-pipe", "lat_pipe"), ("lat-unix", "lat_unix"), ("lat-udp", "lat_udp"),
                    ("lat-tcp", "lat_tcp"), ("lat-connect", "lat_connect")):
        cols.append((f"{prog[4:]} {p}", f"{t}-{p}", "us", f"{t}-{p}", f"{prog} ({how})"))
cols += [
    ("0K create", "create0k", "us", "lat-create0k", "lat_fs"),
    ("0K delete", "delete0k", "us", "lat-delete0k", "lat_fs"),
    ("10K create", "create10k", "us", "lat-create10k", "lat_fs"),
    ("10K delete", "delete10k", "us", "lat-delete10k", "lat_fs"),
    ("Mmap lat", "mmap", "us", "lm-mmap", "lat_mmap 8m"),
    ("Prot fault", "protfault", "us", "lat-protfault", "lat_sig prot"),
    ("Page fault", "pagefault", "us", "lm-pagefault", "lat_pagefault (8m file)"),
]
for p, how in (("1cpu", "SINGLE / server on CPU 0"), ("2cpu", "UNIQUE / server on CPU 1")):
    for t, prog in (("bw-pipe", "bw_pipe"), ("bw-unix", "bw_unix"), ("bw-tcp", "bw_tcp -m 64k")):
        cols.append((f"{t[3:]} bw {p}", f"{t}-{p}", "MB/s", f"{t}-{p}", f"{prog} ({how})"))
bw = sys.argv[4]
cols += [
    ("File reread", "file-rd", "MB/s", "bw-file-rd", f"bw_file_rd {bw}m io_only"),
    ("Mmap reread", "mmap-rd", "MB/s", "bw-mmap-rd", f"bw_mmap_rd {bw}m mmap_only"),
    ("Bcopy libc", "bcopy", "MB/s", "bw-bcopy", f"bw_mem {bw}m bcopy"),
    ("Bcopy hand", "fcp", "MB/s", "bw-fcp", f"bw_mem {bw}m fcp"),
    ("Mem read", "mem-rd", "MB/s", "bw-mem-rd", f"bw_mem {bw}m rd"),
    ("Mem write", "mem-wr", "MB/s", "bw-mem-wr", f"bw_mem {bw}m wr"),
    ("L1 $", "l1", "ns", "lm-mem l1 (1K)", "lat_mem_rd stride 128 at 1K"),
    ("L2 $", "l2", "ns", "lm-mem l2 (128K)", "lat_mem_rd stride 128 at 128K"),
    ("Main mem", "main", "ns", f"lm-mem main ({sys.argv[5]}M)", f"lat_mem_rd {sys.argv[5]} 128, last"),
]
def fmt(v):
    if not v:
        return "-"
    m = statistics.median(v)
    d = 1 if m < 100 else 0
    return f"{m:.{3 if m < 10 else d}f} ({min(v):.{3 if m < 10 else d}f}..{max(v):.{3 if m < 10 else d}f})"
print(f"rounds: {sys.argv[2]}, profile {sys.argv[3]}; median over the rounds (min..max)")
print(f"{'column':16s} {'unit':4s} {'underload':>28s} {'lmbench3':>28s} {'ratio':>6s}  underload test / lmbench command")
within = n = 0
for title, q, unit, ut, lc in cols:
    u, l = vals("ul", q), vals("lm", q)
    ratio = statistics.median(u) / statistics.median(l) if u and l and statistics.median(l) > 0 else float("nan")
    if ratio == ratio:
        n += 1
        within += 0.9 <= ratio <= 1.1
    print(f"{title:16s} {unit:4s} {fmt(u):>28s} {fmt(l):>28s} {ratio:6.2f}  {ut} / {lc}")
print(f"within 0.9-1.1: {within} of {n}")
print("extra: underload lat-sighndl (gross)", fmt(vals("ul", "sighndl-gross")),
      "us; lat-pagefault (per fault)", fmt(vals("ul", "pagefault-perfault")), "us")
print("extra: lmbench bw_mem 8m rd", fmt(vals("lm", "mem-rd-8m")), "MB/s; 8m wr",
      fmt(vals("lm", "mem-wr-8m")), "MB/s")
PY
cat "$tmp/load"

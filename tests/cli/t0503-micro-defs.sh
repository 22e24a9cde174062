#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-or-later
# What the lmbench2 columns time, pinned from outside: the format takes
# the lm- tests where LMbench's definition differs from the native one
# (a native test alone leaves the column empty); strace shows the system
# calls each column's test makes (LMbench's, read from lmbench3's source:
# lat_syscall, lat_select, lat_sig, lat_mmap, lat_pagefault, bw_file_rd);
# the records pin what is divided and subtracted; the man page names every
# column's test.  The fork family and stat are pinned in t0501, the
# placements in t0502, the column sources one by one in the unit suite
# microdef.
. "$(dirname "$0")/lib.bash"

M=(--dir "$SCRATCH" --db "$DB" --no-progress --quick)
MAN=$(cd "$(dirname "$0")/../.." && pwd)/docs/underload.1
# metric JSON PROBE NAME: a metric of the cell measuring PROBE.
metric() { jq -r --arg p "$2" --arg m "$3" '.cells[] | select(.probe == $p) | .metrics[$m]' "$1"; }

# The native tests of the columns LMbench defines otherwise are not their
# sources: alone, they leave those tables out.
out=$("$UL" run micro "${M[@]}" --batches 2 --min-batch 2ms --label native --tests lat-select,lat-protfault,bw-tcp-1cpu,bw-file-rd \
	--format lmbench2 2>"$TMP/err")
is $? 0 "run the native select, prot fault, TCP bandwidth and file reread"
is "$(grep -c '^Processor, Processes\|^File & VM\|^\*Local\* Communication bandwidths' <<<"$out")" 0 \
	"their lmbench2 columns stay empty: the format shows the lm- tests"
out=$("$UL" run micro "${M[@]}" --batches 2 --min-batch 2ms --label lm --tests lm-select,lm-protfault,lm-file-rd \
	--format lmbench2,json="$TMP/lm.json" 2>"$TMP/err")
is $? 0 "run lm-select, lm-protfault, lm-file-rd"
host=$(hostname | cut -c1-9)
like "$(sed -n '/^Processor, Processes/,/^$/p' <<<"$out")" "^$host +lm +[0-9]+ +[0-9.]+ " \
	"a processor row: selct TCP from lm-select"
like "$(sed -n '/^File & VM/,/^$/p' <<<"$out")" "^$host +lm .* [0-9.]+ *$" \
	"a file & VM row: Prot Fault from lm-protfault"
like "$(sed -n '/^\*Local\* Communication bandwidths/,/^$/p' <<<"$out")" "^$host +lm +[0-9.]+" \
	"a bandwidth row: File reread from lm-file-rd"
fds=$(metric "$TMP/lm.json" lm-select select_fds)
[ "${fds%.*}" -ge 90 ] && [ "${fds%.*}" -lt 100 ]
ok $? "lm-select: the $fds of its 100 dups below descriptor 100 are examined, as lat_select's 95"
is "$(metric "$TMP/lm.json" lm-file-rd xfer_bytes)" 65536 "lm-file-rd: 64 KiB reads"
n=$(jq '[.cells[] | select(.probe == "lm-protfault") | .series | (.gross_ps | length),
	(.catch_ps | length), (.kill0_ps | length)] | min' "$TMP/lm.json")
[ "${n:-0}" -ge 1 ]; ok $? "lm-protfault keeps the faults and the catch and kill(0) it subtracts"
# lat_sig prot subtracts lat_sig catch's figure: benchmp's median catch
# less its median kill(me, 0) (min and median differ by far more than the
# prot fault itself on a busy machine).
pf='[.cells[] | select(.probe == "lm-protfault")][0]'
catch=$(jq "$pf | .series.catch_ps[]" "$TMP/lm.json" | median)
kill0=$(jq "$pf | .series.kill0_ps[]" "$TMP/lm.json" | median)
d=$(jq --argjson c "$catch" --argjson k "$kill0" \
	"$pf | ([(\$c - \$k) / 1000, 0] | max) - .metrics.base_ns | fabs" "$TMP/lm.json")
jq -e -n "$d < 0.01" >/dev/null
ok $? "lm-protfault subtracts the median catch less the median kill(0), as lat_sig ($d ns off)"

# What each test's loop calls, from outside.
if strace_usable "the system calls are"; then
	strace -f -qq -o "$TMP/strace" \
		-e trace=getppid,read,write,openat,select,pselect6,rt_sigaction,kill,lseek,mmap,msync,rt_sigreturn,setsockopt,fsync \
		"$UL" run micro "${M[@]}" --batches 1 --min-batch 1ms --label traced \
		--tests lat-null,lat-nullio,lm-openclose,lm-select,lat-siginst,lm-sighndl,lm-mmap,lm-protfault,lm-pagefault,lm-bw-tcp-1cpu,lm-file-rd,lat-udp-1cpu,lat-connect-1cpu \
		>/dev/null 2>"$TMP/err"
	is $? 0 "thirteen tests under strace"
	s=$(cat "$TMP/strace")
	like "$s" 'getppid\(\) += [0-9]+' "null call: getppid()"
	like "$s" 'read\([0-9]+, "\\0", 1\) += 1' "null I/O: a 1-byte read (of /dev/zero)"
	like "$s" 'write\([0-9]+, "\\0", 1\) += 1' "null I/O: a 1-byte write (to /dev/null)"
	like "$s" 'openat\([0-9]+, "XXX", O_RDONLY\) += [0-9]+' "open clos: a 1-component name from a directory fd"
	sel=$(grep -m1 -E '(select|pselect6)\([0-9]+, NULL, \[' "$TMP/strace")
	like "$sel" '(select|pselect6)\(100, NULL, \[' "selct TCP: nfds is 100, as lat_select's"
	asked=$(sed 's/^[^[]*\[\([0-9 ]*\)\].*/\1/' <<<"$sel" | wc -w)
	[ "$asked" -ge 90 ] && [ "$asked" -lt 100 ]
	ok $? "selct TCP: the $asked dups below 100 are asked for"
	like "$sel" "\\) += $asked " "selct TCP: select() for writing finds all $asked ready"
	like "$s" 'rt_sigaction\(SIGUSR1, \{sa_handler=0x' "sig inst: sigaction(SIGUSR1)"
	like "$s" 'kill\([0-9]+, 0\) += 0' "sig hndl: kill(me, 0), the cost subtracted"
	like "$s" 'kill\([0-9]+, SIGUSR1\) += 0' "sig hndl: kill(me, SIGUSR1)"
	like "$s" 'mmap\(NULL, 8388608, PROT_READ\|PROT_WRITE, MAP_SHARED, [0-9]+, 0\)' \
		"Mmap Latency: 8 MiB of a file, read-write and shared"
	like "$s" 'write\([0-9]+, "[^"]*"\.\.\., 8192\) += 8192' \
		"Mmap Latency, Page Fault: the file written in 8 KiB writes, as lmdd bs=8k"
	like "$s" 'fsync\([0-9]+\) += 0' "Mmap Latency, Page Fault: and fsync()ed, as lmdd fsync=1"
	like "$s" 'mmap\(NULL, 4096, PROT_READ, MAP_SHARED, [0-9]+, 0\)' \
		"Prot Fault: a page of a file mapped read-only and shared"
	like "$s" 'SIGSEGV \{si_signo=SIGSEGV, si_code=SEGV_ACCERR' "Prot Fault: a write faults on it"
	# Per process (strace -f prefixes each line with its pid): other
	# processes' lines may come between a fault and its sigreturn.
	n=$(awk '/SIGSEGV \{si_signo=SIGSEGV/ { faulted[$1] = 1; next }
		/rt_sigreturn\(/ && faulted[$1] { n++; faulted[$1] = 0 }
		END { print n + 0 }' "$TMP/strace")
	[ "$n" -gt 0 ]; ok $? "Prot Fault: the handler returns ($n sigreturns after a fault), the write runs again"
	like "$s" 'mmap\(NULL, 8388608, PROT_READ, MAP_SHARED, [0-9]+, 0\)' \
		"Page Fault: 8 MiB of a file, read-only and shared"
	like "$s" 'msync\(0x[0-9a-f]+, 8388608, MS_INVALIDATE\) += 0' "Page Fault: msync before each pass, as lat_pagefault"
	like "$s" 'setsockopt\([0-9]+, SOL_SOCKET, SO_RCVBUF, \[1048576\], 4\) += 0' \
		"TCP bandwidth: 1 MiB socket buffers asked for"
	like "$s" 'read\([0-9]+, .*, 10485760\) += [0-9]+' "TCP bandwidth: 10 MiB reads"
	like "$s" 'lseek\([0-9]+, 0, SEEK_SET\) += 0' "File reread: from offset 0"
	like "$s" 'write\([0-9]+, "\\0\\0\\0\\0", 4\) += 4' "UDP: 4-byte messages, as lat_udp's"
	like "$s" 'setsockopt\([0-9]+, SOL_SOCKET, SO_REUSEADDR, \[1\], 4\) += 0' \
		"TCP conn: SO_REUSEADDR before the connect, as lat_connect's"
	is "$(grep -c SO_LINGER "$TMP/strace")" 0 "TCP conn: a normal close, no SO_LINGER"
	like "$s" 'read\([0-9]+, .*, 65536\) += 65536' "File reread: 64 KiB read()s"

	# lat_fs's layout: a fresh tree a batch, 100 entries a directory,
	# decimal names, the last file first.
	strace -f -qq -e trace=mkdir,openat,rmdir -o "$TMP/strace.fs" \
		"$UL" run micro "${M[@]}" --batches 1 --min-batch 30ms --label fs --tests lat-create10k \
		--format json="$TMP/fs.json" >/dev/null 2>"$TMP/err"
	is $? 0 "lat-create10k under strace"
	created=$(grep -E 'openat\(AT_FDCWD, "[^"]*/micro-fs/[^"]*", O_WRONLY\|O_CREAT\|O_TRUNC' "$TMP/strace.fs" |
		sed -E 's/.*micro-fs(\/[^"]*)".*/\1/')
	like "$(head -n 1 <<<"$created")" '^/7$' "10K create: the probe's 8 files are made from the last, /7, down"
	is "$(grep -cvE '^(/[0-9]{1,2}){1,2}$' <<<"$created")" 0 "10K create: decimal names, 100 a directory at most"
	like "$(cat "$TMP/strace.fs")" 'mkdir\("[^"]*/micro-fs", 0700\) += 0' "10K create: a fresh tree root"
	n=$(metric "$TMP/fs.json" lat-create10k iters_per_batch)
	if [ "${n%.*}" -gt 100 ]; then
		like "$(grep -E 'mkdir\(' "$TMP/strace.fs")" 'micro-fs/1", 0700\) += 0' \
			"10K create: $n files a batch are spread over directories of 100"
	else
		skip "only $n files a batch: one directory holds them"
	fi
fi

# The man page says what each column's test is.
cols=$(sed -n '/^stay empty.  What each column times/,/^The two-process columns thus/p' "$MAN")
for t in lat-null lat-nullio lm-stat lm-openclose lm-select lat-siginst lm-sighndl lm-fork \
	lm-exec lm-sh ctx-2p0k-1cpu lat-pipe-1cpu lat-connect-1cpu lat-create0k lm-mmap \
	lm-protfault lm-pagefault bw-pipe-1cpu lm-bw-tcp-1cpu lm-file-rd bw-mmap-rd bw-bcopy bw-fcp \
	bw-mem-rd bw-mem-wr lm-mem; do
	like "$cols" "\\\\fB$t\\\\fP" "man page: a column's test is $t"
done
sleep 0.2
is "$(ul_procs)" 0 "no process of the runs is alive"
is "$(scratch_left)" 0 "no scratch directory is left"
done_testing

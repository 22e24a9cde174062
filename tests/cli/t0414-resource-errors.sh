#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-or-later
# A resource error keeps its cause.  The store past `ulimit -f` says "File
# too large" and on a full file system "No space left on device", never
# SQLite's "disk I/O error"; an import or a report out of memory (ulimit
# -v) says so, never "line -1 column -1" or "malformed"; a run out of file
# descriptors (ulimit -n) is an error of the run (exit 1), not a failed
# test.  Nothing is left behind.
. "$(dirname "$0")/lib.bash"

FULL=$TMP/full # a small tmpfs, when root can mount one
trap 'ul_kill_all; mountpoint -q "$FULL" && umount "$FULL"; rm -rf "$TMP"' EXIT
# TINY without its --db: each case names its own store.
T=()
for ((i = 0; i < ${#TINY[@]}; i++)); do
	if [ "${TINY[i]}" = --db ]; then i=$((i + 1)); else T+=("${TINY[i]}"); fi
done
TESTS=(--tests noload,cpuload,spawnload)
outcomes() { sqlite3 "$1" "SELECT group_concat(outcome, ' ') FROM cells ORDER BY id"; }
left() { echo "$(scratch_left)$(ul_procs)"; }

# 1. EFBIG: the store's files may not grow past 64 KiB (SIGXFSZ is ours).
"$UL" run "${T[@]}" --db "$TMP/f.db" --tests noload >/dev/null 2>&1
ok $? "a store is made"
err=$(ulimit -f 64; "$UL" run "${T[@]}" --db "$TMP/f.db" "${TESTS[@]}" 2>&1 >/dev/null)
is $? 1 "a run whose store cannot grow past ulimit -f fails"
like "$err" "cannot add cell [0-9]+ of run [0-9]+ to '$TMP/f.db': File too large" \
	"and says the file is too large"
is "$(grep -c 'disk I/O error' <<<"$err")" 0 "not 'disk I/O error'"
is "$(left)" 00 "no scratch directory and no process left"

# 2. ENOSPC: the store on a 256 KiB tmpfs, filled up.
if [ "$(id -u)" != 0 ]; then
	skip "needs root to mount a small tmpfs: ENOSPC not checked"
elif ! mkdir "$FULL" || ! mount -t tmpfs -o size=256k,mode=0700 ul-full "$FULL"; then
	skip "cannot mount a tmpfs: ENOSPC not checked"
else
	"$UL" run "${T[@]}" --db "$FULL/r.db" --tests noload >/dev/null 2>&1
	ok $? "a store is made on a 256 KiB tmpfs"
	dd if=/dev/zero of="$FULL/fill" bs=4k 2>/dev/null
	err=$("$UL" run "${T[@]}" --db "$FULL/r.db" "${TESTS[@]}" 2>&1 >/dev/null)
	is $? 1 "a run into a store on a full file system fails"
	like "$err" "^error: cannot .*'$FULL/r.db': No space left on device$" \
		"and says there is no space left"
	is "$(grep -c 'disk I/O error\|disk is full' <<<"$err")" 0 "not SQLite's words"
	umount "$FULL"
	ok $? "the tmpfs is unmounted"
	is "$(left)" 00 "no scratch directory and no process left"
fi

# 3, 4. Out of memory: ulimit -v cannot be used with a sanitizer's shadow memory.
sanitized=$("$UL" --version | sed -n 's/.*sanitizers: //p')
if [ "$sanitized" != none ]; then
	skip "a sanitizer build ($sanitized) cannot run under ulimit -v: checked on the normal build"
else
	# An export with a 4M-value series (~30 MB): parsed, ~0.5 GB; stored, 32 MB.
	"$UL" run "${T[@]}" --db "$TMP/m.db" --tests noload >/dev/null 2>&1
	"$UL" export --db "$TMP/m.db" -o "$TMP/small.json"
	python3 - "$TMP/small.json" "$TMP/big.json" <<-'PY'
	import json, sys
	d = json.load(open(sys.argv[1]))
	for s in d["runs"][0]["cells"][0]["series"]:
	    if s["name"] == "delay_ns":
	        s["values"] = [1000 + i % 977 for i in range(4000000)]
	json.dump(d, open(sys.argv[2], "w"))
	PY
	err=$(ulimit -v 200000; "$UL" import --db "$TMP/i.db" "$TMP/big.json" 2>&1)
	is $? 1 "an import out of memory fails"
	like "$err" "^error: cannot import '$TMP/big.json', nothing imported: .*out of memory" \
		"and says it ran out of memory"
	is "$(grep -c 'line -1\|refused' <<<"$err")" 0 "not a refusal at 'line -1 column -1'"
	"$UL" import --db "$TMP/i.db" "$TMP/big.json" >/dev/null
	ok $? "with memory, the same file imports"
	# A stored series of 16M values (128 MiB): its BLOB is read, but
	# unpacked it does not fit under 250 MB as well.
	sqlite3 "$TMP/m.db" "UPDATE series SET packed = zeroblob(8 * 16000000), n = 16000000
		WHERE name = 'delay_ns'"
	err=$(ulimit -v 250000; "$UL" report --db "$TMP/m.db" -o "$TMP/r.html" 2>&1)
	is $? 1 "a report out of memory fails"
	like "$err" "^error: cannot load series 'delay_ns' from '$TMP/m.db': out of memory$" \
		"and says it ran out of memory"
	is "$(grep -c malformed <<<"$err")" 0 "not that a healthy series is malformed"
	"$UL" report --db "$TMP/m.db" -o "$TMP/r.html" 2>/dev/null
	ok $? "with memory, the same report is written"
fi

# 5. EMFILE: out of file descriptors, the run stops with an error.
err=$(ulimit -n 24; "$UL" run "${T[@]}" --db "$TMP/n.db" "${TESTS[@]}" 2>&1 >/dev/null)
is $? 1 "a run out of file descriptors is an error (exit 1), not a failed test (exit 4)"
like "$err" "Too many open files" "and says it is out of file descriptors"
is "$(sqlite3 "$TMP/n.db" "SELECT count(*) FROM cells WHERE outcome != 'interrupted'")" 0 \
	"no test is stored as failed (or as anything measured)"
like "$(sqlite3 "$TMP/n.db" "SELECT status FROM runs")" '^(failed|partial)$' \
	"the run is stored as stopped by an error"
is "$(left)" 00 "no scratch directory and no process left"
done_testing

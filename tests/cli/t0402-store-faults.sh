#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-or-later
# Never lose a cell: a reader in a transaction, a database locked, refusing
# cells (the fault seam), deleted mid-run or on a full disk.  Every measured
# cell ends up in the store, directly, after a retry, or through the
# recovery file that import (or the next run) loads.
. "$(dirname "$0")/lib.bash"

RUN3=("${TINY[@]}" --tests noload,cpuload,spawnload)
cells() { sqlite3 "$1" "SELECT count(*) FROM cells"; }
status() { sqlite3 "$1" "SELECT status FROM runs ORDER BY id DESC LIMIT 1"; }
# Wait (up to 60 s) until the store at $1 has at least $2 rows in table $3.
wait_rows() {
	local i
	for i in $(seq 600); do
		[ "$(sqlite3 "$1" "SELECT count(*) FROM $3" 2>/dev/null || echo 0)" -ge "$2" ] && return 0
		sleep 0.1
	done
	return 1
}

# 1. A sqlite3 shell holding a read transaction all run long blocks nothing (WAL).
"$UL" run "${TINY[@]}" --tests noload >/dev/null 2>&1 # creates the store
{ echo "BEGIN; SELECT count(*) FROM series;"; sleep 20; echo "COMMIT;"; } | sqlite3 "$DB" >/dev/null &
reader=$!
err=$("$UL" run "${RUN3[@]}" 2>&1 >/dev/null)
is $? 0 "a run with a reader in a transaction succeeds"
is "$(sqlite3 "$DB" "SELECT count(*) FROM cells WHERE run_id = 2")" 3 "every cell stored"
like "$(status "$DB")" "^complete$" "and the run is complete"
is "$(grep -c warning <<<"$err")" 0 "no commit had to wait"
kill "$reader" 2>/dev/null; wait "$reader" 2>/dev/null
is "$(sqlite3 "$DB" "PRAGMA journal_mode")" wal "the store is in WAL mode"

# 2. A writer holds the lock for 1.5 s, longer than the run's wait (UNDERLOAD_DB_WAIT):
# a commit that meets it is kept and retried with the next cell.
UNDERLOAD_DB_WAIT=300ms "$UL" run "${RUN3[@]}" --interval 300ms >/dev/null 2>"$TMP/err2" &
runner=$!
wait_rows "$DB" 3 runs
{ echo "BEGIN IMMEDIATE;"; sleep 1.5; echo "COMMIT;"; } | sqlite3 "$DB" &
locker=$!
wait "$runner"
is $? 0 "a run meeting a write lock longer than its wait still succeeds"
wait "$locker"
is "$(sqlite3 "$DB" "SELECT count(*) FROM cells WHERE run_id = 3")" 3 "every cell stored"

# 3. The store refuses every cell: the run is saved in a recovery file beside it.
err=$(UL_TEST_STORE_FAULT=add_cell:1:ENOSPC "$UL" run "${RUN3[@]}" 2>&1 >/dev/null)
is $? 1 "a run whose cells cannot be stored fails"
like "$err" "3 cells of run .* could not be stored; the whole run is saved in '$DB.recovery-" \
	"and says where they are"
rec=$(ls "$DB".recovery-*.json)
ok $? "the recovery file exists"
is "$(sqlite3 "$DB" "SELECT count(*) FROM cells WHERE run_id = 4")" 0 "no cell is in the store yet"
"$UL" import --db "$DB" "$rec" >/dev/null
ok $? "import loads the recovery file"
is "$(sqlite3 "$DB" "SELECT count(*) FROM cells WHERE run_id = 4")" 3 "every cell is stored"
like "$(sqlite3 "$DB" "SELECT status FROM runs WHERE id = 4")" "^complete$" "and the run completed"
rm -f "$rec"
# A transient refusal: kept and retried, nothing left over.
err=$(UL_TEST_STORE_FAULT=add_cell:1:EBUSY:2 "$UL" run "${RUN3[@]}" 2>&1 >/dev/null)
is $? 0 "two refused commits are retried"
like "$err" "it is kept, retried" "with one warning"
is "$(sqlite3 "$DB" "SELECT count(*) FROM cells WHERE run_id = 5")" 3 "every cell stored"
# The next run loads a recovery file by itself.
UL_TEST_STORE_FAULT=add_cell:2:ENOSPC "$UL" run "${RUN3[@]}" >/dev/null 2>&1
is $? 1 "one more run whose later cells are refused"
err=$("$UL" run "${TINY[@]}" --tests noload 2>&1 >/dev/null)
like "$err" "loaded '.*recovery-.*', kept by an earlier run" "the next run loads the recovery file"
is "$(sqlite3 "$DB" "SELECT count(*) FROM cells WHERE run_id = 6")" 3 "with every cell"
is "$(ls "$DB".recovery-* 2>/dev/null | wc -l)" 0 "and removes it"

# 4. The database is deleted mid-run.
GONE=$TMP/gone/results.db
mkdir -p "$TMP/gone"
"$UL" run "${RUN3[@]}" --db "$GONE" >/dev/null 2>"$TMP/err4" &
runner=$!
wait_rows "$GONE" 1 cells
rm -f "$GONE" "$GONE-wal" "$GONE-shm"
wait "$runner"
is $? 1 "a run whose database was deleted fails"
like "$(cat "$TMP/err4")" "deleted or replaced" "and says why"
rec=$(ls "$GONE".recovery-*.json)
ok $? "its recovery file is beside where the database was"
"$UL" import --db "$GONE" "$rec" >/dev/null
is "$(cells "$GONE")" 3 "importing it restores every cell"
like "$(status "$GONE")" "^complete$" "complete"

# 5. The disk fills up mid-run: the recovery file falls back to /var/tmp.
SMALL=$TMP/small
mkdir -p "$SMALL"
if mount -t tmpfs -o size=3M tmpfs "$SMALL" 2>/dev/null; then
	"$UL" run "${RUN3[@]}" --db "$SMALL/results.db" >/dev/null 2>"$TMP/err5" &
	runner=$!
	wait_rows "$SMALL/results.db" 1 cells
	dd if=/dev/zero of="$SMALL/fill" bs=64k 2>/dev/null
	wait "$runner"
	is $? 1 "a run on a full disk fails"
	rec=$(grep -o "/var/tmp/underload-recovery-[^']*\.json" "$TMP/err5" | head -1)
	ok "$([ -s "$rec" ]; echo $?)" "its run is saved in /var/tmp"
	rm -f "$SMALL/fill"
	"$UL" import --db "$SMALL/results.db" "$rec" >/dev/null
	is "$(cells "$SMALL/results.db")" 3 "importing it restores every cell"
	rm -f "$rec"
	umount "$SMALL"
else
	skip "no tmpfs mount here (not root?)"
	skip "no tmpfs mount"
	skip "no tmpfs mount"
fi
is "$(grep -lF "$TMP/" /var/lib/underload/journal/*.journal /run/underload/*.journal 2>/dev/null | wc -l)" 0 \
	"no journal left: a run saved in a recovery file needs no cleanup"
is "$(ul_procs)" 0 "no process left"
is "$(scratch_left)" 0 "no scratch directory left"
done_testing

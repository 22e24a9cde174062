#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-or-later
# `underload cleanup` after a kill -9: the run's scratch directory goes and
# the run is marked interrupted (list shows it); crafted journals are
# refused entry by entry and retired, never acted on.  A private journal
# directory ($UL_JOURNAL_DIR) keeps other runs on the machine out of it.
. "$(dirname "$0")/lib.bash"

export UL_JOURNAL_DIR=$TMP/journal
mkdir -m 0700 "$UL_JOURNAL_DIR"
cells() {
	sqlite3 "$DB" "SELECT count(*) FROM cells c JOIN runs r ON c.run_id = r.id WHERE r.label = '$1'" \
		2>/dev/null || echo 0
}
wait_for() { for _ in $(seq 600); do "$@" && return 0; sleep 0.1; done; return 1; }

# SIGKILL mid-run, then cleanup: status interrupted, finished at the last cell.
"$UL" run "${TINY[@]}" --interval 300ms --label killed >/dev/null 2>&1 &
pid=$!
measuring() { [ "$(cells killed)" -ge 2 ]; }
wait_for measuring
ok $? "the run stored two cells before SIGKILL"
kill -KILL "$pid"
wait "$pid" 2>/dev/null
is "$(sqlite3 "$DB" "SELECT status FROM runs WHERE label = 'killed'")" running \
	"after SIGKILL the run is still 'running'"
out=$("$UL" cleanup 2>"$TMP/err")
is $? 0 "cleanup exits 0"
like "$out" "marked run [0-9a-f-]{36} interrupted \(finished at [0-9-]+ [0-9:]+ UTC\) in $DB" \
	"cleanup says it marked the run interrupted"
like "$out" 'removed scratch .*/underload-' "cleanup removed the scratch directory"
is "$(sqlite3 "$DB" "SELECT status FROM runs WHERE label = 'killed'")" interrupted \
	"the run is stored as interrupted"
is "$(sqlite3 "$DB" "SELECT r.finished_wall_ns = max(c.finished_wall_ns) FROM runs r JOIN cells c ON c.run_id = r.id WHERE r.label = 'killed'")" 1 \
	"its finish time is that of its last cell"
like "$("$UL" list --db "$DB")" 'killed .* interrupted' "list shows it interrupted"
is "$(scratch_left)$(ul_procs)" 00 "no scratch directory and no process left"
is "$(find "$UL_JOURNAL_DIR" -type f | wc -l)" 0 "the journal is gone"
is "$("$UL" cleanup | tail -n 1)" "0 changes undone" "a second cleanup has nothing to do"

# Crafted journals: every entry is checked before anything is done.
uuid=0badc0de-0000-4000-8000-000000000000
victim=$TMP/victim
mkdir -p "$victim/underload-AAAAAA" "$victim/real/underload-BBBBBB" "$victim/underload-CCCCCC"
chmod 0700 "$victim/underload-AAAAAA" "$victim/real/underload-BBBBBB"
chmod 0755 "$victim/underload-CCCCCC"
chown nobody "$victim/underload-AAAAAA"
ln -s real "$victim/link"
echo keep >"$victim/real/underload-BBBBBB/file"
echo keep >"$victim/underload-swap-DDDDDD"
{
	echo "underload-journal 1 999999999 0"
	echo "run $uuid $TMP/none.db"
	echo "scratch $victim/underload-AAAAAA"
	echo "scratch $victim/link/underload-BBBBBB"
	echo "scratch $victim/underload-CCCCCC"
	echo "scratch $victim/real"
	echo "swap $victim/underload-swap-DDDDDD"
	echo "cgroup /sys/fs/cgroup/underload-deadbeef"
	echo "cgroup $victim/underload-0badc0de"
} >"$UL_JOURNAL_DIR/999999999.journal"
chmod 0600 "$UL_JOURNAL_DIR/999999999.journal"
out=$("$UL" cleanup 2>"$TMP/err")
is $? 1 "cleanup of a crafted journal exits 1"
is "$(grep -c 'retired: it will not be tried again' "$TMP/err")" 7 \
	"each of the 7 foreign entries is refused and retired"
like "$(cat "$TMP/err")" "scratch '$victim/link/underload-BBBBBB': not a scratch directory of ours" \
	"a symlinked intermediate is refused"
like "$(cat "$TMP/err")" "cgroup '/sys/fs/cgroup/underload-deadbeef': not the cgroup of this run" \
	"a cgroup not named after the run is refused"
[ -d "$victim/underload-AAAAAA" ] && [ -d "$victim/underload-CCCCCC" ] && [ -d "$victim/real" ] &&
	[ -f "$victim/real/underload-BBBBBB/file" ] && [ -f "$victim/underload-swap-DDDDDD" ]
ok $? "nothing the crafted journal named was touched"
out=$("$UL" cleanup 2>"$TMP/err")
is $? 0 "the next cleanup exits 0: retired entries are not retried"
is "$(cat "$TMP/err")" "" "and reports nothing"

# A journal that is not ours (mode, symlink, owner) is not even read.
{
	echo "underload-journal 1 999999998 0"
	echo "scratch $victim/real/underload-BBBBBB"
} >"$TMP/j"
cp "$TMP/j" "$UL_JOURNAL_DIR/999999998.journal"
chmod 0644 "$UL_JOURNAL_DIR/999999998.journal"
ln -s "$TMP/j" "$UL_JOURNAL_DIR/999999997.journal"
cp "$TMP/j" "$UL_JOURNAL_DIR/999999996.journal"
chown nobody "$UL_JOURNAL_DIR/999999996.journal"
out=$("$UL" cleanup 2>"$TMP/err")
is "$?:$(tail -n 1 <<<"$out")" "0:0 changes undone" "journals open to others, symlinked or foreign are skipped"
[ -f "$victim/real/underload-BBBBBB/file" ]; ok $? "their entries were not acted on"
rm -f "$UL_JOURNAL_DIR"/*.journal
chmod 0755 "$UL_JOURNAL_DIR"
cp "$TMP/j" "$UL_JOURNAL_DIR/999999998.journal"
chmod 0600 "$UL_JOURNAL_DIR/999999998.journal"
"$UL" cleanup >/dev/null 2>&1
[ -f "$victim/real/underload-BBBBBB/file" ]; ok $? "a journal directory open to others is not read"
# A user who is not root: root's journal directories (/var/lib/underload/
# journal, and /run/underload of older versions; 0700) are not theirs to clean, so cleanup ignores it (EACCES) instead of
# failing; after a real kill -9 of their own run the next run says to run
# cleanup, and cleanup repairs it.
if [ "$(id -u)" = 0 ] && command -v setpriv >/dev/null && id nobody >/dev/null 2>&1; then
	mkdir -p -m 0700 /run/underload /var/lib/underload/journal
	chmod 0711 "$TMP"
	home=$TMP/nobody
	mkdir -m 0700 "$home" "$home/scratch" "$home/run" && chown -R nobody "$home"
	# A script that execs, so that $! is underload's own pid.
	as_nobody=$TMP/as-nobody
	printf '#!/bin/sh\nexec env -u UL_JOURNAL_DIR XDG_RUNTIME_DIR="%s" XDG_DATA_HOME="%s" HOME="%s" setpriv --reuid=nobody --regid=nogroup --clear-groups -- "%s" "$@"\n' \
		"$home/run" "$home" "$home" "$UL_REAL" >"$as_nobody"
	chmod 0755 "$as_nobody"
	as_nobody() { "$as_nobody" "$@"; }
	NB=(--dir "$home/scratch" --db "$home/r.db" --no-progress --interval 300ms --min-points 5
		--max-points 6 -o resp.working-set=4M -o resp.files=20 -o smallwrite.files=4)
	as_nobody cleanup >"$TMP/out" 2>"$TMP/err"
	is "$?:$(cat "$TMP/out")" "0:0 changes undone" "a non-root cleanup with nothing to do exits 0"
	is "$(cat "$TMP/err")" "" "and reports nothing about root's journal directory"
	"$as_nobody" run "${NB[@]}" --tests noload,smallwrite --label nbkilled >/dev/null 2>&1 &
	pid=$!
	# Polled as nobody: a root sqlite3 that opened r.db before the run made
	# it would create it (or its -wal/-shm) owned by root, and the run could
	# no longer write its own database.
	nb_cells() {
		[ "$(setpriv --reuid=nobody --regid=nogroup --clear-groups -- \
			sqlite3 "$home/r.db" "SELECT count(*) FROM cells" 2>/dev/null || echo 0)" -ge 1 ]
	}
	wait_for nb_cells
	ok $? "the non-root run stored a cell before SIGKILL"
	kill -KILL "$pid"
	wait "$pid" 2>/dev/null
	as_nobody run "${NB[@]}" --tests noload --label nbnext >/dev/null 2>"$TMP/err"
	like "$(cat "$TMP/err")" "1 earlier run left system changes behind: run 'underload cleanup'" \
		"the next non-root run gives the hint to run cleanup"
	as_nobody cleanup >"$TMP/out" 2>"$TMP/err"
	is $? 0 "the non-root cleanup after a kill -9 exits 0"
	like "$(cat "$TMP/out")" "marked run [0-9a-f-]{36} interrupted" "and marks the run interrupted"
	is "$(find "$home/scratch" -mindepth 1 | wc -l)" 0 "and removes its scratch directory"
	chmod 0700 "$TMP"
else
	for _ in 1 2 3 4 5 6 7; do skip "needs root, setpriv and a 'nobody' user"; done
fi

# A killed sweep's sysctl under a read-only /proc/sys (a container's):
# cleanup says why, and keeps the entry for a cleanup that can write it,
# instead of retiring it for good as "not ours".
ro_proc_sys() { # CMD...: run in a mount namespace where /proc/sys is read-only
	unshare -m sh -c 'mount --bind /proc/sys /proc/sys &&
		mount -o remount,ro,bind /proc/sys && exec "$@"' sh "$@"
}
SW=/proc/sys/vm/swappiness
if [ "$(id -u)" = 0 ] && [ -w "$SW" ] && ro_proc_sys true 2>/dev/null; then
	sw0=$(cat "$SW")
	left=$((sw0 < 50 ? sw0 + 7 : sw0 - 7))
	trap 'echo "$sw0" >"$SW"; rm -rf "$TMP"' EXIT
	rm -f "$UL_JOURNAL_DIR"/*
	chmod 0700 "$UL_JOURNAL_DIR"
	# What a sweep killed at vm.swappiness=$left leaves: the original journalled.
	printf 'underload-journal 1 999999995 0\nsysctl vm.swappiness %s\n' "$sw0" \
		>"$UL_JOURNAL_DIR/999999995.journal"
	chmod 0600 "$UL_JOURNAL_DIR/999999995.journal"
	echo "$left" >"$SW"
	for try in 1 2 3 4; do
		ro_proc_sys "$UL" cleanup >"$TMP/out" 2>"$TMP/err"
		is $? 1 "cleanup $try under a read-only /proc/sys exits 1"
	done
	like "$(cat "$TMP/err")" "cannot write $sw0 to vm.swappiness: Read-only file system \(kept: a later cleanup tries again\)" \
		"saying why, and that the entry is kept"
	is "$(cat "$SW")" "$left" "vm.swappiness is still $left"
	"$UL" cleanup >"$TMP/out" 2>"$TMP/err"
	is $? 0 "a cleanup that can write exits 0"
	like "$(cat "$TMP/out")" "restored sysctl vm.swappiness $sw0" "and restores the sysctl"
	is "$(cat "$SW")" "$sw0" "vm.swappiness is $sw0 again"
	is "$(find "$UL_JOURNAL_DIR" -type f | wc -l)" 0 "the journal is settled"
else
	for _ in 1 2 3 4 5 6 7 8 9; do skip "needs root and a mount namespace"; done
fi
done_testing

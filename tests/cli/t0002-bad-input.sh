#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-or-later
# Bad input: one clear line naming what was wrong, exit 2 (or 1 for a bad
# store), nothing left behind, nothing already stored lost.
. "$(dirname "$0")/lib.bash"


# expect_fail CODE REGEX DESCRIPTION -- ARGS...: one line on stderr matching REGEX
expect_fail() {
	local code=$1 re=$2 desc=$3
	shift 4
	local err rc
	err=$("$UL" "$@" 2>&1 >/dev/null)
	rc=$?
	is "$rc" "$code" "$desc: exit $code"
	like "$err" "$re" "$desc: says why"
}

expect_fail 2 "unknown suite 'bogus' \(known: .*resp" "unknown suite" -- run --dir "$SCRATCH" --db "$DB" bogus
expect_fail 2 "unknown test 'nosuch' in --tests \(accepted: noload, smallwrite" "unknown test" -- \
	run --dir "$SCRATCH" --db "$DB" --tests noload,nosuch
expect_fail 2 "invalid value '12XB' for 'working-set'.*size from" "malformed size" -- \
	run --dir "$SCRATCH" --db "$DB" -o resp.working-set=12XB
expect_fail 2 "out-of-range value '1000000' for 'files'.*count from 0 to 100000" "count out of range" -- \
	run --dir "$SCRATCH" --db "$DB" -o resp.files=1000000
expect_fail 2 "invalid value '1e99' for --interval: expected a duration from 0s to 1h" "malformed duration" -- \
	run --dir "$SCRATCH" --db "$DB" --interval 1e99
expect_fail 2 "out-of-range value '2h' for --interval" "duration out of range" -- \
	run --dir "$SCRATCH" --db "$DB" --interval 2h
expect_fail 2 "invalid value '-1' for --min-points: expected a count from 1" "negative count" -- \
	run --dir "$SCRATCH" --db "$DB" --min-points -1
expect_fail 2 "out-of-range value '0' for --max-points" "zero count" -- \
	run --dir "$SCRATCH" --db "$DB" --max-points 0
expect_fail 2 "--max-points \(3\) is below --min-points \(5\)" "max below min" -- \
	run --dir "$SCRATCH" --db "$DB" --min-points 5 --max-points 3
expect_fail 2 "--dir '$TMP/missing': No such file or directory" "missing --dir" -- \
	run --dir "$TMP/missing" --db "$DB"
touch "$TMP/afile"
expect_fail 2 "--dir '$TMP/afile': not a directory" "--dir is a file" -- run --dir "$TMP/afile" --db "$DB"
expect_fail 2 "unknown load or probe 'nope' in -o" "unknown item in -o" -- run --dir "$SCRATCH" --db "$DB" -o nope.x=1
expect_fail 2 "unknown format 'xml' in --format" "unknown format" -- run --dir "$SCRATCH" --db "$DB" --format xml

# A store that cannot be used: exit 1 and one error line.
expect_fail 1 "afile/results.db" "unwritable --db" -- run "${TINY[@]}" --db "$TMP/afile/results.db" --tests noload
head -c 4096 /dev/urandom >"$TMP/junk.db"
expect_fail 1 "is not an underload database" "--db that is not SQLite" -- run "${TINY[@]}" --db "$TMP/junk.db" --tests noload

# A newer schema is refused, and the runs already stored are not lost.
"$UL" run "${TINY[@]}" --tests noload --max-points 5 >/dev/null 2>&1
ok $? "a first run is stored"
sqlite3 "$DB" 'PRAGMA user_version = 99;'
expect_fail 1 "schema version 99, newer than" "newer schema" -- list --db "$DB"
sqlite3 "$DB" 'PRAGMA user_version = 1;'
is "$("$UL" list --db "$DB" | tail -n +2 | wc -l)" 1 "the stored run is still there"

# An output file where none can be made: refused before any work, exit 2,
# one line with the failing call's cause (root passes the permission bits,
# procfs still makes no file).
if [ "$(id -u)" = 0 ]; then
	err=$("$UL" export --db "$DB" -o /proc/ul-x.json 2>&1 >/dev/null)
	is "$?:$(wc -l <<<"$err")" 2:1 "export -o into procfs: exit 2, one line"
	is "$err" "error: cannot create a file in the directory of '/proc/ul-x.json': No such file or directory" \
		"export -o into procfs: the path and the failing call's cause"
else
	for _ in 1 2; do skip "needs root (to pass the permission bits)"; done
fi
mkdir -m 0555 "$TMP/ro"
if [ "$(id -u)" != 0 ]; then
	expect_fail 2 "cannot create a file in the directory of '$TMP/ro/x.json': Permission denied" \
		"export -o into a read-only directory" -- export --db "$DB" -o "$TMP/ro/x.json"
else
	for _ in 1 2; do skip "as root every directory is writable"; done
fi

# A bad option: exactly one error line (not getopt's and ours), exit 2, for every command.
for cmd in $("$UL" --help | sed -n '/^Commands:/,/^$/s/^  \([a-z][a-z-]*\) .*/\1/p'); do
	err=$("$UL" "$cmd" --bogus -- run 2>&1 >/dev/null) # sweep's and vm's ARGS end in '-- run'
	is "$?:$(wc -l <<<"$err")" 2:1 "$cmd --bogus: exit 2, one line"
	like "$err" "^error: underload $cmd: unknown or ambiguous option '--bogus'" "$cmd --bogus: names it"
done
expect_fail 2 "^error: underload run: unknown option '-Z'" "an unknown short option" -- run -Z
expect_fail 2 "^error: underload list: no value for '--db'" "a missing value" -- list --db
expect_fail 2 "^error: underload run: '--no-progress=1': that option takes no value" \
	"a value given to a flag" -- run --no-progress=1

# No database location at all (UNDERLOAD_DB, HOME and XDG_DATA_HOME unset) is bad input.
for cmd in run list; do
	err=$(env -u HOME -u XDG_DATA_HOME -u UNDERLOAD_DB "$UL" $cmd 2>&1 >/dev/null)
	is "$?" 2 "$cmd without HOME, XDG_DATA_HOME, UNDERLOAD_DB or --db: exit 2"
	like "$err" "no default database location: set UNDERLOAD_DB, XDG_DATA_HOME or HOME" \
		"$cmd: says why"
done
# A user without the privileges --swap and --mem-limit need is refused up
# front (exit 2), before a swap file is written.
if [ "$(id -u)" = 0 ] && command -v setpriv >/dev/null && id nobody >/dev/null 2>&1; then
	chmod 0711 "$TMP"
	nb=$TMP/nobody
	mkdir -m 0700 "$nb" && chown nobody "$nb"
	for opt in "--swap 64M" "--mem-limit 64M"; do
		# shellcheck disable=SC2086 # $opt is an option and its value
		err=$(env -u UL_JOURNAL_DIR HOME="$nb" XDG_RUNTIME_DIR="$nb" \
			setpriv --reuid=nobody --regid=nogroup --clear-groups -- "$UL_REAL" run \
			--dir "$nb" --db "$nb/r.db" --no-progress --tests noload $opt 2>&1 >/dev/null)
		is "$?" 2 "non-root $opt: exit 2"
		like "$err" "${opt% *}: .*(CAP_SYS_ADMIN|needs root)" "non-root $opt: says what it needs"
		is "$(find "$nb" -mindepth 1 -name 'underload-*' | wc -l)" 0 "non-root $opt: nothing made"
	done
	chmod 0700 "$TMP"
else
	for _ in 1 2 3 4 5 6; do skip "needs root, setpriv and a 'nobody' user"; done
fi

is "$(scratch_left)" 0 "no scratch directory left behind"
is "$(ul_procs)" 0 "no process left behind"
done_testing

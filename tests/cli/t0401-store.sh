#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-or-later
# The store as a user meets it: list filters, hostile stored strings shown
# escaped one record a line, crafted rows, export/import round trips,
# hostile import files refused with nothing inserted, rm and relabel.
. "$(dirname "$0")/lib.bash"

runs() { sqlite3 "$1" "SELECT count(*) FROM runs"; }

"$UL" run "${TINY[@]}" --tests noload --label alpha >/dev/null 2>&1
ok $? "first run"
"$UL" run "${TINY[@]}" --tests noload,cpuload --label beta >/dev/null 2>&1
ok $? "second run"
is "$("$UL" list --db "$DB" | wc -l)" 3 "list: a header and two runs"
is "$("$UL" list --db "$DB" --label alpha | tail -n +2 | wc -l)" 1 "list --label"
is "$("$UL" list --db "$DB" --suite resp | tail -n +2 | wc -l)" 2 "list --suite"
is "$("$UL" list --db "$DB" --suite contest | tail -n +2 | wc -l)" 0 "list --suite of another suite"
is "$("$UL" list --db "$DB" --since 2000-01-01 --host "$(uname -n)" | tail -n +2 | wc -l)" 2 \
	"list --since DATE --host"
is "$("$UL" list --db "$DB" --since 1d | tail -n +2 | wc -l)" 2 "list --since AGE"
is "$("$UL" list --db "$DB" --since 2999-01-01 | tail -n +2 | wc -l)" 0 "list --since the future"
"$UL" list --db "$DB" --since yesterday >/dev/null 2>&1
is $? 2 "list --since with a bad value is a usage error"

# Reading never creates: a mistyped --db makes neither a directory nor a file.
out=$("$UL" list --db "$TMP/typo/results.db" 2>&1)
is $? 1 "list --db of a missing file fails"
like "$out" "no results database" "and says so"
ok "$([ ! -e "$TMP/typo" ]; echo $?)" "no directory was made"
mkfifo "$TMP/fifo"
like "$("$UL" list --db "$TMP/fifo" 2>&1)" "not a regular file" "a FIFO --db is refused by name"

# Hostile strings written straight into the file: ESC, OSC title, C1 CSI, BEL, CR, newlines.
sqlite3 "$DB" "UPDATE runs SET label = 'x' || char(27) || '[2J' || char(10) || 'y' ||
	char(155) || char(7) || char(13) || char(27) || ']0;pwned' || char(7) WHERE id = 1;
	UPDATE cells SET note = 'n' || char(27) || '[31m' || char(10) || 'z' WHERE id = 1"
list=$("$UL" list --db "$DB")
is "$(wc -l <<<"$list")" 3 "list: one line a run although a label holds newlines"
is "$(printf '%s' "$list" | LC_ALL=C grep -c $'[\x1b\x07\x0d]\|\xc2\x9b')" 0 \
	"list prints no control character"
like "$list" 'x\\x1b\[2J\\ny\\u009b\\x07\\r\\x1b\]0;pwned\\x07' "list shows the label escaped"
show=$("$UL" show --db "$DB" 1)
is $? 0 "show of the run with the hostile label"
is "$(printf '%s' "$show" | LC_ALL=C grep -c $'[\x1b\x07\x0d]\|\xc2\x9b')" 0 \
	"show prints no control character"
show_json=$("$UL" show --db "$DB" --format json 1)
ok $? "json of the hostile run"
# A status written by a newer version does not break list.
sqlite3 "$DB" "UPDATE runs SET status = 'wibbled' WHERE id = 2"
like "$("$UL" list --db "$DB")" " unknown " "an unknown status is listed as unknown"
sqlite3 "$DB" "UPDATE runs SET status = 'complete' WHERE id = 2"

# Run references: both kinds of bad reference are usage errors.
"$UL" show --db "$DB" abc >/dev/null 2>&1
is $? 2 "show abc exits 2"
"$UL" show --db "$DB" 999 >/dev/null 2>&1
is $? 2 "show 999 exits 2"
err=$("$UL" show --db "$DB" "$(head -c 100000 /dev/zero | tr '\0' x)" 2>&1 >/dev/null)
ok "$([ "$(wc -l <<<"$err")" = 1 ] && [ "${#err}" -lt 1500 ]; echo $?)" \
	"a 100 KB argument gives one short error line"
err=$("$UL" show --db "$DB" $'ab\e]0;t\ac' 2>&1 >/dev/null)
is "$(printf '%s' "$err" | LC_ALL=C grep -c $'[\x1b\x07]')" 0 "error messages escape control characters"

# A label no command accepts (written straight into the file) cannot be
# imported either (one label check for run, relabel and import).
"$UL" export --db "$DB" 1 -o "$TMP/hostile.json"
like "$("$UL" import --db "$TMP/hostile.db" "$TMP/hostile.json" 2>&1)" \
	"runs\[0\]\.label: may not contain control characters" "a hostile label is not imported"
sqlite3 "$DB" "UPDATE runs SET label = 'alpha' WHERE id = 1"

# Export, import into a fresh store: the same show output, byte for byte.
"$UL" export --db "$DB" -o "$TMP/all.json"
ok $? "export"
"$UL" import --db "$TMP/fresh.db" "$TMP/all.json" >/dev/null
ok $? "import into a fresh store"
for id in 1 2; do
	is "$("$UL" show --db "$TMP/fresh.db" "$id" | md5sum)" "$("$UL" show --db "$DB" "$id" | md5sum)" \
		"show $id is byte-identical after export and import"
	is "$("$UL" show --db "$TMP/fresh.db" --format json "$id" | md5sum)" \
		"$("$UL" show --db "$DB" --format json "$id" | md5sum)" "so is its JSON"
done
before=$(sqlite3 "$TMP/fresh.db" "SELECT count(*) FROM cell_samples")
like "$("$UL" import --db "$TMP/fresh.db" "$TMP/all.json")" ": 0 runs added" "importing twice adds nothing"
is "$(sqlite3 "$TMP/fresh.db" "SELECT count(*) FROM cell_samples")" "$before" "not a sample more"
"$UL" export --db "$DB" --format csv beta >"$TMP/beta.csv"
is "$(head -1 "$TMP/beta.csv")" $'run_uuid,label,host,suite,test,probe,metric,unit,index,value\r' \
	"csv header"
is "$(($(wc -l <"$TMP/beta.csv") - 1))" \
	"$(sqlite3 "$DB" "SELECT count(*) FROM cell_samples WHERE run_id = 2")" \
	"csv: one row per raw sample of the label's run"
"$UL" export --db "$DB" nosuchlabel >/dev/null 2>&1
is $? 2 "export of an unknown run or label is a usage error"

# UNDERLOAD_DB names the default store (what --db takes); --db wins over it.
is "$(UNDERLOAD_DB=$DB "$UL" list | tail -n +2 | wc -l)" 2 "UNDERLOAD_DB=PATH: list reads that store"
is "$(UNDERLOAD_DB=sqlite:$DB "$UL" list | tail -n +2 | wc -l)" 2 "UNDERLOAD_DB=sqlite:PATH too"
is "$(UNDERLOAD_DB=$TMP/other.db "$UL" list --db "$DB" | tail -n +2 | wc -l)" 2 "--db wins over it"
ok "$([ ! -e "$TMP/other.db" ]; echo $?)" "and the store it names is not made"
UNDERLOAD_DB=$TMP/env.db "$UL" import "$TMP/all.json" >/dev/null
ok $? "UNDERLOAD_DB=PATH: import writes there"
is "$(runs "$TMP/env.db")" 2 "both runs are in that store"
ok "$([ ! -e "$XDG_DATA_HOME/underload" ]; echo $?)" "the XDG default is not made"
like "$(UNDERLOAD_DB=sqlite:$TMP/env.db "$UL" __complete labels)" '^alpha$' \
	"completion reads the store UNDERLOAD_DB names"
like "$(UNDERLOAD_DB='' "$UL" list 2>&1)" "no results database '$XDG_DATA_HOME/underload/results.db'" \
	"an empty UNDERLOAD_DB is unset: the XDG default"

# Hostile files: refused with one line, nothing inserted.
refused() { # FILE DESCRIPTION
	local out
	out=$("$UL" import --db "$TMP/victim.db" "$1" 2>&1)
	is $? 1 "$2: refused"
	is "$(wc -l <<<"$out")" 1 "$2: one line"
	is "$(runs "$TMP/victim.db")" 0 "$2: nothing inserted"
}
"$UL" import --db "$TMP/victim.db" /dev/null >/dev/null 2>&1 # creates the store, empty
head -c 3000 "$TMP/all.json" >"$TMP/trunc.json"
refused "$TMP/trunc.json" "truncated file"
sed 's/"ncpu": \([0-9]*\)/"ncpu": "\1"/' "$TMP/all.json" >"$TMP/type.json"
refused "$TMP/type.json" "wrong type"
sed '0,/"ncpu": [0-9]*/s//"ncpu": 99999999999999999999999/' "$TMP/all.json" >"$TMP/huge.json"
refused "$TMP/huge.json" "huge number"
sed 's/"format_version": 1/"format_version": 7/' "$TMP/all.json" >"$TMP/version.json"
refused "$TMP/version.json" "wrong version"
# The second run broken, the first fine: the file is one transaction.
sed '0,/"outcome": "ok"/! s/"outcome": "ok"/"outcome": "boom"/' "$TMP/all.json" >"$TMP/half.json"
refused "$TMP/half.json" "one bad run of two"
{ printf '{"format":"underload-export","format_version":1,"runs":[],"pad":"'
  head -c 100000000 /dev/zero | tr '\0' a; printf '"}'; } >"$TMP/big.json"
refused "$TMP/big.json" "100 MB file"
rm -f "$TMP/big.json"

# rm and relabel.
"$UL" rm --db "$DB" 1 </dev/null >/dev/null 2>&1
is $? 2 "rm off a terminal without --yes is refused"
is "$(runs "$DB")" 2 "and deleted nothing"
like "$("$UL" rm --db "$DB" --yes 1)" "deleted run 1" "rm --yes"
is "$(runs "$DB")" 1 "one run left"
is "$(sqlite3 "$DB" "SELECT count(*) FROM series s LEFT JOIN cells c ON c.id = s.cell_id
	WHERE c.id IS NULL")" 0 "its series and samples went with it"
"$UL" rm --db "$DB" --yes 999 >/dev/null 2>&1
is $? 2 "rm of a missing run is a usage error"
"$UL" relabel --db "$DB" last gamma >/dev/null
ok $? "relabel"
is "$("$UL" list --db "$DB" --label gamma | tail -n +2 | wc -l)" 1 "the run carries its new label"
"$UL" relabel --db "$DB" last $'bad\nlabel' >/dev/null 2>&1
is $? 2 "a label with a control character is refused"
"$UL" run "${TINY[@]}" --tests noload --label "$(printf 'é%.0s' {1..64})" >/dev/null 2>&1
is $? 2 "--label counts bytes: 64 two-byte characters are too many"
done_testing

#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-or-later
# Series stored as packed BLOBs (schema 4).  t0410/v3.sql is a store the
# previous release (schema 3, one row per sample) wrote: a tiny real resp
# run and an imported run with edge values and an empty series;
# t0410/export.json is that release's `export` of it.  Built with the
# sqlite3 shell, it is read as it is (read-only, no migration), migrated
# by the first write, and must then show every run byte-identical in
# `show --format json` and export exactly what the previous release did;
# the view cell_samples gives the same rows, one per sample, in the plain
# shell.  A store it cannot migrate (a gap in a series) is left as it was,
# and a newer schema is still refused.
. "$(dirname "$0")/lib.bash"
FIX=$(dirname "$0")/t0410

version() { sqlite3 "$1" "PRAGMA user_version"; }
# Every sample through the view, in a fixed order.
view_rows() {
	sqlite3 "$1" "SELECT run_id, seq, suite, load, probe, series, idx, value FROM cell_samples
		ORDER BY run_id, seq, series, idx"
}

sqlite3 "$DB" <"$FIX/v3.sql"
is "$(version "$DB")" 3 "the fixture is a schema-3 store"
rows=$(sqlite3 "$DB" "SELECT count(*) FROM samples")
ids=$(sqlite3 "$DB" "SELECT group_concat(id, ' ') FROM (SELECT id FROM runs ORDER BY id)")
is "$ids" "1 2" "with two runs"
view_rows "$DB" >"$TMP/view-before"

# Read as it is: reading never migrates.
for id in $ids; do
	"$UL" show --db "$DB" --format json "$id" >"$TMP/show-$id.json"
	ok $? "show --format json $id of the schema-3 store"
done
"$UL" export --db "$DB" -o "$TMP/export-before.json"
cmp -s "$TMP/export-before.json" "$FIX/export.json"
ok $? "export of it is byte-identical to the previous release's"
is "$(version "$DB")" 3 "reading left it at schema 3"

# The first write migrates it (importing its own export adds nothing).
like "$("$UL" import --db "$DB" "$FIX/export.json")" ": 0 runs added" "a write opens it"
is "$(version "$DB")" 4 "migrated to schema 4"
is "$(sqlite3 "$DB" "SELECT count(*) FROM sqlite_master WHERE name = 'samples'")" 0 \
	"the table of one row per sample is gone"
is "$(sqlite3 "$DB" "SELECT sum(length(packed)) / 8, sum(n) FROM series")" "$rows|$rows" \
	"every sample is in a packed series, 8 bytes each"
is "$(sqlite3 "$DB" "PRAGMA integrity_check")" ok "integrity ok"
for id in $ids; do
	"$UL" show --db "$DB" --format json "$id" >"$TMP/after-$id.json"
	cmp -s "$TMP/show-$id.json" "$TMP/after-$id.json"
	ok $? "run $id: show --format json byte-identical after the migration"
done
"$UL" export --db "$DB" -o "$TMP/export-after.json"
cmp -s "$TMP/export-after.json" "$FIX/export.json"
ok $? "and export is still the previous release's, byte for byte"

# The view: one row per sample, decoded in the plain sqlite3 shell.
is "$(sqlite3 "$DB" "SELECT count(*) FROM cell_samples")" "$rows" "the view: one row per sample"
view_rows "$DB" >"$TMP/view-after"
cmp -s "$TMP/view-before" "$TMP/view-after"
ok $? "the same rows (run, cell, series, index, value) as before"
is "$(sqlite3 "$DB" "SELECT group_concat(value) FROM (SELECT value FROM cell_samples
	WHERE run_id = 2 AND series = 'edge' ORDER BY idx)")" \
	"0,-1,1,-9223372036854775808,9223372036854775807,255,256,-256,72623859790382856" \
	"edge values decode exactly, sign and all"
is "$(sqlite3 "$DB" "SELECT count(*) FROM cell_samples WHERE series = 'empty'")" 0 \
	"an empty series has no rows"
is "$(sqlite3 "$DB" "SELECT n, length(packed) FROM series WHERE name = 'empty'")" "0|0" \
	"and is kept, empty"

# New writes are packed too, and read back the same.
"$UL" import --db "$TMP/fresh.db" "$FIX/export.json" >/dev/null
ok $? "the same runs imported into a new store"
for id in $ids; do
	"$UL" show --db "$TMP/fresh.db" --format json "$id" | cmp -s - "$TMP/show-$id.json"
	ok $? "run $id: show --format json the same from a new store"
done

# A series the migration cannot pack (a gap in its indices): refused, untouched.
sqlite3 "$TMP/gap.db" <"$FIX/v3.sql"
sqlite3 "$TMP/gap.db" "DELETE FROM samples WHERE idx = 1 AND series_id = (SELECT min(series_id)
	FROM samples)"
out=$("$UL" import --db "$TMP/gap.db" "$FIX/export.json" 2>&1)
is $? 1 "a store with a gap in a series is not migrated"
like "$out" "cannot upgrade .* to schema version 4: series [0-9]+ cannot be packed: a gap in its sample indices" \
	"one line says which series and why"
is "$(version "$TMP/gap.db")|$(sqlite3 "$TMP/gap.db" "SELECT count(*) FROM samples")" \
	"3|$((rows - 1))" "the store is left as it was"

# A newer schema is still refused, by readers and writers, and not touched.
cp "$DB" "$TMP/future.db"
sqlite3 "$TMP/future.db" "PRAGMA user_version = 5"
out=$("$UL" show --db "$TMP/future.db" 1 2>&1)
is $? 1 "show of a schema-5 store fails"
like "$out" "schema version 5, newer than this underload understands \\(4\\)" "and says why"
"$UL" import --db "$TMP/future.db" "$FIX/export.json" >/dev/null 2>&1
is $? 1 "a write to it fails too"
is "$(version "$TMP/future.db")" 5 "it stays at schema 5"

done_testing

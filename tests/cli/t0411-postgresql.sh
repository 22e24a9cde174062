#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-or-later
# The PostgreSQL store as a user meets it: run, list, show, compare,
# export, rm and relabel on `--db postgresql://...` and push into it, the same results as
# the SQLite store; the two dialects make the same tables and columns; 8
# writers at once lose and double nothing; a writer killed inside its
# transaction leaves nothing of it; bad URIs, an unreachable server, a
# wrong password and a newer schema each give one line.  Needs a
# database in UL_TEST_PG_URI (tests/pg-cluster start); this test works in
# a schema of its own there, dropped at the end.
. "$(dirname "$0")/lib.bash"
. "$(dirname "$0")/pg.bash"

schema=ul_t0411_$$
PG=$(pg_in_schema "$schema")
sql() { psql_on "$PG" "$1"; }
psql_on "$UL_TEST_PG_URI" "CREATE SCHEMA $schema; CREATE SCHEMA ${schema}_x;" ||
	{ echo "1..0 # SKIP cannot create a schema in $UL_TEST_PG_URI"; exit 0; }
trap 'psql_on "$UL_TEST_PG_URI" "DROP SCHEMA IF EXISTS $schema, ${schema}_x, ${schema}_pw, ${schema}_push CASCADE" \
	>/dev/null 2>&1; rm -rf "$TMP"' EXIT

# The run options of lib.bash with the store on PostgreSQL.
PGRUN=("${TINY[@]}")
for i in "${!PGRUN[@]}"; do [ "${PGRUN[$i]}" = --db ] && PGRUN[$((i + 1))]=$PG; done

# ---- the commands ----
"$UL" run "${PGRUN[@]}" --tests noload --label alpha >/dev/null 2>"$TMP/err"
ok $? "run into PostgreSQL" || diag "$(cat "$TMP/err")"
"$UL" run "${PGRUN[@]}" --tests noload,cpuload --label beta >/dev/null 2>&1
ok $? "a second run"
is "$("$UL" list --db "$PG" | wc -l)" 3 "list: a header and two runs"
is "$("$UL" list --db "$PG" --label beta | tail -n +2 | wc -l)" 1 "list --label"
like "$("$UL" list --db "$PG")" ' complete ' "the runs are complete"
is "$(sql "SELECT count(*) FROM cells")" 3 "one row a cell"
is "$(sql "SELECT count(*) FROM cell_samples")" "$(sql "SELECT sum(n) FROM series")" \
	"the view gives one row a sample"
is "$(sql "SELECT count(*) FROM series WHERE length(packed) <> 8 * n")" 0 \
	"each series is n packed int64s"
storage() { sql "SELECT attstorage FROM pg_attribute WHERE attrelid = 'series'::regclass
	AND attname = 'packed'"; }
is "$(storage)" e "series are stored as they are, not compressed (STORAGE EXTERNAL)"
sql "ALTER TABLE series ALTER COLUMN packed SET STORAGE EXTENDED"
"$UL" list --db "$PG" >/dev/null
is "$(storage)" x "a reader leaves a database's storage as it is"
"$UL" relabel --db "$PG" beta beta >/dev/null
is "$(storage)" e "a writer sets it"
"$UL" show --db "$PG" last >"$TMP/show.txt" 2>&1
ok $? "show the last run"
"$UL" compare --db "$PG" alpha beta >"$TMP/cmp.txt" 2>&1
ok $? "compare two labels"
like "$(cat "$TMP/cmp.txt")" 'noload' "compare names the test"

# Export from PostgreSQL, import into SQLite: every run shows the same.
"$UL" export --db "$PG" -o "$TMP/all.json"
ok $? "export from PostgreSQL"
"$UL" import --db "$TMP/fresh.db" "$TMP/all.json" >/dev/null
ok $? "import into SQLite"
same=0
for uuid in $(sql "SELECT uuid FROM runs"); do
	cmp -s <("$UL" show --db "$PG" --format json "$uuid") \
		<("$UL" show --db "$TMP/fresh.db" --format json "$uuid") || same=1
done
ok $same "show --format json is byte-identical on both stores"
cmp -s <("$UL" export --db "$PG" --format csv alpha) \
	<("$UL" export --db "$TMP/fresh.db" --format csv alpha)
ok $? "export --format csv is byte-identical on both stores"
like "$("$UL" import --db "$PG" "$TMP/all.json")" ": 0 runs added" \
	"importing what is there adds nothing"
# UNDERLOAD_DB names the store for every command, a URL as well as a path.
is "$(UNDERLOAD_DB=$PG "$UL" list | tail -n +2 | wc -l)" "$(sql "SELECT count(*) FROM runs")" \
	"UNDERLOAD_DB=URL: list reads the PostgreSQL store"

alpha=$(sql "SELECT uuid FROM runs WHERE label = 'alpha'")
"$UL" relabel --db "$PG" "$alpha" gamma >/dev/null
ok $? "relabel"
is "$("$UL" list --db "$PG" --label gamma | tail -n +2 | wc -l)" 1 "the new label is listed"
"$UL" rm --db "$PG" --yes "${alpha:0:8}" >/dev/null
ok $? "rm"
is "$(sql "SELECT count(*) FROM runs")" 1 "one run left"
is "$(sql "SELECT count(*) FROM deleted_runs")" 1 "and the deleted one recorded"

# ---- the two dialects agree: tables and views, their columns ----
"$UL" import --db "$TMP/schema.db" /dev/null >/dev/null 2>&1 # an empty store
sq_cols=$(sqlite3 "$TMP/schema.db" "SELECT m.name || '.' || p.name FROM sqlite_master m,
	pragma_table_info(m.name) p WHERE m.type IN ('table', 'view')
	AND m.name NOT LIKE 'sqlite\_%' ESCAPE '\'" | LC_ALL=C sort)
pg_cols=$(sql "SELECT table_name || '.' || column_name FROM information_schema.columns
	WHERE table_schema = '$schema' AND table_name <> 'underload_schema'" | LC_ALL=C sort)
is "$pg_cols" "$sq_cols" "PostgreSQL and SQLite have the same tables and columns"
is "$(sql "SELECT version FROM underload_schema")" \
	"$(sqlite3 "$TMP/schema.db" "PRAGMA user_version")" "at the same schema version"

# ---- 8 writers at once ----
# Eight runs of the export's shape, each with a UUID of its own, and one
# that all eight write: every writer imports its own and the shared one.
src=$(sql "SELECT uuid FROM runs")
"$UL" export --db "$PG" "$src" -o "$TMP/one.json"
for w in 1 2 3 4 5 6 7 8 9; do
	sed "s/$src/0000000$w-${src:9}/g" "$TMP/one.json" >"$TMP/w$w.json"
done
psql_on "$UL_TEST_PG_URI" "CREATE SCHEMA ${schema}_pw" >/dev/null
W=$(pg_in_schema "${schema}_x")
pids=()
for w in 1 2 3 4 5 6 7 8; do
	{ "$UL" import --db "$W" "$TMP/w$w.json" "$TMP/w9.json" &&
		"$UL" import --db "$W" "$TMP/w9.json" "$TMP/w$w.json"; } >"$TMP/w$w.out" 2>&1 &
	pids+=($!)
done
bad=0
for p in "${pids[@]}"; do wait "$p" || bad=$((bad + 1)); done
is "$bad" 0 "8 concurrent writers all succeed"
[ "$bad" = 0 ] || diag "$(cat "$TMP"/w?.out)"
per_run=$(sql "SELECT sum(s.n) FROM series s JOIN cells c ON c.id = s.cell_id")
x() { psql_on "$W" "$1"; }
is "$(x "SELECT count(*) FROM runs")" 9 "9 runs: 8 own and 1 shared"
is "$(x "SELECT count(*) FROM cell_samples")" $((9 * per_run)) "every sample arrived exactly once"
is "$(x "SELECT count(*) FROM (SELECT run_id, seq FROM cells GROUP BY 1, 2
	HAVING count(*) > 1) d")" 0 "no cell twice"
diff <("$UL" show --db "$PG" --format json "$src" | sed "s/$src/x/g; s/\"id\": [0-9]*/id/") \
	<("$UL" show --db "$W" --format json "00000009-${src:9}" |
		sed "s/00000009-${src:9}/x/g; s/\"id\": [0-9]*/id/") >"$TMP/diff" 2>&1
ok $? "the shared run is whole" || diag "$(head -n 5 "$TMP/diff")"

# ---- a writer killed inside its transaction ----
# A trigger stalls the insert of one metric (of the killed writer's
# second cell), so the writer is held inside its transaction with rows
# already written; it is killed there.
x "CREATE FUNCTION stall() RETURNS trigger LANGUAGE plpgsql AS
	\$\$BEGIN PERFORM pg_sleep(60); RETURN NEW; END\$\$;
	CREATE TRIGGER stall BEFORE INSERT ON metrics FOR EACH ROW
	WHEN (NEW.name = 'ul_stall') EXECUTE FUNCTION stall()" >/dev/null
python3 - "$TMP/w1.json" "$TMP/kill.json" <<'EOF'
import json, sys
d = json.load(open(sys.argv[1]))
run = d["runs"][0]
run["uuid"] = "deadbeef" + run["uuid"][8:]
cell = run["cells"][-1]
m = cell.get("metrics")
if isinstance(m, dict):
    m["ul_stall"] = 1
else:
    m.append({"name": "ul_stall", "value": 1})
json.dump(d, open(sys.argv[2], "w"))
EOF
before=$(x "SELECT count(*) FROM cells"),$(x "SELECT count(*) FROM series")
"$UL" import --db "$W&application_name=ul_t0411_killed" "$TMP/kill.json" >/dev/null 2>&1 &
killed=$!
for _ in $(seq 100); do
	[ "$(x "SELECT count(*) FROM pg_stat_activity WHERE application_name = 'ul_t0411_killed'
		AND wait_event = 'PgSleep'")" = 1 ] && break
	sleep 0.1
done
is "$(x "SELECT count(*) FROM pg_stat_activity WHERE application_name = 'ul_t0411_killed'
	AND state = 'active'")" 1 "the writer is inside its transaction"
kill -9 "$killed"
wait "$killed" 2>/dev/null
# The server learns of the dead client when its stall ends; end it now.
x "SELECT count(pg_terminate_backend(pid)) FROM pg_stat_activity
	WHERE application_name = 'ul_t0411_killed'" >/dev/null
for _ in $(seq 50); do
	[ "$(x "SELECT count(*) FROM pg_stat_activity WHERE application_name = 'ul_t0411_killed'")" = 0 ] && break
	sleep 0.1
done
is "$(x "SELECT count(*) FROM runs WHERE uuid LIKE 'deadbeef%'")" 0 "the killed writer left no run"
is "$(x "SELECT count(*) FROM cells")","$(x "SELECT count(*) FROM series")" "$before" \
	"and no cell or series of it"

# ---- push: the SQLite store's runs into PostgreSQL, twice, and after a cut ----
psql_on "$UL_TEST_PG_URI" "CREATE SCHEMA ${schema}_push" >/dev/null
P=$(pg_in_schema "${schema}_push")
first=$(sqlite3 "$TMP/fresh.db" "SELECT uuid FROM runs ORDER BY started_wall_ns LIMIT 1")
like "$("$UL" push --db "$TMP/fresh.db" --to "$P" "$first")" "^1 run pushed, 1 added" \
	"push one run (as if cut off after it)"
like "$("$UL" push --db "$TMP/fresh.db" --to "$P")" "^2 runs pushed, 1 added" \
	"push all: only the missing run is added"
like "$("$UL" push --db "$TMP/fresh.db" --to "$P")" "^2 runs pushed, 0 added" \
	"push again: nothing changes"
same=0
for uuid in $(sqlite3 "$TMP/fresh.db" "SELECT uuid FROM runs"); do
	cmp -s <("$UL" show --db "$P" --format json "$uuid" | sed 's/"id": [0-9]*/id/') \
		<("$UL" show --db "$TMP/fresh.db" --format json "$uuid" | sed 's/"id": [0-9]*/id/') ||
		same=1
done
ok $same "every pushed run shows the same as at home"
"$UL" push --db "$TMP/fresh.db" >/dev/null 2>&1
is $? 2 "push without --to is a usage error"
psql_on "$UL_TEST_PG_URI" "DROP SCHEMA ${schema}_push CASCADE" >/dev/null

# ---- one line for each error ----
one_line "a password in the URI" "refusing a password.*pgpass" \
	"$UL" list --db "postgresql://ul:secret@localhost/x"
is "$("$UL" list --db "postgresql://ul:secret@localhost/x" 2>&1 | grep -c secret)" 0 \
	"the password is not repeated"
one_line "a bad connection string" "bad PostgreSQL connection string" \
	"$UL" list --db "postgresql://localhost/x?nosuchoption=1"
one_line "an unreachable server" "cannot connect to the PostgreSQL store: .*$TMP/nowhere" \
	"$UL" list --db "postgresql:///x?host=$TMP/nowhere"
# Passwords: the role ul_pw of tests/pg-cluster logs in with "right" only.
if [ "$(psql_on "$UL_TEST_PG_URI" "SELECT count(*) FROM pg_roles WHERE rolname = 'ul_pw'")" = 1 ] &&
	[[ $UL_TEST_PG_URI == *user=postgres* ]]; then
	pw=$(pg_in_schema "${schema}_pw")
	pw=${pw/user=postgres/user=ul_pw}
	psql_on "$UL_TEST_PG_URI" "GRANT ALL ON SCHEMA ${schema}_pw TO ul_pw" >/dev/null
	one_line "a wrong password" "login refused: .*password authentication failed" \
		env PGPASSWORD=wrong PGPASSFILE="$TMP/no-pgpass" "$UL" list --db "$pw"
	one_line "no password at all" "wants a password and none was found" \
		env -u PGPASSWORD PGPASSFILE="$TMP/no-pgpass" "$UL" list --db "$pw"
	PGPASSWORD=right "$UL" import --db "$pw" "$TMP/w1.json" >/dev/null 2>"$TMP/err"
	ok $? "the right password, from PGPASSWORD" || diag "$(cat "$TMP/err")"
	printf '*:*:*:ul_pw:right\n' >"$TMP/pgpass"
	chmod 600 "$TMP/pgpass"
	is "$(env -u PGPASSWORD PGPASSFILE="$TMP/pgpass" "$UL" list --db "$pw" | tail -n +2 |
		wc -l)" 1 "the right password, from a password file"
	host=${UL_TEST_PG_URI#*host=}
	host=${host%%&*}
	printf '[ul_t0411]\nhost=%s\ndbname=%s\nuser=ul_pw\noptions=-csearch_path=%s\n' "$host" \
		"$(psql_on "$UL_TEST_PG_URI" "SELECT current_database()")" "${schema}_pw" \
		>"$TMP/service"
	is "$(env -u PGPASSWORD PGPASSFILE="$TMP/pgpass" PGSERVICEFILE="$TMP/service" \
		"$UL" list --db "postgresql:///?service=ul_t0411" | tail -n +2 | wc -l)" 1 \
		"a service name"
else
	for _ in 1 2 3 4 5 6 7; do
		skip "no role ul_pw with a password here (tests/pg-cluster makes one)"
	done
fi
sql "UPDATE underload_schema SET version = 99"
one_line "a newer schema" "schema version 99, newer than this underload understands" \
	"$UL" list --db "$PG"
is "$(sql "SELECT count(*) FROM runs")" 1 "the newer store is left as it was"
done_testing

#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-or-later
# A PostgreSQL server that goes away under `run --db postgresql://...`:
# the server is stopped (immediate shutdown) after the first cell is
# stored; the run measures on, keeps the cells it cannot store, ends with
# one error line naming the recovery file and the command that loads it;
# once the server is back that command stores every cell exactly once (a
# second time nothing).  And the errors met before a run or a push
# measures or copies anything: one line each, nothing local changed.
# Needs the throwaway cluster of tests/pg-cluster in UL_TEST_PG_URI (the
# test stops and starts its server); works in a schema of its own there.
. "$(dirname "$0")/lib.bash"
. "$(dirname "$0")/pg.bash"
# The cluster of tests/pg-cluster: its socket directory holds data/.
cluster=${UL_TEST_PG_URI#*host=}
cluster=${cluster%%&*}
pg_ctl=$(ls -d /usr/lib/postgresql/*/bin/pg_ctl 2>/dev/null | sort -V | tail -n 1)
if [[ $UL_TEST_PG_URI != *host=/tmp/ul-pg.* ]] || [ ! -f "$cluster/data/postmaster.pid" ] ||
	[ -z "$pg_ctl" ]; then
	echo "1..0 # SKIP UL_TEST_PG_URI is not a running cluster of tests/pg-cluster (its server is stopped here)"
	exit 0
fi
as_owner() { if [ "$(id -u)" = 0 ]; then runuser -u postgres -- "$@"; else "$@"; fi; }
server_start() {
	[ -f "$cluster/data/postmaster.pid" ] ||
		as_owner "$pg_ctl" -D "$cluster/data" -l "$cluster/server.log" -w -t 60 start >/dev/null
}

schema=ul_t0413_$$
PG=$(pg_in_schema "$schema")
sql() { psql_on "$PG" "$1"; }
psql_on "$UL_TEST_PG_URI" "CREATE SCHEMA $schema" ||
	{ echo "1..0 # SKIP cannot create a schema in $UL_TEST_PG_URI"; exit 0; }
# The server is always left running, the schema and any recovery file removed.
rec=
trap 'server_start; psql_on "$UL_TEST_PG_URI" "DROP SCHEMA IF EXISTS $schema CASCADE" \
	>/dev/null 2>&1; [ -z "$rec" ] || rm -f "$rec"; rm -rf "$TMP"' EXIT

PGRUN=("${TINY[@]}")
for i in "${!PGRUN[@]}"; do [ "${PGRUN[$i]}" = --db ] && PGRUN[$((i + 1))]=$PG; done

# ---- the server stops after the first cell ----
# Six cells (two tests, three rounds): five are measured with no server.
"$UL" run "${PGRUN[@]}" --tests noload,cpuload --runs 3 --label away \
	--format "json=$TMP/local.json" >/dev/null 2>"$TMP/err" &
runner=$!
for _ in $(seq 600); do
	[ "$(sql "SELECT count(*) FROM cells" 2>/dev/null)" -ge 1 ] 2>/dev/null && break
	sleep 0.1
done
is "$(sql "SELECT count(*) FROM cells")" 1 "the first cell is stored"
# -m fast: the test cluster runs with synchronous_commit off, so an
# immediate stop (a crash) may lose the first cell's committed transaction.
as_owner "$pg_ctl" -D "$cluster/data" -m fast -w stop >/dev/null
ok $? "the server is stopped mid-run"
wait "$runner"
is $? 1 "the run ends with an error"
err=$(grep '^error:' "$TMP/err")
is "$(wc -l <<<"$err")" 1 "one error line" || diag "$(cat "$TMP/err")"
like "$err" "^error: 5 cells of run [0-9a-f-]{36} could not be stored; the whole run is saved in '/var/tmp/underload-recovery-[^']*\.json': load it with: underload import --db '[^']*' /var/tmp/" \
	"it says how many cells, where they are kept and how to load them"
rec=$(grep -o "/var/tmp/underload-recovery-[^']*\.json" <<<"$err" | head -n 1)
is "$(stat -c %a "$rec" 2>&1)" 600 "the recovery file is there, ours only"
ok "$([ -s "$TMP/local.json" ]; echo $?)" "the run's output is written all the same"
is "$(ul_procs)" 0 "no process left"
is "$(scratch_left)" 0 "no scratch directory left"

# ---- the server is back: the hinted command stores every cell once ----
server_start
ok $? "the server starts again"
is "$(sql "SELECT count(*) FROM cells"),$(sql "SELECT status FROM runs")" "1,running" \
	"the store holds the first cell of a run still running"
cmd=${err#*load it with: }
out=$(eval "\"\$UL\"${cmd#underload}" 2>&1)
ok $? "the hinted command loads the recovery file" || diag "$out"
like "$out" ": 1 run added or completed" "and completes the run"
like "$(eval "\"\$UL\"${cmd#underload}")" ": 0 runs added" "a second time changes nothing"
is "$(sql "SELECT count(*), count(DISTINCT seq) FROM cells"),$(sql "SELECT status FROM runs")" \
	"6|6,complete" "six cells, each once, and the run complete"
uuid=$(sql "SELECT uuid FROM runs")
"$UL" show --db "$PG" --format json "$uuid" >"$TMP/stored.json"
diff <(sed 's/"id": [0-9]*/id/' "$TMP/local.json") <(sed 's/"id": [0-9]*/id/' "$TMP/stored.json") \
	>"$TMP/diff" 2>&1
ok $? "the stored run is the run as measured, every sample once" || diag "$(head "$TMP/diff")"
is "$(sql "SELECT count(*) FROM cell_samples")" \
	"$(python3 -c 'import json, sys
print(sum(len(v) for c in json.load(open(sys.argv[1]))["cells"] for v in c["series"].values()))' \
		"$TMP/local.json")" "as many samples in the database as in the local copy"

# ---- errors before anything is measured or copied: one line, nothing changed ----
bad_run() { # bad_run URI: a run into it, with the rest of PGRUN
	local args=("${PGRUN[@]}")
	for i in "${!args[@]}"; do [ "${args[$i]}" = "$PG" ] && args[$i]=$1; done
	"$UL" run "${args[@]}" --tests noload
}
one_line "run into a bad connection string" "bad PostgreSQL connection string" \
	bad_run "postgresql://localhost/x?nosuchoption=1"
one_line "run into an unreachable server" "cannot connect to the PostgreSQL store: .*$TMP/nowhere" \
	bad_run "postgresql:///x?host=$TMP/nowhere"
sql "UPDATE underload_schema SET version = 99"
one_line "run into a newer schema" "schema version 99, newer than this underload understands" \
	bad_run "$PG"
is "$(ul_procs),$(scratch_left)" "0,0" "no process or scratch directory left by them"
# push: the local store is left as it was, the target untouched.
"$UL" import --db "$DB" "$rec" >/dev/null
before=$(sqlite3 "$DB" "SELECT count(*) FROM cells")
one_line "push to a newer schema" "schema version 99, newer" "$UL" push --db "$DB" --to "$PG"
one_line "push to an unreachable server" "cannot connect to the PostgreSQL store" \
	"$UL" push --db "$DB" --to "postgresql:///x?host=$TMP/nowhere"
if [ "$(psql_on "$UL_TEST_PG_URI" "SELECT count(*) FROM pg_roles WHERE rolname = 'ul_pw'")" = 1 ] &&
	[[ $UL_TEST_PG_URI == *user=postgres* ]]; then
	one_line "push with a wrong password" "login refused: .*password authentication failed" \
		env PGPASSWORD=wrong PGPASSFILE="$TMP/no-pgpass" \
		"$UL" push --db "$DB" --to "${PG/user=postgres/user=ul_pw}"
else
	skip "no role ul_pw with a password here (tests/pg-cluster makes one)"
	skip "no role ul_pw with a password here"
fi
is "$(sqlite3 "$DB" "SELECT count(*) FROM cells"),$(sql "SELECT count(*) FROM cells")" \
	"$before,6" "the local store and the target are as they were"
done_testing

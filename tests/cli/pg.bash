# SPDX-License-Identifier: GPL-2.0-or-later
# What the PostgreSQL tests share (t0411-postgresql.sh,
# t0413-pg-serveraway.sh); sourced after lib.bash.  Skips the whole file,
# saying why, unless UL_TEST_PG_URI names a database (tests/pg-cluster
# start prints one), this underload has the PostgreSQL store built in and
# psql is there to look into the database.
if [ -z "${UL_TEST_PG_URI:-}" ]; then
	echo "1..0 # SKIP UL_TEST_PG_URI is unset (tests/pg-cluster start prints one)"
	exit 0
fi
if ! "$UL" --version | grep -Eq '^stores:.* postgresql( |$)'; then
	echo "1..0 # SKIP this underload is built without PostgreSQL (-Dpostgresql)"
	exit 0
fi
if ! command -v psql >/dev/null; then
	echo "1..0 # SKIP no psql (postgresql-client) to look into the database"
	exit 0
fi

# A URI of the test database whose tables live in schema $1.
pg_in_schema() {
	local sep='?'
	[[ $UL_TEST_PG_URI == *\?* ]] && sep='&'
	echo "$UL_TEST_PG_URI${sep}options=-csearch_path%3D$1"
}
# psql_on URI SQL: run SQL there, unaligned, tuples only, stop at an error.
psql_on() { psql -X -q -At -v ON_ERROR_STOP=1 -d "$1" -c "$2"; }
# one_line DESCRIPTION REGEX COMMAND...: the command exits 1 with one line
# on stderr matching REGEX (three TAP lines).
one_line() { # one_line DESCRIPTION REGEX COMMAND...: exit 1, one line matching REGEX
	local what=$1 re=$2 err rc
	shift 2
	err=$("$@" 2>&1 >/dev/null)
	rc=$?
	ok "$([ "$rc" = 1 ] && [ "$(wc -l <<<"$err")" = 1 ]; echo $?)" "$what: exit 1 and one line"
	[ "$rc" = 1 ] && [ "$(wc -l <<<"$err")" = 1 ] || diag "exit $rc: $err"
	like "$err" "$re" "$what: says why"
}

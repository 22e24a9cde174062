#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-or-later
# How t0410's fixture was made, with a build of the last release with
# schema 3 (main at 2e61e1c): a tiny real resp run, and an imported run
# with edge values and an empty series, dumped with the sqlite3 shell
# (plus the two PRAGMAs a dump leaves out), and that release's export.
#   usage: tests/cli/t0410/make-fixture.sh UNDERLOAD_OF_SCHEMA_3
set -euo pipefail
UL=$(realpath "$1")
HERE=$(dirname "$(realpath "$0")")
T=$(mktemp -d /tmp/ul-t0410.XXXXXX)
trap 'rm -rf "$T"' EXIT
DB=$T/v3.db
"$UL" run --db "$DB" --dir "$T" --no-progress --tests noload --interval 100ms --min-points 5 \
	--max-points 5 -o resp.working-set=4M -o resp.files=20 --label v3-real >/dev/null
"$UL" export --db "$DB" -o "$T/one.json" v3-real
python3 - "$T/one.json" "$T/edge.json" <<'PY'
import json, sys
doc = json.load(open(sys.argv[1]))
run = doc["runs"][0]
run["uuid"], run["label"] = "0f1e2d3c-4b5a-4978-8695-a4b3c2d1e0f0", "v3-edge"
cell = run["cells"][0]
# After the cell's own series: the first stays the measurement shown.
cell["series"] += [
    {"name": "edge", "values": [0, -1, 1, -2**63, 2**63 - 1, 255, 256, -256, 0x0102030405060708]},
    {"name": "empty", "values": []},
    {"name": "one", "values": [42]},
]
run["cells"] = [cell]
json.dump(doc, open(sys.argv[2], "w"))
PY
"$UL" import --db "$DB" "$T/edge.json" >/dev/null
[ "$(sqlite3 "$DB" "PRAGMA user_version")" = 3 ] || { echo "not a schema-3 build" >&2; exit 1; }
{
	echo "-- A store written by underload at schema 3 (tests/cli/t0410/make-fixture.sh)."
	sqlite3 "$DB" .dump
	echo "PRAGMA application_id = $(sqlite3 "$DB" "PRAGMA application_id");"
	echo "PRAGMA user_version = 3;"
} >"$HERE/v3.sql"
"$UL" export --db "$DB" -o "$HERE/export.json"

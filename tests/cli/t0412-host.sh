#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-or-later
# --host on list, show, compare, export and report, and compare of one
# label across hosts, over a fleet's store: two runs measured here,
# exported, and imported again as the runs of three hosts (boxa, boxb,
# boxc: new UUIDs, the host field edited; boxb a later hour on other
# hardware, boxc a changed sysctl, and a label only boxa has).  The same
# checks run on PostgreSQL when UL_TEST_PG_URI names a database.
. "$(dirname "$0")/lib.bash"

"$UL" run "${TINY[@]}" --tests noload --label v1 >/dev/null 2>"$TMP/err"
ok $? "a run labelled v1" || diag "$(cat "$TMP/err")"
"$UL" run "${TINY[@]}" --tests noload --label v2 >/dev/null 2>"$TMP/err"
ok $? "a run labelled v2" || diag "$(cat "$TMP/err")"
"$UL" export --db "$DB" -o "$TMP/here.json"
ok $? "export them"

# ids once imported: boxa v1 1, v2 2, onlya 3; boxb v1 4, v2 5; boxc v1 6, v2 7
python3 - "$TMP/here.json" "$TMP/fleet.json" <<'PY'
import copy, json, sys, uuid
d = json.load(open(sys.argv[1]))
v1, v2 = sorted(d["runs"], key=lambda r: r["started_ns"])
out = []
for hour, (host, runs) in enumerate([("boxa", [v1, v2, v1]), ("boxb", [v1, v2]), ("boxc", [v1, v2])]):
    for i, r in enumerate(runs):
        c = copy.deepcopy(r)
        c["uuid"] = str(uuid.uuid4())
        c["host"]["hostname"] = host
        # a minute apart on a host, each host an hour after the last
        c["started_ns"] = v1["started_ns"] + hour * 3600 * 10**9 + i * 60 * 10**9
        c["finished_ns"] = c["started_ns"] + r["finished_ns"] - r["started_ns"]
        if i == 2:
            c["label"] = "onlya"
        if host != "boxb":  # a CPU name with parentheses, as many are
            c["fingerprint"]["cpu"]["model"] = "Test(R) CPU(TM) @ 2.00GHz"
        if host == "boxb":  # other hardware
            c["fingerprint"]["cpu"]["model"] = "Other CPU 9000"
            c["fingerprint"]["memory"]["ram_kb"] = 1000
        if host == "boxc":  # a setting differs
            c["fingerprint"]["sysctl"]["vm.swappiness"] = "1" if c["fingerprint"]["sysctl"].get("vm.swappiness") != "1" else "2"
        out.append(c)
d["runs"] = out
json.dump(d, open(sys.argv[2], "w"))
PY
ok $? "the runs of three hosts made from them"

# The checks, on the store $1 (SQLite, then PostgreSQL); $2 names it.
host_checks() {
	local db=$1 on=$2 out
	"$UL" import --db "$db" "$TMP/fleet.json" >/dev/null
	ok $? "$on: import the fleet's runs"

	is "$("$UL" list --db "$db" --host boxa | awk 'NR > 1 { print $1 }' | xargs)" "3 2 1" \
		"$on: list --host boxa lists its runs"
	is "$("$UL" list --db "$db" --host boxa --host boxb | awk 'NR > 1 { print $4 }' | sort | uniq -c | xargs)" \
		"3 boxa 2 boxb" "$on: list --host twice: either host's runs"

	# show: 'last' is the host's newest run; a run of another host is refused
	out=$("$UL" show --db "$db" --host boxa --format json last)
	ok $? "$on: show --host boxa last"
	is "$(python3 -c 'import json, sys; r = json.load(sys.stdin)["run"]; print(r["id"], r["host"]["hostname"], r["label"])' <<<"$out")" \
		"3 boxa onlya" "$on: show --host boxa last is boxa's newest run"
	is "$("$UL" show --db "$db" --format json last | python3 -c 'import json, sys; print(json.load(sys.stdin)["run"]["id"])')" \
		7 "$on: without --host, last is the store's newest"
	"$UL" show --db "$db" --host boxa 2 --format text >"$TMP/show.txt" 2>&1
	like "$(cat "$TMP/show.txt")" "^host: +boxa " "$on: show --host boxa of a boxa run shows it"
	out=$("$UL" show --db "$db" --host boxb 1 2>&1 >/dev/null)
	is $? 2 "$on: show --host boxb of a boxa run exits 2"
	like "$out" "run 1 \\([0-9a-f]{8}\\) was made on host 'boxa', not on host 'boxb'" \
		"$on: and names the run and both hosts"
	out=$("$UL" show --db "$db" --host nosuch last 2>&1 >/dev/null)
	is $? 2 "$on: show --host of a host without runs exits 2"
	like "$out" "no run of host 'nosuch' is stored" "$on: and says so"

	# export: the host's runs only; a label absent there is an error
	out=$("$UL" export --db "$db" --host boxb | python3 -c 'import json, sys
print(" ".join(sorted(r["host"]["hostname"] + ":" + r["label"] for r in json.load(sys.stdin)["runs"])))')
	is "$out" "boxb:v1 boxb:v2" "$on: export --host boxb: its two runs"
	is "$("$UL" export --db "$db" --host boxc --format csv v1 | tail -n +2 | cut -d, -f2,3 | sort -u | xargs)" \
		"v1,boxc" "$on: export --host boxc v1: that host's v1 only"
	out=$("$UL" export --db "$db" --host boxb label:onlya 2>&1 >/dev/null)
	is $? 2 "$on: export --host boxb of a label only boxa has exits 2"
	like "$out" "no run of host 'boxb' has the label 'onlya'" "$on: naming the label and the host"
	out=$("$UL" export --db "$db" --host boxb onlya 2>&1 >/dev/null)
	like "$out" "no run of host 'boxb' has the label 'onlya'" "$on: the same for a plain name"

	# report: the host's runs only
	"$UL" report --db "$db" --host boxb -o "$TMP/r.html" 2>"$TMP/err"
	ok $? "$on: report --host boxb" || diag "$(cat "$TMP/err")"
	is "$(grep -c boxa "$TMP/r.html")" 0 "$on: no run of boxa in boxb's report"
	like "$(cat "$TMP/r.html")" "boxb" "$on: boxb's runs are"
	out=$("$UL" report --db "$db" --host boxc onlya -o "$TMP/r2.html" 2>&1)
	is $? 2 "$on: report --host boxc of a label only boxa has exits 2"
	like "$out" "no run of host 'boxc' has the label 'onlya'" "$on: and says which"

	# compare with one host: its runs
	out=$("$UL" compare --db "$db" --host boxb v1 v2)
	ok $? "$on: compare --host boxb v1 v2"
	like "$out" "^baseline 'v1' \\(run 4\\)$" "$on: boxb's v1 is the baseline"
	like "$out" "^candidate 'v2' \\(run 5\\)$" "$on: boxb's v2 the candidate"

	# compare across hosts: one label on each, side by side
	out=$("$UL" compare --db "$db" v1 --host boxa --host boxb --strict 2>"$TMP/err")
	is $? 0 "$on: compare v1 across boxa and boxb, --strict, exits 0" || diag "$(cat "$TMP/err")"
	like "$out" "^baseline 'v1@boxa' \\(run 1\\)$" "$on: the baseline's header says its host"
	like "$out" "^candidate 'v1@boxb' \\(run 4\\)$" "$on: the candidate's too"
	like "$out" "^label 'v1@boxb' \\(run 4\\)$" "$on: each seed table's header says its host"
	like "$out" "^  host +v1@boxa +boxa$" "$on: the host difference is listed"
	# The host's CPU name may hold parentheses ("Intel(R) ..."): only the
	# row's end says whether it is unfair.
	row=$(grep -E '^  cpu\.model +v1@boxa ' <<<"$out")
	like "$row" "^  cpu.model +v1@boxa +" "$on: the CPU differs too"
	is "$(grep -c "(unfair)\$" <<<"$row")" 0 "$on: and is not unfair"
	like "$out" "^noload +v1@boxb " "$on: the comparison row names the candidate's host"
	"$UL" compare --db "$db" 1 5 --strict >/dev/null 2>"$TMP/err"
	is $? 2 "$on: runs of two machines named without --host: --strict exits 2"
	like "$(cat "$TMP/err")" "unfair" "$on: the hardware differences are unfair there"
	"$UL" compare --db "$db" v1 --host boxa --host boxc --strict >/dev/null 2>"$TMP/err"
	is $? 2 "$on: across hosts a differing setting is still unfair"
	"$UL" compare --db "$db" --format json v1 v2 --host boxa --host boxb --baseline v2 >"$TMP/c.json"
	ok $? "$on: compare across hosts, JSON"
	python3 - "$TMP/c.json" <<'PY'
import json, sys
d = json.load(open(sys.argv[1]))
assert [g["label"] for g in d["groups"]] == ["v2@boxa", "v2@boxb", "v1@boxa", "v1@boxb"], d["groups"]
assert [[r["id"] for r in g["runs"]] for g in d["groups"]] == [[2], [5], [1], [4]], d["groups"]
env = {e["what"]: e for e in d["environment"]}
assert not env["host"]["unfair"] and not env["cpu.model"]["unfair"], env
PY
	ok $? "$on: each label on each host a group, the --baseline label first"
	out=$("$UL" compare --db "$db" --host boxa --host boxb --format csv | tail -n +2 | cut -d, -f5,6 | sort -u | xargs)
	is "$out" "v1@boxa,onlya@boxa v1@boxa,v1@boxb v1@boxa,v2@boxa v1@boxa,v2@boxb" \
		"$on: without names, every label's newest run on each host, a group each"
	out=$("$UL" compare --db "$db" v1 label:onlya --host boxa --host boxb 2>&1 >/dev/null)
	is $? 2 "$on: a label one of the hosts lacks exits 2"
	like "$out" "label 'onlya' has no finished run of host 'boxb'" "$on: naming the label and host"
	out=$("$UL" compare --db "$db" --host boxa 5 2>&1 >/dev/null)
	is $? 2 "$on: compare --host boxa of a boxb run exits 2"
	like "$out" "run 5 .* was made on host 'boxb', not on host 'boxa'" "$on: and says so"
	out=$("$UL" compare --db "$db" v1 --host boxa --host boxa 2>&1 >/dev/null)
	is $? 2 "$on: a host given twice is a usage error"
	like "$out" "--host 'boxa' given twice" "$on: saying so"
}

host_checks "$TMP/fleet.db" sqlite

if [ -z "${UL_TEST_PG_URI:-}" ]; then
	skip "PostgreSQL: UL_TEST_PG_URI is unset (tests/pg-cluster start prints one)"
elif ! "$UL" --version | grep -Eq '^stores:.* postgresql( |$)'; then
	skip "PostgreSQL: this underload is built without it (-Dpostgresql)"
elif ! command -v psql >/dev/null; then
	skip "PostgreSQL: no psql (postgresql-client) to make a schema"
else
	schema=ul_t0412_$$
	sep='?'
	[[ $UL_TEST_PG_URI == *\?* ]] && sep='&'
	PG="$UL_TEST_PG_URI${sep}options=-csearch_path%3D$schema"
	psql -X -q -v ON_ERROR_STOP=1 -d "$UL_TEST_PG_URI" -c "CREATE SCHEMA $schema"
	ok $? "PostgreSQL: a schema of this test"
	trap 'psql -X -q -d "$UL_TEST_PG_URI" -c "DROP SCHEMA IF EXISTS $schema CASCADE" \
		>/dev/null 2>&1; rm -rf "$TMP"' EXIT
	host_checks "$PG" postgresql
fi
done_testing

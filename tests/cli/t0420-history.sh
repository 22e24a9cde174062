#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-or-later
# underload history over a store of synthetic runs: one real resp run,
# exported and imported again as two runs of each of eight "kernels"
# (6.1.0-1 ... 6.1.0-8, the kernel release of the fingerprint), the
# delays of kernels 5 to 8 30% longer.  History orders the points by
# version (6.1.0-10 after 6.1.0-9), finds the one change point between
# 6.1.0-4 and 6.1.0-5 and names the kernel release that changed; on an
# A/A history (the same kernels, no step) it finds none.  Text, JSON (its
# schema) and CSV; --order label and date; runs of another configuration
# are left out; bad options are usage errors.  On PostgreSQL too when
# UL_TEST_PG_URI names a database (tests/pg-cluster start).
. "$(dirname "$0")/lib.bash"

"$UL" run --dir "$SCRATCH" --db "$TMP/one.db" --no-progress --tests noload --interval 20ms \
	--min-points 6 --max-points 6 -o resp.working-set=0 -o resp.exec=no --format resp1 \
	--label seed >/dev/null 2>"$TMP/err"
is $? 0 "one resp run to copy" || diag "$(cat "$TMP/err")"
"$UL" export --db "$TMP/one.db" seed >"$TMP/seed.json"
is $? 0 "export it"

# make STEP OUT [KERNELS]: two runs a kernel, labelled by kernel, delays
# times 1.3 from kernel 5 on when STEP is 1; a seeded +-2% run-to-run noise.
make() {
	python3 - "$TMP/seed.json" "$1" "$2" "${3:-8}" <<'PY'
import copy, json, random, sys, uuid
d = json.load(open(sys.argv[1]))
step, out, kernels = sys.argv[2] == "1", sys.argv[3], int(sys.argv[4])
(seed,) = d["runs"]
rng = random.Random(20)
runs = []
for k in range(1, kernels + 1):
    for rep in range(2):
        r = copy.deepcopy(seed)
        r["uuid"] = str(uuid.UUID(int=rng.getrandbits(128), version=4))
        r["label"] = "k%d" % k
        r["fingerprint"]["kernel"]["release"] = "6.1.0-%d" % k
        t = 10**9 * (100 * k + rep)
        r["started_ns"] = seed["started_ns"] - 10**13 + t
        r["finished_ns"] = seed["finished_ns"] - 10**13 + t
        f = (1.3 if step and k >= 5 else 1.0) * (1 + 0.02 * rng.gauss(0, 1))
        for c in r["cells"]:
            for s in c["series"]:
                if s["name"] == "delay_ns":
                    s["values"] = [int(v * f) for v in s["values"]]
        runs.append(r)
d["runs"] = runs
json.dump(d, open(out, "w"))
PY
}
make 1 "$TMP/step.json" && make 0 "$TMP/aa.json" && make 1 "$TMP/ten.json" 10
is $? 0 "the synthetic histories"

check_step() { # DB WHERE
	local db=$1 where=$2 out
	out=$("$UL" history --db "$db" --suite resp 2>"$TMP/err")
	is $? 0 "$where: history exits 0" || diag "$(cat "$TMP/err")"
	like "$out" "^history of host '[^']+': 8 points by kernel, 16 runs$" "$where: the header counts points and runs"
	like "$out" "E-Divisive means \\(Matteson and James 2014\\), permutation test of 999 shuffles, alpha 0\\.05" \
		"$where: the method is named"
	is "$(grep -oE '^6\.1\.0-[0-9]+' <<<"$out" | tr '\n' ' ')" \
		"6.1.0-1 6.1.0-2 6.1.0-3 6.1.0-4 6.1.0-5 6.1.0-6 6.1.0-7 6.1.0-8 " "$where: the kernels in order"
	is "$(grep -c "^change point between" <<<"$out")" 1 "$where: one change point"
	like "$out" "^change point between 6\\.1\\.0-4 and 6\\.1\\.0-5: \\+(2[6-9]|3[0-4])\\.[0-9]% \\(\\+[0-9.]+ ms, shift 95% CI [0-9.]+ ms \\.\\. [0-9.]+ ms\\), p 0\\.0[0-4][0-9]*$" \
		"$where: between kernels 4 and 5, about +30%, its interval and p"
	like "$out" "^  kernel\\.release: 6\\.1\\.0-4 -> 6\\.1\\.0-5$" "$where: names the kernel release that changed"
	like "$(grep -E '^6\.1\.0-5 ' <<<"$out")" "^6\\.1\\.0-5 +2 +[0-9.]+ ms +[0-9.]+ ms \\.\\. [0-9.]+ ms +\\+[0-9.]+% <- p " \
		"$where: the row of kernel 5 marks the change"
}

DB=$TMP/step.db
"$UL" import --db "$DB" "$TMP/step.json" >/dev/null
is $? 0 "import the stepped history"
check_step "$DB" sqlite

"$UL" history --db "$DB" --suite resp --format json >"$TMP/h.json"
is $? 0 "history --format json exits 0"
python3 - "$TMP/h.json" <<'PY'
import json, sys
d = json.load(open(sys.argv[1]))
assert d["format"] == "underload-history" and d["format_version"] == 1, d
assert d["order"] == "kernel" and d["method"] == "e-divisive-means", d
assert [p["key"] for p in d["points"]] == ["6.1.0-%d" % k for k in range(1, 9)], d["points"]
assert all(len(p["runs"]) == 2 for p in d["points"]), d["points"]
(row,) = [r for r in d["rows"] if r["metric"] == "delay_ns" and r["test"] == "noload"]
assert len(row["series"]) == 8, row
for s in row["series"]:
    assert s["run_min"] <= s["median"] <= s["run_max"] and s["runs"] == 2, s
(cp,) = row["change_points"]
assert cp["before_point"] == "6.1.0-4" and cp["after_point"] == "6.1.0-5" and cp["position"] == 4, cp
assert 0.25 < cp["change_rel"] < 0.35 and cp["p"] <= 0.05, cp
assert cp["shift_lo"] <= cp["change"] <= cp["shift_hi"] and cp["shift_lo"] > 0, cp
facts = {f["key"]: (f["before"], f["after"]) for f in cp["facts"]}
assert facts.get("kernel.release") == ("6.1.0-4", "6.1.0-5"), facts
PY
ok $? "JSON: the points, the series and the change point with its facts"
if python3 -c 'import jsonschema' 2>/dev/null; then
	out=$("$(dirname "$0")/schema-check.py" "$(dirname "$0")/../../docs/schema/history.schema.json" "$TMP/h.json" 2>&1)
	is "$?:$out" "0:" "the JSON follows history.schema.json"
else
	ok 0 "# SKIP python3-jsonschema is not installed"
fi

out=$("$UL" history --db "$DB" --suite resp --format csv)
is $? 0 "history --format csv exits 0"
is "$(head -1 <<<"$out" | tr -d "\r")" "suite,metric,unit,test,point,runs,median,run_min,run_max,change_point,change,change_rel,shift_lo,shift_hi,p,facts" \
	"CSV: the header"
like "$(grep -E '^resp,delay_ns,ns,noload,6\.1\.0-5,' <<<"$out")" ",1,[0-9.e+]+,0\\.[0-9]+,.*kernel\\.release: 6\\.1\\.0-4 -> 6\\.1\\.0-5" \
	"CSV: kernel 5's line is the change point, with its facts"
is "$(grep -c '^resp,delay_ns,ns,noload,.*,1,' <<<"$out")" 1 "CSV: one change point line"

# The same runs by label: given in reverse, the step is where 5 meets 4.
out=$("$UL" history --db "$DB" --suite resp --order label k8 k7 k6 k5 k4 k3 k2 k1)
is $? 0 "history --order label exits 0"
like "$out" "^change point between k5 and k4: -" "by label in the order given: the change reversed"
out=$("$UL" history --db "$DB" --suite resp --order date)
like "$out" "^change point between k4 and k5: \\+" "by date"
out=$("$UL" history --db "$DB" --suite resp k1 k2 k3 k4)
like "$out" "^no change point \\(alpha 0\\.05\\)$" "only the labels named: kernels 1 to 4, no change"

# report --history: one page, one trend plot per test, the change marked.
"$UL" report --db "$DB" --history -o "$TMP/h.html" 2>"$TMP/err"
is $? 0 "report --history exits 0" || diag "$(cat "$TMP/err")"
page=$(cat "$TMP/h.html")
like "$page" "<meta http-equiv=\"Content-Security-Policy\" content=\"default-src 'none'" "the page forbids scripts and fetches"
is "$(grep -o '<svg ' "$TMP/h.html" | wc -l)" "$(grep -c '<h2>' "$TMP/h.html")" "one plot per test and metric"
like "$page" "<title>6\\.1\\.0-1 \\.\\. 6\\.1\\.0-4</title>" "the segment before the change is a band named by its kernels"
like "$page" "<title>6\\.1\\.0-5 \\.\\. 6\\.1\\.0-8</title>" "and the one after"
bad=
for k in 1 2 3 4 5 6 7 8; do
	grep -qF "rotate(-45)\" text-anchor=\"end\"><title>6.1.0-$k</title>6.1.0-$k</text>" "$TMP/h.html" ||
		bad+=" 6.1.0-$k"
done
is "$bad" "" "every point is named by its kernel under the x axis, slanted"
like "$page" ">kernel release \\(the bands: the segments between change points\\)</text>" \
	"the x axis says what the points are"
like "$page" "rotate\\(-90\\)\" text-anchor=\"middle\" fill=\"#333\">delay \\(ms\\)</text>" \
	"the y axis in ms, not in the stored ns"
like "$page" "Change point between <b>6\\.1\\.0-4</b> and <b>6\\.1\\.0-5</b>: \\+" "the change point under the plot"
like "$page" "<li>kernel\\.release: 6\\.1\\.0-4 &rarr; 6\\.1\\.0-5</li>" "with the fact that changed"
"$UL" report --db "$DB" --history --format svg -o "$TMP/svgs" >/dev/null 2>&1
is $? 2 "report --history --format svg is a usage error"

# A/A: the same kernels, no step: none found.
"$UL" import --db "$TMP/aa.db" "$TMP/aa.json" >/dev/null
out=$("$UL" history --db "$TMP/aa.db" --suite resp)
is $? 0 "A/A history exits 0"
is "$(grep -c "^change point between" <<<"$out")" 0 "A/A: no change point"
like "$out" "^no change point \\(alpha 0\\.05\\)$" "A/A: says so"

# Version order: 6.1.0-10 after 6.1.0-9, not after 6.1.0-1.
"$UL" import --db "$TMP/ten.db" "$TMP/ten.json" >/dev/null
out=$("$UL" history --db "$TMP/ten.db" --suite resp)
is "$(grep -oE '^6\.1\.0-[0-9]+' <<<"$out" | tr '\n' ' ')" \
	"6.1.0-1 6.1.0-2 6.1.0-3 6.1.0-4 6.1.0-5 6.1.0-6 6.1.0-7 6.1.0-8 6.1.0-9 6.1.0-10 " \
	"kernels in version order"

# A run of another configuration (more points) is left out, and said so.
python3 - "$TMP/seed.json" "$TMP/other.json" <<'PY'
import json, sys
d = json.load(open(sys.argv[1]))
d["runs"][0]["started_ns"] -= 10**14
d["runs"][0]["params"]["max_points"] = 7
json.dump(d, open(sys.argv[2], "w"))
PY
"$UL" import --db "$DB" "$TMP/other.json" >/dev/null
out=$("$UL" history --db "$DB" --suite resp)
like "$out" "^history of host '[^']+': 8 points by kernel, 16 runs \\(1 run of other configurations left out\\)$" \
	"a run of another configuration is left out"

# Usage errors.
"$UL" history --db "$DB" --alpha 0 >/dev/null 2>"$TMP/err"
is $? 2 "--alpha 0 is a usage error"
"$UL" history --db "$DB" --order size >/dev/null 2>"$TMP/err"
is $? 2 "--order size is a usage error"
"$UL" history --db "$DB" nosuchlabel >/dev/null 2>"$TMP/err"
is $? 2 "an unknown label is a usage error"
like "$(cat "$TMP/err")" "no finished run is labelled 'nosuchlabel'" "and says which"
"$UL" history --db "$DB" --host nosuchhost >/dev/null 2>"$TMP/err"
is $? 2 "an unknown host is a usage error"

# PostgreSQL: the same history from the same runs.
if [ -n "${UL_TEST_PG_URI:-}" ] && "$UL" --version | grep -Eq '^stores:.* postgresql( |$)' &&
	command -v psql >/dev/null; then
	. "$(dirname "$0")/pg.bash"
	schema=ul_t0420_$$
	PG=$(pg_in_schema "$schema")
	psql_on "$UL_TEST_PG_URI" "CREATE SCHEMA $schema"
	trap 'psql_on "$UL_TEST_PG_URI" "DROP SCHEMA IF EXISTS $schema CASCADE" >/dev/null 2>&1; rm -rf "$TMP"' EXIT
	"$UL" import --db "$PG" "$TMP/step.json" >/dev/null
	is $? 0 "import the stepped history into PostgreSQL"
	check_step "$PG" postgresql
else
	ok 0 "# SKIP PostgreSQL: UL_TEST_PG_URI is unset (tests/pg-cluster start prints one)"
fi

done_testing

#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-or-later
# What the store takes in, and from whom (issue 18): one UUID form, one
# label check, recovery files that are ours only, a deleted run that stays
# deleted, one rule for names that are a label and a run reference, a WAL
# store read from a read-only mount, and import in linear time and bounded
# memory.
. "$(dirname "$0")/lib.bash"

runs() { sqlite3 "$1" "SELECT count(*) FROM runs"; }
# The run's JSON with its UUID (and optionally label) replaced: FILE UUID [LABEL].
with_uuid() {
	local old
	old=$(sed -n 's/^   "uuid": "\(.*\)",$/\1/p' "$1" | head -1)
	sed "s/$old/$2/g${3:+; s/\"label\": \"[^\"]*\"/\"label\": \"$3\"/}" "$1"
}

"$UL" run "${TINY[@]}" --tests noload --label alpha >/dev/null 2>&1
ok $? "a first run"
"$UL" export --db "$DB" 1 -o "$TMP/one.json"
ok $? "exported"
UUID=$(sqlite3 "$DB" "SELECT uuid FROM runs WHERE id = 1")
UPPER=${UUID^^}

# 2. One UUID form: an uppercase copy of a stored run is that run.
with_uuid "$TMP/one.json" "$UPPER" >"$TMP/upper.json"
like "$("$UL" import --db "$DB" "$TMP/upper.json")" ": 0 runs added" \
	"an uppercase-UUID copy of a stored run adds nothing"
is "$(runs "$DB")" 1 "still one run"
"$UL" import --db "$TMP/up.db" "$TMP/upper.json" >/dev/null
is "$(sqlite3 "$TMP/up.db" "SELECT uuid FROM runs")" "$UUID" "an imported UUID is stored lowercase"
like "$("$UL" show --db "$DB" --format json "${UPPER:0:8}" 2>&1)" "\"$UUID\"" \
	"an uppercase prefix finds the run"
# A schema-1 store that already holds a copy under an uppercase UUID (what
# import did before): the write that migrates it merges the copy into the
# first run, which gains the cell it lacked.
cp "$DB" "$TMP/v1.db"
sqlite3 "$TMP/v1.db" <"$(dirname "$0")/store-v3.sql"
sqlite3 "$TMP/v1.db" "DROP TABLE deleted_runs; PRAGMA user_version = 1;
	INSERT INTO runs SELECT 2, upper(uuid), label, tool_version, argv, suites, status,
		started_wall_ns, finished_wall_ns, host_name, host_kernel_release, host_kernel_version,
		host_arch, host_cpu_model, host_ncpu, host_mem_total_bytes, host_swap_total_bytes,
		interval_ns, min_points, max_points, ci_target_centi, mem_budget_bytes, mem_limit_bytes,
		swap_bytes FROM runs WHERE id = 1;
	INSERT INTO cells (run_id, seq, suite, load, probe, outcome, flags, note, load_unit, load_units,
		started_wall_ns, finished_wall_ns) SELECT 2, seq, suite, load, probe, outcome, flags, note,
		load_unit, load_units, started_wall_ns, finished_wall_ns FROM cells WHERE run_id = 1;
	INSERT INTO cells (run_id, seq, suite, load, probe, outcome, flags, note, load_unit, load_units,
		started_wall_ns, finished_wall_ns) SELECT 2, 7, suite, load, probe, outcome, flags, note,
		load_unit, load_units, started_wall_ns, finished_wall_ns FROM cells WHERE run_id = 1;"
is "$(runs "$TMP/v1.db")" 2 "a schema-1 store with an uppercase copy"
"$UL" import --db "$TMP/v1.db" "$TMP/one.json" >/dev/null
ok $? "a write migrates it"
is "$(sqlite3 "$TMP/v1.db" "SELECT group_concat(id || ':' || uuid) FROM runs")" "1:$UUID" \
	"the copy is merged into the first run"
is "$(sqlite3 "$TMP/v1.db" "SELECT group_concat(seq) FROM (SELECT seq FROM cells WHERE run_id = 1
	ORDER BY seq)")" "0,7" "which gained the cell only the copy had"
is "$(sqlite3 "$TMP/v1.db" "PRAGMA user_version; PRAGMA integrity_check" | tr '\n' ' ')" "4 ok " \
	"schema 4 (the latest), integrity ok"

# 17. One label check for run, relabel and import.
for bad in '' $'new\nline' $'e\x1b[2Jsc' $'raw\x9bc1' $'utf8\xc2\x9bc1' $'del\x7f'; do
	name=$(printf '%q' "$bad")
	with_uuid "$TMP/one.json" 11111111-2222-4333-8444-555555555555 >"$TMP/label.json"
	python3 - "$TMP/label.json" "$bad" <<'EOF'
import json, sys
p = sys.argv[1]
d = json.load(open(p))
d["runs"][0]["label"] = sys.argv[2]  # raw bytes that are not UTF-8 stay raw bytes
open(p, "w", encoding="utf-8", errors="surrogateescape").write(
    json.dumps(d, ensure_ascii=False))
EOF
	out=$("$UL" import --db "$TMP/labels.db" "$TMP/label.json" 2>&1)
	is $? 1 "import refuses the label $name"
	# (raw bytes that are not UTF-8 are refused by the JSON parser itself)
	like "$out" "runs\[0\]\.label: (must be 1 to|may not contain control)|unable to decode byte" \
		"and names the label ($name)"
	"$UL" relabel --db "$DB" 1 "$bad" >/dev/null 2>&1
	is $? 2 "relabel refuses the label $name"
	"$UL" run "${TINY[@]}" --tests noload --label "$bad" >/dev/null 2>&1
	is $? 2 "run refuses the label $name"
done
is "$(runs "$TMP/labels.db" 2>/dev/null || echo 0)" 0 "no run with a bad label was imported"

# 3. Recovery files are ours only.  In a sticky world-writable directory,
# another user plants a valid run, a symlink to a secret, and a file under
# a name that is not DB.recovery-UUID.json; our own file is group-writable.
STICKY=$TMP/sticky
mkdir -m 1777 "$STICKY"
chmod 755 "$TMP"
SECRET=$TMP/secret
printf 'topsecret:x:1:\n' >"$SECRET"
chmod 600 "$SECRET"
P1=aaaaaaaa-0000-4000-8000-000000000001
P2=aaaaaaaa-0000-4000-8000-000000000002
P3=aaaaaaaa-0000-4000-8000-000000000003
with_uuid "$TMP/one.json" $P1 planted >"$TMP/planted.json"
with_uuid "$TMP/one.json" $P2 groupw >"$TMP/groupw.json"
chmod 644 "$TMP/planted.json"
as_nobody() { setpriv --reuid=nobody --regid=nogroup --clear-groups -- "$@"; }
as_nobody cp "$TMP/planted.json" "$STICKY/r.db.recovery-$P1.json"
as_nobody cp "$TMP/planted.json" "$STICKY/r.db.recovery-$P1-x1y2z3.json"
as_nobody ln -s "$SECRET" "$STICKY/r.db.recovery-$P3.json"
cp "$TMP/groupw.json" "$STICKY/r.db.recovery-$P2.json"
chmod 664 "$STICKY/r.db.recovery-$P2.json"
out=$("$UL" run "${TINY[@]}" --db "$STICKY/r.db" --tests noload --label mine 2>&1 >/dev/null)
ok $? "a run beside planted recovery files"
is "$("$UL" list --db "$STICKY/r.db" | tail -n +2 | awk '{print $3}')" mine \
	"only our run is in the store"
is "$(grep -c "left in place" <<<"$out")" 4 "one warning a refused file"
like "$out" "r.db.recovery-$P1.json' left in place: owned by uid 65534" "another user's file"
like "$out" "r.db.recovery-$P3.json' left in place: a symbolic link" "a symlink"
like "$out" "r.db.recovery-$P1-x1y2z3.json' left in place: not a recovery file name" "a bad name"
like "$out" "r.db.recovery-$P2.json' left in place: writable by others" "a group-writable file"
ok "$(grep -q topsecret <<<"$out"; [ $? = 1 ]; echo $?)" "the secret is not echoed"
is "$(ls "$STICKY" | grep -c recovery)" 4 "every refused file is left in place"
# Our own file under the right name is loaded, then removed.
chmod 600 "$STICKY/r.db.recovery-$P2.json"
out=$("$UL" run "${TINY[@]}" --db "$STICKY/r.db" --tests noload --label mine2 2>&1 >/dev/null)
like "$out" "loaded '.*r.db.recovery-$P2.json'" "our own recovery file is loaded"
is "$("$UL" list --db "$STICKY/r.db" --label groupw | tail -n +2 | wc -l)" 1 "its run is stored"
ok "$([ ! -e "$STICKY/r.db.recovery-$P2.json" ]; echo $?)" "and the file removed"
# Ours, named by one run and holding another: refused.
with_uuid "$TMP/one.json" $P1 other >"$STICKY/o.db.recovery-$P2.json"
chmod 600 "$STICKY/o.db.recovery-$P2.json"
out=$("$UL" run "${TINY[@]}" --db "$STICKY/o.db" --tests noload 2>&1 >/dev/null)
like "$out" "o.db.recovery-$P2.json' left in place: not a run $P2 export" \
	"a file holding another run than its name says is refused"
is "$(runs "$STICKY/o.db")" 1 "and not loaded"

# 5. rm of a run still measuring: refused without --force; with it the run
# stays deleted (its recovery file is removed by the next run, not loaded).
"$UL" run "${TINY[@]}" --db "$TMP/rm.db" --tests noload --min-points 40 --max-points 40 \
	--label measuring >/dev/null 2>&1 &
pid=$!
for _ in $(seq 100); do
	[ "$(sqlite3 "$TMP/rm.db" "SELECT count(*) FROM runs WHERE status = 'running'" 2>/dev/null)" = 1 ] &&
		break
	sleep 0.1
done
out=$("$UL" rm --db "$TMP/rm.db" --yes last 2>&1)
is $? 1 "rm of a running run without --force fails"
like "$out" "is running: it may still be measuring.*--force" "and says why"
is "$(runs "$TMP/rm.db")" 1 "nothing deleted"
like "$("$UL" rm --db "$TMP/rm.db" --yes --force last)" "deleted run 1" "rm --force deletes it"
wait $pid
rec=$(ls "$TMP"/rm.db.recovery-*.json 2>/dev/null | wc -l)
is "$rec" 1 "the run, still measuring, wrote a recovery file"
out=$("$UL" run "${TINY[@]}" --db "$TMP/rm.db" --tests noload --label next 2>&1 >/dev/null)
like "$out" "was deleted \('underload rm'\) while it was measuring" "the next run says so"
is "$("$UL" list --db "$TMP/rm.db" --label measuring | tail -n +2 | wc -l)" 0 \
	"and the deleted run stays deleted"
is "$(ls "$TMP"/rm.db.recovery-*.json 2>/dev/null | wc -l)" 0 "its recovery file is removed"

# 18. A name that is a label and a run: one rule for compare, report and
# export (refused as ambiguous), label:NAME and run:REF force either.
N=$TMP/names.db
for l in 1 last x; do
	"$UL" run "${TINY[@]}" --db "$N" --tests noload --label "$l" >/dev/null 2>&1
done
is "$(runs "$N")" 3 "runs labelled 1, last and x"
json_labels() { sed -n 's/^   "label": "\(.*\)",$/\1/p' | tr '\n' ' '; }
for cmd in "export --db $N" "compare --db $N" "report --db $N -o $TMP/r.html"; do
	for name in 1 last; do
		out=$("$UL" $cmd "$name" x 2>&1)
		is $? 2 "${cmd%% *} $name: ambiguous, a usage error"
		like "$out" "'$name' is both a label and a run: write 'label:$name' or 'run:$name'" \
			"${cmd%% *} $name: says how to choose"
	done
done
is "$("$UL" export --db "$N" label:1 | json_labels)" "1 " "export label:1 is the label"
is "$("$UL" export --db "$N" run:1 | json_labels)" "1 " "export run:1 is run 1"
is "$("$UL" export --db "$N" run:last | json_labels)" "x " "export run:last is the newest run"
is "$("$UL" export --db "$N" label:last | json_labels)" "last " "export label:last is the label"
is "$("$UL" export --db "$N" x | json_labels)" "x " "a plain name that is only a label"
is "$("$UL" export --db "$N" 2 | json_labels)" "last " "a plain name that is only a run"
like "$("$UL" compare --db "$N" label:1 run:3 2>&1)" "label '1' \(run 1\).*" "compare label:1 run:3"
like "$("$UL" compare --db "$N" run:2 label:x 2>&1)" "label 'last' \(run 2\)" "compare run:2 label:x"
"$UL" report --db "$N" -o "$TMP/r.html" label:1 run:2 --baseline label:1 >/dev/null 2>&1
ok $? "report label:1 run:2 --baseline label:1"
"$UL" export --db "$N" label:nosuch >/dev/null 2>&1
is $? 2 "label: of a label nobody has is a usage error"
like "$("$UL" show --db "$N" run:2 --format json)" '"label": "last"' "show takes run:REF too"

# 8. Import in linear time and bounded memory (bench/import-scale.sh
# measures the full-size cases).  300k series in one cell took minutes
# (each name was looked up among the earlier ones); 4M empty runs ({})
# built a 1 GB tree, then asked for 9 GB for the runs array.
GEN=$(dirname "$0")/../../bench/import-scale.py
python3 "$GEN" series 300000 "$TMP/series.json"
start=$(date +%s)
out=$(timeout 60 "$UL" import --db "$TMP/scale.db" "$TMP/series.json" 2>&1)
is $? 0 "300k series in one cell: imported within 60 s ($(($(date +%s) - start)) s)"
is "$(sqlite3 "$TMP/scale.db" "SELECT count(*) FROM series")" 300000 "every series stored"
python3 "$GEN" series 3 "$TMP/dup.json"
sed -i 's/"name":"s2"/"name":"s0"/' "$TMP/dup.json"
like "$("$UL" import --db "$TMP/scale.db" "$TMP/dup.json" 2>&1)" \
	"a series name is used twice in the cell" "a series name used twice is still refused"
python3 "$GEN" runs 4000000 "$TMP/runs.json"
# The address-space bound holds the import to its cap.  An ASan build
# reserves terabytes of shadow memory at start and cannot run under any
# ulimit -v: there the refusal alone is checked (ASan reports a leak or an
# overflow on its own).
if grep -aq __asan_init "$UL_REAL"; then
	vlimit=unlimited within="(ASan build: no address-space bound)"
else
	vlimit=$((3 << 20)) within="within 3 GiB of address space"
fi
out=$( (ulimit -v "$vlimit"; timeout 60 "$UL" import --db "$TMP/scale.db" "$TMP/runs.json") 2>&1)
is $? 1 "4M empty runs: refused, $within"
like "$out" "too many values: parsing it would take over 512 MiB" "as too big to parse"
rm -f "$TMP/series.json" "$TMP/runs.json"

# 14. A WAL store on a read-only mount can be read by every reading command.
RO=$TMP/ro
mkdir -p "$TMP/rw" "$RO"
cp "$DB" "$TMP/rw/w.db"
is "$(sqlite3 "$TMP/rw/w.db" "PRAGMA journal_mode")" wal "a WAL store"
trap 'umount "$RO" 2>/dev/null; rm -rf "$TMP"' EXIT
if mount --bind "$TMP/rw" "$RO" 2>/dev/null && mount -o remount,ro,bind "$RO" 2>/dev/null; then
	for cmd in list "show 1" "export 1" "vmstat 1" compare "report -o $TMP/ro.html"; do
		out=$("$UL" $cmd --db "$RO/w.db" 2>&1 >/dev/null)
		is "$?:$out" "0:" "read-only mount: $cmd reads the WAL store"
	done
	out=$("$UL" relabel --db "$RO/w.db" 1 x 2>&1)
	like "$out" "cannot write '.*w.db': Read-only file system" "a write says why it cannot"
	is "$(ls "$RO")" w.db "nothing created beside it"
	umount "$RO"
	ok $? "the read-only mount is removed"
else
	umount "$RO" 2>/dev/null
	skip "no read-only bind mount here (not root, or no mount namespace)"
fi

is "$(scratch_left)" 0 "no scratch directory left behind"
is "$(ul_procs)" 0 "no process left behind"
done_testing

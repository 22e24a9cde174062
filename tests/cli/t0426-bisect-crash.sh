#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-or-later
# underload bisect with a step whose kernel really crashes (about 40 s
# under TCG, four boots): three "kernels" (one Debian image), the middle
# one booted with rdinit=/nonexistent, so that it panics on its way up,
# before its run begins.  The crash is its own outcome: vm stores that
# boot's run as crashed (with no test, the console in its fingerprint),
# bisect asks whether the bad kernel crashes too (it does not), logs the
# step as crashed with why, and, the crash telling nothing of the
# slowdown, cannot tell between steps 2 and 3 (exit 4).  A re-run reads it
# all back and boots nothing; nothing is left (qemu, work directories,
# journal).  First, without a VM (the test hook UL_TEST_BISECT_VM stands
# in for vm), a crash that is the regression: confirmed by crashing.
# t0421 tests the open step, t0425 the judge's other outcomes.
. "$(dirname "$0")/lib.bash"

# The fake vm: one run a side, a copy of a real one, crashed when the
# side's "image" says crash.  Kernels good, crash, crash: the bad kernel
# crashes too, so step 2's crash is bad, the culprit, and its confirmation
# is that it crashes where its parent does not (not that it is slower).
"$UL" run --dir "$SCRATCH" --db "$TMP/seed.db" --no-progress --tests noload --interval 20ms \
	--min-points 3 --max-points 3 -o resp.working-set=0 -o resp.exec=no --label seed \
	>/dev/null 2>"$TMP/err"
is $? 0 "one resp run to copy" || diag "$(cat "$TMP/err")"
"$UL" export --db "$TMP/seed.db" seed >"$TMP/seed.json"
cat >"$TMP/fakevm" <<'PY'
import copy, json, os, subprocess, sys, uuid
d = json.load(open(sys.argv[1]))
(seed,) = d["runs"]
runs = []
for side in "AB":
    r = copy.deepcopy(seed)
    r["uuid"] = str(uuid.uuid4())
    r["label"] = os.environ["UL_BISECT_LABEL_" + side]
    if open(os.environ["UL_BISECT_IMAGE_" + side]).read().strip() == "crash":
        r["status"] = "crashed"
    runs.append(r)
d["runs"] = runs
out = sys.argv[1] + ".ab.json"
json.dump(d, open(out, "w"))
sys.exit(subprocess.call([sys.argv[2], "import", "--db", os.environ["UL_BISECT_DB"], out],
                         stdout=subprocess.DEVNULL))
PY
mkdir "$TMP/k"
echo good >"$TMP/k/good" && echo crash >"$TMP/k/crash1" && echo crash >"$TMP/k/crash2"
UL_TEST_BISECT_VM="python3 $TMP/fakevm $TMP/seed.json $UL" "$UL" bisect --db "$TMP/fake.db" \
	--kernel "$TMP/k/good" --kernel "$TMP/k/crash1" --kernel "$TMP/k/crash2" -- run --quick \
	>"$TMP/out" 2>"$TMP/err"
is $? 0 "a crash that is the regression: found and confirmed (exit 0)" || diag "$(cat "$TMP/err")"
grep '^bisect: ' "$TMP/out" | sed 's/^/# /'
like "$(cat "$TMP/out")" "^bisect: step 2 is bad \(it crashes, as the bad kernel does\): 1 of its 1 boots crashed" \
	"the crash is bad where the bad kernel crashes too"
like "$(cat "$TMP/out")" "^bisect: the first bad step is 2: $TMP/k/crash1 " "it is the culprit"
like "$(cat "$TMP/out")" "^bisect: step 2 crashes, unlike its parent \(a crash is bad\): 1 of its 1 boots crashed .* \(2 runs, [0-9ms]+\)$" \
	"confirmed by crashing where its parent does not"
is "$(sqlite3 "$TMP/fake.db" "SELECT label || ' ' || status FROM runs ORDER BY id" | paste -sd,)" \
	"bisect/2/good complete,bisect/2/crash1 crashed,bisect/refs/good complete,bisect/refs/bad crashed,bisect/confirm/1:good complete,bisect/confirm/2:crash1 crashed" \
	"the step, the references and the confirmation stored under their labels"

. "$(dirname "$0")/vm.bash"

file=${kernel##*/}
three=(--kernel "$kernel" --kernel "$kernel,append=rdinit=/nonexistent"
	--kernel "$kernel,append=ul_step=3")
"$UL" bisect --db "$DB" --max-runs 2 "${three[@]}" -- "${RUN[@]}" >"$TMP/out" 2>"$TMP/err"
is $? 4 "bisect exits 4: the crash leaves only a range"
grep -E '^(bisect|vm: boot [0-9]+: (the guest|panicked))' "$TMP/out" | sed 's/^/# /'
out_like "^vm: boot 2: panicked after [0-9.]+ s " "the step's kernel panicked"
out_like "^vm: boot 2: the guest panicked before its run began: its run is stored as crashed, with no test$" \
	"vm stores the boot that never reached its run as crashed"
is "$(runs "$DB")" "bisect/2/good complete,bisect/2/$file crashed,bisect/refs/good complete,bisect/refs/bad complete" \
	"the step's runs labelled by the step, its own crashed; then the references'"
out_like "^bisect: a step crashed: does the bad kernel crash too\? \(bisect/refs/bad\)$" \
	"a crash makes bisect ask whether the bad kernel crashes too"
out_like "^bisect: the bad kernel does not crash$" "it does not"
out_like "^bisect: step 2 is crashed \(the bad kernel does not\): 1 of its 1 boots crashed \(panicked: Kernel panic - not syncing: [^;]+; show --env: the console\) against 'bisect/2/good' \(2 runs, [0-9ms]+\)$" \
	"the step is logged as crashed, with how (the console's panic) and the time spent"
out_like "^bisect: step 2 \($kernel append=rdinit=/nonexistent\) crashes, the bad kernel does not: a finding of its own$" \
	"and reported as a finding of its own"
out_like "^bisect: cannot tell: the first bad step is one of 2 to 3 " \
	"the crash is not counted bad: only the range is known"
is "$(grep -c '^bisect: step 2 is bad' "$TMP/out")" 0 "the crash is never called bad"
id=$(sqlite3 "$DB" "SELECT id FROM runs WHERE label = 'bisect/2/$file'")
env=$("$UL" show --db "$DB" --env "$id")
like "$env" "^  vm\\.end: +panicked\$" "the crashed run says how its boot ended"
like "$env" "^  vm\\.console_tail: .*Kernel panic - not syncing" "and keeps the console's panic"
is "$(sqlite3 "$DB" "SELECT count(*) FROM cells c JOIN runs r ON c.run_id = r.id WHERE r.label = 'bisect/2/$file'")" \
	0 "with no test: it never began"
left=0
for w in $(sed -n 's/^vm: working in //p' "$TMP/out"); do test -e "$w" && left=$((left + 1)); done
is "$(grep -c '^vm: working in ' "$TMP/out")/$left" "2/0" "both A/Bs' work directories are gone"
is "$(ul_procs)" 0 "no qemu or underload process is left"
is "$(ls -A "$UL_JOURNAL_DIR")" "" "no journal is left"
is "$("$UL" cleanup 2>&1)" "0 changes undone" "and nothing for cleanup"

# A re-run resumes: the crash and the references are read back.
"$UL" bisect --db "$DB" --max-runs 2 "${three[@]}" -- "${RUN[@]}" >"$TMP/out" 2>"$TMP/err"
is $? 4 "the re-run exits 4 too"
out_like "^bisect: step 2 is crashed \(the bad kernel does not\): .* \(2 runs, stored\)$" \
	"it reads the crashed step back from the store"
is "$(grep -c '^vm: boot' "$TMP/out")" 0 "and boots nothing"
is "$(runs "$DB" | tr ',' '\n' | wc -l)" 4 "no run is added"
done_testing

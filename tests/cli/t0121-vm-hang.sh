#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-or-later
# underload vm: a hang is an outcome.  The test hook (UL_TEST_VM_HANG=1)
# makes boot 1's guest stop making progress once its run is inside a test:
# every process but the guest's init stopped, so that neither the run nor
# the guest's "alive" writer runs again and the console falls silent,
# while qemu runs on.  The
# host's watchdog (--hang-timeout 10s) stops it: the run is stored crashed
# at its test with the console's tail, and boot 2 (the same image, the
# second label) still runs.  compare and the report say per label how many
# boots crashed; compare refuses runs of another VM shape or accelerator
# and says why.  Nothing is left: no qemu, no work directory, no change.
. "$(dirname "$0")/lib.bash"
. "$(dirname "$0")/vm.bash"

UL_TEST_VM_HANG=1 "$UL" vm --db "$DB" --hang-timeout 10s --kernel "$kernel" --kernel "$kernel" \
	-- "${RUN[@]}" >"$TMP/out" 2>"$TMP/err"
is $? 0 "vm with a hung boot exits 0: a hang is a result"
grep '^vm: boot .* after ' "$TMP/out" | sed 's/^/# /'
out_like "^vm: boot 1 of 2: hung after" "the watchdog ended boot 1 as hung"
out_like "^vm: boot 2 of 2: finished after" "and boot 2 still ran"
is "$(runs "$DB")" "$rel crashed,$rel#2 complete" "boot 1's run is crashed, boot 2's complete"
q() { sqlite3 "$DB" "$1"; }
is "$(q "SELECT c.suite || ' ' || c.load || ' ' || c.outcome FROM cells c JOIN runs r ON c.run_id = r.id WHERE r.id = 1")" \
	"resp noload crashed" "crashed at the test it was in"
like "$(q "SELECT c.note FROM cells c WHERE c.run_id = 1 AND c.outcome = 'crashed'")" \
	"console: silent for 10 s, the VM was stopped as hung" "the crashed test says the VM hung"
env=$("$UL" show --db "$DB" --env 1)
like "$env" "^  vm\\.end: +hung\$" "the fingerprint says the boot hung"
like "$env" "^  vm\\.console_tail: .*test hook: every process stopped" \
	"the console's tail is stored with the run"
like "$("$UL" show --db "$DB" 1)" "^CRASHED: the machine went down during resp noload" \
	"show heads the run CRASHED"

# Crashed boots per kernel: compare's head, the report's.
out_like "^baseline '$rel' \\(run 1; 1 boot, 1 crashed" \
	"compare's head: the first kernel's boot crashed"
out_like "^candidate '$rel#2' \\(run 2; 1 boot, 0 crashed" \
	"and the second kernel's did not"
out_like "^crashed: $rel: run [0-9a-f]{8} crashed in resp noload" \
	"compare names the crashed run"
"$UL" report --db "$DB" -o "$TMP/report.html" 2>"$TMP/err"
is $? 0 "report exits 0"
like "$(cat "$TMP/report.html")" "$rel \\(1 run; 1 boot, 1 crashed" "the report's head: the crashed boot"
like "$(cat "$TMP/report.html")" "$rel#2 \\(1 run; 1 boot, 0 crashed" "and the other kernel's"
is "$(work_left "$TMP/out")" "" "the work directory is gone"
is "$(ul_procs)" 0 "no qemu or underload process is left"
is "$("$UL" cleanup 2>&1)" "0 changes undone" "nothing left for cleanup"

# compare refuses another VM shape or accelerator, and says why: boot 2's
# run again as if made with 4 CPUs, and as if under KVM.
"$UL" export --db "$DB" --format json 2 >"$TMP/run.json"
is $? 0 "export of the complete run exits 0"
variant() { # variant LABEL KEY VALUE: the run as label LABEL with vm.KEY = VALUE
	python3 - "$TMP/run.json" "$1" "$2" "$3" >"$TMP/$1.json" <<'PY'
import json, sys, uuid
doc = json.load(open(sys.argv[1]))
for run in doc["runs"]:
    run["uuid"] = str(uuid.uuid4())
    run["label"] = sys.argv[2]
    run["fingerprint"]["vm"][sys.argv[3]] = json.loads(sys.argv[4])
json.dump(doc, sys.stdout)
PY
	"$UL" import --db "$DB" "$TMP/$1.json" >/dev/null
}
variant cpus4 cpus 4 && variant kvm accelerator '"kvm"'
is $? 0 "two variants imported"
"$UL" compare --db "$DB" "label:$rel#2" label:cpus4 >/dev/null 2>"$TMP/err"
is $? 2 "compare refuses runs of another VM shape"
like "$(cat "$TMP/err")" "one in a VM: tcg, 4 CPUs, 1024 MiB: runs of another accelerator or VM shape are not comparable" \
	"and says why"
"$UL" compare --db "$DB" "label:$rel#2" label:kvm >/dev/null 2>"$TMP/err"
is $? 2 "compare refuses runs of another accelerator"
like "$(cat "$TMP/err")" "one in a VM: kvm, 2 CPUs, 1024 MiB" "and says which"
done_testing

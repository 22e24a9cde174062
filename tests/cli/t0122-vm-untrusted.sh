#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-or-later
# underload vm: the kernel under test and everything it runs are untrusted.
# vm sets the guest's run's --label and --db: any abbreviation of them in
# run's arguments is refused before a boot.
# A hostile contest job in the guest (run under TCG here: 3 boots, some
# 3-5 min in all):
# - writes bytes that are not UTF-8 to the console, then crashes the
#   kernel: the run is kept, crashed, the console's tail stored as valid
#   UTF-8, and --boots 2's second boot still runs;
# - imports a forged export into the guest's store: a run under the
#   kernel's own label and a run with the UUID of a run of the host's
#   store, with a forged cell: both refused with a warning, only the run
#   the host named for the boot imported;
# - looks for host files (one of the test's, /etc/shadow, the kernel's
#   image): it sees none, only its initramfs, scratch disk and share;
# - replaces the guest's store by a symbolic link to another store of the
#   host with a `running` run: the host neither reads nor marks that store
#   (the share keeps the link as a plain file, and the host would not
#   follow one).
. "$(dirname "$0")/lib.bash"
. "$(dirname "$0")/vm.bash"

# vm sets the run's --label and --db: refused however run would read them.
for case in "label --lab=x" "label --labe=x" "label --label=x" "label --lab x" \
	"db --db=x" "db --db x"; do
	# shellcheck disable=SC2086 # "--lab x": two words
	"$UL" vm --db "$DB" --kernel "$kernel" -- run --quick ${case#* } >/dev/null 2>"$TMP/err"
	is "$?: $(cat "$TMP/err")" "2: error: underload vm: run's --${case%% *}: vm sets the run's label (--label-from) and store (the host's --db)" \
		"vm refuses run's '${case#* }' before a boot, and says which option it is"
done

GUEST_DB=/run/underload-vm/guest.db
CT=(run contest --quick --no-drop-caches --lead-time 200ms --tests noload --no-progress)
crash='sleep 1; echo c > /proc/sysrq-trigger'

# A run of the host's own, and a forged export: that run with a forged
# cell, and a run under the kernel's label with a UUID of the guest's own.
"$UL" "${RUN[@]}" --db "$DB" --dir "$SCRATCH" --label host >/dev/null 2>&1
is $? 0 "a run on the machine itself"
"$UL" export --db "$DB" --format json 1 -o "$TMP/host.json"
python3 - "$TMP/host.json" "$rel" >"$TMP/forged.json" <<'EOF'
import json, sys, uuid
doc = json.load(open(sys.argv[1]))
run = doc["runs"][0]
run["fingerprint"] = {}
cell = run["cells"][0]
cell["series"] = [s for s in cell["series"] if s["name"] == "delay_ns"]
cell["load"] = "forged"
run["cells"] = [cell]
other = json.loads(json.dumps(run))
other["uuid"] = str(uuid.uuid4())
other["label"] = sys.argv[2]
doc["runs"] = [run, other]
json.dump(doc, sys.stdout, separators=(",", ":"))
EOF
forged=$(gzip -9 <"$TMP/forged.json" | base64 -w0)
cells() { sqlite3 "$DB" "SELECT group_concat(c.load) FROM cells c JOIN runs r ON c.run_id = r.id WHERE r.label = 'host'"; }
host_cells=$(cells)

# Boots 1 and 2: the forged import, bytes that are not UTF-8, a crash.
touch "$TMP/secret"
seen="for f in $TMP/secret /etc/shadow $kernel; do [ -e \$f ] && echo ul-test: the guest sees \$f; done"
JOB="sh -c 'echo $forged | base64 -d | gunzip >/tmp/f.json && \$(readlink /proc/\$PPID/exe) import --db $GUEST_DB /tmp/f.json; ($seen; echo ul-test: looked) >/dev/console; printf \"ok\\377\\376\\n\" >/dev/console; $crash'"
"$UL" vm --db "$DB" --kernel "$kernel" --boots 2 -- "${CT[@]}" --job "$JOB" \
	>"$TMP/out" 2>"$TMP/err"
is $? 0 "vm exits 0"
grep '^vm: boot .* after \|^warning' "$TMP/out" "$TMP/err" | sed 's/^/# /'
like "$(cat "$TMP/out")" "^vm: boot 2 of 2: panicked after" "the second boot ran"
is "$(runs "$DB")" "host complete,$rel crashed,$rel crashed" \
	"each boot's run kept, crashed; no forged run imported"
is "$(cells)" "$host_cells" "the host's run gained no forged cell"
like "$(cat "$TMP/err")" "boot 1: run [0-9a-f-]+ \\(label '$rel'\\) in the guest's store refused: not the run this boot started" \
	"a run under the kernel's label but not the boot's is refused, with a warning"
like "$(cat "$TMP/err")" "boot 2: run [0-9a-f-]+ \\(label 'host'\\) in the guest's store refused" \
	"so is the host's run"
env=$("$UL" show --db "$DB" --env 2)
like "$env" "^  vm\\.console_tail: .*ok\\?\\?" "the console's tail is stored, its stray bytes as '?'"
like "$env" "^  vm\\.console_tail: .*ul-test: looked" "the guest looked for host files"
is "$(grep -o 'ul-test: the guest sees [^\\]*' <<<"$env")" "" "and saw none of them"
is "$(work_left "$TMP/out")" "" "the work directory is gone"
is "$(ul_procs)" 0 "no qemu or underload process is left"

# Boot 3: the guest's store made a link to another store of the host.
cp "$DB" "$TMP/other.db"
sqlite3 "$TMP/other.db" "UPDATE runs SET status = 'running' WHERE label = 'host'"
JOB="sh -c 'ln -sf $TMP/other.db $GUEST_DB; $crash'"
"$UL" vm --db "$TMP/b.db" --kernel "$kernel" -- "${CT[@]}" --job "$JOB" \
	>"$TMP/out" 2>"$TMP/err"
is $? 0 "vm with a linked store exits 0"
grep '^vm: boot .* after \|^warning' "$TMP/out" "$TMP/err" | sed 's/^/# /'
is "$(sqlite3 "$TMP/other.db" "SELECT status FROM runs WHERE label = 'host'")" running \
	"the linked store's running run is not marked"
is "$(sqlite3 "$TMP/b.db" "SELECT count(*) FROM runs WHERE label <> '$rel'")" 0 \
	"nothing of it is imported"
is "$(ul_procs)" 0 "no process is left"
is "$("$UL" cleanup 2>&1)" "0 changes undone" "nothing is left for cleanup"
done_testing

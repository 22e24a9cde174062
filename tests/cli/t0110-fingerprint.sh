#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-or-later
# The fingerprint stored with every run: `show --env` prints its facts
# (kernel, config, sysctls, CPU, memory, --dir's storage, system, activity);
# export and import keep it; compare lists every difference between two
# fingerprints, warns about the ones that make a comparison unfair (a
# sysctl) and not about moments (uptime), and --strict exits 2 on them; a
# store from before fingerprints still reads.
. "$(dirname "$0")/lib.bash"

# The machine is shared: a setting may change while the run starts.
sw_before=$(cat /proc/sys/vm/swappiness)
"$UL" run "${TINY[@]}" --tests noload --label base >/dev/null 2>"$TMP/err"
is $? 0 "a run exits 0"
sw_after=$(cat /proc/sys/vm/swappiness)
env=$("$UL" show --db "$DB" --env last 2>"$TMP/err")
is $? 0 "show --env exits 0"
for key in kernel.release kernel.version kernel.cmdline kernel.config_crc32 \
	kernel.config.CONFIG_LOCKDEP cpu.model cpu.microcode cpu.governor cpu.online \
	cpu.smt_control memory.ram_kb memory.swap_devices memory.zswap_enabled \
	memory.thp_enabled memory.buddyinfo memory.page_cache_kb storage.fstype \
	storage.mount_options storage.io_scheduler system.cgroup system.virtualization \
	sysctl.vm.swappiness sysctl.vm.dirty_ratio sysctl.net.ipv4.tcp_congestion_control \
	activity.uptime_s activity.loadavg activity.top_cpu activity.top_memory; do
	grep -q "^  $key: " <<<"$env" || missing="${missing-} $key"
done
is "${missing-}" "" "show --env has every key"
like "$env" "^  sysctl\\.vm\\.swappiness: +($sw_before|$sw_after)\$" \
	"vm.swappiness is the machine's"
like "$env" "^  sysctl\\.net\\.ipv4\\.tcp_congestion_control: +$(cat /proc/sys/net/ipv4/tcp_congestion_control)\$" \
	"the TCP congestion control is the machine's"
base_sw=$(sed -n 's/^  sysctl\.vm\.swappiness: *//p' <<<"$env")
like "$env" "^  kernel\\.release: +$(uname -r)\$" "the kernel release is uname -r"
like "$env" "^  storage\\.dir: +$(realpath "$SCRATCH")\$" "the storage facts are --dir's"
like "$env" "^  cpu\\.model: +$(grep -m1 '^model name' /proc/cpuinfo | sed 's/.*: //; s/[()]/./g')\$" \
	"the CPU model is /proc/cpuinfo's"
"$UL" show --db "$DB" --env --format text last >/dev/null 2>"$TMP/err"
is $? 2 "show --env with --format is a usage error"
# A reader that closed the pipe (`| head -1`) ends the output quietly:
# exit 1, nothing on stderr.  The pipe's reader is gone before show writes
# (a FIFO opened both ways, then its reading end closed), so this never
# races; a full disk is still an error with its reason.
mkfifo "$TMP/fifo"
exec 8<>"$TMP/fifo" 9>"$TMP/fifo" 8<&-
"$UL" show --db "$DB" --env last >&9 2>"$TMP/err"
is "$? $(cat "$TMP/err")" "1 " "show --env into a closed pipe: exit 1, no message"
"$UL" show --db "$DB" last >&9 2>"$TMP/err"
is "$? $(cat "$TMP/err")" "1 " "show into a closed pipe: exit 1, no message"
exec 9>&-
"$UL" show --db "$DB" --env last >/dev/full 2>"$TMP/err"
is "$? $(cat "$TMP/err")" "1 error: cannot write to standard output: No space left on device" \
	"show --env into a full device: exit 1 and the reason"

# Export and import keep it.
"$UL" export --db "$DB" --output "$TMP/base.json" last 2>"$TMP/err"
is $? 0 "export exits 0"
"$UL" import --db "$TMP/copy.db" "$TMP/base.json" >/dev/null 2>"$TMP/err"
is $? 0 "import into a new store exits 0"
is "$("$UL" show --db "$TMP/copy.db" --env last 2>&1)" "$env" \
	"the imported run's fingerprint is the exported one's"

# A second run whose fingerprint differs only in vm.swappiness (and, in a
# third, only in its uptime): made by editing an export.
edit() { # edit OUT LABEL SECTION KEY VALUE
	python3 - "$TMP/base.json" "$@" <<'PY'
import json, sys, uuid
src, out, label, section, key, value = sys.argv[1:]
d = json.load(open(src))
r = d["runs"][0]
r["uuid"] = str(uuid.uuid4())
r["label"] = label
r["fingerprint"][section][key] = value
json.dump(d, open(out, "w"))
PY
}
other=$((base_sw == 10 ? 20 : 10))
edit "$TMP/swappy.json" swappy sysctl vm.swappiness "$other"
edit "$TMP/later.json" later activity uptime_s 999999
"$UL" import --db "$DB" "$TMP/swappy.json" "$TMP/later.json" >/dev/null 2>"$TMP/err"
is $? 0 "the edited runs import"

out=$("$UL" compare --db "$DB" base swappy 2>"$TMP/err")
is $? 0 "compare base swappy exits 0"
like "$out" "^  sysctl\\.vm\\.swappiness +base +$base_sw +\\(unfair\\)\$" \
	"compare names the vm.swappiness difference, marked unfair"
like "$out" "^ +swappy +$other\$" "with the candidate's value"
is "$(grep -c '(unfair)' <<<"$out")" 1 "and nothing else is unfair"
like "$out" "^warning: unfair comparison: sysctl\\.vm\\.swappiness" "a warning names it"
"$UL" compare --db "$DB" --strict base swappy >/dev/null 2>"$TMP/err"
is $? 2 "compare --strict exits 2 on it"
like "$(cat "$TMP/err")" "--strict: the compared runs differ in 1 way" "and says why"

out=$("$UL" compare --db "$DB" --strict base later --env all 2>"$TMP/err")
is $? 0 "a difference in uptime alone: --strict exits 0"
like "$out" "^  activity\\.uptime_s +base " "the uptime difference is listed"
is "$(grep -c 'unfair' <<<"$out")" 0 "without a warning"

# A store from before fingerprints (schema 2) still reads: its runs have none.
cp "$DB" "$TMP/v2.db"
sqlite3 "$TMP/v2.db" <"$(dirname "$0")/store-v3.sql"
sqlite3 "$TMP/v2.db" "DROP TABLE run_fingerprints; PRAGMA user_version = 2;"
chmod a-w "$TMP/v2.db"
like "$("$UL" show --db "$TMP/v2.db" --env 1 2>&1)" "^no fingerprint: the run was stored before" \
	"show --env of a run stored before fingerprints says so"
chmod u+w "$TMP/v2.db"
"$UL" import --db "$TMP/v2.db" "$TMP/base.json" >/dev/null 2>"$TMP/err"
is $? 0 "a write migrates it"
is "$(sqlite3 "$TMP/v2.db" "PRAGMA user_version; SELECT group_concat(r.label) FROM runs r
	WHERE r.id NOT IN (SELECT run_id FROM run_fingerprints)")" $'4\nswappy,later' \
	"to the latest schema: its old runs have no fingerprint but the one imported again gains its own"

done_testing

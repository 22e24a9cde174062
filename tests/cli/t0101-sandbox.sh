#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-or-later
# The memory sandbox: --mem-limit puts probe and loads in a memory cgroup,
# --swap provisions a swap file; both exist during the run and are gone
# after success, after SIGINT, and after SIGKILL + `underload cleanup`.
. "$(dirname "$0")/lib.bash"

# Our cgroups and swap files: those that were not there when this file
# started (another underload on the machine has its own).
all_cgroups() { find /sys/fs/cgroup -maxdepth 6 -type d -name 'underload-*' 2>/dev/null | sort; }
all_swaps() { awk '$1 ~ /underload-swap-/ { print $1 }' /proc/swaps | sort; }
BEFORE_CG=$(all_cgroups)
BEFORE_SWAP=$(all_swaps)
# How many lines of stdin are not among the lines of $1.  (No process
# substitution: the cgroup v2 VM of tests/vm has no /dev/fd.)
count_new() { awk -v before="$1" 'BEGIN { n = split(before, b, "\n"); for (i = 1; i <= n; i++) old[b[i]] = 1 }
	!($0 in old) { c++ } END { print c + 0 }'; }
ul_cgroups() { all_cgroups | count_new "$BEFORE_CG"; }
ul_swaps() { all_swaps | count_new "$BEFORE_SWAP"; }
cells() {
	sqlite3 "$DB" "SELECT count(*) FROM cells c JOIN runs r ON c.run_id = r.id WHERE r.label = '$1'" \
		2>/dev/null || echo 0
}
wait_for() { # wait_for COMMAND...: until it succeeds (at most 60 s)
	for _ in $(seq 600); do "$@" && return 0; sleep 0.1; done
	return 1
}
has_cgroup() { [ "$(ul_cgroups)" -ge 1 ]; }
has_swap() { [ "$(ul_swaps)" -ge 1 ]; }

if [ "$(id -u)" != 0 ]; then
	skip "needs root for cgroups and swapon"
	done_testing
fi
# v1: a "cgroup" mount naming memory; v2: a cgroup2 mount offering it.
v2_memory() {
	local m
	for m in $(awk '$0 ~ / - cgroup2 / { print $5 }' /proc/self/mountinfo); do
		grep -qw memory "$m/cgroup.controllers" 2>/dev/null && return 0
	done
	return 1
}
if ! grep -qE ' - cgroup [^ ]+ [^ ]*[ ,]memory' /proc/self/mountinfo && ! v2_memory; then
	skip "no memory cgroup controller mounted"
	done_testing
fi
SB=(--mem-limit 64M --swap 64M)
TESTS=(--tests noload,8ctx-mem -o 8ctx-mem.footprint=48M)

# Nonsense sizes are refused before anything is made.
for v in 0 -1 1e99 12XB; do
	"$UL" run "${TINY[@]}" --mem-limit "$v" 2>"$TMP/err" >/dev/null
	is $? 2 "--mem-limit $v is refused with exit 2"
	like "$(cat "$TMP/err")" "value '$v' for --mem-limit: expected a size" "--mem-limit $v: says why"
done
"$UL" run "${TINY[@]}" --swap 12XB 2>"$TMP/err" >/dev/null
is $? 2 "--swap 12XB is refused"

# A filesystem that cannot hold swap is refused with a reason.
if [ -d /dev/shm ] && [ "$(stat -f -c %T /dev/shm)" = tmpfs ]; then
	mkdir -p /dev/shm/ul-cli.$$
	"$UL" run "${TINY[@]}" --dir /dev/shm/ul-cli.$$ --swap 16M --tests noload 2>"$TMP/err" >/dev/null
	is $? 1 "--swap on tmpfs fails with exit 1"
	like "$(cat "$TMP/err")" "--swap 16M: .*tmpfs" "the refusal says tmpfs cannot hold swap"
	is "$(find /dev/shm/ul-cli.$$ -mindepth 1 | wc -l)" 0 "nothing is left in the tmpfs --dir"
	rmdir /dev/shm/ul-cli.$$
else
	skip "/dev/shm is not a tmpfs"
fi

# A footprint that cannot fit in budget + swap is refused up front.
"$UL" run "${TINY[@]}" "${SB[@]}" --tests noload,8ctx-mem -o 8ctx-mem.footprint=1G 2>"$TMP/err" >/dev/null
is $? 2 "a footprint larger than budget + swap is refused with exit 2"
like "$(cat "$TMP/err")" "load '8ctx-mem': .*1G|load '8ctx-mem': .*1024" "the refusal names the load and the size"
is "$(ul_cgroups)$(ul_swaps)" 00 "nothing is left after the refusal"

# Success: cgroup and swap exist while the run runs, and are gone after.
# The footprint is 100% of the limit: the loads must swap, not be killed.
"$UL" run "${TINY[@]}" "${SB[@]}" "${TESTS[@]}" -o 8ctx-mem.footprint=64M --label sb-ok \
	--format resp1,json="$TMP/ok.json" \
	>"$TMP/out" 2>"$TMP/err" &
pid=$!
wait_for has_cgroup; ok $? "a memory cgroup exists during the run"
wait_for has_swap; ok $? "a swap file is active during the run"
wait "$pid"
is $? 0 "the sandboxed run succeeds"
[ -s "$TMP/err" ] && diag "$(cat "$TMP/err")"
like "$(head -n 1 "$TMP/out")" 'Starting [0-9]+ CPU run with 64 MB RAM' "resp1 reports the 64 MB budget"
is "$(ul_cgroups)$(ul_swaps)" 00 "no cgroup and no swap left after success"
# The hard limit: v1's limit; v2's memory.max, 16 MiB above memory.high.
hard=$((64 << 20))
grep -qE ' - cgroup [^ ]+ [^ ]*[ ,]memory' /proc/self/mountinfo || hard=$((80 << 20))
python3 - "$TMP/ok.json" "$hard" <<'PY'
import json, sys
run = json.load(open(sys.argv[1]))
assert run["run"]["params"]["mem_limit_bytes"] == 64 << 20, run["run"]["params"]
assert run["run"]["params"]["swap_bytes"] == 64 << 20
mem = [c for c in run["cells"] if c["load"] == "8ctx-mem"][0]
for k in ("swap_out_pages", "probe_majflt", "cg_peak_bytes", "psi_memory_some_end_us"):
    assert k in mem["metrics"], (k, mem["metrics"])
assert mem["metrics"]["cg_peak_bytes"] <= int(sys.argv[2]) + (1 << 20), mem["metrics"]
assert mem["outcome"] == "ok" and mem["metrics"].get("oom_kills", 0) == 0, mem
assert mem["metrics"]["pressure_reached"] == 1 and "no-pressure" not in mem["flags"], mem
PY
ok $? "limit, swap and the pressure reached are recorded per cell; no OOM kill at 100%"

# A memory test that pages nothing (16M on this host, no limit) is flagged
# no-pressure in every format, with why and what to run instead.
"$UL" run "${TINY[@]}" --tests noload,8ctx-mem --label np --format resp1,text,json="$TMP/np.json" \
	>"$TMP/np.out" 2>"$TMP/err"
is $? 0 "a run whose memory test pages nothing still succeeds"
like "$(cat "$TMP/np.out")" '^no-pressure: 8ctx-mem: no paging of the probe.s working set .*--mem-limit SIZE --swap SIZE' \
	"resp1 notes the cell no-pressure, why and what to run instead"
like "$(cat "$TMP/np.out")" '8ctx-mem .*ok[+a-z]*\+no-pressure' "text marks the cell no-pressure"
python3 - "$TMP/np.json" <<'PY'
import json, sys
run = json.load(open(sys.argv[1]))
mem = [c for c in run["cells"] if c["load"] == "8ctx-mem"][0]
assert "no-pressure" in mem["flags"] and mem["metrics"]["pressure_reached"] == 0, mem
assert "no --mem-limit" in mem["note"] and "--swap" in mem["note"], mem["note"]
base = [c for c in run["cells"] if c["load"] == "noload"][0]
assert "no-pressure" not in base["flags"] and "pressure_reached" not in base["metrics"], base
PY
ok $? "json flags the memory cell no-pressure (not the baseline), with the reason"

# SIGINT: gone.
"$UL" run "${TINY[@]}" "${SB[@]}" "${TESTS[@]}" --interval 300ms --label sb-int >/dev/null 2>&1 &
pid=$!
wait_for has_cgroup && wait_for has_swap
ok $? "cgroup and swap exist before SIGINT"
kill -INT "$pid"
wait "$pid"
is $? 130 "SIGINT ends the sandboxed run with 130"
is "$(ul_cgroups)$(ul_swaps)$(ul_procs)$(scratch_left)" 0000 "no cgroup, swap, process or scratch after SIGINT"

# SIGKILL of the supervisor, then `underload cleanup`.
"$UL" run "${TINY[@]}" "${SB[@]}" "${TESTS[@]}" --interval 300ms --label sb-kill >/dev/null 2>&1 &
pid=$!
measuring() { [ "$(cells sb-kill)" -ge 1 ]; }
wait_for has_cgroup && wait_for has_swap && wait_for measuring
ok $? "the run is measuring before SIGKILL"
kill -KILL "$pid"
wait "$pid" 2>/dev/null
"$UL" run "${TINY[@]}" --tests noload --max-points 5 --label after-kill 2>"$TMP/hint" >/dev/null
like "$(cat "$TMP/hint")" "run 'underload cleanup'" "the next run offers 'underload cleanup'"
out=$("$UL" cleanup)
is $? 0 "cleanup exits 0"
like "$out" 'removed swap .*underload-swap-' "cleanup removed the swap file"
like "$out" 'removed cgroup .*underload-' "cleanup removed the cgroup"
like "$out" 'removed scratch .*underload-' "cleanup removed the scratch directory"
sleep 0.2
is "$(ul_cgroups)$(ul_swaps)$(ul_procs)$(scratch_left)" 0000 "nothing is left after SIGKILL + cleanup"
is "$("$UL" cleanup | tail -n 1)" "0 changes undone" "a second cleanup has nothing to do"
done_testing

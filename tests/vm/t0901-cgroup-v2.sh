#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-or-later
# The memory sandbox on cgroup v2 (run inside the VM of tests/vm/run, where
# cgroup v2 has the memory controller): the limit is memory.high, memory.max
# lies UL_CGROUP_V2_HEADROOM above it, --swap is memory.swap.max; a memory
# load whose footprint is 100% of the limit swaps instead of being killed,
# and the throttling and peak are recorded.
. "$(dirname "$0")/../cli/lib.bash"

ul_cgroups() { find /sys/fs/cgroup -maxdepth 6 -type d -name 'underload-*' 2>/dev/null | wc -l; }
ul_swaps() { grep -c 'underload-swap-' /proc/swaps || true; }
wait_for() { for _ in $(seq 600); do "$@" && return 0; sleep 0.1; done; return 1; }
has_cgroup() { [ "$(ul_cgroups)" -ge 1 ]; }

if [ "$(id -u)" != 0 ]; then
	skip "needs root"
	done_testing
fi
if ! grep -q ' - cgroup2 ' /proc/self/mountinfo ||
	! grep -qw memory "$(awk '$9 == "cgroup2" { print $5; exit }' /proc/self/mountinfo)/cgroup.controllers" 2>/dev/null; then
	skip "no cgroup v2 with the memory controller (run tests/vm/run)"
	done_testing
fi
MiB=$((1 << 20))

"$UL" run "${TINY[@]}" --mem-limit 64M --swap 64M --tests noload,8ctx-mem,2ctx-mem \
	-o 8ctx-mem.footprint=64M -o 2ctx-mem.footprint=64M --label v2-full \
	--format json="$TMP/v2.json" >"$TMP/out" 2>"$TMP/err" &
pid=$!
wait_for has_cgroup
ok $? "a v2 memory cgroup exists during the run"
cg=$(find /sys/fs/cgroup -maxdepth 6 -type d -name 'underload-*' | head -n 1)
is "$(cat "$cg/memory.high")" $((64 * MiB)) "memory.high is the limit"
is "$(cat "$cg/memory.max")" $((80 * MiB)) "memory.max is the limit + 16 MiB of headroom"
is "$(cat "$cg/memory.swap.max")" $((64 * MiB)) "memory.swap.max is --swap"
wait "$pid"
is $? 0 "the run with footprints at 100% of the limit succeeds"
[ -s "$TMP/err" ] && diag "$(cat "$TMP/err")"
is "$(ul_cgroups)$(ul_swaps)" 00 "no cgroup and no swap left"
python3 - "$TMP/v2.json" <<'PY'
import json, sys
run = json.load(open(sys.argv[1]))
cells = [c for c in run["cells"] if c["load"] in ("8ctx-mem", "2ctx-mem")]
assert len(cells) == 2, cells
for c in cells:
    m = c["metrics"]
    assert c["outcome"] == "ok", (c["load"], c["outcome"], c["note"])
    assert m.get("oom_kills", 0) == 0 and m["cg_oom_kill"] == 0, m
    assert m["cg_peak_bytes"] <= 80 << 20, m
    assert "cg_high_events" in m and "cg_swap_bytes" in m, m
    assert "cg_oom_stalls" not in m, m  # v1's guard only
print("# 8ctx-mem/2ctx-mem: peak %s, high events %s, swap-out pages %s" % (
    [c["metrics"]["cg_peak_bytes"] for c in cells],
    [c["metrics"]["cg_high_events"] for c in cells],
    [c["metrics"]["swap_out_pages"] for c in cells]))
PY
ok $? "no OOM kill; peak within memory.max; throttle events and swap recorded"
done_testing

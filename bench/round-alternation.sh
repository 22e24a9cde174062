#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-or-later
# Issue 30 item 5: for a sysctl sweep, does alternating the setting between
# the rounds of one run give a smaller variance of the A-B difference than
# alternating whole runs, for the same machine time?
#
#   bench/round-alternation.sh [BUILD_DIR]      (root; a build with test hooks)
#
# Two designs, each repeated EXPERIMENTS times, alternated (W R W R ...):
#  W (within a run): one resp run of 4 rounds, the sysctl set before each
#    round through the test hook UL_TEST_ROUND_CMD (src/engine/round_hook.h)
#    in the order A B B A (B A A B every other experiment);
#  R (whole runs): two runs of 2 rounds, one at A and one at B (order
#    alternated), the sysctl set the same way, constant within a run.
# Both measure 4 cells of each test at each experiment.  For each test and
# experiment the difference is mean(log cell median at B) - mean(... at A);
# the script prints, per test and design, the mean difference (the effect:
# a carry-over of the setting from one round into the next would shrink W's)
# and its S.D. over the experiments (the noise of the design), the ratio of
# the S.D.s with a bootstrap 90% interval, and the time each design took.
# The sysctl is restored on exit (also on error or Ctrl-C).
#
#   env: SYSCTL (vm.dirty_background_ratio), VALUES ("10 1": A and B),
#        TESTS (noload,cpuload,smallwrite), EXPERIMENTS (8), POINTS (10),
#        INTERVAL (200ms)
set -euo pipefail

ul=$(realpath "${1:-build-test}/underload")
sysctl_name=${SYSCTL:-vm.dirty_background_ratio}
read -r val_a val_b <<<"${VALUES:-10 1}"
tests=${TESTS:-noload,cpuload,smallwrite}
experiments=${EXPERIMENTS:-8}
points=${POINTS:-10}
interval=${INTERVAL:-200ms}

[ "$(id -u)" = 0 ] || { echo "round-alternation.sh: needs root (it writes $sysctl_name)" >&2; exit 2; }
"$ul" --version | grep -q '^test hooks: yes' ||
	{ echo "round-alternation.sh: $ul has no test hooks (-Dtest_hooks=true)" >&2; exit 2; }
proc=/proc/sys/${sysctl_name//.//}
[ -w "$proc" ] || { echo "round-alternation.sh: cannot write $proc" >&2; exit 2; }

original=$(cat "$proc")
tmp=$(mktemp -d /tmp/ul-roundalt.XXXXXX)
trap 'echo "$original" >"$proc"; rm -rf "$tmp"' EXIT
trap 'exit 130' INT TERM
db=$tmp/alt.db

# hook ORDER: a command that writes the value ORDER's letter at UL_ROUND
# names (ORDER "ABBA": A before round 1, B before 2 ...).
hook() {
	printf 'o=%s; c=$(printf %%s "$o" | cut -c"$UL_ROUND"); ' "$1"
	printf 'if [ "$c" = A ]; then v=%s; else v=%s; fi; echo "$v" >%s && ' "$val_a" "$val_b" "$proc"
	printf 'echo "$c$(cat %s)" >>%s' "$proc" "$tmp/hook.log"
}

run_design() { # run_design LABEL ROUNDS ORDER
	UL_TEST_ROUND_CMD=$(hook "$3") "$ul" run --db "$db" --dir "$tmp" --no-progress \
		--tests "$tests" --interval "$interval" --min-points "$points" \
		--max-points "$points" --runs "$2" --label "$1" >/dev/null
}

load() { cut -d' ' -f1-3 /proc/loadavg; }
echo "round alternation: $ul, resp $tests, $points points at $interval," \
	"$sysctl_name A=$val_a B=$val_b, $experiments experiments a design"
echo "machine: $(nproc) CPUs, load average $(load) at start"
: >"$tmp/orders"
w_s=0
r_s=0
for i in $(seq "$experiments"); do
	if ((i % 2)); then w=ABBA first=A; else w=BAAB first=B; fi
	t0=$(date +%s%N)
	run_design "w$i" 4 "$w"
	t1=$(date +%s%N)
	if [ "$first" = A ]; then
		run_design "r$i-A" 2 AA
		run_design "r$i-B" 2 BB
	else
		run_design "r$i-B" 2 BB
		run_design "r$i-A" 2 AA
	fi
	t2=$(date +%s%N)
	w_s=$((w_s + (t1 - t0) / 1000000))
	r_s=$((r_s + (t2 - t1) / 1000000))
	echo "w$i $w" >>"$tmp/orders"
done
echo "load average $(load) at end; machine time W $((w_s / 1000)) s, R $((r_s / 1000)) s"
# Every round saw its setting: the hook logged the letter and the value read back.
want=$((experiments * 8))
got=$(grep -cxE "A$val_a|B$val_b" "$tmp/hook.log")
[ "$got" = "$want" ] || { echo "round-alternation.sh: $got of $want rounds had their setting" >&2; exit 1; }

"$ul" export --db "$db" >"$tmp/all.json"
python3 - "$tmp/all.json" "$tmp/orders" <<'EOF'
import json, math, random, statistics as st, sys

runs = json.load(open(sys.argv[1]))["runs"]
orders = dict(line.split() for line in open(sys.argv[2]))

def cell_medians(run):
    """(test, round, log median of delay_ns) of every ok resp cell."""
    out = []
    for c in run["cells"]:
        if c["suite"] != "resp" or c["outcome"] != "ok":
            continue
        vals = next((s["values"] for s in c["series"] if s["name"] == "delay_ns"), None)
        rnd = next((m["value"] for m in c["metrics"] if m["name"] == "round"), None)
        if vals and rnd is not None:
            out.append((c["load"], int(rnd), math.log(st.median(vals))))
    return out

diffs = {}  # (test, design) -> [difference per experiment]
by_label = {r["label"]: r for r in runs}
for i in range(1, len(orders) + 1):
    side = {}  # (test, design, letter) -> [log medians]
    for test, rnd, lm in cell_medians(by_label[f"w{i}"]):
        side.setdefault((test, "W", orders[f"w{i}"][rnd - 1]), []).append(lm)
    for letter in "AB":
        for test, _, lm in cell_medians(by_label[f"r{i}-{letter}"]):
            side.setdefault((test, "R", letter), []).append(lm)
    for test, design in {(t, d) for t, d, _ in side}:
        a, b = side.get((test, design, "A")), side.get((test, design, "B"))
        if a and b:
            diffs.setdefault((test, design), []).append(st.mean(b) - st.mean(a))

def sd_ratio_ci(w, r, n=4000, seed=1):
    rng = random.Random(seed)
    ratios = sorted(st.stdev(rng.choices(w, k=len(w))) /
                    max(st.stdev(rng.choices(r, k=len(r))), 1e-12) for _ in range(n))
    return ratios[int(0.05 * n)], ratios[int(0.95 * n)]

print(f"{'test':12} {'design':7} {'n':>3} {'mean B-A':>9} {'S.D.':>7}")
for test in sorted({t for t, _ in diffs}):
    for design, name in (("W", "within"), ("R", "runs")):
        d = diffs.get((test, design), [])
        if len(d) >= 2:
            print(f"{test:12} {name:7} {len(d):3d} {100 * st.mean(d):+8.2f}% "
                  f"{100 * st.stdev(d):6.2f}%")
    w, r = diffs.get((test, "W"), []), diffs.get((test, "R"), [])
    if len(w) >= 3 and len(r) >= 3:
        lo, hi = sd_ratio_ci(w, r)
        print(f"{test:12} S.D. within / S.D. runs = {st.stdev(w) / st.stdev(r):.2f} "
              f"(bootstrap 90%: {lo:.2f}-{hi:.2f})")
EOF

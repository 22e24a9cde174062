#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-or-later
# Issue 30 item 5: for a sysctl sweep, does alternating the setting between
# the rounds of one run give a smaller variance of the A-B difference than
# alternating whole runs, for the same machine time?
#
#   bench/round-alternation.sh [BUILD_DIR]      (root: the sweep writes the sysctl)
#
# Two designs, each repeated EXPERIMENTS times, alternated (W R W R ...),
# both through the command a user types:
#  W (within a run): `underload sweep NAME=A,B --within-run -- run ...`:
#    one resp run of 4 rounds, the sysctl written before each round in the
#    order A B B A (B A A B every other experiment: NAME=B,A), split into
#    one run a value;
#  R (whole runs): `underload sweep NAME=A,B -- run --runs 2 ...`: two runs
#    of 2 rounds, one at A and one at B (order alternated the same way).
# Both measure 4 cells of each test at each experiment.  For each test and
# experiment the difference is mean(log cell median at B) - mean(... at A);
# the script prints, per test and design, the mean difference (the effect:
# a carry-over of the setting from one round into the next would shrink W's)
# and its S.D. over the experiments (the noise of the design), the ratio of
# the S.D.s with a bootstrap 90% interval, and the time each design took.
# The sweep restores the sysctl (also on error or Ctrl-C); the script
# checks that it did.
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
proc=/proc/sys/${sysctl_name//.//}
[ -w "$proc" ] || { echo "round-alternation.sh: cannot write $proc" >&2; exit 2; }

original=$(cat "$proc")
tmp=$(mktemp -d /tmp/ul-roundalt.XXXXXX)
trap 'rm -rf "$tmp"' EXIT
trap 'exit 130' INT TERM

# sweep_design DB ORDER [SWEEP OPTION] -- [RUN OPTION]: ORDER "AB" or "BA"
# is the values' order given to the sweep (its first value leads).
sweep_design() {
	local db=$1 order=$2 values
	shift 2
	if [ "$order" = AB ]; then values="$val_a,$val_b"; else values="$val_b,$val_a"; fi
	local sweep_opts=() run_opts=()
	while [ "$1" != -- ]; do sweep_opts+=("$1"); shift; done
	shift
	run_opts=("$@")
	"$ul" sweep "$sysctl_name=$values" "${sweep_opts[@]}" -- run --db "$db" --dir "$tmp" \
		--no-progress --tests "$tests" --interval "$interval" --min-points "$points" \
		--max-points "$points" "${run_opts[@]}" >/dev/null 2>"$tmp/sweep.err" ||
		{ cat "$tmp/sweep.err" >&2; echo "round-alternation.sh: the sweep failed" >&2; exit 1; }
	[ "$(cat "$proc")" = "$original" ] ||
		{ echo "round-alternation.sh: the sweep left $sysctl_name at $(cat "$proc")" >&2; exit 1; }
}

load() { cut -d' ' -f1-3 /proc/loadavg; }
echo "round alternation: $ul, resp $tests, $points points at $interval," \
	"$sysctl_name A=$val_a B=$val_b, $experiments experiments a design"
echo "machine: $(nproc) CPUs, load average $(load) at start"
w_s=0
r_s=0
for i in $(seq "$experiments"); do
	if ((i % 2)); then order=AB; else order=BA; fi
	t0=$(date +%s%N)
	sweep_design "$tmp/w$i.db" "$order" --within-run --
	t1=$(date +%s%N)
	sweep_design "$tmp/r$i.db" "$order" -- --runs 2
	t2=$(date +%s%N)
	w_s=$((w_s + (t1 - t0) / 1000000))
	r_s=$((r_s + (t2 - t1) / 1000000))
done
echo "load average $(load) at end; machine time W $((w_s / 1000)) s, R $((r_s / 1000)) s"

for i in $(seq "$experiments"); do
	for d in w r; do "$ul" export --db "$tmp/$d$i.db" >"$tmp/$d$i.json"; done
done
python3 - "$tmp" "$experiments" "$sysctl_name=$val_a" "$sysctl_name=$val_b" <<'EOF'
import json, math, random, statistics as st, sys

tmp, experiments, label_a, label_b = sys.argv[1], int(sys.argv[2]), sys.argv[3], sys.argv[4]

def cell_medians(run):
    """(test, log median of delay_ns) of every ok resp cell."""
    out = []
    for c in run["cells"]:
        if c["suite"] != "resp" or c["outcome"] != "ok":
            continue
        vals = next((s["values"] for s in c["series"] if s["name"] == "delay_ns"), None)
        if vals:
            out.append((c["load"], math.log(st.median(vals))))
    return out

diffs = {}  # (test, design) -> [difference per experiment]
for i in range(1, experiments + 1):
    for design in "WR":
        runs = json.load(open(f"{tmp}/{design.lower()}{i}.json"))["runs"]
        labels = sorted(r["label"] for r in runs)
        if labels != sorted([label_a, label_b]):
            sys.exit(f"round-alternation.sh: {design}{i} stored {labels}, "
                     f"not one run of {label_a} and one of {label_b}")
        side = {}  # (test, letter) -> [log medians]
        for r in runs:
            letter = "A" if r["label"] == label_a else "B"
            for test, lm in cell_medians(r):
                side.setdefault((test, letter), []).append(lm)
        for test in {t for t, _ in side}:
            a, b = side.get((test, "A")), side.get((test, "B"))
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

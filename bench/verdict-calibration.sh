#!/usr/bin/env bash
# Is compare's verdict calibrated on this machine?  With a small resp
# configuration (noload, 10 points at 200 ms, the default probe):
#  - A/A: pairs of runs with identical settings; the share called anything
#    but "no difference proven" should be at most alpha (5%);
#  - A/B: the candidate does more CPU work (-o resp.cpu-work= +5%, +10%,
#    +20% over the baseline's); the share called "slower" (goal: >= 90% at
#    +10%).  The CPU work is only part of the task (the working set and the
#    ls -l exec are the rest), so the delay grows by less than the work:
#    the measured median change is printed beside it.
# The runs of a pair run back to back, alternating sides (baseline first in
# even pairs, candidate first in odd ones) so a drift of the machine does
# not always favour one side.  With RUNS > 1 each side of a pair has RUNS
# runs (alternated b c b c ...) and every pair is judged twice: on the
# pooled points (the default) and with --per-run (one median per run).
#
# usage: bench/verdict-calibration.sh [BUILD_DIR]
#   env: AA_PAIRS (20), AB_PAIRS (10 per size), WORK (34000000, the default),
#        ALPHA (0.05), TEST (mwu), RUNS (1 per side), SIZES ("5 10 20")
# Not run by CI.  Prints one table; a failed run stops the script.
set -euo pipefail
ul=${1:-build}/underload
aa_pairs=${AA_PAIRS:-20}
ab_pairs=${AB_PAIRS:-10}
work=${WORK:-34000000}
alpha=${ALPHA:-0.05}
test=${TEST:-mwu}
runs=${RUNS:-1}
sizes=${SIZES:-5 10 20}
tmp=$(mktemp -d /tmp/ul-calib.XXXXXX)
trap 'rm -rf "$tmp"' EXIT
db=$tmp/calib.db
common=(--db "$db" --dir "$tmp" --no-progress --tests noload --interval 200ms
	--min-points 10 --max-points 10 --format resp1)

run_one() { # run_one LABEL WORK
	"$ul" run "${common[@]}" --label "$1" -o resp.cpu-work="$2" >/dev/null
}

# verdict BASE CAND [--per-run] -> "verdict,change_rel" of the noload row
verdict() {
	"$ul" compare --db "$db" "$1" "$2" --test "$test" --alpha "$alpha" ${3:-} --format csv |
		tr -d '\r' | awk -F, 'NR == 2 { print $22 "," $13 }'
}

pair() { # pair NAME BASE_WORK CAND_WORK INDEX OUTFILE
	for r in $(seq "$runs"); do
		if (($4 % 2 == 0)); then
			run_one "$1-b" "$2"
			run_one "$1-c" "$3"
		else
			run_one "$1-c" "$3"
			run_one "$1-b" "$2"
		fi
	done
	verdict "$1-b" "$1-c" >>"$5.points"
	if ((runs > 1)); then
		verdict "$1-b" "$1-c" --per-run >>"$5.runs"
	fi
}

# summarise NAME PAIRS-FILE: one table row (mawk has no asort: sort first)
summarise() {
	sort -t, -k2,2g "$2" | awk -F, -v name="$1" '
		{ n++; v[$1]++; ch[n] = $2 * 100 }
		END {
			med = n % 2 ? ch[(n + 1) / 2] : (ch[n / 2] + ch[n / 2 + 1]) / 2
			printf "%-8s %5d %7d %7d %6d %9.0f%% %9.0f%% %+10.1f%% [%+.1f%%, %+.1f%%]\n",
				name, n, v["slower"], v["faster"], v["no difference proven"],
				100 * v["slower"] / n, 100 * (v["slower"] + v["faster"]) / n,
				med, ch[1], ch[n]
		}'
}

start=$(date +%s)
echo "verdict calibration: $ul, resp noload 10 points at 200 ms, cpu-work $work, test $test," \
	"alpha $alpha, $runs run(s) per side"
echo "machine: $(nproc) CPUs, load average $(cut -d' ' -f1-3 /proc/loadavg) at start"
for i in $(seq "$aa_pairs"); do
	pair "aa$i" "$work" "$work" "$i" "$tmp/aa"
done
for pct in $sizes; do
	cand=$((work + work * pct / 100))
	for i in $(seq "$ab_pairs"); do
		pair "ab$pct-$i" "$work" "$cand" "$i" "$tmp/ab$pct"
	done
done
echo
printf "%-8s %5s %7s %7s %6s %10s %10s %11s %s\n" "work" "pairs" "slower" "faster" "none" \
	"slower %" "any call %" "med change" "[min, max] of the measured median change"
for unit in points runs; do
	[ "$unit" = runs ] && ((runs < 2)) && continue
	echo "unit: $unit"
	summarise "A/A" "$tmp/aa.$unit"
	for pct in $sizes; do
		summarise "+$pct%" "$tmp/ab$pct.$unit"
	done
done
echo
echo "load average $(cut -d' ' -f1-3 /proc/loadavg) at end; $(($(date +%s) - start)) s"

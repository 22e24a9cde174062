#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-or-later
# Is compare's verdict calibrated on this machine?  Three series, each in
# its own store, with a small resp configuration (noload, 10 points at
# 200 ms, the default probe):
#  1. one replicate a side: HIST runs of the baseline configuration are
#     stored first (compare learns the run-to-run variance from them,
#     with HIST - 1 degrees of freedom: with 4, t(0.975, 3) = 3.18 left
#     the power under one half at a shift of 8%; with 16, t = 2.13),
#     then AA_PAIRS A/A pairs of one run each (the share called anything
#     but "no difference proven" should be at most alpha; the binomial p
#     of that many calls or more is printed) and AB_PAIRS pairs where the
#     candidate does PCT% more CPU work (-o resp.cpu-work=; the share
#     called "slower");
#  2. REPS replicates a side (REPS runs per label, alternated b c b c):
#     the same A/A and A/B tables, judged by Welch on replicate medians;
#  3. QUICK_PAIRS A/A pairs of a whole `run --quick` (every test of the
#     default suite, Holm within it): pairs with any call;
#  4. sequential: SEQ_AA sequences of `sweep --until-decided` A/A (the
#     same work twice: called slower or faster in at most alpha, with the
#     binomial p, and "equal" within MARGIN% in most) and SEQ_AB with PCT%
#     more work (called "slower"), each stopped at SEQ_MAX runs at most:
#     the verdicts, the median pairs and machine time to a decision, and
#     beside them the time of the fixed 3-runs-a-side design (6 runs at
#     the mean run time measured here);
#  5. sequential with the points left free (no --min-points or
#     --max-points): the same as 4, but --until-decided runs its pilot of
#     3 pairs at the run's own points, designs the points a cell, and
#     restarts the sequence after it (underload(1), UNTIL DECIDED: "The
#     design"; SEQ_MAX below 14 leaves no room for a pilot): the same
#     tables, and the designed points a cell.
# Pairs alternate which side runs first so a drift of the machine does
# not always favour one side.  The CPU work is only part of the probe's
# task, so the delay grows by less than the work: the median change of
# the A/B pairs is printed beside them.  Calls without run-to-run
# variance ("unconfirmed") are counted apart.
#
# usage: bench/verdict-calibration.sh [BUILD_DIR]
#   env: AA_PAIRS (60), AB_PAIRS (10), HIST (16), REPS (3), REP_AA (20),
#        REP_AB (10), QUICK_PAIRS (10), PCT (10), WORK (34000000),
#        ALPHA (0.05), SEQ_AA (40), SEQ_AB (20), SEQ_MAX (60), MARGIN (5);
#        SERIES ("1 2 3") picks series (4, 5: sequential); VERBOSE=1 prints
#        every pair's verdict, change and basis under its table.
# Not run by CI.  A failed run stops the script.  Report the load average
# it prints with every figure.
set -euo pipefail
ul=$(realpath "${1:-build}/underload")
aa_pairs=${AA_PAIRS:-60}
ab_pairs=${AB_PAIRS:-10}
hist=${HIST:-16}
reps=${REPS:-3}
rep_aa=${REP_AA:-20}
rep_ab=${REP_AB:-10}
quick_pairs=${QUICK_PAIRS:-10}
pct=${PCT:-10}
work=${WORK:-34000000}
alpha=${ALPHA:-0.05}
series=${SERIES:-1 2 3}
seq_aa=${SEQ_AA:-40}
seq_ab=${SEQ_AB:-20}
seq_max=${SEQ_MAX:-60}
margin=${MARGIN:-5}
tmp=$(mktemp -d /tmp/ul-calib.XXXXXX)
trap 'rm -rf "$tmp"' EXIT
resp_free=(--no-progress --tests noload --interval 200ms --format resp1)
resp=("${resp_free[@]}" --min-points 10 --max-points 10)

load() { cut -d' ' -f1-3 /proc/loadavg; }

# count ERE FILE: lines matching (grep -c fails on none; this does not)
count() { awk -v re="$1" '$0 ~ re { n++ } END { print n + 0 }' "$2"; }

run_one() { # run_one DB LABEL WORK
	"$ul" run --db "$1" --dir "$tmp" "${resp[@]}" --label "$2" -o resp.cpu-work="$3" >/dev/null
}

# verdicts DB BASE CAND -> one "verdict,change_rel,basis" line per row
verdicts() {
	"$ul" compare --db "$1" "$2" "$3" --alpha "$alpha" --format csv |
		python3 -c 'import csv, sys
for r in csv.DictReader(sys.stdin):
	print(r["verdict"] + "," + r["change_rel"] + "," + r["basis"])'
}

pair() { # pair DB NAME BASE_WORK CAND_WORK INDEX RUNS OUTFILE
	for _ in $(seq "$6"); do
		if (($5 % 2 == 0)); then
			run_one "$1" "$2-b" "$3"
			run_one "$1" "$2-c" "$4"
		else
			run_one "$1" "$2-c" "$4"
			run_one "$1" "$2-b" "$3"
		fi
	done
	verdicts "$1" "$2-b" "$2-c" >>"$7"
}

# P(X >= k) for X ~ Binomial(n, alpha)
binom_tail() {
	awk -v k="$1" -v n="$2" -v a="$alpha" 'BEGIN {
		p = 0
		for (i = k; i <= n; i++) {
			l = 0
			for (j = 1; j <= i; j++) l += log((n - i + j) / j)
			p += exp(l + i * log(a) + (n - i) * log(1 - a))
		}
		printf "%.3g", k == 0 ? 1 : p
	}'
}

# summarise NAME FILE: one table row (mawk has no asort: sort first)
summarise() {
	sort -t, -k2,2g "$2" | awk -F, -v name="$1" '
		{ n++; v[$1]++; ch[n] = $2 * 100; b[$3]++ }
		END {
			med = n % 2 ? ch[(n + 1) / 2] : (ch[n / 2] + ch[n / 2 + 1]) / 2
			calls = v["slower"] + v["faster"]
			unconf = v["slower (unconfirmed)"] + v["faster (unconfirmed)"]
			printf "%-6s %5d %6d %6d %6d %6d %7.0f%% %+9.1f%%  replicates %d, learned %d, points %d\n",
				name, n, v["slower"], v["faster"], unconf, v["no difference proven"],
				100 * calls / n, med, b["replicates"], b["learned"], b["points"]
		}'
	if [ "${VERBOSE:-0}" = 1 ]; then
		awk -F, '{ printf "       pair %2d: %-24s %+7.2f%%  %s\n", NR, $1, $2 * 100, $3 }' "$2"
	fi
	printf "       calls (slower or faster): %s of %s; P(X >= that | Binomial(n, %s)) = %s\n" \
		"$(count '^(slower|faster),' "$2")" "$(wc -l <"$2")" "$alpha" \
		"$(binom_tail "$(count '^(slower|faster),' "$2")" "$(wc -l <"$2")")"
}

header() {
	printf "%-6s %5s %6s %6s %6s %6s %8s %10s  %s\n" "pairs" "n" "slower" "faster" \
		"unconf" "none" "calls" "med change" "basis of the rows"
}

cand=$((work + work * pct / 100))
start=$(date +%s)
echo "verdict calibration: $ul, resp noload 10 points at 200 ms, cpu-work $work (+$pct%)," \
	"alpha $alpha"
echo "machine: $(nproc) CPUs, load average $(load) at start"

if [[ " $series " == *" 1 "* ]]; then
	db=$tmp/one.db
	for _ in $(seq "$hist"); do run_one "$db" history "$work"; done
	for i in $(seq "$aa_pairs"); do pair "$db" "aa$i" "$work" "$work" "$i" 1 "$tmp/one-aa"; done
	for i in $(seq "$ab_pairs"); do pair "$db" "ab$i" "$work" "$cand" "$i" 1 "$tmp/one-ab"; done
	echo
	echo "1. one replicate a side, run-to-run variance learned from $hist earlier runs" \
		"(load average $(load))"
	header
	summarise "A/A" "$tmp/one-aa"
	summarise "+$pct%" "$tmp/one-ab"
	# the same pairs without the history: qualified calls only
	db2=$tmp/one-nohist.db
	cp "$db" "$db2"
	ids=$("$ul" list --db "$db2" --label history | awk 'NR > 1 { print $1 }')
	if [ -n "$ids" ]; then
		# shellcheck disable=SC2086 # one id a word
		"$ul" rm --db "$db2" --yes $ids >/dev/null
		: >"$tmp/nohist-aa"
		for i in $(seq "$aa_pairs"); do verdicts "$db2" "aa$i-b" "aa$i-c" >>"$tmp/nohist-aa"; done
		echo "   the A/A pairs again without the history (within-run points only):"
		summarise "A/A" "$tmp/nohist-aa"
	fi
fi

if [[ " $series " == *" 2 "* ]]; then
	db=$tmp/reps.db
	for i in $(seq "$rep_aa"); do pair "$db" "aa$i" "$work" "$work" "$i" "$reps" "$tmp/rep-aa"; done
	for i in $(seq "$rep_ab"); do pair "$db" "ab$i" "$work" "$cand" "$i" "$reps" "$tmp/rep-ab"; done
	echo
	echo "2. $reps replicates a side (load average $(load))"
	header
	summarise "A/A" "$tmp/rep-aa"
	summarise "+$pct%" "$tmp/rep-ab"
fi

if [[ " $series " == *" 3 "* ]]; then
	db=$tmp/quick.db
	any=0 qualified=0
	for i in $(seq "$quick_pairs"); do
		for side in $( ((i % 2)) && echo "b c" || echo "c b"); do
			"$ul" run --quick --db "$db" --dir "$tmp" --no-progress --label "q$i-$side" \
				>/dev/null 2>>"$tmp/quick.err"
		done
		verdicts "$db" "q$i-b" "q$i-c" >"$tmp/q$i"
		# A call is a bare slower/faster; "slower (unconfirmed)" is the
		# qualified verdict of a row whose run-to-run variance is unknown.
		if grep -qE '^(slower|faster),' "$tmp/q$i"; then any=$((any + 1)); fi
		if grep -qE 'unconfirmed' "$tmp/q$i"; then qualified=$((qualified + 1)); fi
		rows=$(wc -l <"$tmp/q$i")
		echo "   pair $i: $rows rows, $(count '^(slower|faster),' "$tmp/q$i") calls," \
			"$(count 'unconfirmed' "$tmp/q$i") unconfirmed calls" >>"$tmp/quick.log"
	done
	echo
	echo "3. A/A pairs of a whole run --quick, one run a side (load average $(load))"
	cat "$tmp/quick.log"
	echo "   pairs with any call: $any of $quick_pairs;" \
		"pairs with a qualified (unconfirmed) call: $qualified of $quick_pairs"
fi
# sequence NAME BASE_WORK CAND_WORK OUTFILE RUN_ARGS...: one sweep
# --until-decided, one "verdict pairs seconds runs points" line (its store
# is its own; points: the pilot's design, "-" when none was made).
sequence() {
	local db=$tmp/$1.db t0 out pts
	t0=$(date +%s.%N)
	out=$("$ul" sweep -o resp.cpu-work="$2,$3" --until-decided --max-runs "$seq_max" \
		--margin "$margin" -- run --db "$db" --dir "$tmp" "${@:5}" 2>"$tmp/seq.err" |
		sed -n '/^until decided:/,$p')
	pts=$(sed -n 's/^sweep: after the pilot of [0-9]* pairs: \([0-9]*\) points a cell.*/\1/p' \
		"$tmp/seq.err")
	awk -v t0="$t0" -v t1="$(date +%s.%N)" -v pts="${pts:--}" '
		/^until decided:/ { match($0, /after [0-9]+ pairs? \([0-9]+ runs/)
			split(substr($0, RSTART, RLENGTH), w, /[ (]+/); pairs = w[2]; runs = w[4] }
		/^resp noload delay / { verdict = $NF }
		END { printf "%s %d %.1f %d %s\n", verdict, pairs, t1 - t0, runs, pts }' <<<"$out" >>"$4"
	rm -f "$db"
}

# seq_summary NAME FILE: verdicts, median pairs and seconds to the end
seq_summary() {
	sort -k3,3g "$2" | awk -v name="$1" '
		{ n++; v[$1]++; s[n] = $3; r += $4; t += $3; p[n] = $2 }
		END {
			ms = n % 2 ? s[(n + 1) / 2] : (s[n / 2] + s[n / 2 + 1]) / 2
			printf "%-6s %5d %6d %6d %6d %6d %10.0f s  (mean run %.1f s)\n", name, n,
				v["slower"], v["faster"], v["equal"], v["open"], ms, t / r
		}'
	sort -k2,2n "$2" | awk '{ p[++n] = $2 } END {
		printf "       median pairs %s\n", n % 2 ? p[(n + 1) / 2] : (p[n / 2] + p[n / 2 + 1]) / 2 }'
}

# sequential N TITLE RUN_ARGS...: series N's sequences and its tables
sequential() {
	local aa=$tmp/seq$1-aa ab=$tmp/seq$1-ab wrong
	: >"$aa"
	: >"$ab"
	for i in $(seq "$seq_aa"); do sequence "saa$1-$i" "$work" "$work" "$aa" "${@:3}"; done
	for i in $(seq "$seq_ab"); do sequence "sab$1-$i" "$work" "$cand" "$ab" "${@:3}"; done
	echo
	echo "$1. $2 (sweep --until-decided, margin $margin%, at most $seq_max runs;" \
		"load average $(load))"
	printf "%-6s %5s %6s %6s %6s %6s %12s\n" "seqs" "n" "slower" "faster" "equal" "open" \
		"median time"
	seq_summary "A/A" "$aa"
	seq_summary "+$pct%" "$ab"
	wrong=$(count '^(slower|faster) ' "$aa")
	printf "       A/A called slower or faster: %s of %s; P(X >= that | Binomial(n, %s)) = %s\n" \
		"$wrong" "$seq_aa" "$alpha" "$(binom_tail "$wrong" "$seq_aa")"
	awk '{ t += $3; r += $4 } END { printf "       the fixed design, 3 runs a side: %.0f s (6 runs at the mean run time)\n", 6 * t / r }' \
		"$aa" "$ab"
	if [ "$1" = 5 ]; then
		sort -k5,5n "$aa" "$ab" | awk '$5 != "-" { p[++n] = $5 } END {
			if (n) printf "       points a cell the pilot designed: median %s, %s to %s (%d sequences)\n",
				n % 2 ? p[(n + 1) / 2] : (p[n / 2] + p[n / 2 + 1]) / 2, p[1], p[n], n
			else print "       points a cell the pilot designed: none made" }'
	fi
	if [ "${VERBOSE:-0}" = 1 ]; then
		sed 's/^/       A\/A: /' "$aa"
		sed 's/^/       AB: /' "$ab"
	fi
}

if [[ " $series " == *" 4 "* ]]; then
	sequential 4 "sequential, 10 points a cell" "${resp[@]}"
fi
if [[ " $series " == *" 5 "* ]]; then
	sequential 5 "sequential, the points left free (a pilot designs them)" "${resp_free[@]}"
fi
echo
echo "load average $(load) at end; $(($(date +%s) - start)) s"

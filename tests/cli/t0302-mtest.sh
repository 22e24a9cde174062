#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-or-later
# mtest with a tiny target: the seed's "Averages for N mtest01 runs" block
# with the audio probe's dropouts, the native block with spread, exact
# bytes per run, and `underload vmstat` showing the sampler's records.
. "$(dirname "$0")/lib.bash"

MT=(--dir "$SCRATCH" --db "$DB" --no-progress --monitor-interval 50ms)

out=$("$UL" run mtest "${MT[@]}" --runs 2 --mtest-target 8M --format mtest,text 2>"$TMP/err")
rc=$?
is "$rc" 0 "mtest run exits 0"
[ "$rc" = 0 ] || diag "$(cat "$TMP/err")"
is "$(sed -n 1p <<<"$out")" "Averages for 2 mtest01 runs" "seed block title"
is "$(sed -n 2p <<<"$out")" "bytes allocated:                    8388608.0" "exact bytes, not one chunk more"
labels=$(sed -n 3,8p <<<"$out" | cut -c1-36 | sed 's/ *$//' | paste -sd'|')
is "$labels" "User time (seconds):|System time (seconds):|Elapsed (wall clock) time:|Percent of CPU this job got:|Major (requiring I/O) page faults:|Minor (reclaiming a frame) faults:" \
	"the seed's labels in a 36-column field"
like "$(sed -n 5p <<<"$out")" '^Elapsed \(wall clock\) time: +[0-9]+\.[0-9]{3}$' "elapsed in seconds, 3 decimals"
like "$(sed -n 6p <<<"$out")" '^Percent of CPU this job got: +[0-9]+\.[0-9]%$' "CPU percent"
like "$(sed -n 9p <<<"$out")" '^audio dropouts: [0-9]+ of [0-9]+ periods missed( \([0-9.]+% met\))?, longest stall [0-9.]+ ms$' \
	"the audio probe's dropouts beside the averages"
like "$out" '\n?mtest01: 2 runs of 8388608 bytes in 1048576-byte chunks \(size given\)' "native block says how it was sized"
like "$out" 'outcomes: 2 passed, 0 allocation failures, 0 killed \(OOM\), 0 other failures' "native outcomes"
like "$out" '^ +mean +S\.D\. +min +max$' "native block has spread"

vm=$("$UL" vmstat --db "$DB" last)
is $? 0 "vmstat last exits 0"
is "$(sed -n 2p <<<"$vm")" "procs -----------memory---------- ---swap-- -----io---- -system-- ------cpu-----" "vmstat header 1"
is "$(sed -n 3p <<<"$vm")" " r  b   swpd   free   buff  cache   si   so    bi    bo   in   cs us sy id wa st" "vmstat header 2"
like "$(sed -n 4p <<<"$vm")" '^ *[0-9]+ +[0-9]+( +[0-9]+){15}$' "a row of 17 numbers"
like "$(sed -n 1p <<<"$vm")" '^mtest/mtest01: [0-9]+ samples' "titled by cell"
is "$("$UL" vmstat --db "$DB" --cell mtest/mtest01 last)" "$vm" "--cell SUITE/TEST selects the cell"
"$UL" vmstat --db "$DB" --cell nosuch last >/dev/null 2>"$TMP/err"
is $? 2 "an unknown cell is a usage error"

out=$("$UL" run mtest "${MT[@]}" --runs 1 --mtest-target 4M --deadline none --monitor-interval 0 \
	--format mtest 2>"$TMP/err")
is $? 0 "run without probe and sampler"
is "$(grep -c dropouts <<<"$out")" 0 "--deadline none: no dropouts line"
"$UL" vmstat --db "$DB" last >/dev/null 2>"$TMP/err"
is $? 1 "vmstat of a run without samples fails"
like "$(cat "$TMP/err")" "no sampler records" "and says why"

"$UL" run mtest "${MT[@]}" --mtest-target 150% >/dev/null 2>"$TMP/err"
is $? 2 "--mtest-target above 100% is a usage error"
"$UL" run mtest "${MT[@]}" --runs 0 >/dev/null 2>"$TMP/err"
is $? 2 "--runs 0 is a usage error"
"$UL" run mtest "${MT[@]}" --monitor-interval 1ms >/dev/null 2>"$TMP/err"
is $? 2 "a sampler faster than 10ms is refused"

# Inside a 64M cgroup with no swap to spill to, 100% cannot fit beside the
# child's own pages: the OOM killer takes the child, and that is a result.
if [ "$(id -u)" = 0 ] && [ "$(wc -l </proc/swaps)" -le 1 ]; then
	out=$("$UL" run mtest "${MT[@]}" --mem-limit 64M --runs 2 --mtest-target 100% --format text \
		2>"$TMP/err")
	is $? 0 "an OOM kill inside the sandbox is an outcome, not a failed run"
	like "$out" 'outcomes: 0 passed, 0 allocation failures, 2 killed \(OOM\)' "both runs recorded as killed"
else
	skip "needs root and no active swap for a certain OOM kill"
	skip "needs root and no active swap for a certain OOM kill"
fi

is "$(scratch_left)" 0 "no scratch directory left behind"
is "$(ul_procs)" 0 "no process left behind"
done_testing

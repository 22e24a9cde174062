#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-or-later
# underload vm --until-decided: two kernels booted in pairs of boots,
# their runs decided by the sequential A/B (the man page's UNTIL DECIDED);
# here one Debian image given twice, stopped by --max-runs after one pair
# (a pair bounds nothing: the row stays open).  Its options are refused
# with one kernel or with --boots; nothing is left.
. "$(dirname "$0")/lib.bash"
. "$(dirname "$0")/vm.bash"

"$UL" vm --db "$DB" --kernel "$kernel" --until-decided -- "${RUN[@]}" >/dev/null 2>"$TMP/err"
is $? 2 "--until-decided with one kernel is refused"
like "$(cat "$TMP/err")" "compares two sides: 1 given" "and says why"
"$UL" vm --db "$DB" --kernel "$kernel" --kernel "$kernel" --boots 2 --until-decided \
	-- "${RUN[@]}" >/dev/null 2>"$TMP/err"
is $? 2 "--until-decided with --boots is refused"
"$UL" vm --db "$DB" --kernel "$kernel" --kernel "$kernel" --max-runs 2 \
	-- "${RUN[@]}" >/dev/null 2>"$TMP/err"
is $? 2 "--max-runs without --until-decided is refused"

"$UL" vm --db "$DB" --kernel "$kernel" --kernel "$kernel" --until-decided --max-runs 3 \
	-- "${RUN[@]}" >"$TMP/out" 2>"$TMP/err"
is $? 0 "vm --until-decided --max-runs 3 exits 0"
grep '^vm: boot .* after ' "$TMP/out" | sed 's/^/# /'
is "$(runs "$DB")" "$rel complete,$rel#2 complete" "one pair: A then B, each stored"
like "$(cat "$TMP/out")" "^vm: boot 2: finished after" "boots are numbered as they come"
like "$(cat "$TMP/out")" "^until decided: '$rel#2' against '$rel' \(the baseline\): budget reached after 1 pair \(2 runs" \
	"the result: a second pair would pass --max-runs"
like "$(cat "$TMP/out")" "^resp noload delay +[-+][0-9.]+% \[unbounded\] +open$" "one pair bounds nothing"
like "$(cat "$TMP/err")" "^vm: pair 1: 0 of 1 tests decided" "the progress line"
is "$(work_left "$TMP/out")" "" "the work directory is gone"
is "$(ul_procs)" 0 "no qemu or underload process is left"
done_testing

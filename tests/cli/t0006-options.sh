#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-or-later
# One description per option: `run --help`, `list probes -v`, `list loads
# -v` and the man page's generated sections all come from the option
# tables and agree; every selected suite is checked before anything runs.
. "$(dirname "$0")/lib.bash"

MAN=$(cd "$(dirname "$0")/../.." && pwd)/docs/underload.1

# The man page holds exactly what the tables generate (docs/update-man),
# block by block: each command's options and the items' (-o) options.
block() { # block NAME FILE: the generated block NAME as FILE holds it
	awk -v n="$1" '$0 ~ "^\\.\\\\\" BEGIN " n " options" { on = 1 } on { print }
		$0 ~ "^\\.\\\\\" END " n " options" { on = 0 }' "$2"
}
"$UL" __man-options >"$TMP/gen"
ok $? "__man-options exits 0"
names=$(sed -n 's/^\.\\" BEGIN \([a-z-]*\) options.*/\1/p' "$TMP/gen")
pnames=$(sed -n 's/^\.\\" BEGIN \([a-z-]*\) options.*/\1/p' "$MAN")
bad=0
[ "$(sort <<<"$names")" = "$(sort <<<"$pnames")" ] ||
	{ diag "generated: $(echo $names); in the page: $(echo $pnames)"; bad=1; }
for n in $names; do
	if ! diff -u <(block "$n" "$MAN") <(block "$n" "$TMP/gen") >"$TMP/diff"; then
		diag "$n options differ:"; diag "$(head -20 "$TMP/diff")"; bad=1
	fi
done
[ $bad = 0 ]
ok $? "docs/underload.1's generated sections match the option tables (run docs/update-man)"

# Every command's --help names exactly the options of its generated man
# block (none when it has no table): a hand-written option list or a table
# left out of the page shows here.
help_opts() { "$UL" "$1" --help | grep -oE '^  (-[a-z], )?--[a-z][a-z-]*' | sed 's/.*--//' | grep -vx help | sort -u; }
man_opts() {
	sed -n "/BEGIN $1 options/,/END $1 options/p" "$MAN" | grep -A1 '^\.TP' |
		grep -oE '^\.BI? (\\-[a-z] "\\fR, \\fP" )?\\-\\-[a-z\\-]+' | sed 's/.*\\-\\-//; s/\\-/-/g' | sort -u
}
cmds=$("$UL" --help | sed -n '/^Commands:/,/^$/s/^  \([a-z][a-z-]*\) .*/\1/p')
bad=0
for c in run list show vmstat report compare export import rm relabel cleanup; do
	grep -qx "$c" <<<"$cmds" || { diag "underload --help lacks $c"; bad=1; }
done
for c in $cmds; do
	diff -u <(help_opts "$c") <(man_opts "$c") >"$TMP/diff2" ||
		{ diag "$c --help and its man page options differ:"; diag "$(cat "$TMP/diff2")"; bad=1; }
done
[ $bad = 0 ]
ok $? "every command's --help and man page name the same options"
# The usage line is generated from the same table: every option of a
# command (run's, by suite, are too many: it says [OPTION]...) is in it.
usage_of() { "$UL" "$1" --help | sed '/^$/q'; }
bad=0
for c in $cmds; do
	[ "$c" = run ] && continue
	for o in $(man_opts "$c"); do
		grep -qE -- "--$o( |]|\.|$)" <(usage_of "$c") || { diag "$c's usage lacks --$o"; bad=1; }
	done
	[ "$(usage_of "$c" | grep -c '^usage:')" = 1 ] || { diag "$c has a usage line by hand"; bad=1; }
done
[ $bad = 0 ]
ok $? "every command's usage line names every option of its table"
like "$(usage_of run)" "usage: underload run \[OPTION\]\.\.\. \[SUITE\.\.\.\]" "run's usage line"
bad=0
for c in compare export import rm relabel; do
	[ -n "$(man_opts "$c")" ] || { diag "no generated $c options in the man page"; bad=1; }
done
[ $bad = 0 ]
ok $? "compare, export, import, rm and relabel have generated man page options"
help_opts run >"$TMP/h"
is "$(wc -l <"$TMP/h")" "$(grep -c '^\.TP' <(sed -n '/BEGIN run options/,/END run options/p' "$MAN"))" \
	"run --help lists as many options as the man page"
bad=0
for o in interval mem-limit job lead-time mtest-target; do
	grep -qx "$o" "$TMP/h" || { diag "run --help lacks --$o"; bad=1; }
done
[ $bad = 0 ]
ok $? "run --help shows the suites' options (--job, --lead-time, --mtest-target)"
like "$("$UL" run --help)" $'contest suite:\n  --job ' "contest's options come under its heading"

# Every probe, of every kind, in `list probes -v`, and its options in the man page.
probes=$("$UL" list probes -v)
bad=0
for k in "resp +repeat" "deadline +periodic" "job +whole" "mtest01 +whole"; do
	grep -qE "^$k " <<<"$probes" || { diag "list probes lacks '$k'"; bad=1; }
done
[ $bad = 0 ]
ok $? "list probes -v shows the repeat, periodic and whole probes with their kind"
# "probe.option" for every option line under a probe's line
pairs=$(awk '/^[a-z]/ { p = $1 } /^    [a-z]/ { print p "." $1 }' <<<"$probes")
bad=0
[ -n "$pairs" ] || bad=1
for pair in $pairs; do
	grep -q "^\.BI \"${pair//-/\\\\-}=" "$MAN" || { diag "man page lacks $pair"; bad=1; }
done
[ $bad = 0 ]
ok $? "every probe option of list probes -v is in the man page"
grep -q '^\.BI "resp\.working\\-set=" size' "$MAN"
ok $? "the man page documents resp.working-set"

# Options of a suite that is not selected are refused, naming them.
"$UL" run --dir "$SCRATCH" --db "$DB" --lead-time 1s --tests noload 2>"$TMP/err" >/dev/null
is $? 2 "a contest option without the contest suite exits 2"
like "$(cat "$TMP/err")" "contest options \(--lead-time\) need the contest suite" "and names the option"

# Every selected suite's preflight runs before any suite starts: mtest's
# refusal stops `run resp mtest` before resp measures anything.
"$UL" run --dir "$SCRATCH" --db "$DB" --no-progress --interval 100ms --min-points 5 --max-points 5 \
	--tests noload,mtest01 --mtest-target 1000T resp mtest 2>"$TMP/err" >/dev/null
is $? 2 "a later suite's refusal exits 2"
like "$(cat "$TMP/err")" "mtest: --mtest-target 1000T is more than this run may use" "and says why"
is "$(sqlite3 "$DB" 'SELECT count(*) FROM cells' 2>/dev/null || echo 0)" 0 "nothing was measured or stored"
is "$(scratch_left)" 0 "no scratch directory left behind"
done_testing

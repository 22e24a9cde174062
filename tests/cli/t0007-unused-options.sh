#!/usr/bin/env bash
# An option of `run` that no selected suite reads is refused with exit 2,
# naming it; nothing is accepted and then ignored.  Which suites read which
# option comes from the option table (its "(only SUITES)" in the generated
# man text of run's options) and `list suites -v`; both must agree, and
# every suite x option combination outside that table is tried.
. "$(dirname "$0")/lib.bash"

BASE=(--dir "$SCRATCH" --db "$DB" --no-progress)

# "NAME ARG SUITES" for each run option only some suites read.
"$UL" __man-options run >"$TMP/man"
ok $? "__man-options run exits 0"
awk '/^\.BI? \\-\\-/ { name = $2; gsub(/\\/, "", name); sub(/^--/, "", name)
		arg = "-"; if (match($0, /" [A-Z]+"/)) arg = substr($0, RSTART + 2, RLENGTH - 3); next }
	match($0, /\(only [a-z,]+\)/) && name != "" {
		print name, arg, substr($0, RSTART + 6, RLENGTH - 7); name = "" }' \
	"$TMP/man" >"$TMP/only"
n_only=$(wc -l <"$TMP/only")
[ "$n_only" -ge 5 ]
ok $? "the table names the options only some suites read ($n_only)"
like "$(cat "$TMP/only")" '^under LIST [a-z,]*micro' "--under is among them, read by micro"

suites=$("$UL" list suites | awk '{ print $1 }')
[ "$(wc -w <<<"$suites")" -ge 6 ]
ok $? "list suites names every suite"

# list suites -v says, per suite, the same table.
"$UL" list suites -v | awk '/^[a-z]/ { s = $1 } /run options only some suites read:/ {
	for (i = 7; i <= NF; i++) if ($i != "none") { o = $i; sub(/^--/, "", o); print s, o } }' |
	sort >"$TMP/listed"
while read -r name _ users; do
	for s in ${users//,/ }; do echo "$s $name"; done
done <"$TMP/only" | sort >"$TMP/table"
is "$(cat "$TMP/listed")" "$(cat "$TMP/table")" "list suites -v and run's option table agree"

value_for() { # value_for ARG: a valid value for that metavariable
	case $1 in
	DURATION | DUR) echo 1s ;;
	N) echo 2 ;;
	PCT) echo 5% ;;
	LIST) echo noload ;;
	*) echo "unknown metavariable $1" >&2; echo x ;;
	esac
}

refused=0 accepted=0
while read -r name arg users; do
	val=$(value_for "$arg")
	for s in $suites; do
		if [[ ",$users," == *",$s,"* ]]; then
			# A suite that reads it gets past the check: the bad test name is
			# what stops the run, before anything is measured.
			"$UL" run "$s" "${BASE[@]}" "--$name" "$val" --tests no-such-test \
				>/dev/null 2>"$TMP/err"
			rc=$?
			is "$rc" 2 "run $s --$name: stopped by the unknown test"
			like "$(cat "$TMP/err")" "no-such-test" "run $s --$name: not refused for --$name"
			accepted=$((accepted + 1))
			continue
		fi
		# The unknown test would stop a run that accepted the option too:
		# only the refusal of --NAME gives the message tested below.
		"$UL" run "$s" "${BASE[@]}" "--$name" "$val" --tests no-such-test >"$TMP/out" \
			2>"$TMP/err"
		rc=$?
		is "$rc" 2 "run $s --$name $val exits 2"
		like "$(cat "$TMP/err")" "--$name is not used by the suite $s: only $users read it" \
			"run $s --$name: the message names the option and its suites"
		is "$(wc -c <"$TMP/out")" 0 "run $s --$name: nothing measured"
		refused=$((refused + 1))
	done
done <"$TMP/only"
diag "$refused combinations refused, $accepted accepted"

# Two suites: refused only when neither reads it.
"$UL" run micro contest "${BASE[@]}" --interval 1s >/dev/null 2>"$TMP/err"
is $? 2 "run micro contest --interval exits 2"
like "$(cat "$TMP/err")" "--interval is not used by the suites micro,contest" "both named"
"$UL" run micro contest "${BASE[@]}" --under noload --tests no-such-test >/dev/null 2>"$TMP/err"
is $? 2 "run micro contest --under: micro reads it"
like "$(cat "$TMP/err")" "no-such-test" "stopped by the unknown test, not by --under"
is "$(scratch_left)" 0 "no scratch directory left"

done_testing

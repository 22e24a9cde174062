#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-or-later
# An option of `run` that no selected suite reads is refused with exit 2,
# naming it; nothing is accepted and then ignored.  Every option of run's
# own table x every suite is tried, from the program's own table (the
# hidden `underload __run-options`: "NAME ARG SUITES WITH"), never from a
# list kept here: a suite that reads the option gets past the check (the
# unknown test stops it), any other is refused.  `list suites -v` and the
# man text's "(only ...)" must say the same.
. "$(dirname "$0")/lib.bash"

BASE=(--dir "$SCRATCH" --db "$DB" --no-progress)

"$UL" __run-options >"$TMP/table"
ok $? "__run-options exits 0"
# run's own options: those of --help above the first suite's heading.
"$UL" run --help | awk '/^[a-z]+ suite:$/ { exit } { print }' |
	grep -oE '^  (-[a-z], )?--[a-z-]+' | sed -E 's/.*--//' | grep -vx help | sort >"$TMP/help-names"
is "$(awk '{ print $1 }' "$TMP/table" | sort)" "$(cat "$TMP/help-names")" \
	"the table has every option of run's own (run --help), once"
is "$(awk 'NF != 4' "$TMP/table")" "" "every line is NAME ARG SUITES WITH"

suites=$("$UL" list suites | awk '{ print $1 }')
n_suites=$(wc -w <<<"$suites")
[ "$n_suites" -ge 6 ]
ok $? "list suites names every suite ($n_suites)"
all=$(tr ' \n' ',,' <<<"$suites" | sed 's/,*$//')
like "$(cat "$TMP/table")" "^runs N $all -\$" "--runs is read by every suite"

# The options only some suites read, as list suites -v and the man page say.
awk -v all="$all" '$3 != all { n = split($3, s, ","); for (i = 1; i <= n; i++) print s[i], $1 }' \
	"$TMP/table" | sort >"$TMP/some"
[ -s "$TMP/some" ]
ok $? "some options are read by some suites only ($(awk '{ print $2 }' "$TMP/some" | sort -u | tr '\n' ' '))"
"$UL" list suites -v | awk '/^[a-z]/ { s = $1 } /run options only some suites read:/ {
	for (i = 7; i <= NF; i++) if ($i != "none") { o = $i; sub(/^--/, "", o); print s, o } }' |
	sort >"$TMP/listed"
is "$(cat "$TMP/listed")" "$(cat "$TMP/some")" "list suites -v says the same"
"$UL" __man-options run >"$TMP/man"
awk '/^\.BI? \\-\\-/ { name = $2; gsub(/\\/, "", name); sub(/^--/, "", name); next }
	match($0, /\(only [a-z,]+/) && name != "" {
		list = substr($0, RSTART + 6, RLENGTH - 6); sub(/,$/, "", list)
		n = split(list, s, ",")
		for (i = 1; i <= n; i++) print s[i], name
		name = "" }' "$TMP/man" | sort >"$TMP/man-only"
is "$(cat "$TMP/man-only")" "$(cat "$TMP/some")" "the man page's (only ...) says the same"

value_for() { # value_for NAME ARG: a valid value of that option
	case $1:$2 in
	*:-) ;; # a flag
	format:LIST) echo text ;;
	under:LIST) echo noload ;;
	cpus:LIST) echo 0 ;;
	tests:LIST) echo no-such-test ;;
	db:PATH) echo "$DB" ;;
	dir:PATH) echo "$SCRATCH" ;;
	*:TEXT) echo a-label ;;
	*:DURATION | *:DUR) echo 1s ;;
	*:N) echo 2 ;;
	*:PCT) echo 5% ;;
	*:SIZE) echo 64M ;;
	*:PROFILE) echo audio ;;
	*:ITEM.NAME=VALUE) echo resp.files=20 ;;
	round-sysctl:NAME=A,B) echo vm.swappiness=10,100 ;;
	*) echo "no value known for --$1 $2: add it to value_for" >&2; echo x ;;
	esac
}

# try SUITE ARGS...: run SUITE with ARGS and the unknown test; exit code in
# $rc, stderr in $TMP/err, stdout's size in $out_bytes.
try() {
	local s=$1
	shift
	"$UL" run "$s" "${BASE[@]}" "$@" --tests no-such-test >"$TMP/out" 2>"$TMP/err"
	rc=$?
	out_bytes=$(wc -c <"$TMP/out")
}

refused=0 accepted=0 bad=0
while read -r name arg users with; do
	val=$(value_for "$name" "$arg")
	args=("--$name")
	[ "$arg" = - ] || args+=("$val")
	for s in $suites; do
		try "$s" "${args[@]}"
		if [[ ",$users," == *",$s,"* ]]; then
			# Read: the unknown test stops the run, before anything is measured.
			if [ "$rc" = 2 ] && grep -q "unknown test 'no-such-test'" "$TMP/err"; then
				accepted=$((accepted + 1))
			else
				bad=$((bad + 1))
				diag "run $s --$name: read, but exit $rc: $(cat "$TMP/err")"
			fi
			continue
		fi
		# Not read: the refusal names the option and its suites, and only
		# it stops the run (the unknown test would stop an accepted run
		# with another message).
		said=$(sed -nE "s/.*--$name is not used by the suite $s: only ([a-z,]+) read it.*/\1/p" \
			"$TMP/err" | tr , '\n' | sort | tr '\n' ,)
		if [ "$rc" = 2 ] && [ "$out_bytes" = 0 ] &&
			[ "$said" = "$(tr , '\n' <<<"$users" | sort | tr '\n' ,)" ]; then
			refused=$((refused + 1))
		else
			bad=$((bad + 1))
			diag "run $s --$name: not read, but exit $rc: $(cat "$TMP/err")"
		fi
		[ "$with" = - ] && continue
		# ... unless the option that makes every suite read it is given.
		try "$s" "${args[@]}" "--$with" "$(value_for "$with" "$(awk -v w="$with" '$1 == w { print $2 }' "$TMP/table")")"
		if [ "$rc" = 2 ] && grep -q "unknown test 'no-such-test'" "$TMP/err"; then
			accepted=$((accepted + 1))
		else
			bad=$((bad + 1))
			diag "run $s --$name --$with: exit $rc: $(cat "$TMP/err")"
		fi
	done
done <"$TMP/table"
n_opts=$(wc -l <"$TMP/table")
is "$bad" 0 "every option x suite: read, or refused naming it ($refused refused, $accepted accepted)"
[ $((refused + accepted)) -ge $((n_opts * n_suites)) ] && [ "$refused" -ge 10 ]
ok $? "all $n_opts x $n_suites combinations were tried"

# Two suites: refused only when neither reads it.
"$UL" run micro contest "${BASE[@]}" --interval 1s >/dev/null 2>"$TMP/err"
is $? 2 "run micro contest --interval exits 2"
like "$(cat "$TMP/err")" "--interval is not used by the suites micro,contest" "both named"
"$UL" run micro contest "${BASE[@]}" --under noload --tests no-such-test >/dev/null 2>"$TMP/err"
is $? 2 "run micro contest --under: micro reads it"
like "$(cat "$TMP/err")" "no-such-test" "stopped by the unknown test, not by --under"
# -o ITEM.NAME=VALUE: the item must be a load or probe of a selected suite
# (any of its tests: a profile of -o for every test is fine with --tests).
# The refusal comes before --dir is looked at; an accepted -o reaches the
# missing --dir (exit 2, naming it), so nothing runs either way.
NODIR=(--db "$DB" --no-progress --dir "$TMP/no-such-dir")
try_o() { "$UL" run "$@" "${NODIR[@]}" >/dev/null 2>"$TMP/err"; rc=$?; }
try_o resp --tests noload -o io_load.size=64M
is "$rc" 2 "run resp -o io_load.*: contest's load is refused"
like "$(cat "$TMP/err")" "-o io_load.\\*: no selected suite runs the load 'io_load'" "naming it"
try_o resp --tests noload -o cpuload.spinners=1
like "$(cat "$TMP/err")" "--dir '$TMP/no-such-dir'" "a load of the suite that --tests leaves out is accepted"
try_o micro --tests lat-null -o resp.files=20
is "$rc" 2 "run micro -o resp.*: a probe micro does not measure with is refused"
like "$(cat "$TMP/err")" "measures with the probe 'resp'" "naming the probe"
try_o deadline --tests noload -o resp.files=20
is "$rc" 2 "run deadline -o resp.*: the deadline suite does not run the resp probe"
try_o micro --tests lat-null --under cpuload -o cpuload.spinners=1
like "$(cat "$TMP/err")" "--dir '$TMP/no-such-dir'" "micro --under cpuload -o cpuload.* is accepted"
try_o resp --tests fsbench -o fsbench.clients=2
like "$(cat "$TMP/err")" "--dir '$TMP/no-such-dir'" "resp --tests fsbench (any load) -o fsbench.* is accepted"
try_o resp contest --tests noload -o io_load.size=16M
like "$(cat "$TMP/err")" "--dir '$TMP/no-such-dir'" "with contest selected too, -o io_load.* is accepted"

# --deadline none takes away what --deadline-rt and the deadline suite need.
try_o mtest --deadline none --deadline-rt
is "$rc" 2 "run mtest --deadline none --deadline-rt exits 2"
like "$(cat "$TMP/err")" "--deadline-rt needs a deadline probe" "saying why"
try_o deadline --deadline none
is "$rc" 2 "run deadline --deadline none exits 2"
like "$(cat "$TMP/err")" "the deadline suite measures the deadline probe" "saying why"
try_o mtest --deadline none
like "$(cat "$TMP/err")" "--dir '$TMP/no-such-dir'" "mtest --deadline none alone is accepted"
is "$(scratch_left)" 0 "no scratch directory left"

done_testing

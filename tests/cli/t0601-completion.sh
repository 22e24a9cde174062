#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-or-later
# Shell completion generated from the option tables (completion/,
# src/cmd/complete.c): the bash function offers commands, every option
# --help lists, the word lists of choice options, and the store's labels
# and runs (read-only: a TAB never creates a database); the zsh function
# offers the same through stubs of zsh's completion builtins.
. "$(dirname "$0")/lib.bash"

gen=$(dirname "$UL_REAL")/completion
BASH_COMP=$gen/underload
ZSH_COMP=$gen/_underload
ok "$([ -s "$BASH_COMP" ] && [ -s "$ZSH_COMP" ]; echo $?)" \
	"the build made both completion scripts ($gen)"
bash -n "$BASH_COMP"
ok $? "the bash script parses"

# Candidates the bash function offers for a command line whose last word
# is being completed, one a line (as readline would get them).
comp() {
	bash -c '. "$1"; shift; COMP_WORDS=("$@"); COMP_CWORD=$(($# - 1))
		_underload; printf "%s\n" "${COMPREPLY[@]}"' comp "$BASH_COMP" "$UL" "$@"
}
# The same candidates on one line, sorted, for comparing.
line() { sort | tr '\n' ' ' | sed 's/ $//'; }

is "$(comp run --fo)" "--format" "run --fo<TAB> completes --format"
is "$(comp run --format '' | line)" "$("$UL" list formats | awk '{ print $1 }' | line)" \
	"run --format <TAB> offers every format"
is "$(comp run --format text,js)" "text,json" "run --format completes the last item of a list"
is "$(comp run --format = '' | line)" "$("$UL" list formats | awk '{ print $1 }' | line)" \
	"run --format=<TAB> offers every format"
is "$(comp run '' | line)" "$("$UL" list suites | awk '{ print $1 }' | line)" \
	"run <TAB> offers the suites"
is "$(comp run --tests noload,cpu)" "noload,cpuload" "run --tests completes a load"
is "$(comp compare --format '' | line)" "csv json lmbench2 text" \
	"compare --format <TAB> offers the words of its choice"
is "$(comp compare --fail-on '' | line)" "changed faster slower" \
	"compare --fail-on <TAB> offers the verdicts the gate takes"
is "$(comp compare --env '' | line)" "all default" "compare --env <TAB> offers default and all"
is "$(comp compare --mar)" "--margin" "compare --mar<TAB> completes --margin"
like "$(comp run -o resp.work)" '^resp\.working-set=$' "-o completes a probe option"
is "$(comp r | line)" "relabel report rm run" "a command name completes"
mkdir -p "$TMP/files/sub" && touch "$TMP/files/loadfile.txt"
is "$(comp run --loadfile "$TMP/files/l")" "$TMP/files/loadfile.txt" "--loadfile completes file names"
is "$(comp run --dir "$TMP/files/" | line)" "$TMP/files/sub" "--dir completes directories only"

# The store: no database yet, so nothing is offered and none is created.
is "$(comp compare '')" "" "compare <TAB> without a store offers nothing"
ok "$([ ! -e "$XDG_DATA_HOME/underload" ]; echo $?)" "and creates no database or directory"
is "$(comp compare --db "$TMP/typo.db" '')" "" "nor with a --db that does not exist"
ok "$([ ! -e "$TMP/typo.db" ]; echo $?)" "which stays absent"

"$UL" run "${TINY[@]}" --tests noload --label alpha >/dev/null 2>&1
ok $? "a run labelled alpha"
"$UL" run "${TINY[@]}" --tests noload --label "beta two" >/dev/null 2>&1
ok $? "a run labelled 'beta two'"
runs=$("$UL" list --db "$DB" | awk 'NR > 1 { print $2 }' | line)
is "$(comp compare --db "$DB" '' | line)" "$(printf '%s\n' alpha 'beta\ two' $runs last | line)" \
	"compare <TAB> offers both labels, both runs and 'last'"
# A run id is random hex: one starting with b is offered too.
b_runs=$(tr ' ' '\n' <<<"$runs" | grep '^b')
is "$(comp compare --db = "$DB" b | line)" "$(printf '%s\n' 'beta\ two' $b_runs | line)" \
	"--db=PATH is read, and a label is quoted"
is "$(comp show --db "$DB" '' | line)" "$(printf '%s\n' $runs last | line)" "show <TAB> offers runs"
for c in report rm; do
	like "$(comp $c --db "$DB" '' | line)" "alpha|${runs%% *}" "$c <TAB> offers the store's names"
done
is "$(comp relabel --db "$DB" last '' | line)" "$(printf '%s\n' alpha 'beta\ two' | line)" \
	"relabel RUN <TAB> offers the labels"
hosts=$(uname -n) # where both runs were made
is "$(comp compare --db "$DB" --host '' | line)" "$hosts" "--host <TAB> offers the runs' hosts"

# Every option --help lists (made from the same tables) completes, for
# every command and every suite's heading under run.
missing=
for c in $("$UL" --help | awk '/^Commands:/ { on = 1; next } on && /^  / { print $1 }'); do
	for o in $("$UL" "$c" --help | grep -oE '^  (-[a-zA-Z], )?--[a-z][a-z0-9-]*' |
		grep -oE -- '--[a-z][a-z0-9-]*|-[a-zA-Z]'); do
		comp "$c" "$o" | grep -qxF -- "$o" || missing+=" $c:$o"
	done
done
is "$missing" "" "every option of every command's --help completes"
n=$("$UL" __complete spec | awk -F'\t' '$1 == "opt"' | wc -l)
ok "$([ "$n" -ge 60 ]; echo $?)" "the spec lists every option ($n)"

# zsh: the same function under stubs of compadd, compset, _describe and
# _files that print the candidates.
if ! command -v zsh >/dev/null; then
	skip "zsh is not installed (Debian package zsh)"
else
	zsh -n "$ZSH_COMP"
	ok $? "the zsh script parses"
	zcomp() {
		zsh -f -c '
		compadd() { local -a a; local arr=
			while [[ $1 == -* ]]; do case $1 in
				(-a) arr=1; shift; break;; (-S|-P|-t|-J|-X) shift 2;;
				(--) shift; break;; (*) shift;; esac; done
			if [[ -n $arr ]]; then a=(${(P)1}); else a=("$@"); fi
			local w; for w in $a; do [[ $w == ${PREFIX}* ]] && print -r -- "$w"; done }
		compset() { [[ $PREFIX == ${~2}* ]] && PREFIX=${PREFIX##${~2}}; }
		_describe() { local -a a=(${(P)${@[-1]}}); compadd -- ${a%%:*}; }
		_files() { print -r -- "<files $*>"; }
		file=$1; shift; words=("$@"); CURRENT=$#; PREFIX=${words[CURRENT]}
		source $file' zcomp "$ZSH_COMP" "$UL" "$@"
	}
	is "$(zcomp run --fo)" "--format" "zsh: run --fo<TAB> completes --format"
	is "$(zcomp run --format '' | line)" "$("$UL" list formats | awk '{ print $1 }' | line)" \
		"zsh: run --format <TAB> offers every format"
	is "$(zcomp run --tests=noload,cpu)" "cpuload" "zsh: --tests=LIST completes its last item"
	is "$(zcomp compare --db "$DB" '' | line)" "$(printf '%s\n' alpha 'beta two' $runs last | line)" \
		"zsh: compare <TAB> offers both labels, both runs and 'last'"
	is "$(zcomp show --db "$DB" --host '' | line)" "$hosts" "zsh: --host <TAB> offers the hosts"
	is "$(zcomp run --dir '')" "<files -/>" "zsh: --dir completes directories"
fi
done_testing

#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-or-later
# underload bisect: the option checks; a range of three "kernels" (one
# Debian image) whose middle step stays open after one pair (--max-runs 2:
# the sequential verdict bounds nothing before four pairs) against the
# good and then the bad kernel, so it is skipped and bisect cannot tell: its runs stored under labels naming the
# step, and a re-run reads the step back from the store and boots nothing;
# kill -9 mid-step then cleanup leaves nothing.
# With UL_TEST_BISECT_FULL=1 (about 15 min under TCG: each step needs at
# least four pairs of boots), the issue's range: eight kernels, steps 5-8
# booted with a command line that makes spawnload slower, and bisect must
# name step 5 and confirm it against step 4.  With UL_TEST_BISECT_GIT=1
# (about 2 min), bisect --git over three commits that build "kernels"
# from the Debian image (t0425-bisect-git.sh tests --git without VMs).
. "$(dirname "$0")/lib.bash"

k=/boot/vmlinuz-none-such
"$UL" bisect --db "$DB" --kernel "$k" -- run >/dev/null 2>"$TMP/err"
is $? 2 "a missing image is refused"
like "$(cat "$TMP/err")" "--kernel '$k': No such file" "and named"

. "$(dirname "$0")/vm.bash"

"$UL" bisect --db "$DB" --kernel "$kernel" -- "${RUN[@]}" >/dev/null 2>"$TMP/err"
is $? 2 "one kernel is refused"
like "$(cat "$TMP/err")" "at least two --kernel" "and says why"
"$UL" bisect --db "$DB" --kernel "$kernel" --kernel "$kernel" >/dev/null 2>"$TMP/err"
is $? 2 "no run is refused"

# Three steps; the middle one (step 2) measured for one pair only against
# each of the good and the bad kernel.
three=(--kernel "$kernel" --kernel "$kernel,append=ul_step=2" --kernel "$kernel,append=ul_step=3")
"$UL" bisect --db "$DB" --max-runs 2 "${three[@]}" -- "${RUN[@]}" >"$TMP/out" 2>"$TMP/err"
is $? 4 "bisect exits 4: only a range is known"
grep '^bisect: ' "$TMP/out" | sed 's/^/# /'
file=${kernel##*/}
is "$(runs "$DB")" "bisect/2/good complete,bisect/2/$file complete,bisect/2/bad complete,bisect/2/$file/vs-bad complete" \
	"the step's runs against the good, then the bad kernel, labelled by the step"
out_like "^bisect: step 2 of 3: $kernel append=ul_step=2 \(bisect/2/$file against bisect/2/good\)$" \
	"the log names the step and its labels"
out_like "^bisect: step 2 is open against the good kernel: resp noload delay [-+][0-9.]+% unbounded, open after 1 pair; against the bad one:$" \
	"open against the good kernel, it is asked of the bad one"
out_like "^bisect: step 2 is skipped \(undecided\): resp noload delay [-+][0-9.]+% unbounded, open after 1 pair against 'bisect/2/bad' \(2 runs, [0-9]+s\)$" \
	"and says why it was skipped, with the time spent"
out_like "^bisect: cannot tell: the first bad step is one of 2 to 3" "the range"
id=$(sqlite3 "$DB" "SELECT id FROM runs WHERE label = 'bisect/2/$file'")
like "$("$UL" show --db "$DB" --env "$id")" "^  kernel\\.cmdline: .* rdinit=/init ul_step=2\$" \
	"the step booted with its command line"
id=$(sqlite3 "$DB" "SELECT id FROM runs WHERE label = 'bisect/2/good'")
like "$("$UL" show --db "$DB" --env "$id")" "^  kernel\\.cmdline: .* rdinit=/init\$" \
	"the good reference with vm's own"
is "$(work_left "$TMP/out")" "" "the work directory is gone"
is "$(ul_procs)" 0 "no qemu or underload process is left"

# A re-run resumes: the step is read back, nothing booted.
"$UL" bisect --db "$DB" --max-runs 2 "${three[@]}" -- "${RUN[@]}" >"$TMP/out" 2>"$TMP/err"
is $? 4 "the re-run exits 4 too"
out_like "^bisect: step 2 is skipped \(undecided\): .* against 'bisect/2/bad' \(2 runs, stored\)$" \
	"it reads the step back from the store"
is "$(grep -c '^vm: boot' "$TMP/out")" 0 "and boots nothing"
is "$(runs "$DB" | tr ',' '\n' | wc -l)" 4 "no run is added"

# kill -9 mid-step (its first run stored), then cleanup: nothing left.
"$UL" bisect --db "$TMP/k.db" --max-runs 2 "${three[@]}" -- "${RUN[@]}" >"$TMP/out" 2>&1 &
pid=$!
wait_line '^vm: boot 2: ' 1200 "$TMP/out"
killed_then_cleanup "$pid" "$TMP/out" bisect
# The re-run sets the interrupted A/B's run aside and measures the step afresh.
"$UL" bisect --db "$TMP/k.db" --max-runs 2 "${three[@]}" -- "${RUN[@]}" >"$TMP/out" 2>&1
is $? 4 "the re-run after the kill exits 4"
out_like "^bisect: 'bisect/2/good' and 'bisect/2/$file' hold 1 runs of an interrupted A/B: set aside" \
	"it says it sets the interrupted A/B aside"
is "$(runs "$TMP/k.db")" "bisect/2/good~interrupted complete,bisect/2/good complete,bisect/2/$file complete,bisect/2/bad complete,bisect/2/$file/vs-bad complete" \
	"whose run is relabelled, the step measured again"
out_like "^bisect: step 2 is open against the good kernel: .* open after 1 pair;" \
	"from its own pair only"
is "$(ul_procs)" 0 "nothing is left"

# vm failing on the host's side (here the store refuses its import) says
# nothing of the kernel: bisect stops, never calls the step skipped.
UL_TEST_STORE_FAULT=import_runs:1:EIO "$UL" bisect --db "$TMP/f.db" --max-runs 2 "${three[@]}" \
	-- "${RUN[@]}" >"$TMP/out" 2>"$TMP/err"
is $? 1 "a vm that fails on the host's side fails the bisect"
like "$(cat "$TMP/err")" "bisect: vm failed before 'bisect/2/$file' against 'bisect/2/good' was decided \(above\): stopped" \
	"which says it stopped, and why"
is "$(grep -c 'skipped' "$TMP/out")" 0 "and calls no step skipped"
is "$(work_left "$TMP/out")$(ul_procs)" "0" "no work directory or process is left"

# bisect --git booting what its build made (with UL_TEST_BISECT_GIT=1 or
# UL_TEST_BISECT_FULL=1: about 2 min under TCG, four boots): three
# commits whose build copies Debian's image and writes the command line
# ul_step=N; the middle one, open after one pair against the good and
# the bad commit, is skipped; its runs are labelled by its commit and
# booted with its words; the work directory goes.
if [ "${UL_TEST_BISECT_GIT:-}" = 1 ] || [ "${UL_TEST_BISECT_FULL:-}" = 1 ]; then
	git init -q "$TMP/tree"
	for i in 1 2 3; do
		echo "$i" >"$TMP/tree/step"
		git -C "$TMP/tree" add step
		git -C "$TMP/tree" -c user.name=t -c user.email=t@t commit -q -m "step $i"
	done
	build="cp '$kernel' bzImage && echo \"ul_step=\$(cat step)\" >cmdline"
	"$UL" bisect --db "$TMP/git.db" --name g --max-runs 2 --git "$TMP/tree" --good HEAD~2 \
		--bad HEAD --build "$build" --image bzImage --append-file cmdline -- "${RUN[@]}" \
		>"$TMP/out" 2>"$TMP/err"
	is $? 4 "bisect --git over three commits exits 4: the middle one is open"
	grep '^bisect: ' "$TMP/out" | sed 's/^/# /'
	h=$(git -C "$TMP/tree" rev-parse --short=12 HEAD~1)
	is "$(runs "$TMP/git.db")" "g/2/good complete,g/2/$h complete,g/2/bad complete,g/2/$h/vs-bad complete" \
		"its runs labelled by the middle commit"
	id=$(sqlite3 "$TMP/git.db" "SELECT id FROM runs WHERE label = 'g/2/$h'")
	like "$("$UL" show --db "$TMP/git.db" --env "$id")" "^  kernel\\.cmdline: .* rdinit=/init ul_step=2\$" \
		"the commit booted its build's image with its --append-file's words"
	work=$(sed -n 's/^bisect: working in //p' "$TMP/out")
	is "$(test -e "$work" && echo left)$(ul_procs)" "0" "no work directory or process is left"
else
	skip "bisect --git booting its builds (UL_TEST_BISECT_GIT=1: about 2 min)"
fi

if [ "${UL_TEST_BISECT_FULL:-}" != 1 ]; then
	skip "the eight-kernel range (UL_TEST_BISECT_FULL=1: about 15 min)"
	done_testing
fi

# The issue's range: steps 1-4 as Debian boots them, 5-8 with one CPU and
# the slab and page allocators' debugging on (spawnload about twice as
# slow under TCG); bisect measures steps 4 (open against the good kernel,
# faster than the bad one), 6 and 5, and confirms 5.
slow="maxcpus=1 slub_debug=FZPU init_on_free=1"
eight=()
for i in 1 2 3 4; do eight+=(--kernel "$kernel,append=ul_step=$i"); done
for i in 5 6 7 8; do eight+=(--kernel "$kernel,append=ul_step=$i $slow"); done
RUN_SPAWN=(run --quick --tests spawnload --no-progress --interval 100ms --min-points 5
	--max-points 5 -o resp.working-set=1M -o resp.files=4 -o resp.cpu-work=100000)
"$UL" bisect --db "$TMP/full.db" --max-runs 12 "${eight[@]}" -- "${RUN_SPAWN[@]}" \
	>"$TMP/out" 2>"$TMP/err"
is $? 0 "the eight-kernel bisect exits 0: a culprit found and confirmed"
grep '^bisect: ' "$TMP/out" | sed 's/^/# /'
out_like "^bisect: step 4 is good: .* against 'bisect/4/(good|bad)' " "step 4 is good"
out_like "^bisect: step 5 is bad: resp spawnload delay \+[0-9.]+% \[" "step 5 is bad"
out_like "^bisect: the first bad step is 5: " "bisect names step 5"
out_like "^bisect: step 5 is slower than its parent: " "and confirms it"
is "$(ul_procs)" 0 "no process is left"
done_testing

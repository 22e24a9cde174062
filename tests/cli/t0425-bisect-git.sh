#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-or-later
# underload bisect --git over a six-commit git tree made here, without a
# VM: the test hook UL_TEST_BISECT_VM stands in for vm and imports
# synthetic runs (copies of one real resp run) under the A/B's labels,
# their delays set by the "kernel" the step's build made (fast, slow or
# crash).  Bisect names the first slow commit and confirms it, skips the
# commit that does not build (stored as a failed run), names the commits
# in the labels, and a re-run reads every step back (nothing measured or
# built); a commit that crashes while the bad one does
# not is its own finding.  Ctrl-C in a build leaves nothing; kill -9 in a
# build leaves the work directory and what the build started to
# `underload cleanup`; the tree given
# gains nothing (no worktree, no change).
. "$(dirname "$0")/lib.bash"

export UL_JOURNAL_DIR=$TMP/journal
mkdir -m 0700 "$UL_JOURNAL_DIR"
RUN=(run --tests noload)

# The tree: commit N's file "kind" says what its build makes.
make_tree() { # DIR KIND...
	local dir=$1 n=0
	shift
	git init -q "$dir" &&
		for kind in "$@"; do
			n=$((n + 1))
			echo "$kind" >"$dir/kind" && echo "$n" >"$dir/n" &&
				git -C "$dir" add kind n &&
				GIT_AUTHOR_DATE="2026-01-0${n}T00:00:00Z" GIT_COMMITTER_DATE="2026-01-0${n}T00:00:00Z" \
					git -C "$dir" -c user.name=t -c user.email=t@t commit -q -m "commit $n: $kind" ||
				return 1
		done
}
# Its build: "broken" fails; else the "image" holds the kind, the command
# line file the commit.
BUILD='kind=$(cat kind); echo "building $kind"; [ "$kind" != broken ] || { echo "error: broken" >&2; exit 2; }; mkdir -p out && echo "$kind" >out/bzImage && echo "ul_commit=$UL_BISECT_COMMIT" >out/cmdline'
# The work directory bisect said it made (in its output file $1).
work_of() { sed -n 's/^bisect: working in //p' "$1"; }
hash_of() { git -C "$TMP/tree" rev-parse --short=12 "HEAD~$((6 - $1))"; } # commit N's short hash

"$UL" run --dir "$SCRATCH" --db "$TMP/seed.db" --no-progress --tests noload --interval 20ms \
	--min-points 6 --max-points 6 -o resp.working-set=0 -o resp.exec=no --label seed \
	>/dev/null 2>"$TMP/err"
is $? 0 "one resp run to copy" || diag "$(cat "$TMP/err")"
"$UL" export --db "$TMP/seed.db" seed >"$TMP/seed.json"

# The stand-in for vm: five pairs of runs, the step's and its
# reference's, delays times 1.3 for a slow kernel, a crash stored as
# crashed; it logs the labels it was given.
cat >"$TMP/fakevm" <<'PY'
import copy, json, os, random, subprocess, sys, uuid
seed_path, log = sys.argv[1], sys.argv[2]
d = json.load(open(seed_path))
(seed,) = d["runs"]
env = os.environ
kinds = [open(env["UL_BISECT_IMAGE_" + s]).read().strip() for s in "AB"]
with open(log, "a") as f:
    f.write("%s %s %s\n" % (env["UL_BISECT_LABEL_A"], env["UL_BISECT_LABEL_B"], env["UL_BISECT_APPEND_B"]))
rng = random.Random(env["UL_BISECT_LABEL_B"])
runs = []
for pair in range(5):
    for side in (0, 1):
        r = copy.deepcopy(seed)
        r["uuid"] = str(uuid.UUID(int=rng.getrandbits(128), version=4))
        r["label"] = env["UL_BISECT_LABEL_" + "AB"[side]]
        if kinds[side] == "crash":
            r["status"] = "crashed"
        f = (1.3 if kinds[side] == "slow" else 1.0) * (1 + 0.005 * rng.gauss(0, 1))
        for c in r["cells"]:
            for s in c["series"]:
                if s["name"] == "delay_ns":
                    s["values"] = [int(v * f) for v in s["values"]]
        runs.append(r)
d["runs"] = runs
out = os.path.join(os.path.dirname(log), "fake.json")
json.dump(d, open(out, "w"))
sys.exit(subprocess.call([sys.argv[3], "import", "--db", env["UL_BISECT_DB"], out],
                         stdout=subprocess.DEVNULL))
PY
export UL_TEST_BISECT_VM="python3 $TMP/fakevm $TMP/seed.json $TMP/vm.log $UL"

# Option checks.
"$UL" bisect --db "$DB" --good x -- "${RUN[@]}" >/dev/null 2>"$TMP/err"
is $? 2 "--good without --git is refused"
like "$(cat "$TMP/err")" "go with --git" "and says why"
make_tree "$TMP/tree" fast fast broken fast slow slow
is $? 0 "a tree of six commits"
"$UL" bisect --db "$DB" --git "$TMP/tree" --good HEAD~5 -- "${RUN[@]}" >/dev/null 2>"$TMP/err"
is $? 2 "--git without --bad and --build is refused"
"$UL" bisect --db "$DB" --git "$TMP/tree" --good nope --bad HEAD --build true -- "${RUN[@]}" \
	>/dev/null 2>"$TMP/err"
is $? 2 "an unknown --good is refused"
like "$(cat "$TMP/err")" "--good 'nope': no such commit" "and named"
"$UL" bisect --db "$DB" --git "$TMP/tree" --good HEAD --bad HEAD~5 --build true -- "${RUN[@]}" \
	>/dev/null 2>"$TMP/err"
is $? 2 "a --good after --bad is refused"

# The range: 1 good, 2 fast, 3 does not build, 4 fast, 5 and 6 slow.
git_opts=(--git "$TMP/tree" --good HEAD~5 --bad HEAD --build "$BUILD" --image out/bzImage
	--append-file out/cmdline)
"$UL" bisect --db "$DB" "${git_opts[@]}" -- "${RUN[@]}" >"$TMP/out" 2>"$TMP/err"
is $? 0 "bisect exits 0: a culprit found and confirmed" || diag "$(cat "$TMP/err")"
grep '^bisect: ' "$TMP/out" | sed 's/^/# /'
out() { cat "$TMP/out"; }
like "$(out)" "^bisect: 6 commits from $(hash_of 1) to $(hash_of 6)$" "the range, by short hash"
like "$(out)" "^bisect: step 3 of 6: $(hash_of 3) 'commit 3: broken' \(bisect/3/$(hash_of 3) against bisect/3/good\)$" \
	"a step names its commit and its labels"
like "$(out)" "^bisect: step 3 is skipped \(unbuildable\): the build ended with exit status 2 \([0-9]+s\)$" \
	"the commit that does not build is skipped, and says why"
like "$(cat "$TMP/err")" "^bisect:   \\| error: broken$" "the build's last lines are shown"
like "$(out)" "^bisect: step 4 is good: " "the neighbour above is measured instead"
like "$(out)" "^bisect: step 5 is bad: resp noload delay \+[0-9.]+% " "step 5 is slower"
like "$(out)" "^bisect: the first bad step is 5: $(hash_of 5) 'commit 5: slow' \(its parent, step 4, is good\)$" \
	"bisect names commit 5"
like "$(out)" "^bisect: step 5 is slower than its parent: " "and confirms it"
is "$(grep -c '^bisect: building ' "$TMP/out")" 4 "four commits built: 3, 4, the good one, 5"
is "$(grep -o '^bisect: building [0-9a-f]*' "$TMP/out" | awk '{print $3}' | paste -sd' ')" \
	"$(hash_of 3) $(hash_of 4) $(hash_of 1) $(hash_of 5)" "in the order the A/Bs need them"
is "$(awk '{print $2}' "$TMP/vm.log" | paste -sd' ')" \
	"bisect/4/$(hash_of 4) bisect/5/$(hash_of 5) bisect/confirm/5:$(hash_of 5)" \
	"the A/Bs measured, labelled by their commits"
is "$(grep -c "^bisect/4/good bisect/4/$(hash_of 4) ul_commit=$(git -C "$TMP/tree" rev-parse HEAD~2)$" "$TMP/vm.log")" 1 \
	"a step boots with the words of its --append-file"
is "$(sqlite3 "$DB" "SELECT count(*) FROM runs WHERE label LIKE 'bisect/%' AND status = 'complete'")" 30 \
	"three A/Bs of ten runs stored"
is "$(sqlite3 "$DB" "SELECT label || ' ' || status FROM runs WHERE label LIKE 'bisect/%' AND status != 'complete'")" \
	"bisect/3/$(hash_of 3)/unbuildable failed" "the unbuildable commit stored as a failed run"
work=$(work_of "$TMP/out")
like "$work" "^/var/tmp/underload-" "bisect said where it built"
is "$(test -e "$work" && echo left)" "" "its work directory is gone"
is "$(git -C "$TMP/tree" worktree list | wc -l) $(git -C "$TMP/tree" status --porcelain | wc -l)" "1 0" \
	"the tree gained no worktree and no change"
is "$(ul_procs)" 0 "no process is left"
is "$("$UL" cleanup 2>&1)" "0 changes undone" "nothing is left for cleanup"

# A re-run resumes: every step read back, the unbuildable one too.
: >"$TMP/vm.log"
"$UL" bisect --db "$DB" "${git_opts[@]}" -- "${RUN[@]}" >"$TMP/out" 2>"$TMP/err"
is $? 0 "the re-run exits 0 too"
like "$(out)" "^bisect: step 3 is skipped \(unbuildable\): it did not build before \(run [0-9]+, 'bisect/3/$(hash_of 3)/unbuildable'\) \(stored\)$" \
	"it reads the unbuildable step back"
like "$(out)" "^bisect: step 5 is bad: .* \(10 runs, stored\)$" "and the measured ones"
is "$(grep -c '^bisect: building' "$TMP/out")" 0 "it builds nothing"
is "$(wc -l <"$TMP/vm.log")" 0 "and measures nothing"

# A crash: 1 good, 2 fast, 3 crashes, 4 fast, 5 and 6 slow (the bad one does not crash).
make_tree "$TMP/crash" fast fast crash fast slow slow
"$UL" bisect --db "$DB" --name crash --no-confirm --git "$TMP/crash" --good HEAD~5 --bad HEAD \
	--build "$BUILD" --image out/bzImage -- "${RUN[@]}" >"$TMP/out" 2>"$TMP/err"
is $? 0 "the bisect over a crash exits 0" || diag "$(cat "$TMP/err")"
grep '^bisect: ' "$TMP/out" | sed 's/^/# /'
like "$(out)" "^bisect: a step crashed: does the bad kernel crash too\? \(crash/refs/bad\)$" \
	"a crash makes it ask whether the bad kernel crashes too"
like "$(out)" "^bisect: the bad kernel does not crash$" "which it does not"
like "$(out)" "^bisect: step 3 is crashed \(the bad kernel does not\): 5 of its 5 boots crashed" \
	"the crash is its own outcome"
like "$(out)" "^bisect: step 3 \([0-9a-f]{12} 'commit 3: crash'\) crashes, the bad kernel does not: a finding of its own$" \
	"reported as a finding"
like "$(out)" "^bisect: the first bad step is 5: " "and the slowdown is still found"

# A fresh PostgreSQL database (no tables yet): the first step's look-up
# of stored runs must find nothing, not fail (it did: "no underload
# results in database"), and the steps land there.
if [ -n "${UL_TEST_PG_URI:-}" ] && "$UL" --version | grep -Eq '^stores:.* postgresql( |$)' &&
	command -v psql >/dev/null; then
	schema=bisect_git_$$
	sep='?'
	[[ $UL_TEST_PG_URI == *\?* ]] && sep='&'
	pgdb="$UL_TEST_PG_URI${sep}options=-csearch_path%3D$schema"
	psql -X -q -v ON_ERROR_STOP=1 -d "$UL_TEST_PG_URI" -c "CREATE SCHEMA $schema"
	: >"$TMP/vm.log"
	"$UL" bisect --db "$pgdb" --no-confirm "${git_opts[@]}" -- "${RUN[@]}" >"$TMP/out" 2>"$TMP/err"
	is $? 0 "on a fresh PostgreSQL database bisect exits 0" || diag "$(cat "$TMP/err")"
	like "$(out)" "^bisect: the first bad step is 5: $(hash_of 5) " "and names commit 5"
	is "$(psql -X -At -d "$pgdb" -c "SELECT count(*) FROM runs WHERE label LIKE 'bisect/%'")" 21 \
		"its steps' runs are stored there (two A/Bs of 10, the unbuildable one)"
	psql -X -q -d "$UL_TEST_PG_URI" -c "DROP SCHEMA $schema CASCADE"
else
	for _ in 1 2 3; do skip "no PostgreSQL (UL_TEST_PG_URI unset, or built without it, or no psql)"; done
fi

# Ctrl-C in a build: it stops, the work directory goes, nothing is left.
hold=(--name held --git "$TMP/tree" --good HEAD~5 --bad HEAD
	--build "touch $TMP/building; exec sleep 60")
"$UL" bisect --db "$DB" "${hold[@]}" -- "${RUN[@]}" >"$TMP/out" 2>"$TMP/err" &
pid=$!
for _ in $(seq 100); do [ -e "$TMP/building" ] && break; sleep 0.1; done
kill -INT "$pid"
wait "$pid"
is $? 130 "Ctrl-C in a build: exit 130"
work=$(work_of "$TMP/out")
like "$work" "^/var/tmp/underload-" "it had made its work directory"
is "$(test -e "$work" && echo left)" "" "which is gone"
is "$(ul_procs)" 0 "the build is stopped"
is "$("$UL" cleanup 2>&1)" "0 changes undone" "nothing is left for cleanup"

# kill -9 in a build: the build's shell dies with bisect, what it started
# (make's compilers; here two sleeps in its process group) is left to
# cleanup, with the work directory.
rm -f "$TMP/building"
hold[${#hold[@]}-1]="sleep 60 & sleep 61 & touch $TMP/building; wait"
"$UL" bisect --db "$DB" "${hold[@]}" -- "${RUN[@]}" >"$TMP/out" 2>"$TMP/err" &
pid=$!
for _ in $(seq 100); do [ -e "$TMP/building" ] && break; sleep 0.1; done
kill -KILL "$pid"
wait "$pid" 2>/dev/null
sleeps() { pgrep -f "^sleep 6[01]\$" | while read -r p; do
	tr '\0' '\n' <"/proc/$p/environ" 2>/dev/null | grep -qxF "UL_TEST_TAG=$TMP" && echo "$p"
done | wc -l; }
for _ in $(seq 50); do [ "$(ul_procs)" = "$(sleeps)" ] && break; sleep 0.1; done
is "$(ul_procs) $(sleeps)" "2 2" "the build's shell dies with a killed bisect, its two children run on"
work=$(work_of "$TMP/out")
is "$(test -d "$work" && echo left)" left "its work directory is left to cleanup"
"$UL" cleanup >"$TMP/cl" 2>&1
is $? 0 "cleanup exits 0"
like "$(cat "$TMP/cl")" "stopped pgroup [0-9]+ [0-9]+" "cleanup says it stopped the build's process group"
is "$(ul_procs)" 0 "cleanup killed what the build left running"
is "$(test -e "$work" && echo left)" "" "cleanup removed the work directory"
is "$("$UL" cleanup 2>&1)" "0 changes undone" "and left nothing for another cleanup"
is "$(git -C "$TMP/tree" worktree list | wc -l)" 1 "the tree gained no worktree"
done_testing

#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-or-later
# Paths another user could bend: --dir must be a directory nobody else can
# rename entries in; a user racing symlinks into a sticky --dir cannot make
# root follow them.  --format X=FILE replaces only regular files: a device
# or FIFO is written in place, a bad FILE is refused before the first cell.
. "$(dirname "$0")/lib.bash"

QUICK=(--db "$DB" --no-progress --interval 100ms --min-points 5 --max-points 5
	-o resp.working-set=4M -o resp.files=20)
runs() { sqlite3 "$DB" "SELECT count(*) FROM runs" 2>/dev/null || echo 0; }

# --dir refusals: group- or world-writable without the sticky bit.
for mode in 0777 0770 0722; do
	d=$TMP/open-$mode
	mkdir "$d" && chmod "$mode" "$d"
	"$UL" run "${QUICK[@]}" --dir "$d" --tests noload >/dev/null 2>"$TMP/err"
	is $? 2 "--dir with mode $mode is refused"
	like "$(cat "$TMP/err")" "--dir '$d': cannot create a scratch directory: .*without the sticky bit" \
		"the refusal for mode $mode says why"
	is "$(find "$d" -mindepth 1 | wc -l)" 0 "nothing is made in the mode $mode directory"
done
# ... and one below such a directory, or one owned by another user.
mkdir -p "$TMP/open-0777/sub" && chmod 0755 "$TMP/open-0777/sub"
"$UL" run "${QUICK[@]}" --dir "$TMP/open-0777/sub" --tests noload >/dev/null 2>"$TMP/err"
is $? 2 "a --dir below a world-writable directory is refused"
mkdir "$TMP/theirs" && chown nobody "$TMP/theirs" && chmod 0755 "$TMP/theirs"
"$UL" run "${QUICK[@]}" --dir "$TMP/theirs" --tests noload >/dev/null 2>"$TMP/err"
is $? 2 "a --dir owned by another user is refused"
like "$(cat "$TMP/err")" "owned by another user" "and says so"

# A sticky world-writable --dir (like /tmp) is accepted, and a non-root
# user racing renames and symlinks in it changes nothing root does.
if [ "$(id -u)" = 0 ] && command -v setpriv >/dev/null && id nobody >/dev/null 2>&1; then
	chmod 0711 "$TMP"
	sticky=$TMP/sticky
	mkdir "$sticky" && chmod 1777 "$sticky"
	canary=$TMP/canary
	mkdir "$canary" && echo keep >"$canary/largewrite" && echo keep >"$canary/smallwrite.0"
	cp "$canary/largewrite" "$TMP/canary.ref"
	# The attacker: move every scratch directory aside and put a symlink
	# to the canary in its place, again and again.
	setpriv --reuid=nobody --regid=nogroup --clear-groups -- bash -c '
		end=$((SECONDS + 40))
		while [ $SECONDS -lt $end ] && [ ! -e "$1/stop" ]; do
			for d in "$1"/underload-*; do
				[ -d "$d" ] && [ ! -L "$d" ] || continue
				mv -T "$d" "$d.moved" 2>/dev/null && echo moved >>"$1/stop.log"
				ln -sfn "$2" "$d" 2>/dev/null
			done
		done' race "$sticky" "$canary" 2>/dev/null &
	racer=$!
	"$UL" run "${QUICK[@]}" --dir "$sticky" --tests noload,smallwrite,largewrite \
		-o smallwrite.files=4 -o largewrite.size=16M >/dev/null 2>"$TMP/err"
	is $? 0 "a run in a sticky 1777 --dir succeeds while another user races it"
	: >"$sticky/stop" 2>/dev/null || touch "$sticky/stop"
	wait "$racer"
	[ ! -e "$sticky/stop.log" ]; ok $? "the other user could not move root's scratch directory"
	cmp -s "$canary/largewrite" "$TMP/canary.ref" && [ "$(ls "$canary" | wc -l)" = 2 ]
	ok $? "nothing was written through the other user's symlinks"
	is "$(find "$sticky" -mindepth 1 -maxdepth 1 -name 'underload-*' ! -type l | wc -l)" 0 \
		"the scratch directory is gone"
	chmod 0700 "$TMP"
else
	skip "needs root, setpriv and a 'nobody' user"
fi

# largewrite's file lives only as long as its pass: it never shows in the
# scratch directory (and so cannot fill it for the tests after it).
"$UL" run "${TINY[@]}" --tests largewrite,noload --interval 200ms --label lw >/dev/null 2>&1 &
pid=$!
seen=0 looked=0
while kill -0 "$pid" 2>/dev/null; do
	for d in "$SCRATCH"/underload-*; do
		[ -d "$d" ] || continue
		looked=$((looked + 1))
		[ -e "$d/largewrite" ] && seen=$((seen + 1))
	done
	sleep 0.05
done
wait "$pid"
is $? 0 "the largewrite run succeeds"
[ "$looked" -gt 5 ]; ok $? "the scratch directory was looked at during the run ($looked times)"
is "$seen" 0 "largewrite's file never stays in the scratch directory"

# --format X=FILE
"$UL" run "${TINY[@]}" --tests noload --format json== >/dev/null 2>"$TMP/err"
is $? 2 "--format json== is refused"
n=$(runs)
"$UL" run "${TINY[@]}" --tests noload --format text,json="$TMP/nodir/x.json" >/dev/null 2>"$TMP/err"
is $? 2 "an unwritable json= path is refused"
like "$(cat "$TMP/err")" "cannot write in '$TMP/nodir'" "and says where"
is "$(runs)" "$n" "before the first cell: no run was stored"
"$UL" run "${TINY[@]}" --tests noload --format json="$TMP/a",json="$TMP/a" >/dev/null 2>"$TMP/err"
is $? 2 "a file named twice is refused"

if [ -c /dev/null ] && [ "$(id -u)" = 0 ]; then
	"$UL" run "${TINY[@]}" --tests noload --format json=/dev/null >/dev/null 2>"$TMP/err"
	is $? 0 "--format json=/dev/null works"
	[ -c /dev/null ] && [ "$(stat -c %a /dev/null)" = 666 ]
	ok $? "/dev/null is still a character device with mode 666"
else
	skip "/dev/null check needs root"
fi
mkfifo "$TMP/fifo"
cat "$TMP/fifo" >"$TMP/fifo.out" &
reader=$!
"$UL" run "${TINY[@]}" --tests noload --format json="$TMP/fifo" >/dev/null 2>"$TMP/err"
is $? 0 "--format json=FIFO works"
wait "$reader"
[ -p "$TMP/fifo" ]; ok $? "the FIFO is still a FIFO"
python3 -c 'import json,sys; json.load(open(sys.argv[1]))' "$TMP/fifo.out"
ok $? "the reader got the JSON through it"

(umask 027 && "$UL" run "${TINY[@]}" --tests noload --format json="$TMP/new.json" >/dev/null)
is "$(stat -c %a "$TMP/new.json")" 640 "a new file gets the umask's mode"
echo old >"$TMP/new.json" && chmod 0600 "$TMP/new.json"
(umask 022 && "$UL" run "${TINY[@]}" --tests noload --format json="$TMP/new.json" >/dev/null)
is "$(stat -c %a "$TMP/new.json"):$(head -c 1 "$TMP/new.json")" "644:{" \
	"a regular file is replaced with the umask's mode"
ln -s "$TMP/new.json" "$TMP/link.json"
"$UL" run "${TINY[@]}" --tests noload --format json="$TMP/link.json" >/dev/null 2>"$TMP/err"
is $? 2 "a symlink as FILE is refused"
[ -L "$TMP/link.json" ]; ok $? "and left a symlink"
is "$(ls "$TMP" | grep -c '\.tmp')" 0 "no temporary file is left"
done_testing

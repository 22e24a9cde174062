#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-or-later
# Output files that cannot hurt (cmd/outfile.h; issue 18): an output path
# naming the store is refused; a FIFO or file another user planted is
# refused and never blocks us; a FIFO nobody reads is an error, not a
# hang; report's SVG directory is not followed through a planted symlink;
# an interrupted write leaves no temporary; CSV holds no raw control
# character.  "nobody" plays the other user.
. "$(dirname "$0")/lib.bash"

"$UL" run "${TINY[@]}" --tests noload --label alpha >/dev/null 2>&1
ok $? "a run to write out"
cp "$DB" "$TMP/saved.db"
runs() { sqlite3 "$DB" "SELECT count(*) FROM runs"; }

# --- the store is never an output (defect 1) ---
refused() { # refused DESCRIPTION COMMAND...: exit 2, says why, the store intact
	local what=$1 out rc
	shift
	cp "$TMP/saved.db" "$DB" && rm -f "$DB-wal" "$DB-shm" "$DB-journal"
	out=$("$@" 2>&1 >/dev/null)
	rc=$?
	is "$rc" 2 "$what: refused as a usage error"
	like "$out" "it is the results database" "$what: says it is the store"
	"$UL" list --db "$DB" >/dev/null 2>&1
	ok $? "$what: the store still opens"
}
refused "export -o DB" "$UL" export --db "$DB" -o "$DB"
refused "export --format csv -o DB" "$UL" export --db "$DB" --format csv -o "$DB"
refused "show --format json=DB" "$UL" show --db "$DB" --format json="$DB" last
refused "report -o DB" "$UL" report --db "$DB" -o "$DB"
refused "run --format json=DB" "$UL" run "${TINY[@]}" --tests noload --format json="$DB"
is "$(runs)" 1 "run --format json=DB: refused before measuring (no run stored)"
ln -s "$DB" "$TMP/link.db"
refused "a symlinked --db" "$UL" export --db "$TMP/link.db" -o "$DB"
refused "DB-wal" "$UL" export --db "$DB" -o "$DB-wal"
refused "DB-journal (absent)" "$UL" show --db "$DB" --format json="$DB-journal" last
mkdir "$TMP/sub" && ln -s "$TMP" "$TMP/sub/up"
refused "DB through a symlinked directory" "$UL" report --db "$DB" -o "$TMP/sub/up/results.db"
cp "$TMP/saved.db" "$DB" && rm -f "$DB-wal" "$DB-shm" # as it was, whatever happened above

# --- what another user planted (defects 7 and 11) ---
if ! id nobody >/dev/null 2>&1 || [ "$(id -u)" != 0 ]; then
	skip "planted files: needs root and a user 'nobody'"
	done_testing
fi
as_nobody() { runuser -u nobody -- "$@"; }
chmod 711 "$TMP"
STICKY=$TMP/sticky
mkdir -m 1777 "$STICKY"

as_nobody mkfifo "$STICKY/out.json"
out=$(timeout 20 "$UL" show --db "$DB" --format json="$STICKY/out.json" last 2>&1 >/dev/null)
is $? 2 "a FIFO nobody planted, no reader: refused at once (no hang)"
like "$out" "owned by another user" "and says whose it is"

as_nobody mkfifo "$STICKY/read.json"
as_nobody sh -c "cat '$STICKY/read.json' >'$STICKY/got'" &
reader=$!
sleep 0.2
out=$(timeout 20 "$UL" show --db "$DB" --format json="$STICKY/read.json" last 2>&1 >/dev/null)
is $? 2 "a FIFO nobody planted and reads: refused"
timeout 5 sh -c ": >'$STICKY/read.json'" # end the reader
wait "$reader"
is "$(wc -c <"$STICKY/got")" 0 "the planted reader got nothing"

# Planted after the option was checked, while the run measures.
(
	timeout 60 "$UL" run "${TINY[@]}" --tests noload,cpuload --format json="$STICKY/late.json" \
		>/dev/null 2>"$TMP/late.err"
	echo $? >"$TMP/late.rc"
) &
runner=$!
sleep 0.7
as_nobody mkfifo "$STICKY/late.json"
wait "$runner"
rc=$(cat "$TMP/late.rc")
ok "$([ "$rc" = 1 ] || [ "$rc" = 2 ]; echo $?)" "a FIFO planted during run: an error, no hang (exit $rc)"
like "$(cat "$TMP/late.err")" "owned by another user" "and says why"

as_nobody touch "$STICKY/planted.csv"
out=$("$UL" export --db "$DB" --format csv -o "$STICKY/planted.csv" 2>&1 >/dev/null)
is $? 2 "a regular file nobody planted: refused"
is "$(stat -c %U:%s "$STICKY/planted.csv")" nobody:0 "and left as it was"

mkfifo "$TMP/mine.fifo"
out=$(timeout 20 "$UL" show --db "$DB" --format json="$TMP/mine.fifo" last 2>&1 >/dev/null)
is $? 1 "our FIFO that nobody reads: an error at once (no hang)"
like "$out" "no process has the FIFO open for reading" "and says so"
"$UL" show --db "$DB" --format json=/dev/null last >/dev/null
is $? 0 "json=/dev/null still works"

mkdir -m 700 "$TMP/rootonly"
as_nobody ln -s "$TMP/rootonly" "$STICKY/svg"
out=$("$UL" report --db "$DB" --format svg -o "$STICKY/svg" 2>&1 >/dev/null)
is $? 2 "report --format svg -o a symlink nobody planted: refused"
like "$out" "a symlink" "and says so"
is "$(find "$TMP/rootonly" -mindepth 1 | wc -l)" 0 "nothing written where it points"
"$UL" report --db "$DB" --format svg -o "$STICKY/svg/" >/dev/null 2>&1
is $? 2 "the same with a trailing slash"
is "$(find "$TMP/rootonly" -mindepth 1 | wc -l)" 0 "nothing written where it points"
as_nobody mkdir "$STICKY/nobodys"
"$UL" report --db "$DB" --format svg -o "$STICKY/nobodys" >/dev/null 2>&1
is $? 2 "a directory nobody owns: refused"
is "$(find "$STICKY/nobodys" -mindepth 1 | wc -l)" 0 "nothing written in it"
"$UL" report --db "$DB" --format svg -o "$TMP/plots" >/dev/null
is $? 0 "report --format svg into a new directory of ours"
ok "$([ "$(find "$TMP/plots" -name '*.svg' | wc -l)" -gt 0 ]; echo $?)" "its plots are written"

# --- an interrupted write leaves no temporary (defect 10) ---
# A run of 1M samples makes a CSV of ~100 MB: time to stop the writer mid-file.
python3 - "$TMP" <<'EOF'
import json, subprocess, sys
tmp = sys.argv[1]
doc = json.loads(subprocess.run([tmp + "/underload", "export", "--db", tmp + "/results.db", "last"],
                                check=True, capture_output=True).stdout)
run = doc["runs"][0]
run["uuid"] = "11111111-2222-4333-8444-555555555555"
run["label"] = "big"
run["cells"][0]["series"][0]["values"] = [123456789 + i for i in range(1000000)]
json.dump(doc, open(tmp + "/big.json", "w"))
EOF
"$UL" import --db "$DB" "$TMP/big.json" >/dev/null
ok $? "a run of 1M samples"
rm -f "$TMP/big.json"
# Is PID writing OUTPUT's temporary: OUTPUT.tmp*, or an unnamed O_TMPFILE
# one in its directory ("DIR/#INODE (deleted)" among its fds)?
writing() { # writing PID OUTPUT
	local fd
	compgen -G "$2.tmp*" >/dev/null && return 0
	for fd in /proc/"$1"/fd/*; do
		[[ $(readlink "$fd" 2>/dev/null) == "$(dirname "$2")/#"*" (deleted)" ]] && return 0
	done
	return 1
}
# interrupt SIGNAL OUTPUT COMMAND...: stop COMMAND while it writes OUTPUT's
# temporary, send SIGNAL; no OUTPUT.tmp* may be left.
interrupt() {
	local sig=$1 out=$2 pid tries tmps
	shift 2
	for tries in 1 2 3 4 5; do
		# A background job of a script starts with SIGINT ignored: undo that.
		env --default-signal="$sig" "$@" >/dev/null 2>&1 &
		pid=$!
		while kill -0 "$pid" 2>/dev/null && ! writing "$pid" "$out"; do :; done
		kill -STOP "$pid" 2>/dev/null
		if writing "$pid" "$out"; then
			kill -"$sig" "$pid"
			kill -CONT "$pid"
			wait "$pid"
			echo "rc=$? left=$(compgen -G "$out.tmp*" | wc -l)"
			return
		fi
		kill -CONT "$pid" 2>/dev/null
		wait "$pid"
	done
	echo "never caught writing"
}
for sig in INT TERM HUP USR1 ALRM; do
	is "$(interrupt "$sig" "$TMP/big.csv" "$UL" export --db "$DB" --format csv -o "$TMP/big.csv" big)" \
		"rc=$((128 + $(kill -l "$sig"))) left=0" "export -o killed by SIG$sig: no temporary left"
done
is "$(interrupt INT "$TMP/big.html" "$UL" report --db "$DB" big -o "$TMP/big.html")" \
	"rc=130 left=0" "report -o killed by SIGINT: no temporary left"
(
	ulimit -f 1000
	"$UL" export --db "$DB" --format csv -o "$TMP/limited.csv" big >/dev/null 2>"$TMP/fsize.err"
	echo $? >"$TMP/fsize.rc"
)
is "$(cat "$TMP/fsize.rc"):$(compgen -G "$TMP/limited.csv*" | wc -l)" 1:0 \
	"export past ulimit -f: an error, no temporary left"
like "$(cat "$TMP/fsize.err")" "File too large" "and says why"

# --- CSV: no raw control character (defect 16) ---
sqlite3 "$DB" "UPDATE runs SET label = 'x' || char(27) || '[2J' || char(10) || 'y' || char(13) ||
	',\"z' WHERE id = 1"
"$UL" export --db "$DB" --format csv -o "$TMP/hostile.csv" 1
is $? 0 "export --format csv of a label with ESC, LF, CR, comma and quote"
is "$(LC_ALL=C grep -c $'\x1b' "$TMP/hostile.csv")" 0 "no raw ESC in the CSV"
is "$(($(wc -l <"$TMP/hostile.csv") - 1))" \
	"$(sqlite3 "$DB" "SELECT count(*) FROM cell_samples WHERE run_id = 1")" "one line per sample"
like "$(sed -n 2p "$TMP/hostile.csv")" '^[^,]*,"x\\x1b\[2J\\ny\\r,""z",' "the label escaped and quoted"
done_testing

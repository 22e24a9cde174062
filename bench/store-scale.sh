#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-or-later
# The store at scale (issue 22): write SAMPLES raw samples and read them
# back, REPS times, median and range; and the size per sample (SQLite: the
# database file; PostgreSQL: the series as stored, psql needed).
#
# One run of four resp cells (SAMPLES/4 delays each, drawn like real ones:
# lognormal around 80 us, seeded) is generated as an export document, then
#   write: `underload import` of it into an empty store (parse + store),
#   read:  `underload show --format resp1` of it (the store read + a table),
# each timed on the wall clock.  SQLite always (a fresh file per write);
# PostgreSQL too when --db postgresql://... is given: each write imports
# the document under a fresh UUID and the run is removed after its read.
# A store that is not built in (`postgresql://` before the backend lands)
# is reported as such on one line instead of figures.  The machine is
# shared: the load average is printed before and after.  KEEP=1 keeps the
# temporary directory.
#   usage: bench/store-scale.sh [UNDERLOAD] [SAMPLES] [REPS] [--db postgresql://...]
set -euo pipefail
PG=
args=()
while [ $# -gt 0 ]; do
	case $1 in
	--db) PG=$2; shift 2 ;;
	--db=*) PG=${1#--db=}; shift ;;
	*) args+=("$1"); shift ;;
	esac
done
UL=$(realpath "${args[0]:-build/underload}")
SAMPLES=${args[1]:-1000000}
REPS=${args[2]:-5}
T=$(mktemp -d /tmp/ul-bench-store.XXXXXX)
[ -n "${KEEP:-}" ] || trap 'rm -rf "$T"' EXIT

python3 - "$T/doc.json" "$SAMPLES" <<'PY'
import json, random, sys
out, n = sys.argv[1], int(sys.argv[2])
rng = random.Random(22)
run = {"uuid": "00000000-0000-4000-8000-000000000022", "label": "scale", "status": "complete",
       "tool_version": "bench", "argv": "bench/store-scale.sh", "suites": "resp",
       "started_ns": 1, "finished_ns": 2,
       "host": {"hostname": "h", "kernel_release": "k", "kernel_version": "v", "arch": "x86_64",
                "cpu_model": "c", "ncpu": 2, "mem_total_bytes": 1, "swap_total_bytes": 0},
       "params": {"interval_ns": 1, "min_points": 1, "max_points": 1, "ci_target_centi": 1,
                  "mem_budget_bytes": 1, "mem_limit_bytes": 0, "swap_bytes": 0},
       "cells": []}
loads = ["noload", "cpuload", "memload", "ioload"]
for seq, load in enumerate(loads):
    per = n // len(loads) + (seq < n % len(loads))
    run["cells"].append({"seq": seq, "suite": "resp", "load": load, "probe": "resp",
                         "outcome": "ok", "flags": 0, "note": "", "load_unit": "",
                         "load_units": 0, "started_ns": 1, "finished_ns": 2,
                         "series": [{"name": "delay_ns", "values":
                                     [int(80000 * rng.lognormvariate(0, 0.5)) for _ in range(per)]}],
                         "metrics": []})
json.dump({"format": "underload-export", "format_version": 1, "runs": [run]}, open(out, "w"),
          separators=(",", ":"))
PY
UUID=00000000-0000-4000-8000-000000000022

stat_line() { # stat_line NAME TIMES...: median and range in seconds
	printf '%s\n' "${@:2}" | sort -g | awk -v name="$1" '{ v[NR] = $1 }
		END { printf "%-34s median %.3f s  (min %.3f, max %.3f, n %d)\n", name,
		      (NR % 2 ? v[(NR + 1) / 2] : (v[NR / 2] + v[NR / 2 + 1]) / 2), v[1], v[NR], NR }'
}
now() { date +%s.%N; }

sqlite_bench() {
	local db=$T/s.db w=() r=() t0 t1 i
	for ((i = 0; i < REPS; i++)); do
		rm -f "$db" "$db"-wal "$db"-shm
		t0=$(now)
		"$UL" import --db "$db" "$T/doc.json" >/dev/null
		t1=$(now)
		w+=("$(echo "$t1 - $t0" | bc)")
		t0=$(now)
		"$UL" show --db "$db" --format resp1 "$UUID" >/dev/null
		t1=$(now)
		r+=("$(echo "$t1 - $t0" | bc)")
	done
	echo "== SQLite ($(sqlite3 --version | cut -d' ' -f1), WAL, synchronous=FULL, $TMPDIR_FS)"
	stat_line "write: import $SAMPLES samples" "${w[@]}"
	stat_line "read: show --format resp1" "${r[@]}"
	printf '%-34s %d bytes, %.2f bytes a sample (%s stored values)\n' "database size" \
		"$(stat -c %s "$db")" "$(echo "$(stat -c %s "$db") / $SAMPLES" | bc -l)" \
		"$(sqlite3 "$db" 'SELECT sum(n) FROM series')"
}

pg_bench() {
	local w=() r=() t0 t1 i u out stored=
	# An empty import makes (or migrates) the store: an empty database is measured too.
	echo '{"format": "underload-export", "format_version": 1, "runs": []}' >"$T/empty.json"
	if ! out=$("$UL" import --db "$PG" "$T/empty.json" 2>&1 >/dev/null); then
		echo "== PostgreSQL ($PG): not measured: $(head -1 <<<"$out")"
		return 0
	fi
	for ((i = 0; i < REPS; i++)); do
		u=00000000-0000-4000-8000-$(printf '%012d' $((RANDOM * 32768 + RANDOM)))
		sed "s/$UUID/$u/" "$T/doc.json" >"$T/pg.json"
		t0=$(now)
		"$UL" import --db "$PG" "$T/pg.json" >/dev/null
		t1=$(now)
		w+=("$(echo "$t1 - $t0" | bc)")
		t0=$(now)
		"$UL" show --db "$PG" --format resp1 "$u" >/dev/null
		t1=$(now)
		r+=("$(echo "$t1 - $t0" | bc)")
		# The stored size of the last run's series before it goes (the
		# database's growth would count the earlier runs' rows, deleted
		# but not yet vacuumed).
		[ $i -lt $((REPS - 1)) ] || ! command -v psql >/dev/null ||
			stored=$(psql "$PG" -Atc "SELECT sum(pg_column_size(s.packed)) FROM series s
				JOIN cells c ON c.id = s.cell_id JOIN runs r ON r.id = c.run_id
				WHERE r.uuid = '$u'")
		"$UL" rm --db "$PG" --yes "$u" >/dev/null
	done
	echo "== PostgreSQL ($PG)"
	stat_line "write: import $SAMPLES samples" "${w[@]}"
	stat_line "read: show --format resp1" "${r[@]}"
	if [ -n "$stored" ]; then
		printf '%-34s %.2f bytes a sample (the series as stored, compressed or not)\n' \
			"series size" "$(echo "$stored / $SAMPLES" | bc -l)"
	else
		echo "series size                        n/a (no psql)"
	fi
}

TMPDIR_FS=$(df -T "$T" | awk 'NR == 2 { print $2 }')
echo "store-scale: $SAMPLES samples, median of $REPS; $(nproc) CPUs, $(uname -r);" \
	"load average before: $(cut -d' ' -f1-3 /proc/loadavg) (a shared machine)"
sqlite_bench
[ -z "$PG" ] || pg_bench
echo "load average after: $(cut -d' ' -f1-3 /proc/loadavg)"

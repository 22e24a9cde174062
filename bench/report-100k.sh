#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-or-later
# Time and size of `underload report` over many samples (goal of issue 13:
# a report over 100k samples in under 2 s and under 5 MB).
#
# A real tiny resp run (noload, cpuload, with the /proc sampler) is taken,
# exported, and its cells inflated to SAMPLES raw samples per label (split
# over the two tests, drawn around each cell's real values); two labels are
# imported into a private database, then `underload report A B` is timed
# REPS times (wall clock, median and range) and the page's size printed;
# the same for --format svg, and `show` of both runs (the store's share of
# the time).  Done twice: sampler records as the tiny run recorded them,
# then inflated to as many records as samples (a cell of ~14 h at 1 s).
# KEEP=1 keeps the temporary directory.
#   usage: bench/report-100k.sh [UNDERLOAD] [SAMPLES] [REPS]
set -euo pipefail
UL=${1:-build/underload}
SAMPLES=${2:-100000}
REPS=${3:-7}
T=$(mktemp -d /tmp/ul-bench-report.XXXXXX)
[ -n "${KEEP:-}" ] || trap 'rm -rf "$T"' EXIT
DB=$T/bench.db

"$UL" run --db "$T/src.db" --dir "$T" --no-progress --tests noload,cpuload --interval 50ms \
	--min-points 6 --max-points 6 -o resp.working-set=4M -o resp.files=20 \
	--monitor-interval 100ms --label src --format resp1 >/dev/null
"$UL" export --db "$T/src.db" --format json -o "$T/src.json" src

inflate() { # inflate OUT LABEL SAMPLES SCALE MON (1: sampler records inflated too)
	python3 - "$T/src.json" "$@" <<'PY'
import json, random, sys, uuid
src, out, label, samples, scale = sys.argv[1], sys.argv[2], sys.argv[3], int(sys.argv[4]), float(sys.argv[5])
inflate_mon = sys.argv[6] == "1"
doc = json.load(open(src))
run = doc["runs"][0]
run["uuid"], run["label"] = str(uuid.uuid4()), label
rng = random.Random(label)
cells = [c for c in run["cells"] if c["series"]]
per = samples // len(cells)
for c in cells:
    series = {s["name"]: s["values"] for s in c["series"]}
    first = c["series"][0]["name"]
    base = series[first]
    series[first] = [int(rng.choice(base) * scale * rng.lognormvariate(0, 0.1)) for _ in range(per)]
    mon = [k for k in series if k.startswith("mon_")]
    n = len(series.get("mon_t_ns", []))
    if n >= 2 and inflate_mon:
        reps = max(1, per // n)
        step = series["mon_t_ns"][-1] - series["mon_t_ns"][0] + 1
        for k in mon:
            v = series[k]
            if k == "mon_t_ns":
                series[k] = [t + r * step for r in range(reps) for t in v]
            elif k == "mon_flags":
                series[k] = v * reps
            else:  # counters keep growing, levels repeat
                grow = v[-1] - v[0]
                series[k] = [x + r * grow for r in range(reps) for x in v]
    for s in c["series"]:
        s["values"] = series[s["name"]]
json.dump(doc, open(out, "w"))
PY
}

stat_line() { # stat_line NAME TIMES...: median and range in seconds
	printf '%s\n' "${@:2}" | sort -g | awk -v name="$1" '{ v[NR] = $1 }
		END { printf "%-36s median %.3f s  (min %.3f, max %.3f, n %d)\n", name,
		      (NR % 2 ? v[(NR + 1) / 2] : (v[NR / 2] + v[NR / 2 + 1]) / 2), v[1], v[NR], NR }'
}

bench() { # bench SAMPLES MON
	local n=$1 times=() svgt=() showt=() t0 t1 i
	rm -f "$DB" "$DB"-wal "$DB"-shm
	inflate "$T/a.json" A "$n" 1.0 "$2"
	inflate "$T/b.json" B "$n" 1.1 "$2"
	"$UL" import --db "$DB" "$T/a.json" "$T/b.json" >/dev/null
	for ((i = 0; i < REPS; i++)); do
		t0=$(date +%s.%N)
		"$UL" report --db "$DB" A B -o "$T/r.html"
		t1=$(date +%s.%N)
		times+=("$(echo "$t1 - $t0" | bc)")
		rm -rf "$T/svg"
		t0=$(date +%s.%N)
		"$UL" report --db "$DB" A B --format svg -o "$T/svg" >/dev/null
		t1=$(date +%s.%N)
		svgt+=("$(echo "$t1 - $t0" | bc)")
		# The store's share: `show` reads a whole run as report does.
		t0=$(date +%s.%N)
		"$UL" show --db "$DB" --format resp1 1 >/dev/null
		"$UL" show --db "$DB" --format resp1 2 >/dev/null
		t1=$(date +%s.%N)
		showt+=("$(echo "$t1 - $t0" | bc)")
	done
	echo "== $n samples per label, 2 labels, 2 tests; sampler records $([ "$2" = 1 ] &&
		echo "inflated to as many" || echo "as recorded"); $(sqlite3 "$DB" \
		'select sum(n) from series') stored values"
	stat_line "report -o r.html (incl. store read)" "${times[@]}"
	stat_line "report --format svg" "${svgt[@]}"
	stat_line "show run 1 + run 2 (the store read)" "${showt[@]}"
	printf '%-36s %d bytes (%.2f MB), %d <svg> elements\n' "page size" \
		"$(stat -c %s "$T/r.html")" "$(echo "$(stat -c %s "$T/r.html") / 1000000" | bc -l)" \
		"$(grep -o '<svg ' "$T/r.html" | wc -l)"
	printf '%-36s %d bytes in %d files\n' "svg directory" "$(du -sb "$T/svg" | cut -f1)" \
		"$(ls "$T/svg" | wc -l)"
}

echo "underload report bench on $(nproc) CPUs ($(uname -r)); machine shared, so read medians"
bench "$SAMPLES" 0
bench "$SAMPLES" 1

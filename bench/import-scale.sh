#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-or-later
# Import time and peak memory against document shape (issue 18, defect 8):
# documents under the 64 MiB cap made by import-scale.py, each imported
# into a fresh store; prints seconds, peak RSS and the first output line.
#   usage: bench/import-scale.sh [UNDERLOAD] [TIMEOUT_S]   (default: build/underload, 600)
# Each import runs under a 16 GiB address-space limit so a runaway one fails
# instead of taking the machine.
set -euo pipefail
ul=$(realpath "${1:-build/underload}")
limit=${2:-600}
gen=$(dirname "$(realpath "$0")")/import-scale.py
dir=$(mktemp -d /tmp/import-scale.XXXXXX)
trap 'rm -rf "$dir"' EXIT
printf '%-16s %9s %10s %10s  %s\n' case bytes seconds peak_MiB result
for c in "metrics 100000" "series 100000" "series 1000000" "cells 300000" "values 8000000" \
	"runs 20000000" "zeros 30000000"; do
	set -- $c
	doc=$dir/$1-$2.json
	python3 "$gen" "$1" "$2" "$doc"
	rm -f "$dir"/s.db*
	# A failed import (refused, out of memory, timed out) is a result of
	# the case: its exit status leads the result column.
	rc=0
	out=$( (ulimit -v $((16 << 20)); timeout "$limit" /usr/bin/time -f '%e %M' \
		"$ul" import --db "$dir/s.db" "$doc" 2>&1) ) || rc=$?
	read -r secs kb < <(tail -1 <<<"$out" | grep -E '^[0-9.]+ [0-9]+$' || echo "timeout -")
	printf '%-16s %9s %10s %10s  %s\n' "$1 $2" "$(stat -c %s "$doc")" "$secs" \
		"$([ "$kb" = - ] && echo - || echo $((kb / 1024)))" "$([ "$rc" = 0 ] || echo "exit $rc: ")$(head -1 <<<"$out" | cut -c1-80)"
	rm -f "$doc"
done

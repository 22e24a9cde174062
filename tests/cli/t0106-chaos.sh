#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-or-later
# Chaos, bounded (about a minute): each suite under tiny settings gets a
# random catchable terminating signal, or KILL then `underload cleanup`,
# at a random moment; nothing may be left (process, scratch, swap file,
# cgroup, journal, temporary output file), no reported cell lost, no
# signal swallowed; at the end the store passes its integrity check and
# no vm sysctl changed.  bench/chaos.sh runs the same trials in full.
. "$(dirname "$0")/lib.bash"
. "$(dirname "$0")/chaos.bash"
trap '"$UL" cleanup >/dev/null 2>&1; rm -rf "$TMP"' EXIT

sysctls=$(chaos_sysctls)
# Two rounds over the suites: a catchable signal each, KILL once a round.
for round in 1 2; do
	kill_at=$((RANDOM % ${#CHAOS_SUITES[@]}))
	for i in "${!CHAOS_SUITES[@]}"; do
		sig=$(shuf -n1 -e "${CHAOS_SIGNALS[@]}")
		[ "$i" = "$kill_at" ] && sig=KILL
		chaos_trial "${CHAOS_SUITES[$i]}" "$sig" 2.5
	done
done
chaos_final "$sysctls"
done_testing

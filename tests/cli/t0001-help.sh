#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-or-later
# --help and --version for every command; the registries list themselves.
. "$(dirname "$0")/lib.bash"


out=$("$UL" --version); ok $? "--version exits 0"
like "$out" '^underload [0-9]+\.[0-9]+\.[0-9]+( \(git [0-9a-f]{7,}\+?\))?$' \
	"--version prints the version, and the commit in a checkout"
like "$out" '^stores: (postgresql )?sqlite$' "--version names the stores built in"
like "$out" '^suites: .*resp' "--version names the suites built in"
like "$out" '^build: [a-z]+, sanitizers: ' "--version names the build type and sanitizers"
like "$out" '^test hooks: (yes|no)$' "--version says whether the test hooks are built in"
out=$("$UL" --help); ok $? "--help exits 0"
for c in run list show; do
	out=$("$UL" "$c" --help); ok $? "$c --help exits 0"
done
like "$("$UL" run --help)" '--interval DURATION' "run --help documents --interval"
"$UL" frobnicate 2>/dev/null; is $? 2 "an unknown command exits 2"
out=$("$UL" list loads)
for l in noload smallwrite largewrite cpuload spawnload 8ctx-mem 2ctx-mem; do
	grep -q "^$l " <<<"$out" || { diag "missing load $l"; break; }
done
ok $? "list loads names the seven resp loads"
like "$("$UL" list loads -v)" 'footprint +size .*default' "list loads -v shows options with range and default"
like "$("$UL" list suites -v)" 'tests: noload smallwrite largewrite cpuload spawnload 8ctx-mem 2ctx-mem' \
	"list suites -v shows resp's tests in order"
like "$("$UL" list formats)" '^resp1 ' "list formats names resp1"
"$UL" list nonsense 2>/dev/null; is $? 2 "an unknown list topic exits 2"
done_testing

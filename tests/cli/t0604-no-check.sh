#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-or-later
# The README's first command builds on a machine without Check, the unit
# tests' library: .ci/packages-run (what it installs) names no test-only
# package, and its `meson setup` configures with check.pc hidden from
# pkg-config, as on a machine that never installed it.  The default
# set-up (-Dtests=true) then stops with an error saying how to build
# without the unit tests.  Configures only (seconds); compiling needs
# nothing more of Check, whose header only tests/unit includes.
. "$(dirname "$0")/lib.bash"

src=$(cd "$(dirname "$0")/../.." && pwd)
if ! command -v meson >/dev/null || ! command -v pkg-config >/dev/null; then
	echo "1..0 # SKIP no meson or pkg-config"
	exit 0
fi

overlap=$(comm -12 <(sort "$src/.ci/packages-run") <(sort "$src/.ci/packages-test"))
is "$overlap" "" ".ci/packages-run and .ci/packages-test share no package"
grep -qx check "$src/.ci/packages-test"
ok $? "Check is a test-only package (.ci/packages-test)"

first=$(grep -m 1 '^apt-get update && ' "$src/README.md")
like "$first" 'install .*\$\(cat \.ci/packages-run\)' "the README's first command installs .ci/packages-run only"
like "$first" 'meson setup build' "the README's first command sets up a build"
setup=$(sed -nE 's/.*meson setup build( [^;}]*)?;.*/\1/p' <<<"$first")

# Every .pc file pkg-config would find, but check's.
mkdir -p "$TMP/pc"
for d in $(pkg-config --variable pc_path pkg-config | tr ':' ' '); do
	[ -d "$d" ] && find "$d" -maxdepth 1 -name '*.pc' ! -name check.pc -exec cp -L {} "$TMP/pc/" \;
done
hide=(env PKG_CONFIG_LIBDIR="$TMP/pc" PKG_CONFIG_PATH=)
"${hide[@]}" pkg-config --exists sqlite3 && ! "${hide[@]}" pkg-config --exists check
ok $? "check.pc is hidden, the others found"

# shellcheck disable=SC2086 # the README's words, split as the shell splits them
(cd "$src" && "${hide[@]}" meson setup "$TMP/readme" $setup) >"$TMP/readme.log" 2>&1
rc=$?
is "$rc" 0 "the README's meson setup ($setup) configures without Check"
[ "$rc" = 0 ] || diag "$(tail -n 5 "$TMP/readme.log")"

(cd "$src" && "${hide[@]}" meson setup "$TMP/default") >"$TMP/default.log" 2>&1
rc=$?
ok "$([ "$rc" != 0 ]; echo $?)" "the default set-up (unit tests) stops without Check"
like "$(cat "$TMP/default.log")" 'the unit tests need Check .*configure with -Dtests=false' \
	"and says how to build without the unit tests"
done_testing

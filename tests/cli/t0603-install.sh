#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-or-later
# `meson install` puts the binary, micro's two helper programs, the man
# page, the bash and zsh completions, the JSON Schemas and the README in
# the standard places under the prefix, and nothing else; the installed
# programs run.
. "$(dirname "$0")/lib.bash"

bdir=$(dirname "$UL_REAL")
if [ ! -f "$bdir/meson-info/intro-buildoptions.json" ]; then
	echo "1..0 # SKIP $UL_REAL is not in a meson build directory (nothing to install)"
	exit 0
fi
dir() { # dir NAME: a directory option of the build, relative to the prefix
	python3 -c 'import json, sys
opts = {o["name"]: o["value"] for o in json.load(open(sys.argv[1]))}
print(opts[sys.argv[2]])' "$bdir/meson-info/intro-buildoptions.json" "$1"
}
prefix=$(dir prefix)
bindir=$prefix/$(dir bindir)
datadir=$prefix/$(dir datadir)
mandir=$prefix/$(dir mandir)
libexecdir=$prefix/$(dir libexecdir)/underload
dest=$TMP/dest

out=$(meson install -C "$bdir" --no-rebuild --destdir "$dest" 2>&1)
rc=$?
is "$rc" 0 "meson install --destdir exits 0"
[ "$rc" = 0 ] || diag "$(tail -n 5 <<<"$out")"
want=$(printf '%s\n' "$bindir/underload" "$mandir/man1/underload.1" \
	"$libexecdir/underload-forker" "$libexecdir/underload-hello" \
	"$datadir/bash-completion/completions/underload" \
	"$datadir/zsh/vendor-completions/_underload" \
	"$datadir/underload/schema/compare.schema.json" \
	"$datadir/underload/schema/export.schema.json" \
	"$datadir/underload/schema/run-output.schema.json" \
	"$datadir/doc/underload/README.md" | sort)
is "$(cd "$dest" && find . ! -type d | sed 's/^\.//' | sort)" "$want" \
	"exactly the binary, helpers, man page, completions, schemas and README are installed"

ok "$([ -x "$dest$bindir/underload" ]; echo $?)" "the binary is executable"
like "$("$dest$bindir/underload" --version)" '^underload [0-9]' "the installed binary runs"
is "$("$dest$libexecdir/underload-hello")" "Hello world" "the installed exec target runs"
"$dest$libexecdir/underload-forker" nosuch 2>/dev/null
is $? 2 "the installed forker runs (and refuses a bad mode)"
cmp -s "$dest$mandir/man1/underload.1" "$(dirname "$0")/../../docs/underload.1"
ok $? "the man page is docs/underload.1"
cmp -s "$dest$datadir/bash-completion/completions/underload" "$bdir/completion/underload"
ok $? "the bash completion is the generated one"
like "$(head -n 1 "$dest$datadir/zsh/vendor-completions/_underload")" '^#compdef underload$' \
	"the zsh completion declares itself for underload"
out=$(bash -c '. "$1"; complete -p underload' x "$dest$datadir/bash-completion/completions/underload")
is "$out" "complete -F _underload underload" "sourcing the bash completion registers it"

# debian/control builds what meson.build needs: the Debian package that
# ships each dependency()'s .pc file is in Build-Depends, optional ones
# (libpq: the package configures -Dpostgresql=enabled) too; only check,
# required by -Dtests alone, is not (the package configures -Dtests=false).
src=$(cd "$(dirname "$0")/../.." && pwd)
if ! command -v dpkg >/dev/null || ! command -v pkg-config >/dev/null; then
	skip "no dpkg or pkg-config: not a Debian system, no package to check"
else
	missing=
	for dep in $(grep -E "dependency\('[a-z0-9_.+-]+'" "$src/meson.build" |
		grep -vF "dependency('check'" | grep -oE "dependency\('[a-z0-9_.+-]+'" |
		sed -E "s/.*'(.*)'.*/\1/"); do
		pc=$(pkg-config --variable=pcfiledir "$dep" 2>/dev/null)/$dep.pc
		pkg=$(dpkg -S "$pc" 2>/dev/null | head -n 1 | cut -d: -f1)
		[ -n "$pkg" ] || { missing+=" $dep(no package ships $pc)"; continue; }
		grep -qE "^ +$pkg(,| |$)|Build-Depends: .*\b$pkg\b" "$src/debian/control" || missing+=" $pkg"
	done
	is "$missing" "" "debian/control's Build-Depends names the package of every meson dependency()"
fi
done_testing

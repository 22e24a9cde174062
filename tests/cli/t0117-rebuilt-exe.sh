#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-or-later
# A rebuild during a sweep: the file underload was started from is
# replaced by another program while the sweep's first run ends, and the
# sweep's next run is still this program (it execs /proc/self/exe, not
# the path), which runs resp's lister the same way.  The first run's
# teardown holds (UL_TEST_TEARDOWN_HOLD) while the file is replaced, so
# the second run starts after it, every time.
. "$(dirname "$0")/lib.bash"

wait_for() { for _ in $(seq 600); do "$@" && return 0; sleep 0.1; done; return 1; }
RUN=(run --quick --tests noload --interval 200ms --dir "$SCRATCH" --db "$DB" --no-progress)

bin=$TMP/bin
mkdir -p "$bin" && cp "$UL_REAL" "$bin/underload"
hold=$TMP/teardown-hold
UL_TEST_TAG=$TMP UL_TEST_TEARDOWN_HOLD=$hold "$bin/underload" sweep mem-limit=96M,128M -- \
	"${RUN[@]}" >"$TMP/out" 2>"$TMP/err" &
pid=$!
held() { [ -e "$hold" ]; }
wait_for held
ok $? "the sweep's first run reached its teardown"
# As a rebuild does: the old file goes, another program takes its path.
rm "$bin/underload"
printf '#!/bin/sh\necho "not the program the sweep started" >&2\nexit 99\n' >"$bin/underload"
chmod +x "$bin/underload"
wait "$pid"
rc=$?
is "$rc" 0 "the sweep exits 0 though its file was replaced"
[ "$rc" = 0 ] || diag "$(tail -n 5 "$TMP/err")"
is "$(sqlite3 "$DB" "SELECT label || ' ' || status FROM runs ORDER BY id" | tr '\n' ',')" \
	"mem-limit=96M complete,mem-limit=128M complete," "both runs stored complete"
is "$(sqlite3 "$DB" "SELECT count(*) FROM runs r JOIN cells c ON c.run_id = r.id
	WHERE r.label = 'mem-limit=128M' AND c.outcome = 'ok'")" 1 \
	"the second run measured noload (resp's lister exec'd)"
like "$(cat "$TMP/out")" "baseline 'mem-limit=96M'" "and the comparison follows"
is "$(ul_procs) $(scratch_left)" "0 0" "no process or scratch directory left"
done_testing

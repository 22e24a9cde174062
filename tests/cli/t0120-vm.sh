#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-or-later
# underload vm: one Debian kernel image given twice, booted under qemu
# (TCG here), two boots each, alternated: four runs under two labels
# imported into the host's store, the comparison flagged emulated, the
# fingerprint recording the accelerator and VM shape, each boot's resp
# samples split into their parts by the guest kernel, and compare refusing
# a VM's runs against the machine's own.  A kernel made to panic mid-run
# (the test hook) leaves its run crashed at its test with the console's
# tail, and the next boot still runs; that binary lives under /tmp (which
# the guest covers with its scratch disk).  A guest stopped as hung
# before its run (a stand-in for qemu) has vm say how far it got, qemu's
# CPU time and the console's last lines; what vm says of any boot that
# did not finish is shown as diag lines.  Nothing is left after success,
# Ctrl-C, or kill -9 then cleanup.
. "$(dirname "$0")/lib.bash"
. "$(dirname "$0")/vm.bash"

# The main path: A B A B.
"$UL" vm --db "$DB" --kernel "$kernel" --kernel "$kernel" --boots 2 \
	-- "${RUN[@]}" >"$TMP/out" 2>"$TMP/err"
is $? 0 "vm exits 0"
grep '^vm: boot .* after ' "$TMP/out" | sed 's/^/# /'
unfinished_diag "$TMP/out" "$TMP/err"
is "$(runs "$DB")" "$rel complete,$rel#2 complete,$rel complete,$rel#2 complete" \
	"four runs under two labels, the kernels alternated"
out_like "^vm: boot 4 of 4: finished after" "four boots, each finished"
accel=$(sed -n 's/^vm: \(kvm\|tcg\), 2 CPUs.*/\1/p' "$TMP/out")
env=$("$UL" show --db "$DB" --env last)
like "$env" "^  vm\\.accelerator: +$accel\$" "the fingerprint records the accelerator"
like "$env" "^  vm\\.cpus: +2\$" "and the VM's CPUs"
like "$env" "^  vm\\.mem_mb: +1024\$" "and its memory"
like "$env" "^  kernel\\.release: +$rel\$" "the run is the guest kernel's"
if [ "$accel" = tcg ]; then
	out_like "^emulated: label '$rel': 2 runs under TCG" "the comparison is flagged emulated"
else
	skip "KVM works here: nothing is emulated"
fi
out_like "^candidate '$rel#2' \(2 runs pooled: [0-9]+, [0-9]+; 2 boots, 0 crashed" \
	"the comparison names both labels, with each one's boots"
is "$(grep -c '^warning: unfair' "$TMP/out")" 0 "one kernel booted 4 times: no unfair difference"
# Why was it slow, from the guest kernel too (issue 31): Debian's kernel has
# delay accounting, so each boot's resp samples get every part (the why_*
# series of model/breakdown.def), one value per sample, none missing.
parts="'why_oncpu_ns','why_runq_ns','why_blkio_ns','why_swapin_ns','why_reclaim_ns',"
parts+="'why_thrash_ns','why_compact_ns','why_other_ns'"
is "$(sqlite3 "$DB" "SELECT r.label || ' ' || count(p.name) FROM runs r
	JOIN cells c ON c.run_id = r.id AND c.suite = 'resp'
	JOIN series d ON d.cell_id = c.id AND d.name = 'delay_ns' AND d.n > 0
	LEFT JOIN series p ON p.cell_id = c.id AND p.name IN ($parts) AND p.n = d.n
	GROUP BY c.id ORDER BY r.id" | paste -sd,)" "$rel 8,$rel#2 8,$rel 8,$rel#2 8" \
	"each boot's resp samples carry all 8 parts of the breakdown"
is "$(work_left "$TMP/out")" "" "the work directory is gone"
is "$(ul_procs)" 0 "no qemu or underload process is left"

# A VM's runs are not compared with the machine's own.
"$UL" "${RUN[@]}" --db "$DB" --dir "$SCRATCH" --label bare >/dev/null 2>&1
"$UL" compare --db "$DB" label:bare "label:$rel" >/dev/null 2>"$TMP/err"
is $? 2 "compare refuses a bare-metal run against a VM's"
like "$(cat "$TMP/err")" "not comparable" "and says why"

# A panic mid-run, from a binary under /tmp; the next boot goes on.
mkdir -p "$TMP/bin" && cp "$UL_REAL" "$TMP/bin/underload"
UL_TEST_VM_PANIC=1 UL_TEST_TAG=$TMP "$TMP/bin/underload" vm --db "$TMP/p.db" \
	--kernel "$kernel" --boots 2 -- "${RUN[@]}" >"$TMP/out" 2>"$TMP/err"
is $? 0 "vm with a panicking boot exits 0"
grep '^vm: boot .* after ' "$TMP/out" | sed 's/^/# /'
unfinished_diag "$TMP/out" "$TMP/err"
out_like "^vm: boot 1 of 2: panicked" "boot 1 panicked"
is "$(runs "$TMP/p.db")" "$rel crashed,$rel complete" "its run is crashed, the next boot's complete"
note=$(sqlite3 "$TMP/p.db" "SELECT c.note FROM cells c JOIN runs r ON c.run_id = r.id WHERE r.status = 'crashed' AND c.outcome = 'crashed'")
like "$note" "console: Kernel panic - not syncing: sysrq triggered crash" \
	"the crashed test says what the console said"
like "$("$TMP/bin/underload" show --db "$TMP/p.db" --env 1)" "^  vm\\.console_tail: .*sysrq" \
	"the console's tail is stored with the run"
is "$(ul_procs)" 0 "no process is left"

# A guest that stops before its run begins (a stand-in for qemu: its init
# names a step, writes its sign of life once, then nothing): vm says how
# far it got, qemu's CPU time, and the console's last lines, and stores
# its run crashed.  (qemu's KVM probe gets a stand-in that ends at once:
# TCG.)
mkdir -p "$TMP/fake"
cat >"$TMP/fake/qemu-system-x86_64" <<'SH'
#!/bin/sh
case " $* " in *" -accel kvm "*) exit 1 ;; esac
for a; do case $a in
file:*) con=${a#file:} ;;
local,path=*) share=${a#local,path=}; share=${share%%,*} ;;
esac; done
printf 'ul-vm: init: mounting the share\r\n\033[2Jcleared\r\n' >>"$con"
date +%s >"$share/alive"
exec sleep 60
SH
chmod +x "$TMP/fake/qemu-system-x86_64"
PATH="$TMP/fake:$PATH" "$UL" vm --db "$TMP/h.db" --hang-timeout 10s --kernel "$kernel" \
	-- "${RUN[@]}" >"$TMP/out" 2>"$TMP/err"
out_like "^vm: boot 1 of 1: hung after 1[0-9]\.[0-9] s" "a guest silent for --hang-timeout is hung"
out_like "^vm: boot 1 of 1: the guest's init was mounting the share; qemu used [0-9.]+ s of CPU\$" \
	"vm says how far the guest got and qemu's CPU time"
is "$(runs "$TMP/h.db")" "$rel crashed" "its run is stored crashed"
is "$(sed -n 's/^note: vm: boot 1: console: //p' "$TMP/err" | paste -sd '|')" \
	'ul-vm: init: mounting the share|\x1b[2Jcleared' "the console's last lines are printed, escaped"
is "$(work_left "$TMP/out")" "" "the work directory is gone"
is "$(ul_procs)" 0 "the stand-in for qemu is gone"

# Ctrl-C mid-boot, and kill -9 then cleanup: nothing left.
"$UL" vm --db "$TMP/i.db" --kernel "$kernel" -- "${RUN[@]}" >"$TMP/out" 2>&1 &
pid=$!
wait_line '^vm: boot 1' 300 "$TMP/out"
sleep 1
kill -INT "$pid"
wait "$pid"
is $? 130 "vm interrupted exits 130"
is "$(work_left "$TMP/out")" "" "its work directory is gone"
is "$(ul_procs)" 0 "qemu is gone"
is "$("$UL" cleanup 2>&1)" "0 changes undone" "nothing is left for cleanup"
"$UL" vm --db "$TMP/k.db" --kernel "$kernel" -- "${RUN[@]}" >"$TMP/out" 2>&1 &
pid=$!
wait_line '^vm: boot 1' 300 "$TMP/out"
killed_then_cleanup "$pid" "$TMP/out" vm
done_testing

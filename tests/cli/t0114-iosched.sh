#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-or-later
# underload sweep iosched=A,B: the I/O scheduler of --dir's disk, here a
# loop device over a file in /var/tmp made for the test, is each run's
# setting while it runs, restored afterwards, and restored by `underload
# cleanup` after a kill -9 of the sweep; a --dir without a block device
# is refused before anything changes.
. "$(dirname "$0")/lib.bash"

RUN=(run --quick --tests noload --interval 200ms --db "$DB" --no-progress)
# Our own journals only: cleanup must not settle other people's runs.
export UL_JOURNAL_DIR=$TMP/journal
mkdir -p "$UL_JOURNAL_DIR" && chmod 700 "$UL_JOURNAL_DIR"

# Bad input is refused before anything starts.
"$UL" sweep iosched=No/Such -- "${RUN[@]}" --dir "$SCRATCH" >/dev/null 2>"$TMP/err"
is $? 2 "iosched=No/Such is refused with exit 2"
like "$(cat "$TMP/err")" "not a scheduler name" "and says why"

if [ "$(id -u)" != 0 ]; then
	skip "needs root for a loop device"
	done_testing
fi
for tool in losetup mkfs.ext4 mount umount; do
	if ! command -v "$tool" >/dev/null; then
		skip "no $tool"
		done_testing
	fi
done

# A 64 MiB ext4 on a loop device over a file in /var/tmp, torn down at
# exit whatever happened (after the processes the test started).
IMG=$(mktemp /var/tmp/ul-iosched.XXXXXX)
MNT=$TMP/mnt
LOOP=
first=
teardown() {
	ul_kill_all
	mountpoint -q "$MNT" && umount "$MNT"
	# The loop device outlives the detach: its scheduler goes back too.
	[ -n "$first" ] && echo "$first" >"/sys/block/${LOOP#/dev/}/queue/scheduler"
	[ -n "$LOOP" ] && losetup -d "$LOOP"
	rm -f "$IMG"
	rm -rf "$TMP"
}
trap teardown EXIT
truncate -s 64M "$IMG"
LOOP=$(losetup -f --show "$IMG")
ok $? "a loop device over $IMG ($LOOP)"
mkfs.ext4 -q -F "$LOOP" && mkdir -p "$MNT" && mount "$LOOP" "$MNT"
ok $? "an ext4 on it mounted at $MNT"
DISK=${LOOP#/dev/}
SCHED=/sys/block/$DISK/queue/scheduler
# The selected scheduler, and the others the device offers.
current() { sed -E 's/.*\[([^]]*)\].*/\1/' "$SCHED"; }
offers() { tr -d '[]' <"$SCHED" | tr ' ' '\n' | grep -qxF "$1"; }
if ! offers mq-deadline || ! offers none; then
	skip "$DISK offers no mq-deadline and none ($(cat "$SCHED"))"
	done_testing
fi
first=$(current)
# The original: a third scheduler when there is one, so that restoring it
# is told apart from either value.
for s in kyber bfq mq-deadline; do
	offers "$s" && echo "$s" >"$SCHED" 2>/dev/null && break
done
orig=$(current)
diag "$DISK offers: $(cat "$SCHED"); original: $orig"
# Every scheduler seen while the sweep runs, one a line.
watch() { while kill -0 "$1" 2>/dev/null; do current; sleep 0.2; done; }

"$UL" sweep iosched=mq-deadline,none -- "${RUN[@]}" --dir "$MNT" >"$TMP/out" 2>"$TMP/err" &
pid=$!
watch "$pid" >"$TMP/seen"
wait "$pid"
is $? 0 "sweep iosched=mq-deadline,none exits 0"
[ -s "$TMP/err" ] && diag "$(cat "$TMP/err")"
like "$(cat "$TMP/err")" "iosched is the scheduler of $DISK" "the sweep names the disk under --dir"
is "$(current)" "$orig" "the scheduler is back to $orig"
like "$(cat "$TMP/err")" "iosched of $DISK restored to $orig" "the sweep says it restored it"
like "$(sort -u "$TMP/seen" | tr '\n' ' ')" "mq-deadline.* none" "both schedulers were set during the sweep"
is "$(sqlite3 "$DB" 'SELECT label FROM runs ORDER BY id' | tr '\n' ' ')" \
	"iosched=mq-deadline iosched=none " "two runs, labelled by the scheduler"
is "$("$UL" show --env 1 --db "$DB" | awk '$1 == "storage.io_scheduler:" { print $2 }')" \
	mq-deadline "the first run ran under mq-deadline"
is "$("$UL" show --env 2 --db "$DB" | awk '$1 == "storage.io_scheduler:" { print $2 }')" \
	none "the second run ran under none"
like "$(cat "$TMP/out")" "storage\.io_scheduler +iosched=mq-deadline +mq-deadline$" \
	"the comparison names the swept difference"
ok $(grep -q "unfair comparison: storage.io_scheduler" "$TMP/out"; echo $((!$?))) \
	"the swept scheduler is not an unfair difference"
is "$(ls "$UL_JOURNAL_DIR" | wc -l)" 0 "no journal is left"

# A value the disk does not offer, and a --dir without a block device,
# are refused before anything changes.
"$UL" sweep iosched=nosuch -- "${RUN[@]}" --dir "$MNT" >/dev/null 2>"$TMP/err"
is $? 2 "a scheduler $DISK does not offer is refused with exit 2"
like "$(cat "$TMP/err")" "iosched=nosuch: $DISK .* offers only: " "naming what it offers"
if grep -q ' /dev/shm tmpfs ' /proc/mounts; then
	"$UL" sweep iosched=none -- "${RUN[@]}" --dir /dev/shm >/dev/null 2>"$TMP/err"
	is $? 1 "--dir on tmpfs: the sweep is refused"
	like "$(cat "$TMP/err")" "without a block device .*no I/O scheduler to set" "saying why"
else
	skip "no tmpfs at /dev/shm"
fi
is "$(current)" "$orig" "the scheduler is still $orig"
is "$(sqlite3 "$DB" 'SELECT count(*) FROM runs')" 2 "no run was made"

# SIGKILL of the sweep and its run mid-run leaves the scheduler changed;
# cleanup selects the original again.
"$UL" sweep iosched=none -- "${RUN[@]}" --dir "$MNT" --min-points 50 --max-points 50 \
	>/dev/null 2>&1 &
pid=$!
for _ in $(seq 600); do [ "$(current)" = none ] && break; sleep 0.1; done
is "$(current)" none "the sweep selected none"
sleep 1
ul_kill_all
wait "$pid" 2>/dev/null
is "$(current)" none "after SIGKILL the scheduler is still none"
"$UL" cleanup >"$TMP/clean" 2>&1
is $? 0 "cleanup exits 0"
is "$(current)" "$orig" "cleanup selected $orig again"
like "$(cat "$TMP/clean")" "iosched $DISK $orig" "cleanup names the scheduler it restored"
is "$(ls "$UL_JOURNAL_DIR" | wc -l)" 0 "cleanup settled every journal"
is "$(ul_procs)" 0 "no process is left"

# A killed sweep's scheduler where sysfs cannot be seen (a mount namespace
# without it on /sys): cleanup does not claim a restore it did not do, and
# keeps the entry for a cleanup that sees the disk.
no_sysfs() { unshare -m sh -c 'mount -t tmpfs none /sys && exec "$@"' sh "$@"; }
if no_sysfs true 2>/dev/null; then
	printf 'underload-journal 1 999999999 0\niosched %s %s\n' "$DISK" "$orig" \
		>"$UL_JOURNAL_DIR/999999999.journal"
	chmod 0600 "$UL_JOURNAL_DIR/999999999.journal"
	echo none >"$SCHED"
	no_sysfs "$UL" cleanup >"$TMP/clean" 2>&1
	is $? 1 "cleanup without sysfs exits 1"
	ok $(grep -q "restored iosched\|removed iosched" "$TMP/clean"; echo $((!$?))) \
		"and does not claim to have restored the scheduler"
	like "$(cat "$TMP/clean")" "no sysfs at /sys/block here.*kept: a later cleanup tries again" \
		"it says why, and keeps the entry"
	is "$(current)" none "the scheduler is still none"
	"$UL" cleanup >"$TMP/clean" 2>&1
	is $? 0 "a cleanup that sees the disk exits 0"
	like "$(cat "$TMP/clean")" "restored iosched $DISK $orig" "and restores the scheduler"
	is "$(current)" "$orig" "the scheduler is $orig again"
	is "$(ls "$UL_JOURNAL_DIR" | wc -l)" 0 "the journal is settled"
else
	for _ in 1 2 3 4 5 6 7 8; do skip "no mount namespace here"; done
fi
done_testing # teardown selects $first again

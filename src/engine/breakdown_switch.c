/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * kernel.task_delayacct held on for a run (contract: breakdown_record.h;
 * the protocol between runs at once: proc/delayacct.h).
 */
#include "core/compat.h"
#include "core/log.h"
#include "engine/breakdown_record.h"
#include "proc/changes.h"
#include "proc/delayacct.h"
#include "proc/journal.h"

#include <errno.h>
#include <string.h>
#include <sys/file.h>
#include <unistd.h>

void ul_delayacct_hold_on(struct ul_journal *j, struct ul_delayacct_hold *h, char *why, size_t len)
{
	bool changed = false;
	int rc, sw;

	*h = (struct ul_delayacct_hold){ .lock_fd = -1 };
	/* Without the locks no run could share it: leave it alone. */
	sw = ul_delayacct_lock_open(UL_DELAYACCT_SWITCH, why, len);
	if (sw < 0)
		return;
	h->lock_fd = ul_delayacct_lock_open(UL_DELAYACCT_LOCK, why, len);
	if (h->lock_fd < 0)
		goto out;
	/* Alone while it is read and switched, so no run sees it half-made
	 * and no undo switches it off between our read and our share. */
	rc = ul_delayacct_flock(sw, LOCK_EX);
	if (rc) {
		ul_whyf(why, len, "cannot lock %s: %s", UL_DELAYACCT_SWITCH, strerror(-rc));
		goto fail;
	}
	rc = ul_delayacct_read();
	if (rc == 0) {
		rc = ul_change_delayacct_on(j, &changed, why, len);
		if (rc)
			goto fail;
		h->entry = changed;
		if (changed && ul_delayacct_mark(sw, true)) {
			/* Unmarked, a later run would take it for the admin's and
			 * never journal it: switch it off again instead. */
			(void)ul_change_undo(j, "delayacct", "0");
			h->entry = false;
			ul_whyf(why, len, "cannot mark %s", UL_DELAYACCT_SWITCH);
			goto fail;
		}
	} else if (rc == 1 && ul_delayacct_marked(sw)) {
		/* Another run's switch: ours to restore too if it dies first. */
		rc = j ? ul_journal_add(j, "delayacct", "0") : -EBADF;
		if (rc) {
			ul_whyf(why, len, "cannot journal delay accounting: %s", strerror(-rc));
			goto fail;
		}
		h->entry = true;
	} else if (rc < 0) {
		ul_whyf(why, len, "cannot read %s: %s", UL_DELAYACCT_PATH, strerror(-rc));
		goto fail;
	}
	/* Never waits: an undo tries it only while holding the switch. */
	rc = ul_delayacct_flock(h->lock_fd, LOCK_SH);
	if (rc) {
		close(sw);
		ul_delayacct_hold_off(j, h);
		ul_whyf(why, len, "cannot share %s: %s", UL_DELAYACCT_LOCK, strerror(-rc));
		return;
	}
	h->counting = true;
	goto out;
fail:
	close(h->lock_fd);
	h->lock_fd = -1;
out:
	close(sw);
}

void ul_delayacct_hold_off(struct ul_journal *j, struct ul_delayacct_hold *h)
{
	char why[256] = "";
	int rc;

	if (h->lock_fd >= 0)
		close(h->lock_fd); /* our share goes first: the undo tries it alone */
	h->lock_fd = -1;
	h->counting = false;
	if (!h->entry)
		return;
	h->entry = false;
	rc = ul_change_undo_why(j, "delayacct", "0", why, sizeof(why));
	if (rc == -EBUSY) {
		/* Another live run holds it and journalled it: it restores it. */
		if (j)
			(void)ul_journal_done(j, "delayacct", "0");
	} else if (rc) {
		ul_error("cannot switch delay accounting off again: %s (run 'underload cleanup')",
			 why);
	}
}

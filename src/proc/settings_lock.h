/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * The machine-wide lock on the system settings a sweep changes (sysctls,
 * I/O schedulers): whoever holds it alone may change them or write them
 * back.  A sweep holds it for its whole life; `underload cleanup` takes it
 * before it writes back a killed sweep's settings and leaves them alone
 * while a live sweep holds it.  Without it a second sweep would journal
 * the first's values as the originals, and a cleanup would change a
 * setting under a live sweep's run.
 *
 * It is a flock(2) on UL_SETTINGS_LOCK: it holds across network, PID and
 * user namespaces that share the file (an abstract unix socket name holds
 * only within a network namespace), and the kernel releases it when its
 * holder exits, even by kill -9.  The file is never removed (removing a
 * lock file races with the next taker); it is empty.  Its directory is
 * made root's, mode 0700, when missing.
 */
#ifndef UL_SETTINGS_LOCK_H
#define UL_SETTINGS_LOCK_H

#include "core/compat.h"

#include <stddef.h>

#define UL_SETTINGS_LOCK_DIR "/run/underload"
#define UL_SETTINGS_LOCK UL_SETTINGS_LOCK_DIR "/settings.lock"

/*
 * Take the lock without waiting: 0 with *fd holding it (close-on-exec,
 * never inherited by a run; close it, or exit, to release it);
 * -EWOULDBLOCK when another process holds it; else -errno with why.
 */
int ul_settings_lock(int *fd, char *why, size_t wlen) UL_MUST_CHECK;

#endif

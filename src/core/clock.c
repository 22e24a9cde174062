/* SPDX-License-Identifier: GPL-2.0-or-later */
/* Absolute sleeps on CLOCK_MONOTONIC. */
#include "core/compat.h"
#include "core/clock.h"

#include <errno.h>

void ul_sleep_until_ns(ul_nsec when)
{
	struct timespec ts = ul_ns_to_ts(when);

	while (clock_nanosleep(CLOCK_MONOTONIC, TIMER_ABSTIME, &ts, NULL) == EINTR)
		;
}

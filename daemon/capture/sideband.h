/* SPDX-License-Identifier: GPL-2.0 */
/*
 * What a session's side-band and fork-following counters say, as lines for
 * the end of a run: record's summary and an agent task's log both show
 * these, in their own way (line's prefix, warning or not).
 */
#ifndef SKYPROF_CAPTURE_SIDEBAND_H
#define SKYPROF_CAPTURE_SIDEBAND_H

#include <stdbool.h>
#include <stddef.h>

#include "capture/capture.h"

/*
 * Calls line for each thing worth saying about c's side-band records (the
 * module's counters in st, per CPU, summed; the hold's) and about the
 * processes the module followed: nothing for a session without either.
 * warning: a table was full or records were lost, and names suffered.
 */
void capture_sideband_lines(const struct capture *c, const struct control_cpu_stats *st, size_t n,
			    void (*line)(void *arg, bool warning, const char *text), void *arg);

#endif

/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Durations as people write them: a number with a unit ("500ms", "2.5s"),
 * Go's sums of such ("1m30s"), or a bare number (seconds). Each caller says
 * which units and forms it takes and applies its own range and rounding.
 */
#ifndef SKYPROF_LIB_DURATION_H
#define SKYPROF_LIB_DURATION_H

#include <stdbool.h>

/* The units and forms a caller accepts. */
enum duration_forms {
	DURATION_NS = 1 << 0,
	DURATION_US = 1 << 1,	      /* "us" */
	DURATION_MICRO_SIGN = 1 << 2, /* "µs", as Go writes it */
	DURATION_MS = 1 << 3,
	DURATION_S = 1 << 4,
	DURATION_M = 1 << 5,
	DURATION_H = 1 << 6,
	DURATION_SUM = 1 << 7, /* several number-unit pairs: "1m30s" */
	DURATION_GO = 0xff,    /* everything Go's time.ParseDuration reads, and bare seconds */
};

/*
 * Reads s, which starts with a digit or '.', as a duration in the accepted
 * forms: *ns is its value in nanoseconds as read, not rounded, finite and not
 * negative; *bare (may be NULL) is true when s was a number without a unit,
 * which counts as seconds. 0, or -EINVAL for anything else.
 */
int duration_parse(const char *s, unsigned int forms, double *ns, bool *bare);

#endif

/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The monotonic clock, for deadlines and elapsed times: it does not jump
 * when the wall clock is set.
 */
#ifndef SKYPROF_LIB_CLOCK_H
#define SKYPROF_LIB_CLOCK_H

#include <stdint.h>

uint64_t clock_mono_ns(void);
uint64_t clock_mono_ms(void);

#endif

/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The monotonic clock, for deadlines and elapsed times: it does not jump
 * when the wall clock is set; and the wall clock, for times others read
 * (the OAP's task and upload times).
 */
#ifndef SKYPROF_LIB_CLOCK_H
#define SKYPROF_LIB_CLOCK_H

#include <stdint.h>

uint64_t clock_mono_ns(void);
uint64_t clock_mono_ms(void);
/* CLOCK_REALTIME in ms since the epoch. */
uint64_t clock_wall_ms(void);

#endif

/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The top functions of a view by self count (the leaf frame), with
 * inclusive totals: what `skyprof top` and `skyprof report` print. A
 * function counts once per stack however often it recurses; counts are
 * samples on-CPU and blocked ns off-CPU; inline frames count as functions.
 */
#ifndef SKYPROF_PROFILE_TOP_H
#define SKYPROF_PROFILE_TOP_H

#include <stddef.h>
#include <stdint.h>

struct view;

struct func_share {
	char name[256];
	uint64_t self;
	uint64_t total;
	uint8_t kernel; /* a kernel function */
};

/* The first n functions, most self first. Returns how many were filled (0
 * also without memory). */
size_t top_functions(const struct view *v, struct func_share *out, size_t n);

/* What top_functions' counts add up to (100 %). */
uint64_t top_total(const struct view *v);

#endif

/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The aggregated profile: samples merged by (pid, kernel stack, user stack),
 * each distinct stack with its sample count and summed weight. Outputs and
 * `skyprof top` read it; the symbolizer is consulted when writing, and told
 * about every pid on first sight so that processes that exit during the run
 * still symbolize.
 */
#ifndef SKYPROF_PROFILE_H
#define SKYPROF_PROFILE_H

#include <stdint.h>
#include <stddef.h>

#include "sample.h"

struct symbolizer;
struct profile;

enum profile_kind {
	PROFILE_ONCPU,		/* weight = samples; period = 1e9 / freq ns */
	PROFILE_OFFCPU,		/* weight = blocked ns; count = switches */
};

struct profile_meta {
	enum profile_kind kind;
	uint32_t freq_hz;	/* on-CPU sampling frequency */
	uint64_t start_ns;	/* CLOCK_REALTIME of the run start */
	uint64_t duration_ns;
};

struct profile *profile_new(const struct profile_meta *meta, struct symbolizer *sym);
void profile_free(struct profile *p);
/* Copies what it keeps; returns 0 or -errno (-ENOMEM). */
int profile_add(struct profile *p, const struct sp_sample *s);
uint64_t profile_total_samples(const struct profile *p);

/* Top functions by self count (the leaf frame), with inclusive totals. */
struct func_share {
	char name[256];
	uint64_t self;
	uint64_t total;
};
size_t profile_top_functions(struct profile *p, struct func_share *out, size_t n);

#endif

/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The aggregated profile: samples merged by (pid, exec generation, tid,
 * kernel stack, user stack), each distinct stack with its sample count and
 * summed weight, as addresses. It knows nothing of symbols: a view
 * (profile/view.h) is built from it and a symbolizer by whoever writes it
 * out, and profile/ingest.h brings it its samples.
 */
#ifndef SKYPROF_PROFILE_PROFILE_H
#define SKYPROF_PROFILE_PROFILE_H

#include <stdbool.h>
#include <stdint.h>
#include <stddef.h>

#include "capture/sample.h"

struct profile;

enum profile_kind {
	PROFILE_ONCPU,	/* weight = samples; period = 1e9 / freq ns */
	PROFILE_OFFCPU, /* weight = blocked ns; count = switches */
	/* A pprof file of another kind (a Go heap profile...): weight = the
	 * value chosen among its sample types, named by the view. */
	PROFILE_OTHER,
};

struct profile_meta {
	enum profile_kind kind;
	uint32_t freq_hz;  /* on-CPU sampling frequency */
	uint64_t start_ns; /* CLOCK_REALTIME of the run start */
	uint64_t duration_ns;
	uint64_t lost;	 /* samples the run lost (ring full, ...) */
	bool lost_known; /* lost is what the source knew, not a default */
};

struct profile *profile_new(const struct profile_meta *meta);
void profile_free(struct profile *p);
/*
 * Counts s's stack, as given, under its process's exec generation gen
 * (proc/follow.h), so code before and after an exec never merges. Copies
 * what it keeps. Returns 1 when the stack is new to the profile (it is then
 * the last of profile_get_stack), 0 when it was known, or -errno (-ENOMEM;
 * -EINVAL for a stack without its ips).
 */
int profile_add(struct profile *p, const struct sp_sample *s, uint16_t gen);
/* Add every stack of src, with its count and weight, to dst. 0 or -errno. */
int profile_merge(struct profile *dst, const struct profile *src);
uint64_t profile_total_samples(const struct profile *p);
/* The run's length, known only when it ends. */
void profile_set_duration(struct profile *p, uint64_t duration_ns);
/* What the run lost, written into the outputs' subtitle and pprof comment. */
void profile_set_lost(struct profile *p, uint64_t lost);
const struct profile_meta *profile_get_meta(const struct profile *p);

/*
 * The distinct stacks, in first-seen order. The key is (tgid, exec
 * generation, tid, kernel stack, user stack): tid is kept so pprof can label threads; comm is the
 * first one seen for the key.
 */
struct profile_stack {
	uint32_t tgid, tid;
	uint16_t gen; /* tgid's exec generation (proc/follow.h) */
	uint16_t nr_kernel, nr_user;
	uint64_t count, weight;
	const char *comm;
	const uint64_t *kernel_ips; /* innermost first */
	const uint64_t *user_ips;   /* innermost first */
};
size_t profile_nr_stacks(const struct profile *p);
void profile_get_stack(const struct profile *p, size_t i, struct profile_stack *out);

#endif

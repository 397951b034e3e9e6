/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The aggregated profile: samples merged by (pid, kernel stack, user stack),
 * each distinct stack with its sample count and summed weight. Outputs and
 * `skyprof top` read it; the symbolizer is consulted when writing, and told
 * about every pid on first sight so that processes that exit during the run
 * still symbolize.
 */
#ifndef SKYPROF_PROFILE_PROFILE_H
#define SKYPROF_PROFILE_PROFILE_H

#include <stdbool.h>
#include <stdint.h>
#include <stddef.h>

#include "capture/sample.h"

struct symbolizer;
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

struct profile *profile_new(const struct profile_meta *meta, struct symbolizer *sym);
void profile_free(struct profile *p);
/*
 * Copies what it keeps; returns 0 or -errno (-ENOMEM). With a symbolizer,
 * the profile follows each process (proc/follow.h): it keys stacks by the
 * exec generation, so code before and after an exec never merges or
 * symbolizes in the other image, and a new stack with an address in no
 * captured mapping has the maps re-read while the process still lives.
 */
int profile_add(struct profile *p, const struct sp_sample *s);
/*
 * The same with the user stack first unwound by uw (DWARF) instead of the
 * profile's own unwinder, and the exec generation given by the caller
 * instead of tracked here: for a caller that keeps one unwinder (and its
 * CFI cache) and its own exec tracking across many short-lived profiles
 * without a symbolizer. uw NULL: the stack as recorded.
 */
struct unwind_dwarf;
int profile_add_unwound(struct profile *p, struct unwind_dwarf *uw, const struct sp_sample *s,
			uint16_t gen);
/* What following the processes cost and found (proc/follow.h); NULL for a
 * profile without a symbolizer. */
struct follow_stats;
const struct follow_stats *profile_follow_stats(const struct profile *p);
/* Add every stack of src, with its count and weight, to dst. 0 or -errno. */
int profile_merge(struct profile *dst, const struct profile *src);
uint64_t profile_total_samples(const struct profile *p);
/* Quality of the DWARF unwinding of samples with user regs; NULL: none. */
struct unwind_dwarf_stats;
const struct unwind_dwarf_stats *profile_unwind_stats(const struct profile *p);

/*
 * Top functions by self count (the leaf frame), with inclusive totals: a
 * function counts once per stack however often it recurses. Counts are
 * samples on-CPU and blocked ns off-CPU; inline frames count as functions.
 * Symbolizes what it has not seen yet, so `top` may call it every refresh.
 * Returns how many entries were filled.
 */
struct func_share {
	char name[256];
	uint64_t self;
	uint64_t total;
	uint8_t kernel; /* a kernel function */
};
size_t profile_top_functions(struct profile *p, struct func_share *out, size_t n);

/* What profile_top_functions' counts add up to (100 %). */
uint64_t profile_total_value(struct profile *p);

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
	uint16_t gen; /* tgid's exec generation (symbolize.h) */
	uint16_t nr_kernel, nr_user;
	uint64_t count, weight;
	const char *comm;
	const uint64_t *kernel_ips; /* innermost first */
	const uint64_t *user_ips;   /* innermost first */
};
size_t profile_nr_stacks(const struct profile *p);
void profile_get_stack(const struct profile *p, size_t i, struct profile_stack *out);

/*
 * The symbolized view every output writes from (see view.h), brought up to
 * date with the samples added so far. NULL on -ENOMEM.
 */
struct view;
struct view *profile_view(struct profile *p);
/* The view just built is final for now (written, uploaded): frees what
 * symbolizing it held (symbolizer_trim). The next profile_view reopens
 * what it needs. */
void profile_view_done(struct profile *p);

/* A profile that only holds a view, e.g. one read back from a pprof file.
 * Takes ownership of v (freed by profile_free); profile_add then fails. */
struct profile *profile_from_view(struct view *v);

#endif

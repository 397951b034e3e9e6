/* SPDX-License-Identifier: GPL-2.0 */
/*
 * DWARF (CFI) unwinding of user stacks from a sample's registers and its copy
 * of the top of the user stack, the way perf --call-graph=dwarf does it.
 *
 * elfutils libdwfl does the work: one Dwfl per process, its modules reported
 * from the process table's captured maps (proc/table.h, the symbolizer's) at
 * their load addresses, attached with
 * callbacks that hand over the sample's registers and serve memory reads
 * from the stack copy. libdwfl keeps each module's parsed .eh_frame /
 * .debug_frame (the CFI cache) for the lifetime of that Dwfl, so a binary's
 * CFI is parsed once per process. In front of it, a fast path: the rules of
 * each pc (CFA, return address, rbp) looked up once through libdw and kept,
 * so that a warm unwind is a few loads per frame (35 times libdwfl's
 * throughput on the host); a frame whose CFI is more than those simple
 * rules sends the sample to libdwfl.
 *
 * Mixed mode: the result starts with the DWARF frames; when the frame-pointer
 * chain the module recorded goes further (the copy was too small for a deep
 * stack, code without CFI), the FP frames past the last DWARF frame are
 * appended; when DWARF yields fewer frames than the FP chain and the two
 * cannot be joined, the FP chain is kept.
 */
#ifndef SKYPROF_UNWIND_UNWIND_H
#define SKYPROF_UNWIND_UNWIND_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "capture/sample.h"

struct symbolizer;
struct unwind_dwarf;

#define UNWIND_DWARF_MAX_FRAMES 256

/* Unwind quality over the samples that carried registers. */
struct unwind_dwarf_stats {
	uint64_t samples;      /* samples with SF_REGS seen */
	uint64_t dwarf_used;   /* result starts with DWARF frames */
	uint64_t fp_kept;      /* FP chain longer and not joinable: kept */
	uint64_t joined;       /* DWARF then the FP chain's tail */
	uint64_t user_frames;  /* sum of result frames */
	uint64_t fp_frames;    /* sum of the module's FP frames */
	uint64_t reached_root; /* outermost frame is _start, clone, ... */
	uint64_t fast;	       /* unwound by the cached-rule fast path */
};

struct unwind_dwarf *unwind_dwarf_new(struct symbolizer *sym);
void unwind_dwarf_free(struct unwind_dwarf *u);

/*
 * The user stack of s, innermost first, into ips[max]; returns how many.
 * Falls back to s's own user_ips when it has no registers or nothing
 * better comes out. Never fails and never reads outside s's buffers.
 */
size_t unwind_dwarf_sample(struct unwind_dwarf *u, const struct sp_sample *s, uint64_t *ips,
			   size_t max);

/* Only the DWARF part (no FP mixing): for tests and benchmarks. */
size_t unwind_dwarf_only(struct unwind_dwarf *u, const struct sp_sample *s, uint64_t *ips,
			 size_t max);

/* Tests and benchmarks: true makes every sample go through libdwfl's own
 * unwinder instead of the cached-rule fast path first. */
void unwind_dwarf_set_slow_only(struct unwind_dwarf *u, bool slow_only);

const struct unwind_dwarf_stats *unwind_dwarf_get_stats(const struct unwind_dwarf *u);

#endif

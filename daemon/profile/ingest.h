/* SPDX-License-Identifier: GPL-2.0 */
/*
 * One sample's way from the ring into a profile, the same for `record`,
 * `top` and every agent task: its process followed (the exec generation,
 * and the maps captured while it lives: proc/follow.h), its user stack
 * unwound by DWARF when it carries registers and a stack copy
 * (unwind/unwind.h), then aggregated (profile/profile.h). A stack new to the
 * profile has its user addresses checked against the captured maps, which
 * are re-read on a miss while the process still lives.
 *
 * The profile is an argument, not a member: the agent hands each flush
 * interval's samples to a new profile while the process following and the
 * unwinder's caches go on.
 */
#ifndef SKYPROF_PROFILE_INGEST_H
#define SKYPROF_PROFILE_INGEST_H

#include <stdbool.h>
#include <stdint.h>

#include "capture/sample.h"

struct follow_stats;
struct ingest;
struct profile;
struct symbolizer;
struct unwind_dwarf_stats;

/*
 * maps: the symbolizer whose process table (symbolizer_procs, proc/table.h)
 * captures each process's generations and maps as it is followed (record,
 * top); NULL: generations by the image's identity alone, for a
 * caller whose symbolizer works elsewhere (the agent's flush worker).
 * unwind: the symbolizer the DWARF unwinder reads maps from, made on the
 * first sample with registers; NULL: maps' (and no DWARF without either).
 * NULL on -ENOMEM.
 */
struct ingest *ingest_new(struct symbolizer *maps, struct symbolizer *unwind);
void ingest_free(struct ingest *in);

/* Follow pid from now, before its first sample (its current image is
 * generation 0). 0 or -ENOMEM. */
int ingest_note(struct ingest *in, uint32_t pid);

/* Only pid's samples are followed (an agent task's process); the others
 * count as generation 0. 0: all. */
void ingest_only(struct ingest *in, uint32_t pid);

/*
 * JVMs are asked for their JIT names (proc/jvm_ask.h) while samples come
 * in: with any, the process of every new stack is added to ask (a command
 * and what it starts); and a new stack whose leaf is JIT code that no
 * answer named (needs maps) has its JVM asked again soon. NULL: none.
 */
struct jvm_ask;
void ingest_ask_jvms(struct ingest *in, struct jvm_ask *ask, bool any);

/*
 * Adds s to p. Returns s's exec generation (>= 0), or -errno (-ENOMEM, or
 * profile_add's -EINVAL for a malformed sample).
 */
int ingest_sample(struct ingest *in, struct profile *p, const struct sp_sample *s);

/*
 * A report of an address space, before the samples that waited for it
 * (capture/hold.h): its mappings go to the process table that follows the
 * processes (maps) and to the unwinder's when that is another, in the
 * address space's generation. Returns that generation (>= 0) or -ENOMEM.
 */
int ingest_report(struct ingest *in, const struct sp_report *r);

/*
 * A capture's sample callback (capture_poll's) that ingests into one
 * profile: counts what came in, the blocked time of off-CPU samples, and
 * keeps the first error, which ends the capture.
 */
struct ingest_sink {
	struct ingest *in;
	struct profile *prof;
	uint64_t samples;
	uint64_t blocked_ns;
	int error;
};
int ingest_sink_sample(void *sink, const struct sp_sample *s);
int ingest_sink_report(void *sink, const struct sp_report *r);

/* The capture's sink (capture/sample.h) that ingests into k. */
static inline struct sp_sink ingest_sink_of(struct ingest_sink *k)
{
	return (struct sp_sink){ .sample = ingest_sink_sample,
				 .report = ingest_sink_report,
				 .arg = k };
}

/* What following the processes cost and found; NULL without maps. */
const struct follow_stats *ingest_follow_stats(const struct ingest *in);
/* The DWARF unwinder's quality; NULL when no sample needed it. */
const struct unwind_dwarf_stats *ingest_unwind_stats(const struct ingest *in);

#endif

/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Following processes while samples come in, in time order: each tgid's
 * exec generation (an exec, or a reused pid, starts a new image with maps
 * of its own) and its address space (a library dlopen'ed or code mapped
 * after the process table first read the maps).
 *
 * Symbolization runs after the capture, when a process run by `record --`
 * or a restarted service may be gone and its maps with it, so whatever the
 * samples need must be captured while the process lives: here, as they
 * arrive. A sample's user addresses are checked against the captured maps
 * only when its stack is new to the caller (a stack seen before was checked
 * then), so the steady state costs nothing; a miss re-reads the maps, at
 * most once per backoff interval per process (see follow.c).
 */
#ifndef SKYPROF_PROC_FOLLOW_H
#define SKYPROF_PROC_FOLLOW_H

#include <stdint.h>

#include "capture/sample.h"

struct proc_table;
struct follow;

struct follow_stats {
	uint64_t misses;  /* new stacks with a user address in no captured mapping */
	uint64_t rereads; /* re-reads of a process's maps they caused */
	uint64_t found;	  /* mappings those re-reads added */
};

/*
 * procs: where the generations and their maps are captured (proc/table.h).
 * Without one (NULL) only the generations are followed, by each image's
 * identity (proc/ident.h), for a caller whose process table works elsewhere
 * (the agent's flush worker's symbolizer) and numbers generations the same
 * way (a new one each time the image changes). NULL on -ENOMEM.
 */
struct follow *follow_new(struct proc_table *procs);
void follow_free(struct follow *f);

/* Notes pid now, before its first sample: its current image is generation
 * 0 (an exec before the first sample is then a new one). 0 or -ENOMEM. */
int follow_note(struct follow *f, uint32_t pid);

/*
 * The exec generation of s's process, for aggregation. A sample that names
 * its address space (as_id) has that address space's generation, the
 * table's (proc/aspace.h; one made by the sample itself, whose report never
 * came, has its maps read from /proc once, if /proc still shows that
 * process). For the others the table is asked (proc_table_exec_check) on
 * first sight, which also captures the maps while the process still lives;
 * then when the leader's comm changes, as an exec renames the process, and
 * at most once a second of sample time otherwise, for an exec that keeps
 * the name. A re-read that a miss had to
 * put off runs here once its interval has passed. Returns the generation
 * (0 for a sample without a process), or -ENOMEM. Every sample comes here:
 * the generation is the return value, not stored through a pointer, so the
 * caller's frame needs no stack guard.
 */
int follow_sample(struct follow *f, const struct sp_sample *s);

/*
 * A report of an address space (capture/hold.h hands it on before the
 * samples that waited for it): with a table, its mappings go into the
 * address space's generation (proc/aspace.h), made now if new. Returns the
 * generation (0 for a report without a process), or -ENOMEM. The samples
 * of that address space get the same generation from follow_sample (the
 * table's, or without one numbered here the same way for the caller's).
 */
int follow_report(struct follow *f, const struct sp_report *r);

/*
 * s (of generation gen, unwound: user_ips as aggregated) is a stack the
 * caller has not seen before: any user address in no captured mapping of
 * its process makes the maps be re-read, now or when the interval allows.
 * Nothing without a process table.
 */
void follow_new_stack(struct follow *f, const struct sp_sample *s, uint16_t gen);

const struct follow_stats *follow_get_stats(const struct follow *f);

#endif

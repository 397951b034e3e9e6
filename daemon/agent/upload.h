/* SPDX-License-Identifier: GPL-2.0 */
/*
 * From a task's symbolized profile to EBPFProfilingData messages, the way
 * the OAP wants them (protocol notes, section 4):
 *  - stacks merged by their symbolized frames (the OAP counts identical
 *    stacks in one upload once, so they must be summed here), not by
 *    address or thread;
 *  - one kernel and one user stack per message, symbols leaf first,
 *    unresolved frames as "[MISSING]";
 *  - counts as deltas against what was already handed to the queue;
 *  - the task metadata on the first message of the batch.
 */
#ifndef SKYPROF_AGENT_UPLOAD_H
#define SKYPROF_AGENT_UPLOAD_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

struct view;
struct upload_batch;

#define UPLOAD_PATH_PROFILING "/skywalking.v3.EBPFProfilingService/collectProfilingData"

struct upload_task_meta {
	const char *task_id;
	const char *process_id;
	uint64_t profiling_start_ms; /* constant for the task */
	uint64_t current_ms;	     /* this flush */
	bool offcpu;
};

/* What was already sent, per symbolized stack. */
struct delta_table;

struct delta_table *upload_deltas_new(void);
void upload_deltas_free(struct delta_table *t);

struct upload_totals {
	uint64_t messages;
	uint64_t count;	 /* dumpCount, or switchCount, summed */
	uint64_t weight; /* off-CPU duration ns summed */
};

/*
 * Append to b one message per symbolized stack whose count grew since the
 * last call, with what it gained, and remember the new totals. pid: only
 * that process's samples (0: all). Returns 0 or -ENOMEM (then nothing counts
 * as sent: the next call sends it); *tot says what was added.
 */
int upload_collect(struct delta_table *t, const struct view *v, uint32_t pid,
		   const struct upload_task_meta *m, struct upload_batch *b,
		   struct upload_totals *tot);

/* A symbol as the OAP should see it (rover's rules); points into name or a literal. */
const char *upload_symbol_name(const char *name);

#endif

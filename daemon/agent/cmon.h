/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The continuous-profiling monitor on the main thread: every fetch interval
 * (1 s) it reads each discovered process's CPU time and thread count and the
 * system load from /proc into one-second windows; every check interval (5 s)
 * it evaluates the policies of the process's service, pushes the values as
 * rover_con_p_* meters (OAP mode), and fires: with an OAP a trigger for
 * reportProfilingTask (the task comes back through the inbox with the OAP's
 * id), without one a local task written to the spool directory.
 */
#ifndef SKYPROF_AGENT_CMON_H
#define SKYPROF_AGENT_CMON_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "agent/task.h"

struct agent_config;
struct agent_procs;
struct continuous_policies;
struct upload_queue;
struct cmon;

#define CMON_PATH_METERS "/skywalking.v3.MeterReportService/collectBatch"

/* queue NULL: no OAP (no meters; fired policies become local tasks). */
struct cmon *cmon_new(const struct agent_config *cfg, struct continuous_policies *pol,
		      struct agent_procs *procs, struct upload_queue *queue, const char *proc_root);
void cmon_free(struct cmon *m);

/*
 * Is a task already held for this process and target? (not re-triggered
 * while it runs). Called with the process table locked: it must not lock it.
 */
typedef bool (*cmon_busy_fn)(void *arg, uint32_t pid, const char *process_id, int target);

/*
 * Call often (every loop). Local mode: fired policies are written to out
 * (up to max) and their number returned; OAP mode returns 0.
 */
size_t cmon_tick(struct cmon *m, uint64_t mono_ms, cmon_busy_fn busy, void *arg,
		 struct task_spec *out, size_t max);

#endif

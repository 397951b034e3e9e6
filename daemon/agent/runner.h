/* SPDX-License-Identifier: GPL-2.0 */
/*
 * One running profiling task: a module session on one process (on-CPU or
 * off-CPU), its rings drained into a profile, and every flush interval the
 * new stacks handed to the upload queue as one collectProfilingData batch.
 * Fixed-time tasks from the OAP, continuous ones (issue 8) and the embedded
 * schedule all run through here; they differ only in their task_spec.
 *
 * Runs on the main thread, which drains the rings; nothing here waits on the
 * network or on symbolization: each flush hands the samples gathered since
 * the previous one to the flush worker (agent/flush.h), which owns the
 * task's cumulative profile and symbolizer.
 */
#ifndef SKYPROF_AGENT_RUNNER_H
#define SKYPROF_AGENT_RUNNER_H

#include <poll.h>
#include <stdbool.h>
#include <stdint.h>

#include "agent/task.h"
#include "agent/upload.h"

struct agent_config;
struct upload_queue;
struct flush_worker;
struct agent_run;

/* The drain side's numbers (the worker keeps the upload counts). */
struct run_stats {
	uint64_t samples_read;	 /* from the ring */
	uint64_t module_samples; /* the module's count for the session (at the end) */
	uint64_t module_drops;
	uint64_t dropped_flushes, dropped_samples; /* refused by a full flush worker */
	uint64_t max_pause_ms;			   /* the longest time between two drains */
	uint64_t max_handoff_ms;		   /* the longest flush on the drain thread */
};

/*
 * Start spec on pid. queue may be NULL (embedded mode: nothing is uploaded).
 * Flushes (symbolizing, encoding, spool files) run on worker; NULL: here.
 * 0, or -errno with the reason in err.
 */
int runner_start(struct agent_run **out, const struct task_spec *spec, uint32_t pid,
		 const struct agent_config *cfg, struct upload_queue *queue,
		 struct flush_worker *worker, char *err, size_t errlen);

/* The fds to poll (ring, events): fills up to 2, returns how many. */
int runner_pollfds(struct agent_run *r, struct pollfd *p);

/*
 * Drain the rings; flush when the interval is due. Returns 1 when the run
 * should end (duration over, the process exited, or the module ended the
 * session), 0 to go on, -errno on failure (then end it too).
 */
int runner_step(struct agent_run *r, uint64_t now_ms);

/*
 * Whether the run ended because its process exited (run_step returned 1
 * for that reason): the task may follow the process when it comes back.
 */
bool runner_process_exited(const struct agent_run *r);

/* Move the end (a re-sent task). */
void runner_extend(struct agent_run *r, uint64_t end_ms);

/*
 * Stop: last drain and module statistics here; the final flush, one summary
 * line and with spool_dir the profile written there (pprof + SVG) on the
 * worker, which then frees the task's profile.
 */
void runner_finish(struct agent_run *r, const char *spool_dir);
void runner_free(struct agent_run *r);

const struct task_spec *runner_spec(const struct agent_run *r);
uint32_t runner_pid(const struct agent_run *r);

#endif

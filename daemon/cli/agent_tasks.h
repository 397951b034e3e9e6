/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The tasks the agent holds (at most MAX_RUNS), waiting for their start or
 * running: rover's rules for a task that arrives, the start of the ones
 * whose time has come, a process followed through its restart, and the
 * two local sources of tasks (the embedded schedule, continuous triggers).
 */
#ifndef SKYPROF_CLI_AGENT_TASKS_H
#define SKYPROF_CLI_AGENT_TASKS_H

#include <stddef.h>
#include <stdint.h>

struct agent;
struct task_spec;

/* Rover's rules: expired tasks are dropped, a re-sent one extends, another
 * on the same key replaces the held one. */
void agent_tasks_accept(struct agent *a, const struct task_spec *t);
/* Start the waiting tasks whose time has come. */
void agent_tasks_start_due(struct agent *a);
/* Ends held task i (its last flush) and forgets it. */
void agent_tasks_stop(struct agent *a, size_t i);
/* Held task i's process exited before the task's end: the run ends, the
 * task waits for the process to come back. */
void agent_tasks_await_restart(struct agent *a, size_t i);
/* Embedded mode: every schedule interval, one task per discovered process. */
void agent_tasks_schedule_local(struct agent *a);
/* The continuous-profiling policies' checks at now, and the tasks they fire. */
void agent_tasks_continuous_tick(struct agent *a, uint64_t now);

#endif

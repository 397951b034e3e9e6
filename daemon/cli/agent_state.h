/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The running agent's state: owned by its main loop (agent_loop.c), worked
 * on by the rules of the tasks it holds (agent_tasks.c). The main thread's,
 * but for the parts with a lock of their own (the process table, the
 * queues, the inbox, the scanner's fields under scan_lock).
 */
#ifndef SKYPROF_CLI_AGENT_STATE_H
#define SKYPROF_CLI_AGENT_STATE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <pthread.h>

#include "agent/cmon.h"
#include "agent/config.h"
#include "agent/continuous.h"
#include "agent/flush.h"
#include "agent/oap/oap.h"
#include "agent/procs.h"
#include "agent/queue.h"
#include "agent/runner.h"
#include "agent/task.h"
#include "agent/template.h"

#define MAX_RUNS 8

/* A task held by the agent: waiting for its start, or running. */
struct held {
	struct task_spec spec;
	struct agent_run *run; /* NULL while waiting */
	/* The pid the task profiled until it exited before the task's end:
	 * the task waits for its process (the same entity, so the same
	 * process id) to come back under another pid, as a restarted JVM or
	 * service does, and goes on there. 0: not waiting for a restart. */
	uint32_t exited_pid;
};

struct agent {
	struct agent_config cfg;
	struct agent_procs procs;
	struct upload_queue queue;
	struct flush_worker worker;
	struct agent_inbox inbox;
	struct agent_oap oap;
	struct continuous_policies policies; /* continuous profiling */
	struct cmon *cmon;
	bool oap_mode;
	struct template_host host;
	char hostname[256];
	char agent_id[37];
	struct held held[MAX_RUNS];
	size_t nr_held;
	uint64_t next_schedule_ms; /* embedded mode */
	uint64_t tasks_started, tasks_failed;
	/* The main loop's longest phases (ms): what can delay a ring drain. */
	uint64_t max_tasks_ms, max_cont_ms, max_steps_ms;
	/* The scanner thread; without it (no thread) the main loop scans. */
	pthread_t scanner;
	pthread_mutex_t scan_lock;
	pthread_cond_t scan_cond; /* stop */
	bool scan_stop, scanner_running, scanner_used;
	uint64_t max_scan_ms; /* under scan_lock */
};

#endif

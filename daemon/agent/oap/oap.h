/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The agent's side of the OAP, on its own thread: registers the discovered
 * processes (reportProcesses), keeps them alive (keepAlive), polls for
 * tasks (queryTasks) and hands them to the main thread through the inbox,
 * and sends the upload queue's batches (collectProfilingData). Every
 * failure backs off exponentially with jitter and logs one line per step;
 * the main thread never waits for any of it.
 */
#ifndef SKYPROF_AGENT_OAP_OAP_H
#define SKYPROF_AGENT_OAP_OAP_H

#include <pthread.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stdint.h>

#include "agent/task.h"

struct agent_config;
struct agent_procs;
struct upload_queue;
struct grpc_conn;
struct tmpl_host;
struct cont_policies;

/* Tasks from the OAP for the main thread; efd is readable when non-empty. */
struct agent_inbox {
	pthread_mutex_t lock;
	struct task_spec *v;
	size_t n, cap;
	int efd;
};

int inbox_init(struct agent_inbox *in);
void inbox_destroy(struct agent_inbox *in);
int inbox_push(struct agent_inbox *in, const struct task_spec *t);
/* Take everything: *out malloc'ed (free it), returns the count. */
size_t inbox_take(struct agent_inbox *in, struct task_spec **out);

struct oap_stats {
	_Atomic uint64_t calls_ok, calls_failed, reconnects;
	_Atomic uint64_t tasks_received, commands_rejected;
	_Atomic uint64_t policies_applied, triggers_reported, triggers_failed;
};

struct agent_oap {
	const struct agent_config *cfg;
	struct agent_procs *procs;
	struct upload_queue *queue;
	struct agent_inbox *inbox;
	const struct tmpl_host *host;
	struct cont_policies *policies; /* continuous profiling; NULL: off */
	char agent_id[40];
	struct grpc_conn *conn;
	pthread_t thread;
	atomic_bool stop;
	bool running;

	/* OAP thread only */
	uint64_t latest_update_ms;
	uint64_t heartbeats;
	uint64_t next_heartbeat, next_query; /* monotonic ms */
	uint64_t next_try, backoff_ms;
	unsigned int failures;
	bool full_report;
	bool any_reported;
	uint32_t drain_ms;
	struct oap_stats st;
};

/* Connects lazily; starts the thread. 0 or -errno with err. */
int oap_start(struct agent_oap *o, const struct agent_config *cfg, struct agent_procs *procs,
	      struct upload_queue *queue, struct agent_inbox *inbox, const struct tmpl_host *host,
	      struct cont_policies *policies, const char *agent_id, char *err, size_t errlen);
/* Stop the thread, giving pending uploads up to drain_ms. */
void oap_stop(struct agent_oap *o, uint32_t drain_ms);

/* Exposed for tests: the next backoff (ms) after `failures` failures, with jitter r in [0,1). */
uint64_t oap_backoff_ms(unsigned int failures, uint64_t max_ms, double r);

struct grpc_result;
/*
 * After a failed upload call (grpc_call's rc and result): true when none of
 * its messages can have been stored by the OAP, so the whole batch may go
 * again: nothing was written, or the OAP refused the call before reading
 * (its interceptors' codes). A code of our own (res->local: a deadline, an
 * answer we refused) says nothing about what the OAP read.
 */
bool oap_nothing_stored(int rc, const struct grpc_result *res);

#endif

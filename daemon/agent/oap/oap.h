/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The agent's side of the OAP, on its own thread: registers the discovered
 * processes (reportProcesses), keeps them alive (keepAlive), polls for
 * tasks (queryTasks) and hands them to the main thread through the inbox,
 * and sends the upload queue's batches (collectProfilingData). Every
 * failure backs off exponentially with jitter and logs one line per step;
 * the main thread never waits for any of it.
 *
 * This file is the thread and its loop; each OAP service has its own file
 * in this folder (ebpf_process, ebpf_profiling, continuous_profiling,
 * collect), on the call helpers of rpc.c.
 */
#ifndef SKYPROF_AGENT_OAP_OAP_H
#define SKYPROF_AGENT_OAP_OAP_H

#include <stddef.h>
#include <stdint.h>

#include "agent/oap/inbox.h"
#include "agent/oap/state.h"

struct agent_config;
struct agent_procs;
struct upload_queue;
struct grpc_conn;
struct template_host;
struct continuous_policies;

/* Connects lazily; starts the thread. 0 or -errno with err. */
int oap_start(struct agent_oap *o, const struct agent_config *cfg, struct agent_procs *procs,
	      struct upload_queue *queue, struct agent_inbox *inbox,
	      const struct template_host *host, struct continuous_policies *policies,
	      const char *agent_id, char *err, size_t errlen);
/* Stop the thread, giving pending uploads up to drain_ms. */
void oap_stop(struct agent_oap *o, uint32_t drain_ms);

#endif

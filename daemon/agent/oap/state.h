/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The agent's side of its OAP connection: what the OAP thread (oap.c) and
 * the services it calls (one file each) share. Written by the OAP thread
 * only, but for stop and the counters, which others read.
 */
#ifndef SKYPROF_AGENT_OAP_STATE_H
#define SKYPROF_AGENT_OAP_STATE_H

#include <pthread.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stdint.h>

struct agent_config;
struct agent_inbox;
struct agent_procs;
struct continuous_policies;
struct grpc_conn;
struct template_host;
struct upload_queue;

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
	const struct template_host *host;
	struct continuous_policies *policies; /* continuous profiling; NULL: off */
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

#endif

// SPDX-License-Identifier: GPL-2.0
/* The OAP thread and its loop; see oap.h. */
#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "agent/config.h"
#include "agent/log.h"
#include "agent/oap/collect.h"
#include "agent/oap/continuous_profiling.h"
#include "agent/oap/ebpf_process.h"
#include "agent/oap/ebpf_profiling.h"
#include "agent/oap/oap.h"
#include "agent/oap/rpc.h"
#include "agent/procs.h"
#include "agent/queue.h"
#include "grpc/conn.h"
#include "lib/clock.h"

static bool has_new(struct agent_procs *t)
{
	bool any = false;

	pthread_mutex_lock(&t->lock);
	for (size_t i = 0; i < t->n && !any; i++)
		any = t->v[i].state == PROC_NEW;
	pthread_mutex_unlock(&t->lock);
	return any;
}

/* The last call failed: the loop starts over, and waits out the backoff. */
static bool backing_off(const struct agent_oap *o)
{
	return clock_mono_ms() < o->next_try;
}

/*
 * Registration first: tasks and uploads need process ids. Rover waits a
 * whole heartbeat before its first report; new processes go out at once.
 * True when a call failed.
 */
static bool step_register(struct agent_oap *o, uint64_t now)
{
	const struct agent_config *c = o->cfg;
	bool beat = now >= o->next_heartbeat;

	if (!beat && !has_new(o->procs) && !o->full_report)
		return false;
	if (beat) {
		o->heartbeats++;
		o->next_heartbeat = now + c->heartbeat_period_ms;
	}
	ebpf_process_report(o, o->full_report ||
				       (beat && o->heartbeats % c->properties_report_period == 0));
	if (now < o->next_try)
		return true;
	if (beat)
		ebpf_process_keep_alive(o);
	return now < o->next_try || backing_off(o);
}

/* Every check interval: new tasks, changed policies. True when a call failed. */
static bool step_query(struct agent_oap *o, uint64_t now)
{
	const struct agent_config *c = o->cfg;

	if (!c->profiling_active || now < o->next_query || !o->any_reported)
		return false;
	o->next_query = now + c->check_interval_ms;
	ebpf_profiling_query_tasks(o);
	if (backing_off(o))
		return true;
	if (o->policies)
		continuous_profiling_query_policies(o);
	return backing_off(o);
}

static void *oap_thread(void *arg)
{
	struct agent_oap *o = arg;
	uint64_t stop_deadline = 0;

	o->next_heartbeat = clock_mono_ms();
	o->next_query = clock_mono_ms() + 1000;
	for (;;) {
		uint64_t now = clock_mono_ms();
		struct upload_batch *b;

		if (atomic_load(&o->stop)) {
			if (!stop_deadline)
				stop_deadline = now + o->drain_ms;
			if (now >= stop_deadline)
				break;
		}
		if (now < o->next_try) {
			/* backing off: wait, but wake for the stop request */
			usleep(100000);
			continue;
		}
		if (!atomic_load(&o->stop) && step_register(o, now))
			continue;
		if (!atomic_load(&o->stop) && step_query(o, now))
			continue;
		/* Fired policies go out before uploads: the task waits for the id. */
		if (!atomic_load(&o->stop) && o->policies && o->any_reported) {
			continuous_profiling_report_triggers(o);
			if (backing_off(o))
				continue;
		}
		b = queue_pop(o->queue, atomic_load(&o->stop) ? 0 : 200);
		if (b) {
			collect_send_batch(o, b);
			continue;
		}
		if (atomic_load(&o->stop))
			break; /* nothing left to send */
		if (grpc_conn_keepalive(o->conn, 5000))
			log_info("OAP %s: the connection did not answer a keepalive PING; "
				 "reconnecting on the next call",
				 o->cfg->backend.addr);
	}
	return NULL;
}

int oap_start(struct agent_oap *o, const struct agent_config *cfg, struct agent_procs *procs,
	      struct upload_queue *queue, struct agent_inbox *inbox,
	      const struct template_host *host, struct continuous_policies *policies,
	      const char *agent_id, char *err, size_t errlen)
{
	struct grpc_opts go = {
		.addr = cfg->backend.addr,
		.tls = cfg->backend.enable_tls,
		.ca_file = cfg->backend.ca_pem_path,
		.cert_file = cfg->backend.client_pem_path,
		.key_file = cfg->backend.client_key_path,
		.insecure_skip_verify = cfg->backend.insecure_skip_verify,
		.authentication = cfg->backend.authentication,
		.connect_timeout_ms = (uint32_t)cfg->skyprof.connect_timeout_ms,
		.keepalive_ms = (uint32_t)cfg->backend.check_period_ms,
	};
	int r;

	memset(o, 0, sizeof(*o));
	o->cfg = cfg;
	o->procs = procs;
	o->queue = queue;
	o->inbox = inbox;
	o->host = host;
	o->policies = policies;
	snprintf(o->agent_id, sizeof(o->agent_id), "%s", agent_id);
	/* rover's shipped config names client files that usually do not exist:
	 * a missing one means "no client certificate", as in rover. */
	if (go.tls && ((go.cert_file && access(go.cert_file, R_OK)) ||
		       (go.key_file && access(go.key_file, R_OK)))) {
		if (go.cert_file || go.key_file)
			log_info("OAP: client certificate %s / key %s not readable: connecting "
				 "without one",
				 go.cert_file ? go.cert_file : "-",
				 go.key_file ? go.key_file : "-");
		go.cert_file = go.key_file = NULL;
	}
	if (go.tls && go.ca_file && !go.insecure_skip_verify && access(go.ca_file, R_OK)) {
		log_warn("OAP: CA file %s not readable: verifying against the system's trust store",
			 go.ca_file);
		go.ca_file = NULL;
	}
	o->conn = grpc_conn_new(&go, err, errlen);
	if (!o->conn)
		return -EINVAL;
	r = pthread_create(&o->thread, NULL, oap_thread, o);
	if (r) {
		snprintf(err, errlen, "cannot start the OAP thread: %s", strerror(r));
		grpc_conn_free(o->conn);
		o->conn = NULL;
		return -r;
	}
	o->running = true;
	return 0;
}

void oap_stop(struct agent_oap *o, uint32_t drain_ms)
{
	if (!o->running)
		return;
	o->drain_ms = drain_ms;
	atomic_store(&o->stop, true);
	queue_close(o->queue);
	pthread_join(o->thread, NULL);
	o->running = false;
	grpc_conn_free(o->conn);
	o->conn = NULL;
}

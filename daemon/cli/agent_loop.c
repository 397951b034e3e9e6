// SPDX-License-Identifier: GPL-2.0
/*
 * skyprof agent, running: the SkyWalking side of skyprof, rover-compatible.
 *
 * Threads: this one runs tasks and drains their rings; the scanner thread
 * discovers processes (reading /proc takes a while under load); the flush
 * worker (agent/flush.c) symbolizes and encodes each flush; the OAP thread
 * (agent/oap/) does every network call. They meet in four places, each
 * with its own lock: the process table, the task inbox, the flush queue and
 * the upload queue. Without core.backend.addr there is no OAP thread: tasks come
 * from the skyprof.schedule section and profiles go to the spool directory.
 */
#include <errno.h>
#include <inttypes.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <pthread.h>
#include <time.h>
#include <unistd.h>

#include "agent/cmon.h"
#include "agent/continuous.h"
#include "agent/flush.h"
#include "agent/log.h"
#include "agent/oap/oap.h"
#include "agent/procs.h"
#include "agent/queue.h"
#include "agent/runner.h"
#include "agent/task.h"
#include "agent/template.h"
#include "agent/config.h"
#include "cli/agent_loop.h"
#include "cli/agent_state.h"
#include "cli/agent_tasks.h"
#include "lib/random_bytes.h"
#include "lib/clock.h"

#define STOP_DRAIN_MS 5000
/* Flushes that may wait for the flush worker: two per task that can run. */
#define FLUSH_QUEUE_JOBS (2 * MAX_RUNS)

static volatile sig_atomic_t stopping;

static void on_signal(int sig)
{
	(void)sig;
	stopping = 1;
}

static void install_signals(void)
{
	struct sigaction sa = { .sa_handler = on_signal };

	sigemptyset(&sa.sa_mask);
	sigaction(SIGINT, &sa, NULL);
	sigaction(SIGTERM, &sa, NULL);
	signal(SIGPIPE, SIG_IGN);
}

/* A random UUIDv4, as rover's agent id: unique per run. */
static void make_uuid(char out[37])
{
	uint8_t b[16];

	if (!random_bytes(b, sizeof(b))) {
		uint64_t t = clock_mono_ms() ^ ((uint64_t)getpid() << 32);

		for (int i = 0; i < 16; i++)
			b[i] = (uint8_t)(t >> (i % 8 * 8)) ^ (uint8_t)(i * 37);
	}
	b[6] = (b[6] & 0x0f) | 0x40;
	b[8] = (b[8] & 0x3f) | 0x80;
	snprintf(out, 37, "%02x%02x%02x%02x-%02x%02x-%02x%02x-%02x%02x-%02x%02x%02x%02x%02x%02x",
		 b[0], b[1], b[2], b[3], b[4], b[5], b[6], b[7], b[8], b[9], b[10], b[11], b[12],
		 b[13], b[14], b[15]);
}

static void report_stats(struct agent *a, const char *when)
{
	struct upload_stats st;
	struct flush_stats fs;
	size_t pb = 0, pbytes = 0, fpend;
	uint64_t scan;

	queue_get_stats(&a->queue, &st, &pb, &pbytes);
	flush_worker_get_stats(&a->worker, &fs, &fpend);
	log_info("agent %s: tasks started %" PRIu64 " failed %" PRIu64 "; uploads: %" PRIu64
		 " batches sent (%" PRIu64 " messages, count %" PRIu64 "), %" PRIu64
		 " dropped (%" PRIu64 " messages, count %" PRIu64 ", %" PRIu64 " bytes), %" PRIu64
		 " unconfirmed (%" PRIu64 " messages, count %" PRIu64
		 "), %zu pending (%zu bytes); OAP calls ok %" PRIu64 " failed %" PRIu64,
		 when, a->tasks_started, a->tasks_failed, st.sent_batches, st.sent_msgs,
		 st.sent_units, st.dropped_batches, st.dropped_msgs, st.dropped_units,
		 st.dropped_bytes, st.unconfirmed_batches, st.unconfirmed_msgs,
		 st.unconfirmed_units, pb, pbytes, (uint64_t)a->oap.st.calls_ok,
		 (uint64_t)a->oap.st.calls_failed);
	log_info("agent %s: flushes: %" PRIu64 " done, %" PRIu64 " dropped (%" PRIu64
		 " samples), %zu waiting; longest %" PRIu64 " ms, longest wait %" PRIu64 " ms",
		 when, fs.done_jobs, fs.dropped_jobs, fs.dropped_units, fpend, fs.max_job_ms,
		 fs.max_wait_ms);
	pthread_mutex_lock(&a->scan_lock);
	scan = a->max_scan_ms;
	pthread_mutex_unlock(&a->scan_lock);
	log_info("agent %s: main loop: longest task starts %" PRIu64
		 " ms, continuous checks %" PRIu64 " ms, ring drains %" PRIu64
		 " ms; longest discovery scan %" PRIu64 " ms%s",
		 when, a->max_tasks_ms, a->max_cont_ms, a->max_steps_ms, scan,
		 a->scanner_used ? " (its own thread)" : "");
}

static void note_max(uint64_t *max, uint64_t t0)
{
	uint64_t d = clock_mono_ms() - t0;

	if (d > *max)
		*max = d;
}

/* One discovery scan; returns when it started. */
static uint64_t scan_once(struct agent *a)
{
	uint64_t t0 = clock_mono_ms();
	int r = procs_scan(&a->procs, &a->cfg, &a->host);

	if (r < 0)
		log_warn("discovery: cannot read /proc: %s", strerror(-r));
	pthread_mutex_lock(&a->scan_lock);
	note_max(&a->max_scan_ms, t0);
	pthread_mutex_unlock(&a->scan_lock);
	return t0;
}

/* The scanner thread: a scan every scanner.period, until told to stop. */
static void *scanner(void *arg)
{
	struct agent *a = arg;

	pthread_mutex_lock(&a->scan_lock);
	while (!a->scan_stop) {
		uint64_t next;
		struct timespec ts;

		pthread_mutex_unlock(&a->scan_lock);
		next = scan_once(a) + a->cfg.scan_period_ms;
		ts.tv_sec = (time_t)(next / 1000);
		ts.tv_nsec = (long)(next % 1000) * 1000000L;
		pthread_mutex_lock(&a->scan_lock);
		while (!a->scan_stop && clock_mono_ms() < next)
			pthread_cond_timedwait(&a->scan_cond, &a->scan_lock, &ts);
	}
	pthread_mutex_unlock(&a->scan_lock);
	return NULL;
}

static void scanner_start(struct agent *a)
{
	pthread_condattr_t ca;
	int r;

	pthread_mutex_init(&a->scan_lock, NULL);
	pthread_condattr_init(&ca);
	pthread_condattr_setclock(&ca, CLOCK_MONOTONIC); /* clock_mono_ms's clock */
	pthread_cond_init(&a->scan_cond, &ca);
	pthread_condattr_destroy(&ca);
	r = pthread_create(&a->scanner, NULL, scanner, a);
	if (r)
		log_warn("cannot start the discovery thread (%s): the main loop scans",
			 strerror(r));
	a->scanner_running = a->scanner_used = !r;
}

static void scanner_stop(struct agent *a)
{
	if (!a->scanner_running)
		return;
	pthread_mutex_lock(&a->scan_lock);
	a->scan_stop = true;
	pthread_cond_signal(&a->scan_cond);
	pthread_mutex_unlock(&a->scan_lock);
	pthread_join(a->scanner, NULL);
	a->scanner_running = false;
}

static int loop(struct agent *a)
{
	uint64_t next_scan = 0, next_stats = clock_mono_ms() + 60000;

	while (!stopping) {
		struct pollfd pfd[1 + 2 * MAX_RUNS];
		struct task_spec *in = NULL;
		size_t nin;
		int np = 0;
		uint64_t now = clock_mono_ms(), t0;

		if (!a->scanner_running && now >= next_scan)
			next_scan = scan_once(a) + a->cfg.scan_period_ms;
		nin = inbox_take(&a->inbox, &in);
		for (size_t i = 0; i < nin; i++)
			agent_tasks_accept(a, &in[i]);
		free(in);
		agent_tasks_schedule_local(a);
		t0 = clock_mono_ms();
		agent_tasks_continuous_tick(a, now);
		note_max(&a->max_cont_ms, t0);
		t0 = clock_mono_ms();
		agent_tasks_start_due(a);
		note_max(&a->max_tasks_ms, t0);
		t0 = clock_mono_ms();

		for (size_t i = 0; i < a->nr_held;) {
			struct held *h = &a->held[i];
			int r;

			if (!h->run) {
				i++;
				continue;
			}
			r = runner_step(h->run, clock_wall_ms());
			if (r > 0 && runner_process_exited(h->run) &&
			    clock_wall_ms() < task_end_ms(&h->spec)) {
				agent_tasks_await_restart(a, i);
				i++;
				continue;
			}
			if (r) {
				if (r < 0)
					log_warn("task %s: %s", h->spec.task_id, strerror(-r));
				agent_tasks_stop(a, i);
				continue;
			}
			i++;
		}
		note_max(&a->max_steps_ms, t0);
		if (now >= next_stats) {
			report_stats(a, "status");
			next_stats = now + 60000;
		}

		/* Sleep until a ring has data, a task arrives, or 100 ms pass (flush
		 * timers, task ends and scans are checked at that resolution). */
		pfd[np++] = (struct pollfd){ .fd = a->inbox.efd, .events = POLLIN };
		for (size_t i = 0; i < a->nr_held; i++)
			if (a->held[i].run)
				np += runner_pollfds(a->held[i].run, &pfd[np]);
		if (poll(pfd, (nfds_t)np, 100) < 0 && errno != EINTR)
			log_warn("poll: %s", strerror(errno));
	}
	return 0;
}

/* The local policies (without an OAP), and the monitor that evaluates policies. */
static void continuous_setup(struct agent *a)
{
	const struct agent_config *c = &a->cfg;
	char err[1024];

	continuous_policies_init(&a->policies);
	if (!a->oap_mode && c->continuous.policies_error) {
		log_warn("skyprof.continuous.policies: %s", c->continuous.policies_error);
	} else if (!a->oap_mode && c->continuous.policies) {
		struct continuous_apply_stats cst;

		/* the local policies never change: checked once, like the rest */
		if (continuous_policies_apply_value(&a->policies, c->continuous.policies, "local",
						    &cst, err, sizeof(err)))
			log_warn("skyprof.continuous.policies: %s", err);
		else
			log_info("continuous: %u local service policies, %u checks (%u rejected)",
				 cst.services, cst.items, cst.rejected + cst.unsupported);
	} else if (a->oap_mode && (c->continuous.policies || c->continuous.policies_error)) {
		log_warn("skyprof.continuous.policies: ignored with an OAP (its policies rule)");
	}
	if (a->oap_mode || a->policies.n) {
		a->cmon = cmon_new(&a->cfg, &a->policies, &a->procs, a->oap_mode ? &a->queue : NULL,
				   NULL);
		if (!a->cmon)
			log_warn("continuous: out of memory: continuous profiling off");
	}
}

/* Everything the loop needs, the OAP thread started: -1 to go on, else the exit code. */
static int start(struct agent *a)
{
	char err[1024];
	int r;

	install_signals();
	make_uuid(a->agent_id);
	if (gethostname(a->hostname, sizeof(a->hostname) - 1))
		snprintf(a->hostname, sizeof(a->hostname), "localhost");
	a->host = (struct template_host){ .hostname = a->hostname,
					  .instance_id = a->agent_id,
					  .ip = template_host_ip };
	procs_init(&a->procs, NULL);
	queue_init(&a->queue, a->cfg.skyprof.queue_bytes);
	r = flush_worker_start(&a->worker, FLUSH_QUEUE_JOBS);
	if (r)
		log_warn("cannot start the flush worker (%s): flushes run on the drain thread",
			 strerror(-r));
	r = inbox_init(&a->inbox);
	if (r) {
		log_error("eventfd: %s", strerror(-r));
		return 1;
	}
	if (!a->cfg.nr_finders)
		log_warn("config: no process_discovery.scanner.regex finders: no process will be "
			 "registered");
	a->oap_mode = a->cfg.backend.addr != NULL;
	continuous_setup(a);
	if (!a->oap_mode) {
		log_info("agent %s started without an OAP: %s tasks every %.0f s into %s",
			 a->agent_id, task_target_name(a->cfg.skyprof.schedule_target),
			 (double)a->cfg.skyprof.schedule_interval_ms / 1000,
			 a->cfg.skyprof.spool_dir);
		/* the first round after one scan has found the processes */
		a->next_schedule_ms = clock_wall_ms() + a->cfg.scan_period_ms + 100;
		return -1;
	}
	r = oap_start(&a->oap, &a->cfg, &a->procs, &a->queue, &a->inbox, &a->host,
		      a->cmon ? &a->policies : NULL, a->agent_id, err, sizeof(err));
	if (r) {
		log_error("core.backend: %s", err);
		return 1;
	}
	log_info("agent %s started: OAP %s%s%s, %zu finders, on-CPU at %u Hz, queue %" PRIu64
		 " bytes",
		 a->agent_id, a->cfg.backend.addr, a->cfg.backend.enable_tls ? " (TLS)" : "",
		 a->cfg.backend.authentication ? " with a token" : "", a->cfg.nr_finders,
		 config_oncpu_freq(&a->cfg), a->cfg.skyprof.queue_bytes);
	return -1;
}

/* The tasks stopped, the last uploads given STOP_DRAIN_MS, everything freed. */
static void shutdown_agent(struct agent *a)
{
	size_t nin;

	scanner_stop(a);
	log_info("agent: stopping: %zu tasks held", a->nr_held);
	while (a->nr_held)
		agent_tasks_stop(a, a->nr_held - 1);
	/* the last flushes into the upload queue first */
	flush_worker_stop(&a->worker);
	if (a->oap_mode)
		oap_stop(&a->oap, STOP_DRAIN_MS);
	nin = queue_drop_all(&a->queue);
	if (nin)
		log_warn("agent: %zu upload batches not sent within %d ms: dropped", nin,
			 STOP_DRAIN_MS);
	report_stats(a, "exit");
	cmon_free(a->cmon);
	continuous_policies_free(&a->policies);
	inbox_destroy(&a->inbox);
	queue_destroy(&a->queue);
	procs_free(&a->procs);
	config_free(&a->cfg);
}

int agent_loop_run(struct agent_config *cfg)
{
	static struct agent a;
	int r;

	a.cfg = *cfg;
	*cfg = (struct agent_config){ 0 };
	r = start(&a);
	if (r >= 0)
		return r;
	scanner_start(&a);
	loop(&a);
	shutdown_agent(&a);
	return 0;
}

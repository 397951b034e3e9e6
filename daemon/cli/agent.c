// SPDX-License-Identifier: GPL-2.0
/*
 * skyprof agent: the SkyWalking side of skyprof, rover-compatible.
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
#include <getopt.h>
#include <inttypes.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <pthread.h>
#include <time.h>
#include <sys/stat.h>
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
#include "capture/capture.h"
#include "cli/commands.h"
#include "agent/config.h"
#include "lib/random_bytes.h"
#include "cli/usage.h"
#include "lib/clock.h"

#define DEFAULT_CONFIG "/etc/skyprof/agent.yaml"
#define MAX_RUNS       8
#define STOP_DRAIN_MS  5000
/* Flushes that may wait for the flush worker: two per task that can run. */
#define FLUSH_QUEUE_JOBS (2 * MAX_RUNS)

static void usage(FILE *f)
{
	fprintf(f,
		"usage: skyprof agent [-c FILE] [--check] [--log-level LEVEL]\n"
		"\n"
		"Registers this host's processes with an Apache SkyWalking OAP (as\n"
		"skywalking-rover's host mode), runs the on-CPU and off-CPU profiling tasks\n"
		"created in the SkyWalking UI through skyprof.ko, and uploads the stacks.\n"
		"Without core.backend.addr it profiles on the skyprof.schedule of its config\n"
		"and writes pprof + SVG files into skyprof.spool_dir.\n"
		"\n"
		"  -c, --config FILE   the YAML config (rover_configs.yaml keys; default %s)\n"
		"  --check             load and check the config, print the result, exit\n"
		"  --log-level LEVEL   error, warn, info or debug (overrides logger.level)\n"
		"  -h, --help          this text\n"
		"\n"
		"SIGTERM/SIGINT stop it: running tasks end with a final upload. The config\n"
		"schema is in docs/agent.md.\n",
		DEFAULT_CONFIG);
}

/*
 * Without an OAP the profiles go to the spool directory: one that cannot be
 * written is found at the start, not after the first task ran for nothing.
 * A file is made and removed in it, as access() says yes to root even where
 * nothing can be written (a read-only mount). --check makes no directory:
 * for a missing one, the parent is what must be writable.
 */
static int spool_dir_check(const char *dir, bool create, char *err, size_t errlen)
{
	char *probe = NULL, *slash;
	int fd, r = 0;

	if (create && mkdir(dir, 0750) && errno != EEXIST) {
		r = -errno;
		snprintf(err, errlen, "cannot create %s: %s", dir, strerror(-r));
		return r;
	}
	if (asprintf(&probe, "%s/.skyprof-check.XXXXXX", dir) < 0)
		return -ENOMEM;
	if (!create && access(dir, F_OK) && errno == ENOENT) {
		/* the parent, then: ".../spool/.skyprof-check" -> ".../.skyprof-check" */
		slash = strrchr(dir, '/');
		free(probe);
		probe = NULL;
		if (asprintf(&probe, "%.*s/.skyprof-check.XXXXXX", slash ? (int)(slash - dir) : 1,
			     slash ? dir : ".") < 0)
			return -ENOMEM;
	}
	fd = mkstemp(probe);
	if (fd < 0) {
		r = -errno;
		snprintf(err, errlen, "cannot write into %s: %s", dir, strerror(-r));
	} else {
		close(fd);
		unlink(probe);
	}
	free(probe);
	return r;
}

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

static void held_remove(struct agent *a, size_t i)
{
	runner_free(a->held[i].run);
	a->held[i] = a->held[--a->nr_held];
}

/* Ends the task's run, if it has one: the last flush, spool files offline. */
static void held_end_run(struct agent *a, struct held *h)
{
	if (h->run)
		runner_finish(h->run, a->oap_mode ? NULL : a->cfg.skyprof.spool_dir);
	runner_free(h->run);
	h->run = NULL;
}

static void held_stop(struct agent *a, size_t i)
{
	held_end_run(a, &a->held[i]);
	held_remove(a, i);
}

/* The task's process exited before the task's end: its run ends (the last
 * flush uploads what it has) and the task waits for the process to come
 * back (start_due). */
static void held_await_restart(struct agent *a, size_t i)
{
	struct held *h = &a->held[i];

	h->exited_pid = runner_pid(h->run);
	held_end_run(a, h);
	log_info("task %s: pid %u exited before the task's end: waiting for process %s to "
		 "come back until %" PRIu64,
		 h->spec.task_id, h->exited_pid, h->spec.process_id, task_end_ms(&h->spec));
}

/* Rover's rules: expired tasks are dropped, a re-sent one extends, another on
 * the same key replaces the held one. */
static void accept_task(struct agent *a, const struct task_spec *t)
{
	uint64_t now = clock_wall_ms();
	struct held *h = NULL;
	size_t hi = 0;

	for (size_t i = 0; i < a->nr_held; i++)
		if (task_same_key(&a->held[i].spec, t)) {
			h = &a->held[i];
			hi = i;
		}
	switch (task_decide(h ? &h->spec : NULL, t, now)) {
	case TASK_EXPIRED:
		log_info("task %s: ended at %" PRIu64 " (now %" PRIu64 "): dropped", t->task_id,
			 task_end_ms(t), now);
		return;
	case TASK_EXTEND:
		h->spec = *t;
		if (h->run)
			runner_extend(h->run, task_end_ms(t));
		log_info("task %s: sent again: ends at %" PRIu64, t->task_id, task_end_ms(t));
		return;
	case TASK_REPLACE:
		log_info("task %s replaces task %s on process %s", t->task_id, h->spec.task_id,
			 t->process_id);
		held_stop(a, hi);
		break;
	case TASK_NEW:
		break;
	}
	if (a->nr_held == MAX_RUNS) {
		log_warn("task %s: %d tasks are held already: rejected", t->task_id, MAX_RUNS);
		return;
	}
	a->held[a->nr_held++] = (struct held){ .spec = *t };
}

/* Start the waiting tasks whose time has come. */
static void start_due(struct agent *a)
{
	uint64_t now = clock_wall_ms();

	for (size_t i = 0; i < a->nr_held;) {
		struct held *h = &a->held[i];
		char err[512];
		uint32_t pid;
		int r;

		if (h->run || now < h->spec.start_ms) {
			i++;
			continue;
		}
		if (now > task_end_ms(&h->spec)) {
			if (h->exited_pid)
				log_info("task %s: ended; process %s did not come back after "
					 "pid %u exited",
					 h->spec.task_id, h->spec.process_id, h->exited_pid);
			else
				log_info("task %s: expired before it could start", h->spec.task_id);
			held_remove(a, i);
			continue;
		}
		pid = procs_pid_of(&a->procs, h->spec.process_id);
		if (h->exited_pid) {
			/* the table may name the exited pid until the next scan */
			if (!pid || pid == h->exited_pid || !capture_pids_alive(&pid, 1)) {
				i++;
				continue;
			}
			log_info("task %s: process %s is back as pid %u (was %u): followed",
				 h->spec.task_id, h->spec.process_id, pid, h->exited_pid);
		} else if (!pid) {
			log_warn("task %s: process %s is not one of ours (exited, or never "
				 "registered): task dropped",
				 h->spec.task_id, h->spec.process_id);
			a->tasks_failed++;
			held_remove(a, i);
			continue;
		}
		r = runner_start(&h->run, &h->spec, pid, &a->cfg, a->oap_mode ? &a->queue : NULL,
				 &a->worker, err, sizeof(err));
		if (r) {
			log_warn("task %s: cannot profile pid %u: %s", h->spec.task_id, pid, err);
			a->tasks_failed++;
			held_remove(a, i);
			continue;
		}
		a->tasks_started++;
		log_info("task %s: %s profiling of pid %u started, until %" PRIu64, h->spec.task_id,
			 task_target_name(h->spec.target), pid, task_end_ms(&h->spec));
		i++;
	}
}

/* Embedded mode: every schedule interval, one task per discovered process. */
static void schedule_local(struct agent *a)
{
	uint64_t now = clock_wall_ms();
	struct agent_procs *t = &a->procs;

	if (a->oap_mode || a->cfg.skyprof.schedule_target == AGENT_TARGET_NONE ||
	    now < a->next_schedule_ms)
		return;
	a->next_schedule_ms = now + a->cfg.skyprof.schedule_interval_ms;
	pthread_mutex_lock(&t->lock);
	for (size_t i = 0; i < t->n; i++) {
		struct task_spec s = { 0 };

		/* Locally the formula's id is the process's id. */
		snprintf(t->v[i].process_id, sizeof(t->v[i].process_id), "%s", t->v[i].expected_id);
		snprintf(s.task_id, sizeof(s.task_id), "local-%" PRIu64 "-%u", now, t->v[i].pid);
		snprintf(s.process_id, sizeof(s.process_id), "%s", t->v[i].process_id);
		s.target = a->cfg.skyprof.schedule_target;
		s.trigger = TASK_TRIGGER_LOCAL;
		s.start_ms = now;
		s.update_ms = now;
		s.duration_s = (a->cfg.skyprof.schedule_duration_ms + 999) / 1000;
		pthread_mutex_unlock(&t->lock);
		accept_task(a, &s);
		pthread_mutex_lock(&t->lock);
	}
	pthread_mutex_unlock(&t->lock);
}

/* Not re-triggered while a task runs on the same process and target. */
static bool busy(void *arg, uint32_t pid, const char *process_id, int target)
{
	struct agent *a = arg;

	/* the process table is locked here: compare ids, do not look them up */
	for (size_t i = 0; i < a->nr_held; i++)
		if (a->held[i].spec.target == target &&
		    (a->held[i].run ? runner_pid(a->held[i].run) == pid
				    : !strcmp(a->held[i].spec.process_id, process_id)))
			return true;
	return false;
}

static void continuous_tick(struct agent *a, uint64_t now)
{
	struct task_spec fired[MAX_RUNS];
	size_t n;

	if (!a->cmon)
		return;
	n = cmon_tick(a->cmon, now, busy, a, fired, MAX_RUNS);
	for (size_t i = 0; i < n; i++)
		accept_task(a, &fired[i]);
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
			accept_task(a, &in[i]);
		free(in);
		schedule_local(a);
		t0 = clock_mono_ms();
		continuous_tick(a, now);
		note_max(&a->max_cont_ms, t0);
		t0 = clock_mono_ms();
		start_due(a);
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
				held_await_restart(a, i);
				i++;
				continue;
			}
			if (r) {
				if (r < 0)
					log_warn("task %s: %s", h->spec.task_id, strerror(-r));
				held_stop(a, i);
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

struct agent_opts {
	const char *config, *level;
	bool check_only;
};

/* The command line: -1 to go on, else the exit code. */
static int parse_options(int argc, char **argv, struct agent_opts *o)
{
	static const struct option longopts[] = {
		{ "config", required_argument, NULL, 'c' },
		{ "check", no_argument, NULL, 'C' },
		{ "log-level", required_argument, NULL, 'L' },
		{ "help", no_argument, NULL, 'h' },
		{ 0 },
	};
	int opt;

	optind = 0; /* glibc: full reinitialisation */
	opterr = 0; /* usage_getopt_fail's message instead */
	while ((opt = getopt_long(argc, argv, ":c:h", longopts, NULL)) != -1) {
		switch (opt) {
		case 'c':
			o->config = optarg;
			break;
		case 'C':
			o->check_only = true;
			break;
		case 'L':
			o->level = optarg;
			break;
		case 'h':
			usage(stdout);
			return 0;
		default:
			return usage_getopt_fail("agent", opt, argc, argv);
		}
	}
	if (optind < argc)
		return usage_fail("agent", "unexpected argument '%s'", argv[optind]);
	if (o->level && log_level_parse(o->level) < 0)
		return usage_fail("agent", "--log-level: '%s' is not error, warn, info or debug",
				  o->level);
	return -1;
}

/* The config, loaded and checked: -1 to go on, else the exit code (--check ends here). */
static int load_config(struct agent *a, struct agent_opts *o)
{
	char err[1024];
	int r;

	if (!o->config && access(DEFAULT_CONFIG, R_OK) == 0)
		o->config = DEFAULT_CONFIG;
	if (o->config)
		r = config_load_file(&a->cfg, o->config, err, sizeof(err));
	else
		r = config_load_string(&a->cfg, "", 0, err, sizeof(err));
	if (r) {
		/* a file that cannot be read as one is a usage error; its content is not */
		bool file = config_error_is_file(r);

		if (file)
			usage_fail("agent", "%s", err);
		else
			log_error("config %s: %s", o->config ? o->config : "(defaults)", err);
		config_free(&a->cfg);
		return file ? USAGE_EXIT : 1;
	}
	log_set_level(o->level ? log_level_parse(o->level) : a->cfg.log_level);
	if (!a->cfg.backend.addr &&
	    spool_dir_check(a->cfg.skyprof.spool_dir, !o->check_only, err, sizeof(err))) {
		log_error("skyprof.spool_dir: %s", err);
		config_free(&a->cfg);
		return 1;
	}
	if (o->check_only) {
		printf("%s: ok (%u warnings): %s, %zu finders, on-CPU at %u Hz\n",
		       o->config ? o->config : "(defaults)", a->cfg.nr_warnings,
		       a->cfg.backend.addr ? a->cfg.backend.addr : "no OAP (spool mode)",
		       a->cfg.nr_finders, config_oncpu_freq(&a->cfg));
		config_free(&a->cfg);
		return 0;
	}
	return -1;
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
		held_stop(a, a->nr_held - 1);
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

int cli_agent_main(int argc, char **argv)
{
	static struct agent a;
	struct agent_opts o = { 0 };
	int r;

	r = parse_options(argc, argv, &o);
	if (r < 0)
		r = load_config(&a, &o);
	if (r < 0)
		r = start(&a);
	if (r >= 0)
		return r;
	scanner_start(&a);
	loop(&a);
	shutdown_agent(&a);
	return 0;
}

// SPDX-License-Identifier: GPL-2.0
/* The tasks the agent holds; see agent_tasks.h. */
#include <inttypes.h>
#include <stdio.h>
#include <string.h>
#include <pthread.h>

#include "agent/cmon.h"
#include "agent/log.h"
#include "agent/procs.h"
#include "agent/runner.h"
#include "agent/task.h"
#include "capture/capture.h"
#include "cli/agent_state.h"
#include "cli/agent_tasks.h"
#include "lib/clock.h"

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

void agent_tasks_stop(struct agent *a, size_t i)
{
	held_end_run(a, &a->held[i]);
	held_remove(a, i);
}

/* The task's process exited before the task's end: its run ends (the last
 * flush uploads what it has) and the task waits for the process to come
 * back (start_due). */
void agent_tasks_await_restart(struct agent *a, size_t i)
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
void agent_tasks_accept(struct agent *a, const struct task_spec *t)
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
		agent_tasks_stop(a, hi);
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
void agent_tasks_start_due(struct agent *a)
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
void agent_tasks_schedule_local(struct agent *a)
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
		agent_tasks_accept(a, &s);
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

void agent_tasks_continuous_tick(struct agent *a, uint64_t now)
{
	struct task_spec fired[MAX_RUNS];
	size_t n;

	if (!a->cmon)
		return;
	n = cmon_tick(a->cmon, now, busy, a, fired, MAX_RUNS);
	for (size_t i = 0; i < n; i++)
		agent_tasks_accept(a, &fired[i]);
}

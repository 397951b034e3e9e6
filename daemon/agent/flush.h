/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The flush worker: one thread that does the slow part of a task's flush
 * (merging the new stacks, symbolizing them, encoding the upload batch,
 * writing the spool files), so that the thread draining the rings only
 * hands a small profile over and goes back to the rings. The queue between
 * them is bounded: when it is full, a flush is refused and the caller drops
 * it and its samples, counted here (dropped_jobs, dropped_units) and by the
 * caller's own log line; a job marked `must` (a task's last flush, which
 * also frees the task's state) is always taken.
 */
#ifndef SKYPROF_AGENT_FLUSH_H
#define SKYPROF_AGENT_FLUSH_H

#include <pthread.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

struct flush_job;

struct flush_stats {
	uint64_t done_jobs;
	uint64_t dropped_jobs, dropped_units; /* refused: the queue was full */
	uint64_t max_job_ms;		      /* the longest job */
	uint64_t max_wait_ms;		      /* the longest a job waited in the queue */
};

struct flush_worker {
	pthread_mutex_t lock;
	pthread_cond_t cond; /* work queued, or stop */
	pthread_cond_t idle; /* the queue ran empty */
	struct flush_job *head, *tail;
	size_t n, limit;
	bool busy, stop, running;
	pthread_t thread;
	struct flush_stats st;
};

/* limit: how many droppable jobs may wait. 0 or -errno. */
int flush_worker_start(struct flush_worker *w, size_t limit);
/*
 * Queue run(arg) for the worker. A droppable job (must false) is refused
 * when `limit` jobs wait already: false, counted with its units, and the
 * caller still owns arg. With w NULL the job runs here and now.
 */
bool flush_worker_submit(struct flush_worker *w, void (*run)(void *arg), void *arg, uint64_t units,
			 bool must);
/* Wait until every job queued so far has run. */
void flush_worker_wait(struct flush_worker *w);
/* Run what is queued, then end the thread. */
void flush_worker_stop(struct flush_worker *w);
void flush_worker_get_stats(struct flush_worker *w, struct flush_stats *out, size_t *pending);

#endif

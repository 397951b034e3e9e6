// SPDX-License-Identifier: GPL-2.0
/* The flush worker; see flush.h. */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "agent/flush.h"
#include "lib/clock.h"

struct flush_job {
	struct flush_job *next;
	void (*run)(void *arg);
	void *arg;
	uint64_t queued_ms;
};

static void *worker(void *arg)
{
	struct flush_worker *w = arg;

	pthread_mutex_lock(&w->lock);
	for (;;) {
		struct flush_job *j;
		uint64_t t0, t1;

		while (!w->head && !w->stop)
			pthread_cond_wait(&w->cond, &w->lock);
		j = w->head;
		if (!j)
			break; /* stop, and nothing left */
		w->head = j->next;
		if (!w->head)
			w->tail = NULL;
		w->n--;
		w->busy = true;
		pthread_mutex_unlock(&w->lock);
		t0 = clock_mono_ms();
		j->run(j->arg);
		t1 = clock_mono_ms();
		pthread_mutex_lock(&w->lock);
		w->busy = false;
		w->st.done_jobs++;
		if (t1 - t0 > w->st.max_job_ms)
			w->st.max_job_ms = t1 - t0;
		if (t0 - j->queued_ms > w->st.max_wait_ms)
			w->st.max_wait_ms = t0 - j->queued_ms;
		free(j);
		if (!w->head)
			pthread_cond_broadcast(&w->idle);
	}
	pthread_cond_broadcast(&w->idle);
	pthread_mutex_unlock(&w->lock);
	return NULL;
}

int flush_worker_start(struct flush_worker *w, size_t limit)
{
	int r;

	memset(w, 0, sizeof(*w));
	pthread_mutex_init(&w->lock, NULL);
	pthread_cond_init(&w->cond, NULL);
	pthread_cond_init(&w->idle, NULL);
	w->limit = limit;
	r = pthread_create(&w->thread, NULL, worker, w);
	if (r) {
		pthread_cond_destroy(&w->idle);
		pthread_cond_destroy(&w->cond);
		pthread_mutex_destroy(&w->lock);
		return -r;
	}
	w->running = true;
	return 0;
}

bool flush_worker_submit(struct flush_worker *w, void (*run)(void *arg), void *arg, uint64_t units,
			 bool must)
{
	struct flush_job *j;

	if (!w || !w->running) {
		run(arg);
		return true;
	}
	j = malloc(sizeof(*j));
	pthread_mutex_lock(&w->lock);
	if (!j || (!must && w->n >= w->limit)) {
		w->st.dropped_jobs++;
		w->st.dropped_units += units;
		pthread_mutex_unlock(&w->lock);
		if (!j && must) {
			/* no memory for the job: do it here rather than lose the
			 * task's end (and leak its state) */
			run(arg);
			return true;
		}
		free(j);
		return false;
	}
	*j = (struct flush_job){ .run = run, .arg = arg, .queued_ms = clock_mono_ms() };
	if (w->tail)
		w->tail->next = j;
	else
		w->head = j;
	w->tail = j;
	w->n++;
	pthread_cond_signal(&w->cond);
	pthread_mutex_unlock(&w->lock);
	return true;
}

void flush_worker_wait(struct flush_worker *w)
{
	if (!w || !w->running)
		return;
	pthread_mutex_lock(&w->lock);
	while (w->head || w->busy)
		pthread_cond_wait(&w->idle, &w->lock);
	pthread_mutex_unlock(&w->lock);
}

void flush_worker_stop(struct flush_worker *w)
{
	if (!w || !w->running)
		return;
	pthread_mutex_lock(&w->lock);
	w->stop = true;
	pthread_cond_signal(&w->cond);
	pthread_mutex_unlock(&w->lock);
	pthread_join(w->thread, NULL);
	w->running = false;
	pthread_cond_destroy(&w->idle);
	pthread_cond_destroy(&w->cond);
	pthread_mutex_destroy(&w->lock);
}

void flush_worker_get_stats(struct flush_worker *w, struct flush_stats *out, size_t *pending)
{
	memset(out, 0, sizeof(*out));
	if (pending)
		*pending = 0;
	if (!w)
		return;
	if (!w->running) {
		*out = w->st; /* stopped: nobody else touches it */
		return;
	}
	pthread_mutex_lock(&w->lock);
	*out = w->st;
	if (pending)
		*pending = w->n;
	pthread_mutex_unlock(&w->lock);
}

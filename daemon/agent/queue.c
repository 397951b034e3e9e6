// SPDX-License-Identifier: GPL-2.0
/* The bounded upload queue; see queue.h. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "agent/queue.h"

void queue_init(struct upload_queue *q, size_t limit_bytes)
{
	pthread_condattr_t ca;

	memset(q, 0, sizeof(*q));
	pthread_mutex_init(&q->lock, NULL);
	pthread_condattr_init(&ca);
	pthread_condattr_setclock(&ca, CLOCK_MONOTONIC);
	pthread_cond_init(&q->cond, &ca);
	pthread_condattr_destroy(&ca);
	q->limit = limit_bytes;
}

void queue_destroy(struct upload_queue *q)
{
	struct upload_batch *b = q->head, *n;

	for (; b; b = n) {
		n = b->next;
		batch_free(b);
	}
	pthread_cond_destroy(&q->cond);
	pthread_mutex_destroy(&q->lock);
}

static void count_drop(struct upload_queue *q, struct upload_batch *b)
{
	q->st.dropped_batches++;
	q->st.dropped_msgs += b->n;
	q->st.dropped_bytes += b->bytes;
	q->st.dropped_units += b->units;
}

static struct upload_batch *unlink_head(struct upload_queue *q)
{
	struct upload_batch *b = q->head;

	if (!b)
		return NULL;
	q->head = b->next;
	if (!q->head)
		q->tail = NULL;
	b->next = NULL;
	q->bytes -= b->bytes;
	q->nr--;
	return b;
}

unsigned int queue_push(struct upload_queue *q, struct upload_batch *b)
{
	unsigned int dropped = 0;

	pthread_mutex_lock(&q->lock);
	q->st.queued_batches++;
	if (b->bytes > q->limit) {
		count_drop(q, b);
		pthread_mutex_unlock(&q->lock);
		batch_free(b);
		return 1;
	}
	while (q->head && q->bytes + b->bytes > q->limit) {
		struct upload_batch *old = unlink_head(q);

		count_drop(q, old);
		batch_free(old);
		dropped++;
	}
	if (q->tail)
		q->tail->next = b;
	else
		q->head = b;
	q->tail = b;
	q->bytes += b->bytes;
	q->nr++;
	pthread_cond_signal(&q->cond);
	pthread_mutex_unlock(&q->lock);
	return dropped;
}

struct upload_batch *queue_pop(struct upload_queue *q, int timeout_ms)
{
	struct upload_batch *b;
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	ts.tv_sec += timeout_ms / 1000;
	ts.tv_nsec += (long)(timeout_ms % 1000) * 1000000;
	if (ts.tv_nsec >= 1000000000) {
		ts.tv_sec++;
		ts.tv_nsec -= 1000000000;
	}
	pthread_mutex_lock(&q->lock);
	while (!q->head && !q->closing && timeout_ms > 0)
		if (pthread_cond_timedwait(&q->cond, &q->lock, &ts) == ETIMEDOUT)
			break;
	b = unlink_head(q);
	pthread_mutex_unlock(&q->lock);
	return b;
}

void queue_return(struct upload_queue *q, struct upload_batch *b)
{
	pthread_mutex_lock(&q->lock);
	b->attempts++;
	if (q->bytes + b->bytes > q->limit) {
		count_drop(q, b);
		pthread_mutex_unlock(&q->lock);
		batch_free(b);
		return;
	}
	b->next = q->head;
	q->head = b;
	if (!q->tail)
		q->tail = b;
	q->bytes += b->bytes;
	q->nr++;
	pthread_mutex_unlock(&q->lock);
}

void queue_sent(struct upload_queue *q, struct upload_batch *b)
{
	pthread_mutex_lock(&q->lock);
	q->st.sent_batches++;
	q->st.sent_msgs += b->n;
	q->st.sent_units += b->units;
	pthread_mutex_unlock(&q->lock);
	batch_free(b);
}

void queue_drop(struct upload_queue *q, struct upload_batch *b)
{
	pthread_mutex_lock(&q->lock);
	count_drop(q, b);
	pthread_mutex_unlock(&q->lock);
	batch_free(b);
}

void queue_get_stats(struct upload_queue *q, struct upload_stats *out, size_t *pending_batches,
		     size_t *pending_bytes)
{
	pthread_mutex_lock(&q->lock);
	*out = q->st;
	if (pending_batches)
		*pending_batches = q->nr;
	if (pending_bytes)
		*pending_bytes = q->bytes;
	pthread_mutex_unlock(&q->lock);
}

void queue_close(struct upload_queue *q)
{
	pthread_mutex_lock(&q->lock);
	q->closing = true;
	pthread_cond_broadcast(&q->cond);
	pthread_mutex_unlock(&q->lock);
}

void queue_unconfirmed(struct upload_queue *q, struct upload_batch *b, size_t k)
{
	uint64_t units = 0;
	size_t bytes = 0;
	uint8_t *first = NULL;

	if (k > b->n)
		k = b->n;
	if (!k) {
		queue_return(q, b);
		return;
	}
	for (size_t i = 0; i < k; i++) {
		units += b->munits[i];
		bytes += b->lens[i] + BATCH_MSG_OVERHEAD;
	}
	if (k < b->n && b->prefix) {
		first = malloc(b->prefix_len + b->lens[k]);
		if (first) {
			memcpy(first, b->prefix, b->prefix_len);
			memcpy(first + b->prefix_len, b->msgs[k], b->lens[k]);
		}
	}
	pthread_mutex_lock(&q->lock);
	q->st.unconfirmed_batches++;
	q->st.unconfirmed_msgs += k;
	q->st.unconfirmed_units += units;
	pthread_mutex_unlock(&q->lock);
	for (size_t i = 0; i < k; i++)
		free(b->msgs[i]);
	b->n -= k;
	memmove(b->msgs, b->msgs + k, b->n * sizeof(*b->msgs));
	memmove(b->lens, b->lens + k, b->n * sizeof(*b->lens));
	memmove(b->munits, b->munits + k, b->n * sizeof(*b->munits));
	b->bytes -= bytes;
	b->units -= units;
	if (!b->n) {
		batch_free(b);
		return;
	}
	if (b->prefix) {
		if (!first) {
			queue_drop(q, b);
			return;
		}
		free(b->msgs[0]);
		b->msgs[0] = first;
		b->lens[0] += b->prefix_len;
		b->bytes += b->prefix_len;
	}
	queue_return(q, b);
}

size_t queue_drop_all(struct upload_queue *q)
{
	struct upload_batch *b;
	size_t n = 0;

	pthread_mutex_lock(&q->lock);
	while ((b = unlink_head(q))) {
		count_drop(q, b);
		batch_free(b);
		n++;
	}
	pthread_mutex_unlock(&q->lock);
	return n;
}

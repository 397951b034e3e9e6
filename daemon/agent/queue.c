// SPDX-License-Identifier: GPL-2.0
/* The bounded upload queue; see agent_queue.h. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "agent/queue.h"

/* Per-message bookkeeping counted against the limit, so many tiny messages
 * cannot hide their real footprint. */
#define MSG_OVERHEAD (sizeof(uint8_t *) + sizeof(size_t) + 16)

struct upload_batch *batch_new(const char *path, const char *what)
{
	struct upload_batch *b = calloc(1, sizeof(*b));

	if (!b)
		return NULL;
	b->path = path;
	snprintf(b->what, sizeof(b->what), "%s", what ? what : "");
	b->bytes = sizeof(*b);
	return b;
}

int batch_add_units(struct upload_batch *b, uint8_t *msg, size_t len, uint64_t units)
{
	if (b->n == b->cap) {
		size_t cap = b->cap ? b->cap * 2 : 16;
		uint8_t **m = realloc(b->msgs, cap * sizeof(*m));
		size_t *l;
		uint64_t *u;

		if (!m)
			return -ENOMEM;
		b->msgs = m;
		l = realloc(b->lens, cap * sizeof(*l));
		if (!l)
			return -ENOMEM;
		b->lens = l;
		u = realloc(b->munits, cap * sizeof(*u));
		if (!u)
			return -ENOMEM;
		b->munits = u;
		b->cap = cap;
	}
	b->msgs[b->n] = msg;
	b->lens[b->n] = len;
	b->munits[b->n] = units;
	b->n++;
	b->bytes += len + MSG_OVERHEAD;
	b->units += units;
	return 0;
}

int batch_add(struct upload_batch *b, uint8_t *msg, size_t len)
{
	return batch_add_units(b, msg, len, 0);
}

int batch_set_prefix(struct upload_batch *b, const uint8_t *p, size_t len)
{
	uint8_t *c = malloc(len ? len : 1);

	if (!c)
		return -ENOMEM;
	memcpy(c, p, len);
	free(b->prefix);
	b->bytes += len - b->prefix_len;
	b->prefix = c;
	b->prefix_len = len;
	return 0;
}

void batch_free(struct upload_batch *b)
{
	if (!b)
		return;
	for (size_t i = 0; i < b->n; i++)
		free(b->msgs[i]);
	free(b->msgs);
	free(b->lens);
	free(b->munits);
	free(b->prefix);
	free(b);
}

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
		bytes += b->lens[i] + MSG_OVERHEAD;
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

/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The upload queue between the task runner (producer, main thread) and the
 * OAP thread (consumer): batches of encoded messages, each batch one
 * client-streaming call. It holds at most a configured number of bytes; when
 * a new batch would pass it, the oldest batches are dropped and counted, so
 * an absent OAP costs bounded memory and nothing is lost without a number
 * saying so. Pushing never blocks on the network.
 */
#ifndef SKYPROF_AGENT_QUEUE_H
#define SKYPROF_AGENT_QUEUE_H

#include <pthread.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "agent/batch.h"

struct upload_stats {
	uint64_t queued_batches, sent_batches, dropped_batches;
	uint64_t sent_msgs, dropped_msgs;
	uint64_t dropped_bytes;
	uint64_t sent_units, dropped_units;
	/* written to a stream that then broke: maybe stored by the OAP, never resent */
	uint64_t unconfirmed_batches, unconfirmed_msgs, unconfirmed_units;
};

struct upload_queue {
	pthread_mutex_t lock;
	pthread_cond_t cond; /* signalled on push and on close */
	struct upload_batch *head, *tail;
	size_t bytes, limit, nr;
	struct upload_stats st;
	bool closing;
};

void queue_init(struct upload_queue *q, size_t limit_bytes);
void queue_destroy(struct upload_queue *q);
/*
 * Append b (the queue owns it after the call). Drops the oldest batches
 * while the total would pass the limit, or b itself when it alone is over.
 * Returns how many batches were dropped.
 */
unsigned int queue_push(struct upload_queue *q, struct upload_batch *b);
/* Take the oldest batch, waiting up to timeout_ms for one; NULL if none. */
struct upload_batch *queue_pop(struct upload_queue *q, int timeout_ms);
/*
 * A batch that could not be sent goes back in front (to keep the order),
 * subject to the same limit: if newer data has filled the queue meanwhile,
 * it is the one dropped.
 */
void queue_return(struct upload_queue *q, struct upload_batch *b);
/* Count a batch as delivered and free it. */
void queue_sent(struct upload_queue *q, struct upload_batch *b);
/* Count a batch as dropped (e.g. the OAP rejected it for good) and free it. */
void queue_drop(struct upload_queue *q, struct upload_batch *b);
/*
 * The stream carrying b broke after its first k messages were written to
 * the connection. The OAP stores each message of a stream as it arrives, so
 * it may hold those k already: they are counted as unconfirmed and never
 * sent again (at most once). The rest, which the OAP cannot have seen, goes
 * back in front as by queue_return, its first message given the prefix; if
 * that copy fails, the rest is counted as dropped. Consumes b.
 */
void queue_unconfirmed(struct upload_queue *q, struct upload_batch *b, size_t k);
void queue_get_stats(struct upload_queue *q, struct upload_stats *out, size_t *pending_batches,
		     size_t *pending_bytes);
void queue_close(struct upload_queue *q);
/* Count everything still queued as dropped and free it (at exit); returns how many batches. */
size_t queue_drop_all(struct upload_queue *q);

#endif

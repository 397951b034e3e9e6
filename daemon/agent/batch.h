/* SPDX-License-Identifier: GPL-2.0 */
/*
 * One upload batch: the encoded messages of one client-streaming call, with
 * what the queue (queue.h) needs to count them.
 */
#ifndef SKYPROF_AGENT_BATCH_H
#define SKYPROF_AGENT_BATCH_H

#include <stddef.h>
#include <stdint.h>

/* Per-message bookkeeping counted against the queue's limit, so many tiny
 * messages cannot hide their real footprint. */
#define BATCH_MSG_OVERHEAD (sizeof(uint8_t *) + sizeof(size_t) + 16)

struct upload_batch {
	struct upload_batch *next;
	const char *path; /* gRPC method, a string literal */
	char what[160];	  /* for log lines: "task T pid P" */
	uint8_t **msgs;
	size_t *lens;
	uint64_t *munits; /* per message, summing to units */
	size_t n, cap;
	size_t bytes;
	uint64_t units; /* what the batch carries (dumpCount sum...) for the counters */
	unsigned int attempts;
	/*
	 * Prepended to the first message of what is left of the batch after a
	 * split (queue_unconfirmed): protobuf merges concatenated encodings, so
	 * this is how the remainder's first message gets the task metadata the
	 * OAP needs on every stream's first message. NULL: none.
	 */
	uint8_t *prefix;
	size_t prefix_len;
};

struct upload_batch *batch_new(const char *path, const char *what);
/* Takes ownership of msg (malloc'ed) on 0; -ENOMEM otherwise. */
int batch_add(struct upload_batch *b, uint8_t *msg, size_t len);
/* The same, for a message that carries `units` of the batch's units. */
int batch_add_units(struct upload_batch *b, uint8_t *msg, size_t len, uint64_t units);
/* Copy p as the batch's prefix (see above); 0 or -ENOMEM. */
int batch_set_prefix(struct upload_batch *b, const uint8_t *p, size_t len);
void batch_free(struct upload_batch *b);

#endif

// SPDX-License-Identifier: GPL-2.0
/* One upload batch; see batch.h. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "agent/batch.h"

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
	b->bytes += len + BATCH_MSG_OVERHEAD;
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

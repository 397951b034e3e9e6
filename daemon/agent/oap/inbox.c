// SPDX-License-Identifier: GPL-2.0
/* The inbox between the OAP thread and the main thread; see inbox.h. */
#include <errno.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/eventfd.h>
#include <unistd.h>

#include "agent/oap/inbox.h"

int inbox_init(struct agent_inbox *in)
{
	memset(in, 0, sizeof(*in));
	pthread_mutex_init(&in->lock, NULL);
	in->efd = eventfd(0, EFD_NONBLOCK | EFD_CLOEXEC);
	return in->efd < 0 ? -errno : 0;
}

void inbox_destroy(struct agent_inbox *in)
{
	free(in->v);
	if (in->efd >= 0)
		close(in->efd);
	pthread_mutex_destroy(&in->lock);
}

int inbox_push(struct agent_inbox *in, const struct task_spec *t)
{
	uint64_t one = 1;
	int r = 0;

	pthread_mutex_lock(&in->lock);
	if (in->n == in->cap) {
		size_t cap = in->cap ? in->cap * 2 : 8;
		struct task_spec *nv = realloc(in->v, cap * sizeof(*nv));

		if (!nv)
			r = -ENOMEM;
		else {
			in->v = nv;
			in->cap = cap;
		}
	}
	if (!r)
		in->v[in->n++] = *t;
	pthread_mutex_unlock(&in->lock);
	if (!r && write(in->efd, &one, sizeof(one)) < 0)
		r = 0; /* the counter is saturated: the reader is awake anyway */
	return r;
}

size_t inbox_take(struct agent_inbox *in, struct task_spec **out)
{
	uint64_t junk;
	size_t n;

	if (read(in->efd, &junk, sizeof(junk)) < 0)
		junk = 0;
	pthread_mutex_lock(&in->lock);
	n = in->n;
	*out = in->v;
	in->v = NULL;
	in->n = in->cap = 0;
	pthread_mutex_unlock(&in->lock);
	return n;
}

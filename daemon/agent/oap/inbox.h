/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The inbox: tasks the OAP thread received, waiting for the main thread.
 * The main thread polls efd, which is readable while the inbox is not empty.
 */
#ifndef SKYPROF_AGENT_OAP_INBOX_H
#define SKYPROF_AGENT_OAP_INBOX_H

#include <pthread.h>
#include <stddef.h>

#include "agent/task.h"

/* Tasks from the OAP for the main thread; efd is readable when non-empty. */
struct agent_inbox {
	pthread_mutex_t lock;
	struct task_spec *v;
	size_t n, cap;
	int efd;
};

int inbox_init(struct agent_inbox *in);
void inbox_destroy(struct agent_inbox *in);
int inbox_push(struct agent_inbox *in, const struct task_spec *t);
/* Take everything: *out malloc'ed (free it), returns the count. */
size_t inbox_take(struct agent_inbox *in, struct task_spec **out);

#endif

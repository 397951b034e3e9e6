// SPDX-License-Identifier: GPL-2.0
/* sched_switch probe (prev, next): before 4.4, and RHEL 7. */
#include <linux/sched.h>
#include <trace/events/sched.h>

static void skyprof_probe_fn(void *data, struct task_struct *prev, struct task_struct *next)
{
}

int skyprof_probe(struct task_struct *t);
int skyprof_probe(struct task_struct *t)
{
	check_trace_callback_type_sched_switch(skyprof_probe_fn);
	/* Still queued at the switch: preempted, not blocked. */
	return READ_ONCE(t->on_rq);
}

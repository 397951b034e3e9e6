// SPDX-License-Identifier: GPL-2.0
/* sched_switch probe (bool preempt, prev, next, unsigned int prev_state): 5.18+, RHEL 9.1+. */
#include <linux/mm_types.h>	/* 6.12 sched.h events need struct folio */
#include <linux/sched.h>
#include <trace/events/sched.h>

static void skyprof_probe_fn(void *data, bool preempt, struct task_struct *prev,
			     struct task_struct *next, unsigned int prev_state)
{
}

void skyprof_probe(void);
void skyprof_probe(void)
{
	check_trace_callback_type_sched_switch(skyprof_probe_fn);
}

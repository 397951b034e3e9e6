// SPDX-License-Identifier: GPL-2.0
/* sched_process_fork probe (struct task_struct *parent, struct task_struct *child). */
#include <linux/mm_types.h>	/* 6.12 sched.h events need struct folio */
#include <linux/sched.h>
#include <trace/events/sched.h>

static void skyprof_probe_fn(void *data, struct task_struct *parent, struct task_struct *child)
{
}

void skyprof_probe(void);
void skyprof_probe(void)
{
	check_trace_callback_type_sched_process_fork(skyprof_probe_fn);
}

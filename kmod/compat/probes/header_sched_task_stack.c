// SPDX-License-Identifier: GPL-2.0
/* linux/sched/task_stack.h (4.11+; before, task_pt_regs came with linux/sched.h). */
#include <linux/sched.h>
#include <linux/sched/task_stack.h>

struct pt_regs *skyprof_probe(struct task_struct *t);
struct pt_regs *skyprof_probe(struct task_struct *t)
{
	return task_pt_regs(t);
}

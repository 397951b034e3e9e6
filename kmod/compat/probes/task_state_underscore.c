// SPDX-License-Identifier: GPL-2.0
/* task_struct::__state (5.14+; before: ::state). */
#include <linux/sched.h>

unsigned int skyprof_probe(struct task_struct *t);
unsigned int skyprof_probe(struct task_struct *t)
{
	return READ_ONCE(t->__state);
}

// SPDX-License-Identifier: GPL-2.0
/* linux/sched/mm.h (4.11+; RHEL 7 has mmget_not_zero and mmgrab in linux/sched.h). */
#include <linux/sched.h>
#include <linux/sched/mm.h>

void skyprof_probe(struct mm_struct *mm);
void skyprof_probe(struct mm_struct *mm)
{
	mmput(mm);
}

// SPDX-License-Identifier: GPL-2.0
/* mmgrab in linux/sched.h (RHEL 7; 4.11+: linux/sched/mm.h): pins mm_count from any context. */
#include <linux/sched.h>
#include <linux/mm_types.h>

void skyprof_probe(struct mm_struct *mm);
void skyprof_probe(struct mm_struct *mm)
{
	mmgrab(mm);
}

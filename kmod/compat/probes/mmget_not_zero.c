// SPDX-License-Identifier: GPL-2.0
/* mmget_not_zero in linux/sched.h (RHEL 7; 4.11+: linux/sched/mm.h): pins mm_users anywhere. */
#include <linux/sched.h>
#include <linux/mm_types.h>

bool skyprof_probe(struct mm_struct *mm);
bool skyprof_probe(struct mm_struct *mm)
{
	return mmget_not_zero(mm);
}

// SPDX-License-Identifier: GPL-2.0
/* HRTIMER_MODE_*_HARD (5.4+): the only mode that expires in hardirq on PREEMPT_RT. */
#include <linux/hrtimer.h>

int skyprof_probe(void);
int skyprof_probe(void)
{
	return HRTIMER_MODE_REL_PINNED_HARD;
}

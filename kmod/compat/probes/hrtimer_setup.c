// SPDX-License-Identifier: GPL-2.0
/* hrtimer_setup(timer, fn, clock, mode): 6.13+, replaces hrtimer_init (gone in 6.15). */
#include <linux/hrtimer.h>

static enum hrtimer_restart skyprof_probe_fn(struct hrtimer *t)
{
	return HRTIMER_NORESTART;
}

void skyprof_probe(struct hrtimer *t);
void skyprof_probe(struct hrtimer *t)
{
	hrtimer_setup(t, skyprof_probe_fn, CLOCK_MONOTONIC, HRTIMER_MODE_REL_PINNED);
}

// SPDX-License-Identifier: GPL-2.0
/*
 * Per-CPU pinned hrtimers as the sampling clock: the fallback without perf
 * (or by request). HARD mode where it exists so that PREEMPT_RT expires the
 * timer in hardirq, where get_irq_regs() is valid.
 * Started in the cpuhp online callback, which runs on the CPU concerned
 * (the timer pins to the CPU that starts it); cancelled in the offline
 * callback, never from the callback itself.
 */
#include <linux/hrtimer.h>
#include <linux/ktime.h>

#include <asm/irq_regs.h>

#include "skyprof_kmod.h"

static enum hrtimer_restart skyprof_hrtimer_fn(struct hrtimer *timer)
{
	struct skyprof_pcpu *pc = container_of(timer, struct skyprof_pcpu, timer);
	struct pt_regs *regs = get_irq_regs();
	u64 overruns;

	if (!READ_ONCE(pc->s->running))
		return HRTIMER_NORESTART;
	/* NULL only if the timer expired outside hardirq: nothing to sample. */
	if (regs)
		skyprof_sample(pc, regs);
	overruns = hrtimer_forward_now(timer, ns_to_ktime(pc->s->period_ns));
	/* Expiry came late by whole periods (long irq-off sections, VMs). */
	if (overruns > 1)
		pc->st.missed += overruns - 1;
	return HRTIMER_RESTART;
}

int skyprof_hrtimer_start_cpu(struct skyprof_pcpu *pc)
{
	skyprof_hrtimer_setup(&pc->timer, skyprof_hrtimer_fn, CLOCK_MONOTONIC,
			      SKYPROF_HRTIMER_MODE);
	pc->armed = true;
	hrtimer_start(&pc->timer, ns_to_ktime(pc->s->period_ns), SKYPROF_HRTIMER_MODE);
	return 0;
}

void skyprof_hrtimer_stop_cpu(struct skyprof_pcpu *pc)
{
	if (!pc->armed)
		return;
	/* Waits for a running callback: process context only. */
	hrtimer_cancel(&pc->timer);
	pc->armed = false;
}

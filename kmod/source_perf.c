// SPDX-License-Identifier: GPL-2.0
/*
 * perf_event kernel counters as the sampling clock: hardware cycles (NMI on
 * x86) where a PMU exists, software cpu-clock (hrtimer hardirq) otherwise.
 * One pinned counter per CPU, created in the cpuhp online callback and
 * released in the offline callback (both in process context on that CPU).
 * The overflow handler never enables, disables or releases its own event:
 * a session stops through its running flag and the teardown in process
 * context.
 */
#include <linux/err.h>
#include <linux/perf_event.h>
#include <linux/smp.h>

#include "skyprof_kmod.h"

#ifdef CONFIG_PERF_EVENTS
static bool skyprof_have_hw;
static bool skyprof_have_sw;

static void skyprof_perf_overflow(struct perf_event *event, struct perf_sample_data *data,
				  struct pt_regs *regs)
{
	skyprof_sample(event->overflow_handler_context, regs);
}

static void skyprof_perf_attr(struct perf_event_attr *attr, bool hw, u32 freq, u64 period_ns)
{
	memset(attr, 0, sizeof(*attr));
	attr->size = sizeof(*attr);
	attr->pinned = 1;
	if (hw) {
		attr->type = PERF_TYPE_HARDWARE;
		attr->config = PERF_COUNT_HW_CPU_CYCLES;
		attr->freq = 1;
		attr->sample_freq = freq;
	} else {
		attr->type = PERF_TYPE_SOFTWARE;
		attr->config = PERF_COUNT_SW_CPU_CLOCK;
		attr->sample_period = period_ns;
		/* cpu-clock skips the idle task itself. */
		attr->exclude_idle = 1;
	}
}

static struct perf_event *skyprof_perf_create(bool hw, unsigned int cpu, u32 freq,
					      u64 period_ns, void *ctx)
{
	struct perf_event_attr attr;
	struct perf_event *ev;

	skyprof_perf_attr(&attr, hw, freq, period_ns);
	/* Probes (no context) only check that the counter can exist. */
	attr.disabled = !ctx;
	ev = perf_event_create_kernel_counter(&attr, cpu, NULL, skyprof_perf_overflow, ctx);
	if (IS_ERR(ev))
		return ev;
	/* A pinned event that could not be scheduled is left in ERROR state. */
	if (ev->state == PERF_EVENT_STATE_ERROR) {
		perf_event_release_kernel(ev);
		return ERR_PTR(-EBUSY);
	}
	return ev;
}

/* Which counters this machine can create, probed once at load. */
void skyprof_perf_init(void)
{
	struct perf_event *ev;
	unsigned int cpu = get_cpu();

	put_cpu();
	ev = skyprof_perf_create(true, cpu, 1, 0, NULL);
	if (!IS_ERR(ev)) {
		perf_event_release_kernel(ev);
		skyprof_have_hw = true;
	}
	ev = skyprof_perf_create(false, cpu, 0, NSEC_PER_SEC, NULL);
	if (!IS_ERR(ev)) {
		perf_event_release_kernel(ev);
		skyprof_have_sw = true;
	}
}

bool skyprof_perf_hw_available(void)
{
	return skyprof_have_hw;
}

bool skyprof_perf_sw_available(void)
{
	return skyprof_have_sw;
}

int skyprof_perf_start_cpu(struct skyprof_pcpu *pc)
{
	struct skyprof_session *s = pc->s;
	struct perf_event *ev;

	ev = skyprof_perf_create(s->clock_used == SKYPROF_CLOCK_PERF_HW, pc->cpu, s->cfg.freq,
				 s->period_ns, pc);
	if (IS_ERR(ev))
		return PTR_ERR(ev);
	pc->event = ev;
	pc->armed = true;
	return 0;
}

void skyprof_perf_stop_cpu(struct skyprof_pcpu *pc)
{
	if (!pc->event)
		return;
	/* Waits for a running handler (IPI to the event's CPU); sleeps. */
	perf_event_release_kernel(pc->event);
	pc->event = NULL;
	pc->armed = false;
}
#else /* !CONFIG_PERF_EVENTS: the hrtimer source serves alone. */
void skyprof_perf_init(void)
{
}

bool skyprof_perf_hw_available(void)
{
	return false;
}

bool skyprof_perf_sw_available(void)
{
	return false;
}

int skyprof_perf_start_cpu(struct skyprof_pcpu *pc)
{
	return -EOPNOTSUPP;
}

void skyprof_perf_stop_cpu(struct skyprof_pcpu *pc)
{
}
#endif

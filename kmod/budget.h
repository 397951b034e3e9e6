/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Per-CPU time budget, in the spirit of perf_cpu_time_max_percent: the
 * handler's own time is summed over a fixed window; once it exceeds the
 * session's share of the window, further ticks in that window are skipped
 * (and counted as THROTTLED) rather than letting sampling wedge the CPU.
 * The source itself is never disabled from its handler (that path deadlocks
 * the cpu-clock hrtimer on 6.16/6.17 kernels).
 *
 * Only the handler on the owning CPU touches a budget: no locking. Inline:
 * it runs twice per sample, on the per-sample hot path, where a call's
 * overhead would be paid at every tick.
 */
#ifndef SKYPROF_BUDGET_H
#define SKYPROF_BUDGET_H

#include <linux/compiler.h>
#include <linux/time64.h>
#include <linux/types.h>

struct skyprof_budget {
	u64 window_start;
	u64 used_ns;
	u64 limit_ns;			/* per window */
	bool over;			/* the current window is exhausted */
};

#define SKYPROF_BUDGET_WINDOW_NS	(100 * NSEC_PER_MSEC)

static inline void skyprof_budget_init(struct skyprof_budget *b, u32 pct)
{
	b->window_start = 0;
	b->used_ns = 0;
	b->limit_ns = SKYPROF_BUDGET_WINDOW_NS / 100 * pct;
	b->over = false;
}

/* May this tick run? Opens a new window when the current one is over. */
static __always_inline bool skyprof_budget_allow(struct skyprof_budget *b, u64 now)
{
	if (now - b->window_start >= SKYPROF_BUDGET_WINDOW_NS) {
		b->window_start = now;
		b->used_ns = 0;
		b->over = false;
	}
	return !b->over;
}

/* Charges ns of handler time; true when this exhausts the window's budget. */
static __always_inline bool skyprof_budget_charge(struct skyprof_budget *b, u64 ns)
{
	b->used_ns += ns;
	if (b->over || b->used_ns <= b->limit_ns)
		return false;
	b->over = true;
	return true;
}

#endif

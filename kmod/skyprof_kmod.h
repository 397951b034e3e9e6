/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Internal interfaces between the files of skyprof.ko. One concept per file:
 *   module.c          init/exit order
 *   genl.c            the generic netlink family (the whole control contract)
 *   session.c         session table, lifetime, CPU hotplug, owner tracking,
 *                     the events it announces (genl.c multicasts them)
 *   ring.c, ring.h    per-CPU mmap'ed rings (producer side; per-record
 *                     reserve and commit inline in ring.h)
 *   sample.c          the sample handler shared by every source
 *   filter.c          target selection (tgids, cgroup, kernel threads, idle)
 *   budget.h          per-CPU time budget (throttling), inline
 *   source_perf.c     perf_event kernel counters (hw cycles, sw cpu-clock)
 *   source_hrtimer.c  per-CPU pinned hard hrtimers
 *   offcpu.c          off-CPU mode: sched_switch probes, table of blocked tasks
 *   sideband.c        the address spaces sampled: noted by samples, their
 *                     executable mappings written into the ring
 *   follow.c, follow.h following forks: fork/exit probes, table of processes
 *                     (its lookup inline in follow.h, for the filter)
 *   unwind_kernel.c   kernel stacks through the arch unwinder
 *   unwind_user.c     user regs, frame-pointer walk, raw user-stack copy
 *   chardev.c         /dev/skyprof: bind, mmap, poll
 */
#ifndef SKYPROF_KMOD_H
#define SKYPROF_KMOD_H

#include <linux/types.h>
#include <linux/bitops.h>
#include <linux/hrtimer.h>
#include <linux/irq_work.h>
#include <linux/kref.h>
#include <linux/mutex.h>
#include <linux/netlink.h>
#include <linux/sched.h>
#include <linux/wait.h>
#include <linux/workqueue.h>

#include <skyprof.h>
#include "compat/compat.h"
#include "budget.h"
#include "ring.h"

struct cgroup;
struct perf_event;
struct pt_regs;
struct task_struct;

/* ---- session.c --------------------------------------------------------- */

struct skyprof_cpu_stats {
	u64 samples;
	u64 drops;
	u64 unwind_errors;
	u64 handler_ns;
	u64 handler_max_ns;
	u64 throttled;
	u64 filtered;
	u64 nested;
	u64 missed;
	u64 offcpu_short;
	u64 offcpu_full;
	u64 sb_noted;
	u64 sb_full;
	u64 sb_reports;
	u64 sb_records;
	u64 sb_lost;
	u64 sb_walk_ns;
	u64 sb_throttled;
	u64 follow_added;
	u64 follow_full;
};

/* Bits of skyprof_pcpu.pending, set by the handler, consumed by irq_work. */
#define SKYPROF_PEND_WATERMARK	0
#define SKYPROF_PEND_THROTTLED	1
#define SKYPROF_PEND_SIDEBAND	2

/*
 * Per session, per CPU. Everything but the stats is touched only by code
 * running on that CPU (the source's handler, the cpuhp callbacks, which run
 * on the CPU concerned) or after the source is torn down.
 */
struct skyprof_pcpu {
	struct skyprof_session *s;
	unsigned int cpu;
	int busy;			/* nesting guard of the handler */
	bool armed;			/* source running on this CPU */
	struct perf_event *event;
	struct hrtimer timer;
	struct skyprof_ring *ring;
	void *scratch;			/* one record under construction */
	struct skyprof_budget budget;
	struct skyprof_cpu_stats st;	/* written by this CPU, read with READ_ONCE */
	unsigned long pending;		/* SKYPROF_PEND_* */
	struct irq_work work;		/* wakeups out of NMI/hardirq */
};

struct skyprof_config {
	u32 mode;
	u32 clock;
	u32 freq;
	u32 flags;
	u32 max_depth;
	u32 ustack_bytes;
	u32 ring_pages;
	u32 watermark_pct;
	u32 budget_pct;
	u64 offcpu_min_ns;
	u32 offcpu_entries;
	u32 sideband_entries;
	u32 follow_entries;
	u32 *tgids;			/* sorted, unique; owned by the config */
	u32 nr_tgids;
	u32 *tids;			/* sorted, unique; owned by the config */
	u32 nr_tids;
	unsigned long *cpus;		/* nr_cpu_ids bits; NULL: every CPU */
	char *cgroup_path;		/* owned by the config */
};

void skyprof_config_free(struct skyprof_config *cfg);

/* CPU cpu is one the session samples on. */
static inline bool skyprof_config_cpu(const struct skyprof_config *cfg, unsigned int cpu)
{
	return !cfg->cpus || test_bit(cpu, cfg->cpus);
}

struct skyprof_session {
	u32 id;
	u64 token;
	u32 portid;			/* owning netlink socket */
	u32 owner_pid;			/* tgid that started it (init pid ns) */
	struct skyprof_config cfg;
	u32 clock_used;
	u64 period_ns;
	u32 max_rec;			/* worst-case record size */
	struct cgroup *cgrp;		/* target cgroup, referenced */
	bool running;			/* READ_ONCE in handlers */
	bool starting;			/* cpuhp callbacks may fail the start */
	bool ending;			/* under skyprof_sessions_lock */
	u32 end_reason;
	struct hlist_node cpuhp_node;
	struct skyprof_pcpu __percpu *pcpu;
	struct skyprof_offcpu *off;	/* off-CPU mode only */
	struct skyprof_sideband *sb;	/* SKYPROF_F_SIDEBAND only */
	struct skyprof_follow *follow;	/* SKYPROF_F_FOLLOW_FORKS only */
	u32 sample_version;		/* of its samples: SKYPROF_SAMPLE_VERSION(_AS) */
	struct skyprof_rings *rings;
	unsigned long *wm_cpus;		/* CPUs whose watermark event is due */
	unsigned long *thr_cpus;	/* CPUs whose throttle event is due */
	struct work_struct event_work;	/* multicasts wm/throttle events */
	struct work_struct end_work;	/* teardown after the owner closed */
};

struct skyprof_start_reply {
	u32 id;
	u64 token;
	u32 clock_used;
	u64 data_size;
};

int skyprof_sessions_init(void);
void skyprof_sessions_end_all(void);
void skyprof_sessions_exit(void);
/*
 * The one listener of the sessions' events (SKYPROF_EVENT_*), NULL for none:
 * set before anything can start a session, cleared after every session
 * ended. fn runs in process context, for SESSION_ENDED with
 * skyprof_sessions_mutex held; cpu is -1 where no CPU is concerned.
 */
void skyprof_sessions_set_announce(void (*fn)(u32 event, u32 session_id, u32 reason, int cpu));
int skyprof_session_start(struct skyprof_config *cfg, u32 portid,
			  struct netlink_ext_ack *extack, struct skyprof_start_reply *reply);
int skyprof_session_stop(u32 id, u32 portid, struct netlink_ext_ack *extack);
unsigned int skyprof_sessions_active(void);
struct skyprof_rings *skyprof_session_bind(u32 id, u64 token);
extern struct mutex skyprof_sessions_mutex;
struct skyprof_session *skyprof_session_find(u32 id);	/* mutex held */
void skyprof_session_read_stats(struct skyprof_session *s, unsigned int cpu,
				struct skyprof_cpu_stats *out);
u32 skyprof_record_max(const struct skyprof_config *cfg);
/* Calls fn for every session (mutex held); stops at a nonzero return. */
int skyprof_sessions_for_each(int (*fn)(struct skyprof_session *s, void *arg), void *arg);

/* ---- sample.c ---------------------------------------------------------- */

void skyprof_sample(struct skyprof_pcpu *pc, struct pt_regs *regs);

/* ---- filter.c ---------------------------------------------------------- */

int skyprof_filter_setup(struct skyprof_session *s, struct netlink_ext_ack *extack);
void skyprof_filter_release(struct skyprof_session *s);
bool skyprof_filter_match_targets(struct skyprof_session *s, struct task_struct *task);
bool skyprof_filter_match_tgid(struct skyprof_session *s, u32 tgid);

/*
 * Is task a target of s? Inline for the tick path: the common case (every
 * task) is the idle and kernel-thread tests; the tgid list and the cgroup
 * are in filter.c.
 */
static __always_inline bool skyprof_filter_match(struct skyprof_session *s,
						 struct task_struct *task)
{
	if (is_idle_task(task))
		return false;
	if ((task->flags & PF_KTHREAD) && !(s->cfg.flags & SKYPROF_F_KTHREADS))
		return false;
	if (!s->cfg.nr_tgids && !s->cfg.nr_tids && !s->cgrp)
		return true;
	return skyprof_filter_match_targets(s, task);
}

bool skyprof_filter_cgroup_supported(void);

/* ---- sources ----------------------------------------------------------- */

bool skyprof_perf_hw_available(void);
bool skyprof_perf_sw_available(void);
int skyprof_perf_start_cpu(struct skyprof_pcpu *pc);
void skyprof_perf_stop_cpu(struct skyprof_pcpu *pc);
void skyprof_perf_init(void);

int skyprof_hrtimer_start_cpu(struct skyprof_pcpu *pc);
void skyprof_hrtimer_stop_cpu(struct skyprof_pcpu *pc);

/* ---- offcpu.c ---------------------------------------------------------- */

struct skyprof_offcpu;

struct skyprof_offcpu_stats {
	u32 entries;			/* table slots */
	u32 used;			/* slots holding a switched-out task */
	u64 exited;			/* slots freed by the exit of their task */
};

void skyprof_offcpu_init(void);
bool skyprof_offcpu_available(void);
u64 skyprof_offcpu_bytes(void);
int skyprof_offcpu_alloc(struct skyprof_session *s);
void skyprof_offcpu_free(struct skyprof_session *s);
int skyprof_offcpu_start(struct skyprof_session *s);
void skyprof_offcpu_stop(struct skyprof_session *s);
void skyprof_offcpu_exit(void);
void skyprof_offcpu_read_stats(struct skyprof_session *s, struct skyprof_offcpu_stats *out);

/* ---- sideband.c --------------------------------------------------------- */

struct skyprof_sideband;

struct skyprof_sideband_stats {
	u32 entries;			/* table slots */
	u32 used;			/* slots holding an address space */
	u32 pinned;			/* of them, kept alive until reported */
};

u64 skyprof_sideband_bytes(void);
int skyprof_sideband_alloc(struct skyprof_session *s);
void skyprof_sideband_stop(struct skyprof_session *s);
void skyprof_sideband_free(struct skyprof_session *s);
u64 skyprof_sideband_note(struct skyprof_pcpu *pc, struct task_struct *task, u64 now);
void skyprof_sideband_kick(struct skyprof_session *s);
void skyprof_sideband_read_stats(struct skyprof_session *s, struct skyprof_sideband_stats *out);

/* ---- follow.c ----------------------------------------------------------- */

struct skyprof_follow;

void skyprof_follow_init(void);
bool skyprof_follow_available(void);
u64 skyprof_follow_bytes(void);
int skyprof_follow_alloc(struct skyprof_session *s);
void skyprof_follow_free(struct skyprof_session *s);
int skyprof_follow_start(struct skyprof_session *s);
void skyprof_follow_stop(struct skyprof_session *s);
void skyprof_follow_exit(void);
u32 skyprof_follow_used(struct skyprof_session *s);

/* ---- unwinding --------------------------------------------------------- */

/* A kernel stack: how many ips, and whether the unwinder reported an error. */
struct skyprof_kstack {
	unsigned int n;
	bool err;
};

struct skyprof_kstack skyprof_unwind_kernel(struct pt_regs *regs, u64 *ips, unsigned int max,
					    u32 *flags);
struct skyprof_kstack skyprof_unwind_kernel_current(void *first_frame, u64 *ips,
						    unsigned int max, u32 *flags);
struct pt_regs *skyprof_user_regs(struct pt_regs *regs);
unsigned int skyprof_unwind_user(struct pt_regs *uregs, u64 *ips, unsigned int max,
				 u32 *flags);
bool skyprof_fill_user_regs(struct skyprof_user_regs *out, struct pt_regs *uregs);
u32 skyprof_copy_ustack(struct pt_regs *uregs, void *dst, u32 bytes);

/* ---- genl.c ------------------------------------------------------------ */

int skyprof_genl_init(void);
void skyprof_genl_exit(void);

/* ---- chardev.c --------------------------------------------------------- */

int skyprof_chardev_init(void);
void skyprof_chardev_exit(void);

#endif /* SKYPROF_KMOD_H */

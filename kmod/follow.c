// SPDX-License-Identifier: GPL-2.0
/*
 * Following forks (SKYPROF_F_FOLLOW_FORKS): the processes that a session's
 * TARGET_TGIDS processes fork, and those that they fork, at any depth,
 * become targets as they are forked, as perf's inherited events do. A
 * process that leaves its parent (a double fork, a daemon) stays followed:
 * what counts is who forked it, not who its parent is now.
 *
 * One pair of probes serves every following session, on the scheduler's
 * sched_process_fork (in the parent, after copy_process(), before the
 * child first runs: the child cannot be sampled before it is followed) and
 * sched_process_exit (the last thread of a followed process leaves the
 * table, so its pid, once reused, is not followed by mistake). Both run with
 * preemption off: no locks, no allocation.
 *
 * The table: nr slots (a power of two) of tgids, 0 free, TOMB left by an
 * exit; a tgid's slot is one of the window slots following hash(tgid).
 * Fork claims the first free or tombstone slot with cmpxchg; lookup (the
 * sample path, any context) and exit scan the whole window. A tgid is
 * inserted once (at its fork) and removed once (at its exit), which the
 * scheduler orders, so no tgid is ever in two slots. A full window is
 * counted (SKYPROF_STAT_FOLLOW_FULL) and the process goes unfollowed.
 *
 * Sessions: the probes walk an RCU-published array of the following
 * sessions (sched-RCU readers); a session leaves it at its end, and
 * tracepoint_synchronize_unregister() waits out the probes that may still
 * see it before its table is freed. The probes stay registered for a while
 * after the last such session, as the off-CPU ones do (offcpu.c says why).
 */
#include <linux/atomic.h>
#include <linux/hash.h>
#include <linux/log2.h>
#include <linux/rcupdate.h>
#include <linux/sched.h>
#include <linux/slab.h>
#include <linux/vmalloc.h>

#include "follow.h"
#include "skyprof_kmod.h"

#ifdef SKYPROF_FOLLOW
#include <linux/mm_types.h>	/* before the sched events: 6.12 needs struct folio */
#include <trace/events/sched.h>
#endif

/* Every kernel with tracepoints should follow forks: say so when a probe failed. */
#if !defined(SKYPROF_FOLLOW) && defined(CONFIG_TRACEPOINTS)
#warning "skyprof: cannot follow forks: a sched tracepoint probe failed (kmod/compat/.probes/)"
#endif

#define SKYPROF_FOLLOW_WINDOW	32

static atomic64_t skyprof_follow_mem = ATOMIC64_INIT(0);

u64 skyprof_follow_bytes(void)
{
	return atomic64_read(&skyprof_follow_mem);
}

#ifdef SKYPROF_FOLLOW

static bool skyprof_follow_add(struct skyprof_follow *t, u32 tgid)
{
	u32 h = hash_32(tgid, t->bits), i, k, old;

	for (i = 0; i < t->window; i++) {
		k = (h + i) & (t->nr - 1);
		old = READ_ONCE(t->tgid[k]);
		if ((old == 0 || old == SKYPROF_FOLLOW_TOMB) &&
		    cmpxchg(&t->tgid[k], old, tgid) == old) {
			atomic_inc(&t->used);
			return true;
		}
	}
	return false;
}

static void skyprof_follow_remove(struct skyprof_follow *t, u32 tgid)
{
	u32 h = hash_32(tgid, t->bits), i, k;

	for (i = 0; i < t->window; i++) {
		k = (h + i) & (t->nr - 1);
		if (READ_ONCE(t->tgid[k]) == tgid &&
		    cmpxchg(&t->tgid[k], tgid, SKYPROF_FOLLOW_TOMB) == tgid)
			atomic_dec(&t->used);
	}
}

enum { SKYPROF_TP_FORK, SKYPROF_TP_EXIT };
static struct skyprof_tracepoint skyprof_follow_tps[] = {
	[SKYPROF_TP_FORK] = { .name = "sched_process_fork" },
	[SKYPROF_TP_EXIT] = { .name = "sched_process_exit" },
	{ }
};

#define SKYPROF_FOLLOW_LINGER	(10 * HZ)

/* Written under skyprof_sessions_mutex, read by the probes (sched-RCU). */
static struct skyprof_session __rcu *skyprof_follow_sessions[SKYPROF_MAX_SESSIONS];
static int skyprof_follow_nr;			/* READ_ONCE in the probes */
static bool skyprof_follow_registered;		/* skyprof_sessions_mutex */
static void skyprof_follow_linger_work(struct work_struct *work);
static DECLARE_DELAYED_WORK(skyprof_follow_linger, skyprof_follow_linger_work);

void skyprof_follow_init(void)
{
	skyprof_tracepoints_find(skyprof_follow_tps);
}

bool skyprof_follow_available(void)
{
	return skyprof_tracepoint_found(&skyprof_follow_tps[SKYPROF_TP_FORK]) &&
	       skyprof_tracepoint_found(&skyprof_follow_tps[SKYPROF_TP_EXIT]);
}

/* In the parent, preemption off. */
static void skyprof_follow_fork_probe(void *data, struct task_struct *parent,
				      struct task_struct *child)
{
	struct skyprof_session *s;
	unsigned int i;

	/* A thread joins its process, which is followed or not already. */
	if (!READ_ONCE(skyprof_follow_nr) || child->tgid == parent->tgid)
		return;
	for (i = 0; i < SKYPROF_MAX_SESSIONS; i++) {
		s = rcu_dereference_sched(skyprof_follow_sessions[i]);
		if (!s || !READ_ONCE(s->running) || !skyprof_filter_match_tgid(s, parent->tgid))
			continue;
		if (skyprof_follow_add(s->follow, child->tgid))
			this_cpu_ptr(s->pcpu)->st.follow_added++;
		else
			this_cpu_ptr(s->pcpu)->st.follow_full++;
	}
}

/* Task context of the exiting task, preemption off, after exit_mm(). */
static void skyprof_follow_task_exit(void *data, struct task_struct *p)
{
	struct skyprof_session *s;
	unsigned int i;

	/* Threads leave before the last one, which takes the process along. */
	if (!READ_ONCE(skyprof_follow_nr) || atomic_read(&p->signal->live))
		return;
	for (i = 0; i < SKYPROF_MAX_SESSIONS; i++) {
		s = rcu_dereference_sched(skyprof_follow_sessions[i]);
		if (s)
			skyprof_follow_remove(s->follow, p->tgid);
	}
}

SKYPROF_SCHED_EXIT_PROBE(skyprof_follow_exit_probe, skyprof_follow_task_exit)

static inline void skyprof_follow_check_types(void)
{
	check_trace_callback_type_sched_process_fork(skyprof_follow_fork_probe);
	check_trace_callback_type_sched_process_exit(skyprof_follow_exit_probe);
}

static int skyprof_follow_register(void)
{
	int ret;

	lockdep_assert_held(&skyprof_sessions_mutex);
	if (skyprof_follow_registered)
		return 0;
	ret = skyprof_tracepoint_register(&skyprof_follow_tps[SKYPROF_TP_EXIT],
					  skyprof_follow_exit_probe);
	if (ret)
		return ret;
	ret = skyprof_tracepoint_register(&skyprof_follow_tps[SKYPROF_TP_FORK],
					  skyprof_follow_fork_probe);
	if (ret) {
		skyprof_tracepoint_unregister(&skyprof_follow_tps[SKYPROF_TP_EXIT],
					      skyprof_follow_exit_probe);
		tracepoint_synchronize_unregister();
		return ret;
	}
	skyprof_follow_registered = true;
	return 0;
}

static void skyprof_follow_unregister(void)
{
	lockdep_assert_held(&skyprof_sessions_mutex);
	if (!skyprof_follow_registered)
		return;
	skyprof_tracepoint_unregister(&skyprof_follow_tps[SKYPROF_TP_FORK],
				      skyprof_follow_fork_probe);
	skyprof_tracepoint_unregister(&skyprof_follow_tps[SKYPROF_TP_EXIT],
				      skyprof_follow_exit_probe);
	skyprof_follow_registered = false;
	tracepoint_synchronize_unregister();
}

static void skyprof_follow_linger_work(struct work_struct *work)
{
	mutex_lock(&skyprof_sessions_mutex);
	if (!skyprof_follow_nr)
		skyprof_follow_unregister();
	mutex_unlock(&skyprof_sessions_mutex);
}

/* Process context, skyprof_sessions_mutex held; s->follow allocated. */
int skyprof_follow_start(struct skyprof_session *s)
{
	unsigned int i;
	int ret;

	skyprof_follow_check_types();
	if (!skyprof_follow_available())
		return -EOPNOTSUPP;
	ret = skyprof_follow_register();
	if (ret)
		return ret;
	for (i = 0; i < SKYPROF_MAX_SESSIONS; i++) {
		if (!rcu_access_pointer(skyprof_follow_sessions[i])) {
			/* The table before the pointer: pairs with rcu_dereference_sched(). */
			rcu_assign_pointer(skyprof_follow_sessions[i], s);
			WRITE_ONCE(skyprof_follow_nr, skyprof_follow_nr + 1);
			return 0;
		}
	}
	return -EBUSY;
}

/* Process context, skyprof_sessions_mutex held: no probe sees s after it. */
void skyprof_follow_stop(struct skyprof_session *s)
{
	bool found = false;
	unsigned int i;

	lockdep_assert_held(&skyprof_sessions_mutex);
	for (i = 0; i < SKYPROF_MAX_SESSIONS; i++) {
		if (rcu_access_pointer(skyprof_follow_sessions[i]) == s) {
			RCU_INIT_POINTER(skyprof_follow_sessions[i], NULL);
			WRITE_ONCE(skyprof_follow_nr, skyprof_follow_nr - 1);
			found = true;
		}
	}
	if (!found)
		return;
	tracepoint_synchronize_unregister();
	if (!skyprof_follow_nr)
		schedule_delayed_work(&skyprof_follow_linger, SKYPROF_FOLLOW_LINGER);
}

/* Module unload, after every session ended. */
void skyprof_follow_exit(void)
{
	cancel_delayed_work_sync(&skyprof_follow_linger);
	mutex_lock(&skyprof_sessions_mutex);
	skyprof_follow_unregister();
	mutex_unlock(&skyprof_sessions_mutex);
}

#else /* !SKYPROF_FOLLOW */

void skyprof_follow_init(void)
{
}

bool skyprof_follow_available(void)
{
	return false;
}

int skyprof_follow_start(struct skyprof_session *s)
{
	return -EOPNOTSUPP;
}

void skyprof_follow_stop(struct skyprof_session *s)
{
}

void skyprof_follow_exit(void)
{
}

#endif /* SKYPROF_FOLLOW */

/* Process context: the table for s->cfg.follow_entries. */
int skyprof_follow_alloc(struct skyprof_session *s)
{
	struct skyprof_follow *t;
	u32 nr = s->cfg.follow_entries;

	t = kzalloc(sizeof(*t), GFP_KERNEL);
	if (!t)
		return -ENOMEM;
	t->nr = nr;
	t->bits = ilog2(nr);
	t->window = min_t(u32, nr, SKYPROF_FOLLOW_WINDOW);
	atomic_set(&t->used, 0);
	t->tgid = vzalloc(array_size(nr, sizeof(*t->tgid)));
	if (!t->tgid) {
		kfree(t);
		return -ENOMEM;
	}
	t->bytes = (u64)nr * sizeof(*t->tgid);
	atomic64_add(t->bytes, &skyprof_follow_mem);
	s->follow = t;
	return 0;
}

/* After skyprof_follow_stop(), or when the probes never saw s. */
void skyprof_follow_free(struct skyprof_session *s)
{
	struct skyprof_follow *t = s->follow;

	if (!t)
		return;
	vfree(t->tgid);
	atomic64_sub(t->bytes, &skyprof_follow_mem);
	kfree(t);
	s->follow = NULL;
}

u32 skyprof_follow_used(struct skyprof_session *s)
{
	return s->follow ? atomic_read(&s->follow->used) : 0;
}

// SPDX-License-Identifier: GPL-2.0
/*
 * Off-CPU mode: where target tasks wait, weighted by how long.
 *
 * One pair of probes serves every off-CPU session, on two scheduler
 * tracepoints (found with for_each_kernel_tracepoint(), or named where the
 * kernel registers by name):
 *  - sched_switch: when a target task is switched out blocked (its state is
 *    not TASK_RUNNING and it was not preempted; with F_OFFCPU_PREEMPT any
 *    switch-out), a slot of the session's table takes the time, the task's
 *    identity and its kernel and user stacks; when a task with a slot is
 *    switched in, one sample (weight = ns off-CPU) goes to the ring of the
 *    CPU it runs on and the slot is freed;
 *  - sched_process_exit: frees whatever slot the exiting task still holds
 *    (none in the normal course: a task only exits running, and its last
 *    switch-out, TASK_DEAD, is not tracked).
 *
 * The sched_switch probe runs inside __schedule() with the runqueue lock
 * held and interrupts off: no locks of any kind, no
 * allocation, no wakeups (the watermark goes through irq_work as in
 * sample.c), user memory only through the nofault copy. The table is
 * preallocated at session start.
 *
 * The table: nr slots (a power of two), an owner array of task pointers and
 * a parallel array of entries. A task's slot is one of the window slots
 * following hash(task). Switch-out claims the first free one with cmpxchg
 * (NULL -> task): claims on different CPUs never get the same slot. Lookup
 * and exit scan the whole window for their task (there are no tombstones;
 * the window bounds every scan). Only the owning task's own switch-out,
 * switch-in and exit touch a claimed slot, and the scheduler orders those:
 * a task switched out on one CPU is switched in on another only after the
 * first CPU finished switching it out (p->on_cpu, released in
 * finish_task_switch() and acquired by try_to_wake_up()), so the entry
 * written at switch-out is visible at switch-in without further barriers.
 * Freeing a slot is a release store of NULL, after the entry was read, so
 * the next claimer (cmpxchg: a full barrier) cannot overwrite it early.
 *
 * Sessions: the probes walk an RCU-published array of the running off-CPU
 * sessions (they run with preemption off: sched-RCU readers). A session
 * leaves the array at its end, and tracepoint_synchronize_unregister()
 * waits for every probe that may still see it before its table is freed;
 * slots of tasks still blocked then just go with it.
 *
 * Registration: the probes are registered when the first off-CPU session
 * starts and stay registered until no off-CPU session has run for
 * SKYPROF_OFFCPU_LINGER, or the module unloads. Every registration and
 * unregistration patches the scheduler's text (the tracepoint's static key
 * and static call); session start/stop cycles should not: rapid cycling
 * (as the genl fuzzer does) would patch __schedule over and over while
 * other CPUs run it, and a CPU has been seen to execute a stale int3 of
 * such a patch there (an oops under QEMU TCG).
 */
#include <linux/atomic.h>
#include <linux/hash.h>
#include <linux/log2.h>
#include <linux/ptrace.h>
#include <linux/rcupdate.h>
#include <linux/sched.h>
#include <linux/slab.h>
#include <linux/string.h>
#include <linux/tracepoint.h>
#include <linux/vmalloc.h>
#include <linux/workqueue.h>

#include "sample_fixed.h"
#include "skyprof_kmod.h"

#ifdef SKYPROF_OFFCPU
#include <linux/mm_types.h>	/* before the sched events: 6.12 needs struct folio */
#include <trace/events/sched.h>
#endif

/*
 * Every kernel with tracepoints should get here with SKYPROF_OFFCPU: say so
 * when a compile probe failed instead of quietly building without the mode
 * (the matrix build treats warnings as errors).
 */
#if !defined(SKYPROF_OFFCPU) && defined(CONFIG_TRACEPOINTS)
#warning "skyprof: no off-CPU mode: a sched tracepoint probe failed (kmod/compat/.probes/)"
#endif

/* Slots scanned per claim, lookup or exit (at most the table size). */
#define SKYPROF_OFFCPU_WINDOW	32

/* What a switch-out leaves for the switch-in. */
struct skyprof_offcpu_entry {
	u64 t_out;
	u64 cgroup_id;
	u64 as_id;			/* SKYPROF_F_SIDEBAND */
	u32 tgid;
	u32 tid;
	u32 flags;			/* SKYPROF_SF_* */
	u16 nr_kernel;
	u16 nr_user;
	char comm[TASK_COMM_LEN];
	u64 ips[];			/* kernel ips, then user ips */
};

struct skyprof_offcpu {
	struct task_struct **owner;	/* nr slots; NULL = free */
	void *entries;			/* nr * entry_size bytes */
	u32 nr;
	u32 bits;			/* log2(nr) */
	u32 window;
	u32 entry_size;
	u64 bytes;			/* both arrays, for SKYPROF_A_OFFCPU_BYTES */
	atomic_t used;
	atomic64_t exited;
};

/* Off-CPU table memory of every session (GET_INFO SKYPROF_A_OFFCPU_BYTES). */
static atomic64_t skyprof_offcpu_mem = ATOMIC64_INIT(0);

u64 skyprof_offcpu_bytes(void)
{
	return atomic64_read(&skyprof_offcpu_mem);
}

#ifdef SKYPROF_OFFCPU

static inline struct skyprof_offcpu_entry *skyprof_offcpu_entry(struct skyprof_offcpu *t, u32 k)
{
	return t->entries + (size_t)k * t->entry_size;
}

/* Claims a free slot of task's window; -1 when all are taken. */
static int skyprof_offcpu_claim(struct skyprof_offcpu *t, struct task_struct *task)
{
	u32 h = hash_ptr(task, t->bits), i, k;

	for (i = 0; i < t->window; i++) {
		k = (h + i) & (t->nr - 1);
		if (!READ_ONCE(t->owner[k]) && !cmpxchg(&t->owner[k], NULL, task)) {
			atomic_inc(&t->used);
			return k;
		}
	}
	return -1;
}

/* The slot task holds, or -1. */
static int skyprof_offcpu_find(struct skyprof_offcpu *t, struct task_struct *task)
{
	u32 h = hash_ptr(task, t->bits), i, k;

	for (i = 0; i < t->window; i++) {
		k = (h + i) & (t->nr - 1);
		if (READ_ONCE(t->owner[k]) == task)
			return k;
	}
	return -1;
}

/* The entry of slot k has been read: the slot may be claimed again. */
static void skyprof_offcpu_release(struct skyprof_offcpu *t, u32 k)
{
	/* Pairs with the cmpxchg of the next claimer. */
	smp_store_release(&t->owner[k], NULL);
	atomic_dec(&t->used);
}

/* The two tracepoints, looked up at module init. */
enum { SKYPROF_TP_SWITCH, SKYPROF_TP_EXIT };
static struct skyprof_tracepoint skyprof_tps[] = {
	[SKYPROF_TP_SWITCH] = { .name = "sched_switch" },
	[SKYPROF_TP_EXIT] = { .name = "sched_process_exit" },
	{ }
};

/* How long the probes stay registered after the last off-CPU session. */
#define SKYPROF_OFFCPU_LINGER	(10 * HZ)

/*
 * The running off-CPU sessions. Written under skyprof_sessions_mutex,
 * read by the probes (sched-RCU: preemption is off in every probe).
 */
static struct skyprof_session __rcu *skyprof_offcpu_sessions[SKYPROF_MAX_SESSIONS];
static int skyprof_offcpu_nr;			/* READ_ONCE in the probes */
static bool skyprof_offcpu_registered;		/* skyprof_sessions_mutex */
static void skyprof_offcpu_linger_work(struct work_struct *work);
static DECLARE_DELAYED_WORK(skyprof_offcpu_linger, skyprof_offcpu_linger_work);

void skyprof_offcpu_init(void)
{
	skyprof_tracepoints_find(skyprof_tps);
}

bool skyprof_offcpu_available(void)
{
	return skyprof_tracepoint_found(&skyprof_tps[SKYPROF_TP_SWITCH]) &&
	       skyprof_tracepoint_found(&skyprof_tps[SKYPROF_TP_EXIT]);
}

/* prev (== current) is switched out blocked: remember where and when. */
static void skyprof_offcpu_out(struct skyprof_pcpu *pc, struct task_struct *prev, void *frame,
			       u64 now)
{
	struct skyprof_session *s = pc->s;
	struct skyprof_offcpu *t = s->off;
	struct skyprof_offcpu_entry *e;
	struct pt_regs *uregs = NULL;
	struct skyprof_kstack ks = { 0, false };
	unsigned int nu = 0;
	int k;

	k = skyprof_offcpu_claim(t, prev);
	if (k < 0) {
		pc->st.offcpu_full++;
		return;
	}
	e = skyprof_offcpu_entry(t, k);
	/* Every field is set below: no memset (see sample_fixed.h). */
	/*
	 * Off-CPU from the switch on, as the task sees it: the capture below
	 * is part of being switched out.
	 */
	e->t_out = now;
	e->as_id = s->sb ? skyprof_sideband_note(pc, prev, now) : 0;
	e->tgid = prev->tgid;
	e->tid = prev->pid;
	e->flags = SKYPROF_SF_OFFCPU | SKYPROF_SF_IN_KERNEL;
	if (prev->flags & PF_KTHREAD)
		e->flags |= SKYPROF_SF_KTHREAD;
	skyprof_copy_comm(e->comm, prev->comm);
	rcu_read_lock();
	e->cgroup_id = skyprof_task_cgroup_id(prev);
	rcu_read_unlock();
	if (s->cfg.flags & SKYPROF_F_KERNEL_STACK)
		ks = skyprof_unwind_kernel_current(frame, e->ips, s->cfg.max_depth, &e->flags);
	if (s->cfg.flags & SKYPROF_F_USER_STACK)
		uregs = skyprof_user_regs(task_pt_regs(prev));
	if (uregs)
		nu = skyprof_unwind_user(uregs, e->ips + ks.n, s->cfg.max_depth, &e->flags);
	e->nr_kernel = ks.n;
	e->nr_user = nu;
	if (ks.err || (e->flags & SKYPROF_SF_USTACK_FAULT))
		pc->st.unwind_errors++;
}

/* next is switched in: if it has a slot, write its sample and free the slot. */
static void skyprof_offcpu_in(struct skyprof_pcpu *pc, struct task_struct *next, u64 now)
{
	struct skyprof_session *s = pc->s;
	struct skyprof_offcpu *t = s->off;
	struct skyprof_offcpu_entry *e;
	struct skyprof_sample *rec;
	u32 fixed = sizeof(*rec) + (s->sb ? sizeof(struct skyprof_sample_as) : 0);
	u64 blocked;
	u32 size;
	int k;

	k = skyprof_offcpu_find(t, next);
	if (k < 0)
		return;
	e = skyprof_offcpu_entry(t, k);
	blocked = now > e->t_out ? now - e->t_out : 0;
	if (blocked < s->cfg.offcpu_min_ns) {
		pc->st.offcpu_short++;
		goto out;
	}
	size = fixed + sizeof(u64) * (e->nr_kernel + e->nr_user);
	rec = skyprof_ring_reserve(pc->ring, size);
	if (!rec) {
		pc->st.drops++;
		skyprof_ring_lost(pc->ring);
		goto out;
	}
	/* Every byte of the record is written (sample_fixed.h): no memset. */
	skyprof_sample_fixed_check();
	rec->hdr.size = size;
	rec->hdr.type = SKYPROF_REC_SAMPLE;
	rec->hdr.version = s->sample_version;
	rec->time_ns = now;
	rec->weight = blocked;
	rec->cgroup_id = e->cgroup_id;
	rec->cpu = pc->cpu;
	rec->tgid = e->tgid;
	rec->tid = e->tid;
	rec->flags = e->flags;
	rec->nr_kernel = e->nr_kernel;
	rec->nr_user = e->nr_user;
	rec->ustack_size = 0;
	memcpy(rec->comm, e->comm, sizeof(rec->comm));
	if (s->sb)
		((struct skyprof_sample_as *)(rec + 1))->as_id = e->as_id;
	memcpy((u8 *)rec + fixed, e->ips, sizeof(u64) * (e->nr_kernel + e->nr_user));
	pc->st.samples++;
	if (skyprof_ring_commit(pc->ring, size)) {
		set_bit(SKYPROF_PEND_WATERMARK, &pc->pending);
		irq_work_queue(&pc->work);
	}
out:
	skyprof_offcpu_release(t, k);
}

/* next resumes where the session does not sample: free its slot unwritten. */
static void skyprof_offcpu_forget(struct skyprof_offcpu *t, struct task_struct *next)
{
	int k = skyprof_offcpu_find(t, next);

	if (k >= 0)
		skyprof_offcpu_release(t, k);
}

/* Tracked switch-outs: blocked ones, and preemptions when the session asks. */
static __always_inline bool skyprof_offcpu_tracked(struct skyprof_session *s, bool preempt,
						   unsigned int prev_state)
{
	if (prev_state & TASK_DEAD)
		return false;
	if (s->cfg.flags & SKYPROF_F_OFFCPU_PREEMPT)
		return true;
	return !preempt && prev_state != TASK_RUNNING;
}

static __always_inline void
skyprof_offcpu_session_switch(struct skyprof_session *s, bool preempt, struct task_struct *prev,
			      struct task_struct *next, unsigned int prev_state, void *frame)
{
	struct skyprof_pcpu *pc;
	bool in, out;
	u64 t0, dt;

	if (!READ_ONCE(s->running))
		return;
	/* Interrupts are off: this CPU's state is ours until we return. */
	pc = this_cpu_ptr(s->pcpu);
	if (!skyprof_config_cpu(&s->cfg, pc->cpu)) {
		/*
		 * Not one of the session's CPUs: nothing is captured or
		 * written here, but a task that blocked on one of them and
		 * resumes here gives its slot back.
		 */
		skyprof_offcpu_forget(s->off, next);
		return;
	}
	in = skyprof_filter_match(s, next);
	out = skyprof_offcpu_tracked(s, preempt, prev_state) && skyprof_filter_match(s, prev);
	if (!in && !out) {
		pc->st.filtered++;
		return;
	}
	t0 = skyprof_now_ns();
	if (in)
		skyprof_offcpu_in(pc, next, t0);
	if (out) {
		/* The budget only limits new captures: slots are always freed. */
		if (skyprof_budget_allow(&pc->budget, t0))
			skyprof_offcpu_out(pc, prev, frame, t0);
		else
			pc->st.throttled++;
	}
	dt = skyprof_since_ns(t0);
	pc->st.handler_ns += dt;
	if (dt > pc->st.handler_max_ns)
		pc->st.handler_max_ns = dt;
	if (skyprof_budget_charge(&pc->budget, dt)) {
		set_bit(SKYPROF_PEND_THROTTLED, &pc->pending);
		irq_work_queue(&pc->work);
	}
}

static __always_inline void skyprof_offcpu_switch(void *data, bool preempt,
						  struct task_struct *prev,
						  struct task_struct *next,
						  unsigned int prev_state, void *frame)
{
	struct skyprof_session *s;
	unsigned int i;

	if (!READ_ONCE(skyprof_offcpu_nr))
		return;
	for (i = 0; i < SKYPROF_MAX_SESSIONS; i++) {
		s = rcu_dereference_sched(skyprof_offcpu_sessions[i]);
		if (s)
			skyprof_offcpu_session_switch(s, preempt, prev, next, prev_state, frame);
	}
}

SKYPROF_SCHED_SWITCH_PROBE(skyprof_sched_switch_probe, skyprof_offcpu_switch)

/* Task context of the exiting task (p == current), preemption off. */
static void skyprof_offcpu_task_exit(void *data, struct task_struct *p)
{
	struct skyprof_session *s;
	struct skyprof_offcpu *t;
	unsigned int j;
	u32 h, i, k;

	if (!READ_ONCE(skyprof_offcpu_nr))
		return;
	for (j = 0; j < SKYPROF_MAX_SESSIONS; j++) {
		s = rcu_dereference_sched(skyprof_offcpu_sessions[j]);
		if (!s)
			continue;
		t = s->off;
		h = hash_ptr(p, t->bits);
		for (i = 0; i < t->window; i++) {
			k = (h + i) & (t->nr - 1);
			if (READ_ONCE(t->owner[k]) == p && cmpxchg(&t->owner[k], p, NULL) == p) {
				atomic_dec(&t->used);
				atomic64_inc(&t->exited);
			}
		}
	}
}

SKYPROF_SCHED_EXIT_PROBE(skyprof_sched_exit_probe, skyprof_offcpu_task_exit)

/* skyprof_sessions_mutex held. */
static int skyprof_offcpu_register(void)
{
	int ret;

	lockdep_assert_held(&skyprof_sessions_mutex);
	if (skyprof_offcpu_registered)
		return 0;
	ret = skyprof_tracepoint_register(&skyprof_tps[SKYPROF_TP_EXIT], skyprof_sched_exit_probe);
	if (ret)
		return ret;
	ret = skyprof_tracepoint_register(&skyprof_tps[SKYPROF_TP_SWITCH],
					  skyprof_sched_switch_probe);
	if (ret) {
		skyprof_tracepoint_unregister(&skyprof_tps[SKYPROF_TP_EXIT],
					      skyprof_sched_exit_probe);
		tracepoint_synchronize_unregister();
		return ret;
	}
	skyprof_offcpu_registered = true;
	return 0;
}

/* skyprof_sessions_mutex held; no off-CPU session left. */
static void skyprof_offcpu_unregister(void)
{
	lockdep_assert_held(&skyprof_sessions_mutex);
	if (!skyprof_offcpu_registered)
		return;
	skyprof_tracepoint_unregister(&skyprof_tps[SKYPROF_TP_SWITCH], skyprof_sched_switch_probe);
	skyprof_tracepoint_unregister(&skyprof_tps[SKYPROF_TP_EXIT], skyprof_sched_exit_probe);
	skyprof_offcpu_registered = false;
	/* No probe of this module runs anywhere after this. */
	tracepoint_synchronize_unregister();
}

static void skyprof_offcpu_linger_work(struct work_struct *work)
{
	mutex_lock(&skyprof_sessions_mutex);
	if (!skyprof_offcpu_nr)
		skyprof_offcpu_unregister();
	mutex_unlock(&skyprof_sessions_mutex);
}

/* Canaries: a prototype drift breaks the build here, not the kernel at run time. */
static inline void skyprof_offcpu_check_types(void)
{
	check_trace_callback_type_sched_switch(skyprof_sched_switch_probe);
	check_trace_callback_type_sched_process_exit(skyprof_sched_exit_probe);
}

/* Process context, skyprof_sessions_mutex held; s->off allocated. */
int skyprof_offcpu_start(struct skyprof_session *s)
{
	unsigned int i;
	int ret;

	skyprof_offcpu_check_types();
	if (!skyprof_offcpu_available())
		return -EOPNOTSUPP;
	lockdep_assert_held(&skyprof_sessions_mutex);
	ret = skyprof_offcpu_register();
	if (ret)
		return ret;
	for (i = 0; i < SKYPROF_MAX_SESSIONS; i++) {
		if (!rcu_access_pointer(skyprof_offcpu_sessions[i])) {
			/* The session and its table before the pointer: pairs with
			 * rcu_dereference_sched() in the probes.
			 */
			rcu_assign_pointer(skyprof_offcpu_sessions[i], s);
			WRITE_ONCE(skyprof_offcpu_nr, skyprof_offcpu_nr + 1);
			return 0;
		}
	}
	/* Cannot happen: at most SKYPROF_MAX_SESSIONS sessions exist. */
	return -EBUSY;
}

/*
 * Process context, skyprof_sessions_mutex held. After it returns no probe
 * looks at s anywhere.
 */
void skyprof_offcpu_stop(struct skyprof_session *s)
{
	bool found = false;
	unsigned int i;

	lockdep_assert_held(&skyprof_sessions_mutex);
	for (i = 0; i < SKYPROF_MAX_SESSIONS; i++) {
		if (rcu_access_pointer(skyprof_offcpu_sessions[i]) == s) {
			RCU_INIT_POINTER(skyprof_offcpu_sessions[i], NULL);
			WRITE_ONCE(skyprof_offcpu_nr, skyprof_offcpu_nr - 1);
			found = true;
		}
	}
	if (!found)
		return;
	/* Probes that fetched s before it left the array are done after this. */
	tracepoint_synchronize_unregister();
	if (!skyprof_offcpu_nr)
		schedule_delayed_work(&skyprof_offcpu_linger, SKYPROF_OFFCPU_LINGER);
}

/* Module unload, after every session ended. */
void skyprof_offcpu_exit(void)
{
	cancel_delayed_work_sync(&skyprof_offcpu_linger);
	mutex_lock(&skyprof_sessions_mutex);
	skyprof_offcpu_unregister();
	mutex_unlock(&skyprof_sessions_mutex);
}

#else /* !SKYPROF_OFFCPU */

void skyprof_offcpu_init(void)
{
}

bool skyprof_offcpu_available(void)
{
	return false;
}

int skyprof_offcpu_start(struct skyprof_session *s)
{
	return -EOPNOTSUPP;
}

void skyprof_offcpu_stop(struct skyprof_session *s)
{
}

void skyprof_offcpu_exit(void)
{
}

#endif /* SKYPROF_OFFCPU */

/* Process context: the table for s->cfg (entries, max_depth). */
int skyprof_offcpu_alloc(struct skyprof_session *s)
{
	struct skyprof_offcpu *t;
	u32 nr = s->cfg.offcpu_entries;

	t = kzalloc(sizeof(*t), GFP_KERNEL);
	if (!t)
		return -ENOMEM;
	t->nr = nr;
	t->bits = ilog2(nr);
	t->window = min_t(u32, nr, SKYPROF_OFFCPU_WINDOW);
	t->entry_size = sizeof(struct skyprof_offcpu_entry) + 2 * sizeof(u64) * s->cfg.max_depth;
	atomic_set(&t->used, 0);
	atomic64_set(&t->exited, 0);
	t->owner = vzalloc(array_size(nr, sizeof(*t->owner)));
	t->entries = vmalloc(array_size(nr, t->entry_size));
	if (!t->owner || !t->entries) {
		vfree(t->owner);
		vfree(t->entries);
		kfree(t);
		return -ENOMEM;
	}
	t->bytes = (u64)nr * (sizeof(*t->owner) + t->entry_size);
	atomic64_add(t->bytes, &skyprof_offcpu_mem);
	s->off = t;
	return 0;
}

/* After skyprof_offcpu_stop(), or when the probes never ran. */
void skyprof_offcpu_free(struct skyprof_session *s)
{
	struct skyprof_offcpu *t = s->off;

	if (!t)
		return;
	vfree(t->owner);
	vfree(t->entries);
	atomic64_sub(t->bytes, &skyprof_offcpu_mem);
	kfree(t);
	s->off = NULL;
}

void skyprof_offcpu_read_stats(struct skyprof_session *s, struct skyprof_offcpu_stats *out)
{
	struct skyprof_offcpu *t = s->off;

	memset(out, 0, sizeof(*out));
	if (!t)
		return;
	out->entries = t->nr;
	out->used = atomic_read(&t->used);
	out->exited = atomic64_read(&t->exited);
}

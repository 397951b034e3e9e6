// SPDX-License-Identifier: GPL-2.0
/*
 * The sample handler shared by every source. Runs in hardirq (cpu-clock,
 * hrtimer) or NMI (hardware cycles) on the CPU the record is for, so: no
 * locks, no sleeping, no allocation, no printk, bounded work (max depth, at
 * most ustack_bytes copied), clock ktime_get_mono_fast_ns, wakeups only
 * through irq_work.
 *
 * A record is built in place in the ring when the worst-case record fits
 * there contiguously (nearly always: it is a few KiB of a ring of MiBs), so
 * the stacks are written once; otherwise in the per-CPU scratch buffer and
 * then copied into the ring at its real size, so a nearly full ring loses
 * no sample that fits. Every byte of the fixed part is stored field by
 * field (it has no padding, checked at build time), so the reader never
 * sees stale ring bytes, without a memset, which would write the fixed part
 * twice on every sample.
 */
#include <linux/irq_work.h>
#include <linux/ptrace.h>
#include <linux/rcupdate.h>
#include <linux/sched.h>
#include <linux/string.h>

#include "sample_fixed.h"
#include "skyprof_kmod.h"

static void skyprof_record(struct skyprof_pcpu *pc, struct pt_regs *regs, u64 now)
{
	struct skyprof_session *s = pc->s;
	struct skyprof_sample *rec = skyprof_ring_reserve_inplace(pc->ring, s->max_rec);
	bool inplace = rec;
	struct skyprof_sample_as *as;
	u64 *ips;
	struct pt_regs *uregs = NULL;
	unsigned int nu = 0;
	struct skyprof_kstack ks = { 0, false };
	u8 *p;
	void *dst;
	u32 size;

	if (!inplace)
		rec = pc->scratch;
	as = (struct skyprof_sample_as *)(rec + 1);
	ips = (u64 *)(rec + 1);
	if (s->sb) {
		as->as_id = skyprof_sideband_note(pc, current, now);
		ips = (u64 *)(as + 1);
	}
	/* Every field of the fixed part is set below (see the top). */
	skyprof_sample_fixed_check();
	rec->hdr.type = SKYPROF_REC_SAMPLE;
	rec->hdr.version = s->sample_version;
	rec->time_ns = now;
	rec->weight = 1;
	rec->cpu = pc->cpu;
	rec->tgid = current->tgid;
	rec->tid = current->pid;
	rec->ustack_size = 0;
	skyprof_copy_comm(rec->comm, current->comm);
	rcu_read_lock();
	rec->cgroup_id = skyprof_task_cgroup_id(current);
	rcu_read_unlock();
	rec->flags = 0;
	if (!user_mode(regs))
		rec->flags |= SKYPROF_SF_IN_KERNEL;
	if (current->flags & PF_KTHREAD)
		rec->flags |= SKYPROF_SF_KTHREAD;

	if ((s->cfg.flags & SKYPROF_F_KERNEL_STACK) && !user_mode(regs))
		ks = skyprof_unwind_kernel(regs, ips, s->cfg.max_depth, &rec->flags);
	if ((s->cfg.flags & SKYPROF_F_USER_STACK) || s->cfg.ustack_bytes)
		uregs = skyprof_user_regs(regs);
	if (uregs && (s->cfg.flags & SKYPROF_F_USER_STACK))
		nu = skyprof_unwind_user(uregs, ips + ks.n, s->cfg.max_depth, &rec->flags);
	rec->nr_kernel = ks.n;
	rec->nr_user = nu;
	p = (u8 *)(ips + ks.n + nu);
	if (uregs && s->cfg.ustack_bytes &&
	    skyprof_fill_user_regs((struct skyprof_user_regs *)p, uregs)) {
		rec->flags |= SKYPROF_SF_REGS;
		p += sizeof(struct skyprof_user_regs);
		rec->ustack_size = skyprof_copy_ustack(uregs, p, s->cfg.ustack_bytes);
		p += ALIGN(rec->ustack_size, SKYPROF_REC_ALIGN);
	}
	if (ks.err || (rec->flags & SKYPROF_SF_USTACK_FAULT))
		pc->st.unwind_errors++;

	size = p - (u8 *)rec;
	rec->hdr.size = size;
	if (!inplace) {
		dst = skyprof_ring_reserve(pc->ring, size);
		if (!dst) {
			pc->st.drops++;
			skyprof_ring_lost(pc->ring);
			return;
		}
		memcpy(dst, rec, size);
	}
	pc->st.samples++;
	if (skyprof_ring_commit(pc->ring, size)) {
		set_bit(SKYPROF_PEND_WATERMARK, &pc->pending);
		irq_work_queue(&pc->work);
	}
}

void skyprof_sample(struct skyprof_pcpu *pc, struct pt_regs *regs)
{
	struct skyprof_session *s = pc->s;
	u64 t0, dt;

	/*
	 * Nesting guard: one writer per ring. Only an NMI can interrupt the
	 * handler on this CPU, and it completes before we resume, so a plain
	 * per-CPU flag suffices; barrier() keeps the compiler from moving ring
	 * accesses across the flag stores (pairs with the barrier() below).
	 */
	if (READ_ONCE(pc->busy)) {
		pc->st.nested++;
		return;
	}
	WRITE_ONCE(pc->busy, 1);
	barrier();

	if (!READ_ONCE(s->running))
		goto out;
	t0 = skyprof_now_ns();
	if (!skyprof_budget_allow(&pc->budget, t0)) {
		pc->st.throttled++;
		goto out;
	}
	if (skyprof_filter_match(s, current))
		skyprof_record(pc, regs, t0);
	else
		pc->st.filtered++;

	dt = skyprof_since_ns(t0);
	pc->st.handler_ns += dt;
	if (dt > pc->st.handler_max_ns)
		pc->st.handler_max_ns = dt;
	if (skyprof_budget_charge(&pc->budget, dt)) {
		set_bit(SKYPROF_PEND_THROTTLED, &pc->pending);
		irq_work_queue(&pc->work);
	}
out:
	/* Pairs with the barrier() after setting the flag. */
	barrier();
	WRITE_ONCE(pc->busy, 0);
}

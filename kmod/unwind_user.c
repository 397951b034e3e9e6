// SPDX-License-Identifier: GPL-2.0
/*
 * User stacks from the sample handler (hardirq or NMI): the task's user
 * registers, a frame-pointer walk over them, and an optional raw copy of the
 * top of the user stack (+ registers) for DWARF unwinding in user space.
 *
 * Rules: user memory only through the nofault
 * copy with pagefaults disabled, our own < TASK_SIZE check before every
 * copy, no user capture for kernel threads, tasks without an mm (exiting)
 * or user registers that are not (yet) populated.
 */
#include <linux/preempt.h>
#include <linux/ptrace.h>
#include <linux/sched.h>
#include <linux/string.h>
#include <linux/uaccess.h>
#ifdef CONFIG_X86
#include <asm/perf_regs.h>
#endif

#include "skyprof_kmod.h"

#ifndef PF_IO_WORKER
#define PF_IO_WORKER 0
#endif
#ifndef PF_USER_WORKER
#define PF_USER_WORKER 0
#endif

/* The user registers of current for this tick, or NULL if unknown. */
struct pt_regs *skyprof_user_regs(struct pt_regs *regs)
{
	struct pt_regs *uregs;

	if (!current->mm || (current->flags & (PF_KTHREAD | PF_IO_WORKER | PF_USER_WORKER)))
		return NULL;
	if (user_mode(regs))
		return regs;
	/* In the kernel on behalf of the task: its entry frame, if built. */
	uregs = task_pt_regs(current);
	return user_mode(uregs) ? uregs : NULL;
}

/*
 * The user frame pointer in uregs. On x86-64 before 4.16 the syscall fast
 * path leaves rbp (and rbx, r12-r15) out of pt_regs: the slot is stale.
 * The entry code does not touch rbp, so the first kernel function it calls
 * pushes the user's value, right below its return address, right below
 * pt_regs. Interrupts and exceptions (orig_ax negative) save every register.
 */
static __always_inline unsigned long skyprof_user_fp(struct pt_regs *uregs)
{
#ifdef SKYPROF_SYSCALL_PARTIAL_REGS
	if (uregs == task_pt_regs(current) && (long)uregs->orig_ax >= 0)
		return READ_ONCE(((unsigned long *)uregs)[-2]);
#endif
	return uregs->bp;
}

/*
 * The lowest address the frame walk may read: the user sp, unless it is
 * stale (a syscall through the pre-4.1 fast path); then the walk starts at
 * the first frame itself.
 */
static __always_inline unsigned long skyprof_walk_floor(struct pt_regs *uregs, unsigned long fp)
{
#ifdef SKYPROF_SYSCALL_STALE_SP
	if (uregs == task_pt_regs(current) && (long)uregs->orig_ax >= 0)
		return fp;
#endif
	return user_stack_pointer(uregs);
}

/*
 * fp may be read as a frame of HALF-byte words: above sp, aligned, and
 * below top (TASK_SIZE - 2 * HALF, computed once per walk: TASK_SIZE
 * depends on the task's flags and costs loads each time it is named).
 */
static __always_inline bool skyprof_frame_ok(unsigned long fp, unsigned long sp,
					     unsigned int half, unsigned long top)
{
	return fp >= sp && !(fp & (half - 1)) && fp <= top;
}

/*
 * The first test of a step of either walk (skyprof_fp_next_ok is the
 * second), inline: the window walk runs inside a user-access window, where
 * calls are not allowed. Appends ret, if it is an address and there is
 * room (else the walk ends).
 */
static __always_inline bool skyprof_fp_push(unsigned long ret, u64 **ip, u64 *end, u32 *flags)
{
	if (!ret)
		return false;
	if (*ip == end) {
		*flags |= SKYPROF_SF_USTACK_TRUNC;
		return false;
	}
	*(*ip)++ = ret;
	return true;
}

/*
 * May the walk go on to next from the frame at fp? Strictly above fp (a
 * stack grows down, and the walk can never loop) and <= top (the frame
 * lies in user space). After the first frame this implies the >= sp and
 * non-NULL checks of skyprof_frame_ok. Alignment is checked on the first
 * frame only: a misaligned frame pointer later in the chain is read as
 * safely as an aligned one (every load is fault-checked) and yields no
 * worse an address than a corrupt aligned one, while the test would add to
 * every step of the walk, on the per-sample hot path.
 */
static __always_inline bool skyprof_fp_next_ok(unsigned long next, unsigned long fp,
					       unsigned long top)
{
	return next > fp && next <= top;
}

#ifdef SKYPROF_HAVE_USER_ACCESS_BEGIN
/*
 * One step of the window walk: reads the frame of HALF-byte words at *fp,
 * appends its return address and moves *fp to the caller's frame. false:
 * the walk ends (a fault, the end of the chain, no room). Inline, with its
 * own fault label: nothing may be called inside a user-access window.
 */
static __always_inline bool skyprof_window_step(unsigned long *fp, const unsigned int half,
						unsigned long top, u64 **ip, u64 *end, u32 *flags)
{
	unsigned long next, ret;

	if (half == 8) {
		u64 n, r;

		unsafe_get_user(n, (const u64 __user *)*fp, fault);
		unsafe_get_user(r, (const u64 __user *)*fp + 1, fault);
		next = n;
		ret = r;
	} else {
		u32 n, r;

		unsafe_get_user(n, (const u32 __user *)*fp, fault);
		unsafe_get_user(r, (const u32 __user *)*fp + 1, fault);
		next = n;
		ret = r;
	}
	if (!skyprof_fp_push(ret, ip, end, flags) || !skyprof_fp_next_ok(next, *fp, top))
		return false;
	*fp = next;
	return true;
fault:
	*flags |= SKYPROF_SF_USTACK_FAULT;
	return false;
}

/*
 * The walk outside NMI (cpu-clock and hrtimer ticks, sched_switch: all with
 * interrupts off, so the mm is never half switched), with pagefaults
 * disabled by the caller: one user-access window over [sp, TASK_SIZE) for
 * the whole walk and two inline loads per frame; a fault ends the walk
 * through the exception table instead of sleeping. TASK_SIZE is read once:
 * the task is current and cannot change its personality under us (we
 * interrupted it). Opening the window per frame would cost a stac/clac
 * pair (and a speculation barrier) each time; the NMI-safe copy, a call
 * doing a byte-wise string copy per frame, costs more still. Each step is
 * kept to the loads and the tests it needs: it runs for every frame of
 * every sample.
 */
static unsigned int skyprof_walk_window(unsigned long fp, unsigned long sp, unsigned int half,
					u64 *ips, unsigned int n, unsigned int max, u32 *flags)
{
	unsigned long limit = TASK_SIZE, top = limit - 2 * half;
	u64 *ip = ips + n, *end = ips + max;

	if (!fp || !skyprof_frame_ok(fp, sp, half, top) || sp >= limit ||
	    !user_access_begin((const void __user *)sp, limit - sp))
		return n;
	/*
	 * One loop per width (the width test stays out of the steps), two
	 * steps per turn (one jump per two frames).
	 */
	if (half == 8) {
		while (skyprof_window_step(&fp, 8, top, &ip, end, flags) &&
		       skyprof_window_step(&fp, 8, top, &ip, end, flags))
			;
	} else {
		while (skyprof_window_step(&fp, 4, top, &ip, end, flags) &&
		       skyprof_window_step(&fp, 4, top, &ip, end, flags))
			;
	}
	user_access_end();
	return ip - ips;
}
#endif

/*
 * One {saved fp, return address} frame of HALF-byte words at fp, pagefaults
 * disabled by the caller: in NMI (hardware cycles) only the NMI-safe copy
 * may be used; elsewhere, on kernels without
 * user_access_begin, __get_user.
 */
static __always_inline bool skyprof_read_frame(unsigned long fp, unsigned int half,
					       unsigned long *next, unsigned long *ret)
{
	union {
		u64 q[2];
		u32 d[2];
	} w;
	int err;

	if (in_nmi())
		err = skyprof_copy_user_nmi(&w, (const void __user *)fp, 2 * half) ? -EFAULT : 0;
	else if (half == 8)
		err = __get_user(w.q[0], (const u64 __user *)fp) ||
		      __get_user(w.q[1], (const u64 __user *)fp + 1);
	else
		err = __get_user(w.d[0], (const u32 __user *)fp) ||
		      __get_user(w.d[1], (const u32 __user *)fp + 1);
	if (err)
		return false;
	*next = half == 8 ? w.q[0] : w.d[0];
	*ret = half == 8 ? w.q[1] : w.d[1];
	return true;
}

/*
 * Not inlined: its frame buffer makes the caller's frame aligned and
 * canary-checked, which the window walk of every tick should not pay for.
 */
static noinline unsigned int skyprof_walk_framewise(unsigned long fp, unsigned long sp,
						    unsigned int half, u64 *ips, unsigned int n,
						    unsigned int max, u32 *flags)
{
	unsigned long top = TASK_SIZE - 2 * half;
	u64 *ip = ips + n, *end = ips + max;

	if (!fp || !skyprof_frame_ok(fp, sp, half, top))
		return n;
	for (;;) {
		unsigned long next, ret;

		if (!skyprof_read_frame(fp, half, &next, &ret)) {
			*flags |= SKYPROF_SF_USTACK_FAULT;
			break;
		}
		if (!skyprof_fp_push(ret, &ip, end, flags) || !skyprof_fp_next_ok(next, fp, top))
			break;
		fp = next;
	}
	return ip - ips;
}

/*
 * Frame-pointer walk: ips[0] = user pc, then the return address of each
 * {saved fp, return address} frame, which must lie strictly above the
 * previous one. Returns the number of ips.
 */
unsigned int skyprof_unwind_user(struct pt_regs *uregs, u64 *ips, unsigned int max,
				 u32 *flags)
{
	unsigned long fp = 0, sp = user_stack_pointer(uregs);
	unsigned int n = 0, half = 8;

	if (!max)
		return 0;
	ips[n++] = instruction_pointer(uregs);
#ifdef CONFIG_X86
	fp = skyprof_user_fp(uregs);
	sp = skyprof_walk_floor(uregs, fp);
#endif
#ifdef CONFIG_X86_64
	if (!user_64bit_mode(uregs))
		half = 4;
#elif defined(CONFIG_X86_32)
	half = 4;
#endif
	pagefault_disable();
#ifdef SKYPROF_HAVE_USER_ACCESS_BEGIN
	if (!in_nmi())
		n = skyprof_walk_window(fp, sp, half, ips, n, max, flags);
	else
#endif
		n = skyprof_walk_framewise(fp, sp, half, ips, n, max, flags);
	pagefault_enable();
	return n;
}

/*
 * perf-compatible user registers (PERF_REG_X86_* numbering). Every slot is
 * stored, no memset: the block goes to user space, and a memset of it
 * before the stores wrote most of it twice.
 */
bool skyprof_fill_user_regs(struct skyprof_user_regs *out, struct pt_regs *uregs)
{
#ifdef CONFIG_X86
	unsigned int i;

	BUILD_BUG_ON(PERF_REG_X86_R15 + 1 != SKYPROF_UREGS_NR);
	out->reserved = 0;
	/* The segment registers other than cs and ss are not sampled. */
	for (i = PERF_REG_X86_SS + 1; i < PERF_REG_X86_R8; i++)
		out->regs[i] = 0;
	out->regs[PERF_REG_X86_AX] = uregs->ax;
	out->regs[PERF_REG_X86_BX] = uregs->bx;
	out->regs[PERF_REG_X86_CX] = uregs->cx;
	out->regs[PERF_REG_X86_DX] = uregs->dx;
	out->regs[PERF_REG_X86_SI] = uregs->si;
	out->regs[PERF_REG_X86_DI] = uregs->di;
	out->regs[PERF_REG_X86_BP] = skyprof_user_fp(uregs);
	out->regs[PERF_REG_X86_SP] = uregs->sp;
	out->regs[PERF_REG_X86_IP] = uregs->ip;
	out->regs[PERF_REG_X86_FLAGS] = uregs->flags;
	out->regs[PERF_REG_X86_CS] = uregs->cs;
	out->regs[PERF_REG_X86_SS] = uregs->ss;
	out->mask = GENMASK_ULL(PERF_REG_X86_SS, PERF_REG_X86_AX);
	out->abi = SKYPROF_REGS_ABI_32;
#ifdef CONFIG_X86_64
	if (user_64bit_mode(uregs)) {
		out->regs[PERF_REG_X86_R8] = uregs->r8;
		out->regs[PERF_REG_X86_R9] = uregs->r9;
		out->regs[PERF_REG_X86_R10] = uregs->r10;
		out->regs[PERF_REG_X86_R11] = uregs->r11;
		out->regs[PERF_REG_X86_R12] = uregs->r12;
		out->regs[PERF_REG_X86_R13] = uregs->r13;
		out->regs[PERF_REG_X86_R14] = uregs->r14;
		out->regs[PERF_REG_X86_R15] = uregs->r15;
		out->mask |= GENMASK_ULL(PERF_REG_X86_R15, PERF_REG_X86_R8);
		out->abi = SKYPROF_REGS_ABI_64;
		return true;
	}
#endif
	for (i = PERF_REG_X86_R8; i <= PERF_REG_X86_R15; i++)
		out->regs[i] = 0;
	return true;
#else
	return false;
#endif
}

/*
 * Copies up to bytes of the user stack from sp upward into dst, zero-pads
 * the copy to 8 bytes and returns the number of bytes really copied. A copy
 * that faults (past the top of the stack) keeps what came before the fault.
 *
 * The copy goes a page at a time, and each page after sp's is first read one
 * byte: on older kernels a copy that faults part-way is finished by the
 * fixup a byte at a time (3.10's copy_user_handle_tail also zeroes the rest
 * of the destination byte by byte: on RHEL 7 that cost many times the whole
 * copy), so the unmapped page past the stack's top is found with a one-byte
 * read instead of a fixup as long as the rest of the copy.
 */
u32 skyprof_copy_ustack(struct pt_regs *uregs, void *dst, u32 bytes)
{
	unsigned long sp = user_stack_pointer(uregs);
	unsigned long n = bytes, done = 0, chunk, left;
	u8 probe;

	if (sp >= TASK_SIZE)
		return 0;
	if (n > TASK_SIZE - sp)
		n = TASK_SIZE - sp;
	while (done < n) {
		const void __user *from = (const void __user *)(sp + done);

		chunk = min(n - done, PAGE_SIZE - ((sp + done) & ~PAGE_MASK));
		if (done && skyprof_copy_user_nmi(&probe, from, 1))
			break;
		left = skyprof_copy_user_nmi(dst + done, from, chunk);
		done += chunk - left;
		if (left)
			break;
	}
	if (done & 7)
		memset(dst + done, 0, 8 - (done & 7));
	return done;
}

/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The one internal API over kernel differences. Every decision here comes
 * from compat-generated.h (compile and export probes, forced into every
 * object by Kbuild); the rest of kmod/ never tests kernel versions. The only
 * version test left is a semantic one the compiler cannot see (the return
 * value of copy_from_user_nmi before 3.13).
 */
#ifndef SKYPROF_COMPAT_H
#define SKYPROF_COMPAT_H

#include <linux/capability.h>
#include <linux/cgroup.h>
#include <linux/compat.h>
#include <linux/fs.h>
#include <linux/hrtimer.h>
#include <linux/mm.h>
#include <linux/netlink.h>
#include <linux/sched.h>
#include <linux/sched/clock.h>
#include <linux/timekeeping.h>
#include <linux/uaccess.h>
#include <linux/version.h>

#ifndef SKYPROF_COMPAT_GENERATED_H
#error "skyprof: build through Kbuild (compat-generated.h is forced in with -include)"
#endif

/* ---- hrtimers ---------------------------------------------------------- */

/* PREEMPT_RT expires only _HARD timers in hardirq (with valid irq regs). */
#ifdef SKYPROF_HAVE_HRTIMER_MODE_HARD
#define SKYPROF_HRTIMER_MODE	HRTIMER_MODE_REL_PINNED_HARD
#else
#define SKYPROF_HRTIMER_MODE	HRTIMER_MODE_REL_PINNED
#endif

static inline void skyprof_hrtimer_setup(struct hrtimer *timer,
					 enum hrtimer_restart (*fn)(struct hrtimer *),
					 clockid_t clock, enum hrtimer_mode mode)
{
#ifdef SKYPROF_HAVE_HRTIMER_SETUP
	hrtimer_setup(timer, fn, clock, mode);
#else
	hrtimer_init(timer, clock, mode);
	timer->function = fn;
#endif
}

/* ---- privilege ---------------------------------------------------------- */

/* CAP_PERFMON where it exists, else CAP_SYS_ADMIN, both in init_user_ns. */
static inline bool skyprof_capable(void)
{
#ifdef SKYPROF_HAVE_CAP_PERFMON
	if (capable(CAP_PERFMON))
		return true;
#endif
	return capable(CAP_SYS_ADMIN);
}

/* The same for the sender of a netlink message (socket opener and sender). */
static inline bool skyprof_netlink_capable(const struct sk_buff *skb)
{
#ifdef SKYPROF_HAVE_CAP_PERFMON
	if (netlink_capable(skb, CAP_PERFMON))
		return true;
#endif
	return netlink_capable(skb, CAP_SYS_ADMIN);
}

/* ---- vma flags ---------------------------------------------------------- */

static inline void skyprof_vm_flags_set(struct vm_area_struct *vma, unsigned long flags)
{
#ifdef SKYPROF_HAVE_VM_FLAGS_SET
	vm_flags_set(vma, flags);
#else
	vma->vm_flags |= flags;
#endif
}

static inline void skyprof_vm_flags_clear(struct vm_area_struct *vma, unsigned long flags)
{
#ifdef SKYPROF_HAVE_VM_FLAGS_SET
	vm_flags_clear(vma, flags);
#else
	vma->vm_flags &= ~flags;
#endif
}

/* ---- ioctl -------------------------------------------------------------- */

#ifdef CONFIG_COMPAT
#ifdef SKYPROF_HAVE_COMPAT_PTR_IOCTL
#define skyprof_compat_ptr_ioctl compat_ptr_ioctl
#else
static inline long skyprof_compat_ptr_ioctl(struct file *file, unsigned int cmd,
					    unsigned long arg)
{
	if (!file->f_op->unlocked_ioctl)
		return -ENOIOCTLCMD;
	return file->f_op->unlocked_ioctl(file, cmd, (unsigned long)compat_ptr(arg));
}
#endif
#endif

/* ---- time --------------------------------------------------------------- */

/* NMI-safe CLOCK_MONOTONIC (the record's time base). */
static __always_inline u64 skyprof_now_ns(void)
{
#ifdef SKYPROF_EXPORTED_KTIME_GET_MONO_FAST_NS
	return ktime_get_mono_fast_ns();
#else
	return local_clock();
#endif
}

/* ---- user memory from IRQ/NMI ------------------------------------------ */

/*
 * Copies n bytes of current's user memory without faulting; returns the
 * number of bytes NOT copied. The caller has checked from + n <= TASK_SIZE
 * itself (access_ok is not trusted in interrupt context on set_fs kernels).
 */
static __always_inline unsigned long skyprof_copy_user_nmi(void *to, const void __user *from,
							   unsigned long n)
{
#if defined(SKYPROF_HAVE_COPY_FROM_USER_NMI) && defined(SKYPROF_EXPORTED_COPY_FROM_USER_NMI)
	/* Vanilla 3.10-3.12 returned bytes copied; RHEL 7 and 3.13+ not copied. */
#if LINUX_VERSION_CODE < KERNEL_VERSION(3, 13, 0) && !defined(RHEL_MAJOR)
	return n - copy_from_user_nmi(to, from, n);
#else
	return copy_from_user_nmi(to, from, n);
#endif
#elif defined(SKYPROF_HAVE_COPY_FROM_USER_NOFAULT) && \
	defined(SKYPROF_EXPORTED_COPY_FROM_USER_NOFAULT)
	return copy_from_user_nofault(to, from, n) ? n : 0;
#else
	unsigned long left;

	pagefault_disable();
	left = __copy_from_user_inatomic(to, from, n);
	pagefault_enable();
	return left;
#endif
}

/* ---- cgroups ------------------------------------------------------------ */

#if defined(SKYPROF_HAVE_CGROUP_ID) && defined(SKYPROF_HAVE_CGROUP_GET_FROM_PATH) && \
	defined(SKYPROF_EXPORTED_CGROUP_GET_FROM_PATH)
#define SKYPROF_CGROUP_FILTER 1
#endif

/* The cgroup v2 id of a task; the caller is in an RCU read-side section. */
static __always_inline u64 skyprof_task_cgroup_id(struct task_struct *task)
{
#ifdef SKYPROF_HAVE_CGROUP_ID
	return cgroup_id(task_dfl_cgroup(task));
#else
	return 0;
#endif
}

/* ---- scheduler tracepoints ---------------------------------------------- */

/*
 * The task state a sched_switch probe sees: the tracepoint's prev_state
 * argument where it has one (5.18+, RHEL 9.1+), else read from the task
 * (__state from 5.14, state before).
 */
static __always_inline unsigned int skyprof_task_state(struct task_struct *t)
{
#ifdef SKYPROF_HAVE_TASK_STATE_UNDERSCORE
	return READ_ONCE(t->__state);
#else
	return READ_ONCE(t->state);
#endif
}

/*
 * SKYPROF_SCHED_SWITCH_PROBE(name, fn) defines name, a probe with this
 * kernel's sched_switch prototype (the compile probes checked it against
 * check_trace_callback_type_sched_switch), calling
 *   fn(void *data, bool preempt, struct task_struct *prev,
 *      struct task_struct *next, unsigned int prev_state, void *frame)
 * where frame is the probe's own frame address: a kernel unwind that starts
 * from current skips everything up to it, so the stack begins in its caller
 * (the scheduler or the tracepoint's iterator).
 */
#if defined(SKYPROF_HAVE_SCHED_SWITCH_PREV_STATE)
#define SKYPROF_SCHED_SWITCH_PROBE(name, fn)						\
static void name(void *data, bool preempt, struct task_struct *prev,			\
		 struct task_struct *next, unsigned int prev_state)			\
{											\
	fn(data, preempt, prev, next, prev_state, __builtin_frame_address(0));		\
}

#define SKYPROF_HAVE_SCHED_SWITCH_PROBE 1
#elif defined(SKYPROF_HAVE_SCHED_SWITCH_PREEMPT)
#define SKYPROF_SCHED_SWITCH_PROBE(name, fn)						\
static void name(void *data, bool preempt, struct task_struct *prev,			\
		 struct task_struct *next)						\
{											\
	fn(data, preempt, prev, next, skyprof_task_state(prev),				\
	   __builtin_frame_address(0));							\
}

#define SKYPROF_HAVE_SCHED_SWITCH_PROBE 1
#endif

/* SKYPROF_SCHED_EXIT_PROBE(name, fn): fn(void *data, struct task_struct *p). */
#if defined(SKYPROF_HAVE_SCHED_PROCESS_EXIT)
#define SKYPROF_SCHED_EXIT_PROBE(name, fn)						\
static void name(void *data, struct task_struct *p)					\
{											\
	fn(data, p);									\
}

#define SKYPROF_HAVE_SCHED_EXIT_PROBE 1
#elif defined(SKYPROF_HAVE_SCHED_PROCESS_EXIT_GROUP_DEAD)
#define SKYPROF_SCHED_EXIT_PROBE(name, fn)						\
static void name(void *data, struct task_struct *p, bool group_dead)			\
{											\
	fn(data, p);									\
}

#define SKYPROF_HAVE_SCHED_EXIT_PROBE 1
#endif

/* Off-CPU mode needs both probes and tracepoints found by pointer. */
#if defined(SKYPROF_HAVE_SCHED_SWITCH_PROBE) && defined(SKYPROF_HAVE_SCHED_EXIT_PROBE) && \
	defined(SKYPROF_HAVE_FOR_EACH_KERNEL_TRACEPOINT) && \
	defined(SKYPROF_EXPORTED_FOR_EACH_KERNEL_TRACEPOINT) && \
	defined(SKYPROF_EXPORTED_TRACEPOINT_PROBE_REGISTER)
#define SKYPROF_OFFCPU 1
#endif

/* ---- stacks ------------------------------------------------------------- */

#if defined(SKYPROF_HAVE_X86_UNWIND) && defined(SKYPROF_EXPORTED___UNWIND_START)
#define SKYPROF_X86_UNWINDER 1
#endif

#endif /* SKYPROF_COMPAT_H */

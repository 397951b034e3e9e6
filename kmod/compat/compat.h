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

#ifndef SKYPROF_COMPAT_GENERATED_H
#error "skyprof: build through Kbuild (compat-generated.h is forced in with -include)"
#endif

#include <linux/bitmap.h>
#include <linux/capability.h>
#include <linux/cgroup.h>
#include <linux/compat.h>
#include <linux/compiler.h>
#include <linux/fs.h>
#include <linux/hrtimer.h>
#include <linux/kernel.h>
#include <linux/mm.h>
#include <linux/netlink.h>
#include <linux/poll.h>
#include <linux/random.h>
#include <linux/sched.h>
#include <linux/slab.h>
#include <linux/uaccess.h>
#include <linux/version.h>
#include <linux/vmalloc.h>
#include <net/genetlink.h>
#include <net/netlink.h>

/* ---- headers that moved or appeared --------------------------------------- */

/* BUILD_BUG_ON: linux/bug.h before 4.13. */
#ifdef SKYPROF_HAVE_HEADER_BUILD_BUG
#include <linux/build_bug.h>
#else
#include <linux/bug.h>
#endif

/* local_clock: linux/sched.h before 4.11 (RHEL 7 has the new header). */
#ifdef SKYPROF_HAVE_HEADER_SCHED_CLOCK
#include <linux/sched/clock.h>
#endif

/* task_pt_regs: linux/sched.h (with asm/processor.h) before 4.11. */
#ifdef SKYPROF_HAVE_HEADER_SCHED_TASK_STACK
#include <linux/sched/task_stack.h>
#endif

#ifdef SKYPROF_HAVE_CPUHP_MULTI
#include <linux/cpuhotplug.h>
#endif

/*
 * Under sparse, the compiletime_assert() of 3.10 (RHEL 7) falls back to
 * sizeof(char[1 - 2 * cond]) with cond a variable, which sparse reports as a
 * variable length array at every smp_load_acquire(). The compiler's pass
 * keeps the real check (the error attribute); only sparse's is dropped.
 */
#if defined(__CHECKER__) && defined(__compiletime_error_fallback)
#undef __compiletime_error_fallback
#define __compiletime_error_fallback(condition) do { } while (0)
#endif

/* ---- small helpers older kernels lack -------------------------------------- */

#ifndef SKYPROF_HAVE_SIZEOF_FIELD
#define sizeof_field(TYPE, MEMBER) FIELD_SIZEOF(TYPE, MEMBER)
#endif

#ifndef SKYPROF_HAVE_DATA_RACE
/* data_race only marks a race as intended for KCSAN, which these kernels lack. */
#define data_race(expr) ({ expr; })
#endif

#ifndef SKYPROF_HAVE_RO_AFTER_INIT
#define __ro_after_init
#endif

/*
 * Without linux/overflow.h: our sizes are bounded by validated config
 * (CPUs, table entries), far from overflowing a size_t.
 */
#ifndef SKYPROF_HAVE_STRUCT_SIZE
#define struct_size(p, member, n) offsetof(__typeof__(*(p)), member[n])
#define array_size(a, b) ((size_t)(a) * (size_t)(b))
#endif

#ifndef SKYPROF_HAVE_BITMAP_ZALLOC
static inline unsigned long *bitmap_zalloc(unsigned int nbits, gfp_t flags)
{
	return kcalloc(BITS_TO_LONGS(nbits), sizeof(unsigned long), flags);
}

static inline void bitmap_free(const unsigned long *bitmap)
{
	kfree(bitmap);
}
#endif

#ifndef SKYPROF_HAVE_GET_RANDOM_U64
static inline u64 get_random_u64(void)
{
	u64 v;

	get_random_bytes(&v, sizeof(v));
	return v;
}
#endif

/* Physically contiguous when cheap, else vmalloc; kvfree() frees either. */
#ifndef SKYPROF_HAVE_KVMALLOC_NODE
static inline void *kvmalloc_node(size_t size, gfp_t flags, int node)
{
	void *p;

	if (size <= PAGE_SIZE)
		return kmalloc_node(size, flags, node);
	p = kmalloc_node(size, flags | __GFP_NOWARN | __GFP_NORETRY, node);
	return p ? p : vmalloc_node(size, node);
}
#endif

/* ---- char device ------------------------------------------------------------ */

/*
 * The poll mask type and names of 4.16+, as the uapi eventpoll.h of 4.4
 * spells them (so a later include of it redefines nothing).
 */
#ifndef SKYPROF_HAVE_POLL_T
#define __poll_t unsigned int
#ifndef EPOLLIN
#define EPOLLIN		0x00000001
#define EPOLLERR	0x00000008
#define EPOLLHUP	0x00000010
#define EPOLLRDNORM	0x00000040
#endif
#endif

/* A stream (no file position) without the 5.2 helper: nonseekable. */
#ifndef SKYPROF_HAVE_STREAM_OPEN
#define stream_open nonseekable_open
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

/*
 * Nanoseconds since t0 (a skyprof_now_ns() on this CPU). Neither clock
 * promises never to step back: ktime_get_mono_fast_ns() may across a
 * timekeeping update, and local_clock() (where the former is not exported)
 * is only as steady as sched_clock (docs/kernel-compat.md, "Clocks"). A
 * reading earlier than t0 counts as no time, not as 2^64 - n ns, which
 * would become the handler's maximum and throttle the source.
 */
static __always_inline u64 skyprof_since_ns(u64 t0)
{
	u64 now = skyprof_now_ns();

	return now > t0 ? now - t0 : 0;
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

/*
 * cgroup targets are cgroup v2 subtrees: they need the default hierarchy's
 * cgroup of a task (4.5+) and lookup by path (4.6+). 3.10 and 4.4 have only
 * v1 hierarchies: there the capability is off and a cgroup target refused.
 */
#if defined(SKYPROF_HAVE_CGROUP_DFL) && defined(SKYPROF_HAVE_CGROUP_GET_FROM_PATH) && \
	defined(SKYPROF_EXPORTED_CGROUP_GET_FROM_PATH) && \
	(defined(SKYPROF_HAVE_CGROUP_ID) || defined(SKYPROF_HAVE_CGROUP_KERNFS_ID))
#define SKYPROF_CGROUP_FILTER 1
#endif

/*
 * The cgroup v2 id of a task (its directory's kernfs id: what user space
 * sees as the inode number), 0 without cgroup v2; the caller is in an RCU
 * read-side section.
 */
static __always_inline u64 skyprof_task_cgroup_id(struct task_struct *task)
{
#if defined(SKYPROF_HAVE_CGROUP_ID)
	return cgroup_id(task_dfl_cgroup(task));
#elif defined(SKYPROF_HAVE_CGROUP_KERNFS_ID) && defined(SKYPROF_HAVE_CGROUP_DFL)
	return task_dfl_cgroup(task)->kn->id.ino;
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
#elif defined(SKYPROF_HAVE_SCHED_SWITCH_PREV_NEXT)
/*
 * No preempt argument: a task the scheduler did not dequeue (still on_rq)
 * was preempted, or found a reason to run on (a pending signal), rather
 * than blocked.
 */
#define SKYPROF_SCHED_SWITCH_PROBE(name, fn)						\
static void name(void *data, struct task_struct *prev, struct task_struct *next)	\
{											\
	fn(data, READ_ONCE(prev->on_rq), prev, next, skyprof_task_state(prev),		\
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

/*
 * Tracepoints are registered by pointer (found by name with
 * for_each_kernel_tracepoint, 3.15+) or, where the kernel still takes the
 * name (3.10, RHEL 7), by name.
 */
#if defined(SKYPROF_HAVE_FOR_EACH_KERNEL_TRACEPOINT) && \
	defined(SKYPROF_EXPORTED_FOR_EACH_KERNEL_TRACEPOINT) && \
	defined(SKYPROF_EXPORTED_TRACEPOINT_PROBE_REGISTER)
#define SKYPROF_TRACEPOINT_BY_PTR 1
#elif defined(SKYPROF_HAVE_TRACEPOINT_PROBE_REGISTER_NAME) && \
	defined(SKYPROF_EXPORTED_TRACEPOINT_PROBE_REGISTER)
#define SKYPROF_TRACEPOINT_BY_NAME 1
#endif

/* Off-CPU mode needs both probes and a way to register them. */
#if defined(SKYPROF_HAVE_SCHED_SWITCH_PROBE) && defined(SKYPROF_HAVE_SCHED_EXIT_PROBE) && \
	(defined(SKYPROF_TRACEPOINT_BY_PTR) || defined(SKYPROF_TRACEPOINT_BY_NAME))
#define SKYPROF_OFFCPU 1
#endif

/* Following forks (SKYPROF_F_FOLLOW_FORKS): the fork and exit probes. */
#if defined(SKYPROF_HAVE_SCHED_PROCESS_FORK) && defined(SKYPROF_HAVE_SCHED_EXIT_PROBE) && \
	(defined(SKYPROF_TRACEPOINT_BY_PTR) || defined(SKYPROF_TRACEPOINT_BY_NAME))
#define SKYPROF_FOLLOW 1
#endif

#if defined(SKYPROF_TRACEPOINT_BY_PTR) || defined(SKYPROF_TRACEPOINT_BY_NAME)
#define SKYPROF_TRACEPOINTS 1
#include <linux/tracepoint.h>

/* A kernel tracepoint, looked up once (skyprof_tracepoints_find). */
struct skyprof_tracepoint {
	const char *name;
#ifdef SKYPROF_TRACEPOINT_BY_PTR
	struct tracepoint *tp;
#endif
};

#ifdef SKYPROF_TRACEPOINT_BY_PTR
static inline void skyprof_tracepoint_match(struct tracepoint *tp, void *priv)
{
	struct skyprof_tracepoint *t;

	for (t = priv; t->name; t++)
		if (!strcmp(tp->name, t->name))
			t->tp = tp;
}
#endif

/* tps ends with an entry whose name is NULL. */
static inline void skyprof_tracepoints_find(struct skyprof_tracepoint *tps)
{
#ifdef SKYPROF_TRACEPOINT_BY_PTR
	for_each_kernel_tracepoint(skyprof_tracepoint_match, tps);
#endif
}

/*
 * Registration by name needs no lookup: the compile probes found the
 * events in this kernel's trace/events/sched.h.
 */
static inline bool skyprof_tracepoint_found(const struct skyprof_tracepoint *t)
{
#ifdef SKYPROF_TRACEPOINT_BY_PTR
	return t->tp;
#else
	return true;
#endif
}

static inline int skyprof_tracepoint_register(struct skyprof_tracepoint *t, void *probe)
{
#ifdef SKYPROF_TRACEPOINT_BY_PTR
	return tracepoint_probe_register(t->tp, probe, NULL);
#else
	return tracepoint_probe_register(t->name, probe, NULL);
#endif
}

static inline void skyprof_tracepoint_unregister(struct skyprof_tracepoint *t, void *probe)
{
#ifdef SKYPROF_TRACEPOINT_BY_PTR
	tracepoint_probe_unregister(t->tp, probe, NULL);
#else
	tracepoint_probe_unregister(t->name, probe, NULL);
#endif
}
#endif /* SKYPROF_TRACEPOINTS */

/* ---- stacks ------------------------------------------------------------- */

/*
 * Kernel stacks: the x86 unwinder (4.9+, RHEL 7), else dump_trace() with
 * its frame-pointer walker (x86 up to 4.8, where perf uses the same from
 * NMI). Neither: samples carry the interrupted ip only.
 */
#if defined(SKYPROF_HAVE_X86_UNWIND) && defined(SKYPROF_EXPORTED___UNWIND_START)
#define SKYPROF_X86_UNWINDER 1
#elif defined(SKYPROF_HAVE_X86_DUMP_TRACE) && defined(SKYPROF_EXPORTED_DUMP_TRACE) && \
	defined(SKYPROF_EXPORTED_PRINT_CONTEXT_STACK_BP) && \
	defined(SKYPROF_EXPORTED_PROBE_KERNEL_READ) && defined(CONFIG_FRAME_POINTER)
#define SKYPROF_X86_DUMP_TRACE 1
#endif

/*
 * Frame-pointer unwinders (dump_trace's walker; the x86 frame unwinder, as
 * RHEL 7 has it) lose the caller of a function interrupted outside its
 * frame: unwind_kernel.c finds it from the instruction at the interrupted
 * ip. ORC knows every instruction's frame and needs no help.
 */
#if defined(CONFIG_X86_64) && defined(CONFIG_FRAME_POINTER) && !defined(CONFIG_UNWINDER_ORC) && \
	defined(SKYPROF_EXPORTED_PROBE_KERNEL_READ) && \
	(defined(SKYPROF_X86_UNWINDER) || defined(SKYPROF_X86_DUMP_TRACE))
#define SKYPROF_FP_FRAMELESS_FIXUP 1
#endif

/*
 * x86-64 syscalls before 4.16 entered through a fast path that saved only
 * part of pt_regs (no rbp, rbx, r12-r15); every kernel of the dump_trace
 * route (up to 4.8) has it.
 */
#if defined(SKYPROF_X86_DUMP_TRACE) && defined(CONFIG_X86_64)
#define SKYPROF_SYSCALL_PARTIAL_REGS 1
#endif

/*
 * Before 4.1 (RHEL 7 too) the x86-64 syscall fast path kept the user rsp in
 * a per-CPU variable modules cannot read, and left pt_regs->sp (and cs, ss,
 * flags) as an earlier entry from user mode had written them.
 */
#if defined(SKYPROF_HAVE_X86_OLD_RSP) && defined(CONFIG_X86_64)
#define SKYPROF_SYSCALL_STALE_SP 1
#endif

/* ---- CPU hotplug ---------------------------------------------------------- */

/*
 * One multi-instance state with online/offline callbacks (process context;
 * online on the CPU concerned): cpuhp states from 4.10, CPU notifiers
 * before (kmod/compat/cpuhp.c).
 */
typedef int (*skyprof_cpuhp_fn)(unsigned int cpu, struct hlist_node *node);

#if defined(SKYPROF_HAVE_CPUHP_MULTI) && defined(SKYPROF_EXPORTED___CPUHP_STATE_ADD_INSTANCE)
static inline int skyprof_cpuhp_setup(const char *name, skyprof_cpuhp_fn online,
				      skyprof_cpuhp_fn offline)
{
	return cpuhp_setup_state_multi(CPUHP_AP_ONLINE_DYN, name, online, offline);
}

static inline void skyprof_cpuhp_remove(int state)
{
	cpuhp_remove_multi_state(state);
}

static inline int skyprof_cpuhp_add_instance(int state, struct hlist_node *node)
{
	return cpuhp_state_add_instance(state, node);
}

static inline void skyprof_cpuhp_remove_instance(int state, struct hlist_node *node)
{
	cpuhp_state_remove_instance(state, node);
}
#elif defined(SKYPROF_HAVE_CPU_NOTIFIER) && defined(SKYPROF_EXPORTED_REGISTER_CPU_NOTIFIER) && \
	defined(SKYPROF_EXPORTED_WORK_ON_CPU)
#define SKYPROF_CPU_NOTIFIER 1
int skyprof_cpuhp_setup(const char *name, skyprof_cpuhp_fn online, skyprof_cpuhp_fn offline);
void skyprof_cpuhp_remove(int state);
int skyprof_cpuhp_add_instance(int state, struct hlist_node *node);
void skyprof_cpuhp_remove_instance(int state, struct hlist_node *node);
#else
#error "skyprof: neither cpuhp multi-instance states nor CPU notifiers (kmod/compat/.probes/)"
#endif

/* ---- generic netlink -------------------------------------------------------- */

/*
 * 5.2+ validates strictly against one family policy. Before, parsing is
 * lax (unknown attributes ignored, lengths only checked as minimums):
 * genl.c checks what strict parsing would, by hand.
 */
#ifdef SKYPROF_HAVE_GENL_FAMILY_POLICY
#define SKYPROF_GENL_STRICT 1
#elif !defined(SKYPROF_HAVE_GENL_OPS_POLICY)
#error "skyprof: generic netlink has neither a family nor a per-op policy"
#endif

/* Before 4.20 an attribute is refused by the hand check above. */
#ifndef SKYPROF_HAVE_NLA_REJECT
#define NLA_REJECT NLA_UNSPEC
#endif

#ifndef SKYPROF_HAVE_NLA_PUT_U64_64BIT
/* No pad attribute before 4.7: x86 reads unaligned u64 attributes fine. */
static inline int nla_put_u64_64bit(struct sk_buff *skb, int attrtype, u64 value, int padattr)
{
	return nla_put_u64(skb, attrtype, value);
}
#endif

/*
 * Extended acks (4.12+) carry the error text to the sender. Without them
 * the text goes to the kernel log, rate limited, and the sender gets the
 * errno alone.
 */
#ifdef SKYPROF_HAVE_GENL_INFO_EXTACK
#define skyprof_genl_extack(info) ((info)->extack)
#else
struct netlink_ext_ack;
#define skyprof_genl_extack(info) ((struct netlink_ext_ack *)NULL)
#undef NL_SET_ERR_MSG_MOD
#define NL_SET_ERR_MSG_MOD(extack, msg)					\
	do {								\
		(void)(extack);						\
		pr_notice_ratelimited(KBUILD_MODNAME ": %s\n", msg);	\
	} while (0)
#undef NL_SET_ERR_MSG_ATTR
#define NL_SET_ERR_MSG_ATTR(extack, attr, msg)				\
	do {								\
		(void)(attr);						\
		NL_SET_ERR_MSG_MOD(extack, msg);			\
	} while (0)
#endif

#endif /* SKYPROF_COMPAT_H */

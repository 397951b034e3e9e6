// SPDX-License-Identifier: GPL-2.0
/*
 * Kernel stacks through the arch unwinder, started from the interrupted
 * registers (never a home-made frame-pointer walk: distro x86-64 kernels
 * use ORC without frame pointers), or through dump_trace() where there is
 * no unwinder interface yet. NMI-safe; bounded by max frames.
 */
#include <linux/ptrace.h>
#include <linux/sched.h>
#include <linux/uaccess.h>

#include "skyprof_kmod.h"

#ifdef SKYPROF_X86_UNWINDER
#include <asm/unwind.h>
#endif
#ifdef SKYPROF_X86_DUMP_TRACE
#include <asm/stacktrace.h>

/*
 * dump_trace() (x86 up to 4.8) with the frame-pointer walker: what perf's
 * kernel callchain uses there, from NMI too. It crosses the IRQ and
 * exception stacks and checks every frame against the stack bounds and
 * every address against kernel text; its callback cannot stop the walk, so
 * addresses past max only mark the stack truncated.
 */
struct skyprof_dump {
	u64 *ips;
	unsigned int n;
	unsigned int max;
	u32 *flags;
};

static void skyprof_dump_address(void *data, unsigned long addr, int reliable)
{
	struct skyprof_dump *d = data;

	if (d->n < d->max)
		d->ips[d->n++] = addr;
	else
		*d->flags |= SKYPROF_SF_KSTACK_TRUNC;
}

static int skyprof_dump_stack(void *data, char *name)
{
	return 0;
}

static const struct stacktrace_ops skyprof_dump_ops = {
	.address = skyprof_dump_address,
	.stack = skyprof_dump_stack,
	.walk_stack = print_context_stack_bp,
};

/*
 * A frame-pointer walk from regs follows regs->bp, which names the
 * interrupted function's frame only once its prologue has run: interrupted
 * on its first instruction (push %rbp) or its last (ret, after pop %rbp),
 * bp still is, or again is, the caller's frame, and the walk would skip
 * the caller. There the return address is at the top of the stack (one
 * word further just after the push). Returns it, or 0 when the function's
 * frame is in place (or its text or stack cannot be read).
 */
static unsigned long skyprof_frameless_return(struct pt_regs *regs)
{
	unsigned long ret, sp = regs->sp;
	u8 insn[3];

	if (probe_kernel_read(insn, (void *)regs->ip, sizeof(insn)))
		return 0;
	if (insn[0] == 0x48 && insn[1] == 0x89 && insn[2] == 0xe5)	/* mov %rsp,%rbp */
		sp += sizeof(long);
	else if (insn[0] != 0x55 && insn[0] != 0xc3)	/* push %rbp, ret */
		return 0;
	if (probe_kernel_read(&ret, (void *)sp, sizeof(ret)))
		return 0;
	return ret;
}
#endif

/*
 * Stores the kernel ips, innermost first (ips[0] = the interrupted ip), and
 * returns how many, and whether the unwinder reported an error (by value:
 * an error flag passed by address gave the sample handler a canary-checked
 * stack frame). Sets SKYPROF_SF_KSTACK_TRUNC at max depth.
 */
struct skyprof_kstack skyprof_unwind_kernel(struct pt_regs *regs, u64 *ips, unsigned int max,
					    u32 *flags)
{
	struct skyprof_kstack ks = { 0, false };
	unsigned int n = 0;
#ifdef SKYPROF_X86_UNWINDER
	struct unwind_state state;
	unsigned long addr;
#endif

	if (!max)
		return ks;
	ips[n++] = instruction_pointer(regs);
#ifdef SKYPROF_X86_UNWINDER
	/* Starting from regs skips the regs frame: ips[0] stands for it. */
	for (unwind_start(&state, current, regs, NULL); !unwind_done(&state);
	     unwind_next_frame(&state)) {
		addr = unwind_get_return_address(&state);
		if (!addr)
			break;
		if (n >= max) {
			*flags |= SKYPROF_SF_KSTACK_TRUNC;
			break;
		}
		ips[n++] = addr;
	}
	ks.err = unwind_error(&state);
#elif defined(SKYPROF_X86_DUMP_TRACE)
	{
		struct skyprof_dump d = { .ips = ips, .n = n, .max = max, .flags = flags };
		unsigned long ret = skyprof_frameless_return(regs);

		if (ret)
			skyprof_dump_address(&d, ret, 0);
		/* From regs: the frame at regs->bp, the one ips[0] is in. */
		dump_trace(current, regs, NULL, 0, &skyprof_dump_ops, &d);
		n = d.n;
	}
#endif
	ks.n = n;
	return ks;
}

/*
 * The kernel stack of current at this point (a sched_switch probe: current
 * is the task being switched out), innermost first, skipping every frame up
 * to and including the one at first_frame (the probe's), so ips[0] is in
 * the probe's caller. Same flags and result as skyprof_unwind_kernel().
 */
struct skyprof_kstack skyprof_unwind_kernel_current(void *first_frame, u64 *ips,
						    unsigned int max, u32 *flags)
{
	struct skyprof_kstack ks = { 0, false };
	unsigned int n = 0;
#ifdef SKYPROF_X86_UNWINDER
	struct unwind_state state;
	unsigned long addr;

	for (unwind_start(&state, current, NULL, first_frame); !unwind_done(&state);
	     unwind_next_frame(&state)) {
		addr = unwind_get_return_address(&state);
		if (!addr)
			break;
		if (n >= max) {
			*flags |= SKYPROF_SF_KSTACK_TRUNC;
			break;
		}
		ips[n++] = addr;
	}
	ks.err = unwind_error(&state);
#elif defined(SKYPROF_X86_DUMP_TRACE)
	struct skyprof_dump d = { .ips = ips, .n = 0, .max = max, .flags = flags };

	/* The first return address read is the one in first_frame. */
	dump_trace(current, NULL, first_frame, (unsigned long)first_frame, &skyprof_dump_ops, &d);
	n = d.n;
#endif
	ks.n = n;
	return ks;
}

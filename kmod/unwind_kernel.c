// SPDX-License-Identifier: GPL-2.0
/*
 * Kernel stacks through the arch unwinder, started from the interrupted
 * registers (never a home-made frame-pointer walk: distro x86-64 kernels
 * use ORC without frame pointers), or through dump_trace() where there is
 * no unwinder interface yet. NMI-safe; bounded by max frames.
 */
#include <linux/ptrace.h>
#include <linux/sched.h>
#include <linux/string.h>
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
#endif

#ifdef SKYPROF_FP_FRAMELESS_FIXUP
/* mov %reg,(%rsp) (REX.W 89 /r with a SIB byte for %rsp): 4 bytes at p. */
static bool skyprof_mov_to_stack_top(const u8 *p)
{
	return (p[0] == 0x48 || p[0] == 0x4c) && p[1] == 0x89 && (p[2] & 0xc7) == 0x04 &&
	       p[3] == 0x24;
}
#endif

#ifdef SKYPROF_FP_FRAMELESS_FIXUP
/*
 * Length of the NOP at p (0x90, or 0f 1f /0 with its ModRM, SIB and
 * displacement; either behind up to four 0x66 prefixes), 0 when p holds
 * another instruction. Patched-out ftrace call sites and alternatives are
 * such NOPs.
 */
static unsigned int skyprof_nop_len(const u8 *p)
{
	unsigned int pre = 0, len, mod, rm;

	while (pre < 4 && p[pre] == 0x66)
		pre++;
	if (p[pre] == 0x90)
		return pre + 1;
	if (p[pre] != 0x0f || p[pre + 1] != 0x1f || ((p[pre + 2] >> 3) & 7))
		return 0;
	mod = p[pre + 2] >> 6;
	rm = p[pre + 2] & 7;
	len = 3 + (mod != 3 && rm == 4);
	if (mod == 1)
		len += 1;
	else if (mod == 2 || (mod == 0 && rm == 5))
		len += 4;
	return pre + len;
}

/* jmp *%reg (ff /4 with a register operand, REX.B for r8-r15). */
static bool skyprof_jmp_reg(const u8 *p)
{
	if (p[0] == 0x41)
		p++;
	return p[0] == 0xff && (p[1] & 0xf8) == 0xe0;
}

/*
 * How far the instructions at p that leave the stack as it was (NOPs, an
 * lfence, a direct jmp forward) lead, in at most three steps that stay
 * before end: a function's patched-out ftrace call, and the jmp and lfence
 * of a retpoline thunk patched to "jmp 1f; ...; 1: lfence; jmp *%reg"
 * (RHEL 7 on AMD CPUs). 0 when the first instruction is none of them.
 */
static unsigned int skyprof_entry_skip(const u8 *p, const u8 *end)
{
	const u8 *q = p;
	unsigned int n;
	s32 rel;
	int i;

	for (i = 0; i < 3 && q < end; i++) {
		n = skyprof_nop_len(q);
		if (n) {
			q += n;
		} else if (q[0] == 0x0f && q[1] == 0xae && q[2] == 0xe8) {
			q += 3;
		} else if (q[0] == 0xeb && (s8)q[1] >= 0) {
			q += 2 + (s8)q[1];
		} else if (q[0] == 0xe9) {
			memcpy(&rel, q + 1, sizeof(rel));	/* x86: little-endian */
			if (rel < 0 || rel >= end - q - 5)
				break;
			q += 5 + rel;
		} else {
			break;
		}
	}
	return q < end ? q - p : 0;
}

/*
 * A frame-pointer walk from regs follows regs->bp, which names the
 * interrupted function's frame only once its prologue has run. Where it has
 * not (yet, or any more), the walk would skip the caller, whose return
 * address is then at the top of the stack:
 *  - on a prologue's push %rbp or an epilogue's ret (bp is the caller's),
 *    also behind the NOPs a function may start with (its patched-out ftrace
 *    call);
 *  - one word up, just after the push (mov %rsp,%rbp);
 *  - in a retpoline thunk (no frame): at its call, on the top word; at its
 *    mov %reg,(%rsp) and the ret after it, one word up (the top word is the
 *    thunk's own return address, then the branch target);
 *  - in a thunk whose retpoline is patched to jmp *%reg, or to an lfence
 *    before it (behind a jmp: RHEL 7), on the top word.
 * An interrupt is taken at a translated block's start under emulation, so
 * many samples land on a function's or a thunk's first instruction.
 * Returns that return address, or 0 when the function's frame is in place
 * (or the text or the stack cannot be read).
 */
static unsigned long skyprof_frameless_return(struct pt_regs *regs)
{
	static const u8 thunk_call[] = { 0xe8, 0x07, 0x00, 0x00, 0x00, 0xf3, 0x90 };
	unsigned long ret, sp = regs->sp;
	u8 b[28];			/* ip - 4 .. ip + 23 */
	const u8 *insn = b + 4;
	unsigned int skip;

	if (probe_kernel_read(b, (void *)(regs->ip - 4), sizeof(b)))
		return 0;
	skip = skyprof_entry_skip(insn, b + sizeof(b) - 8);
	if (skip && (insn[skip] == 0x55 || skyprof_jmp_reg(insn + skip) ||
		     !memcmp(insn + skip, thunk_call, sizeof(thunk_call)))) {
		/* not started yet: its return address is the top word */
	} else if (insn[0] == 0x48 && insn[1] == 0x89 && insn[2] == 0xe5) {
		sp += sizeof(long);
	} else if (skyprof_mov_to_stack_top(insn) && insn[4] == 0xc3) {
		sp += sizeof(long);
	} else if (insn[0] == 0xc3 && skyprof_mov_to_stack_top(b)) {
		sp += sizeof(long);
	} else if (insn[0] != 0x55 && insn[0] != 0xc3 && !skyprof_jmp_reg(insn) &&
		   memcmp(insn, thunk_call, sizeof(thunk_call))) {
		return 0;
	}
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
#if defined(SKYPROF_FP_FRAMELESS_FIXUP) && defined(SKYPROF_X86_UNWINDER)
	{
		unsigned long ret = skyprof_frameless_return(regs);

		if (ret && n < max)
			ips[n++] = ret;
	}
#endif
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
#ifdef SKYPROF_FP_FRAMELESS_FIXUP
		unsigned long ret = skyprof_frameless_return(regs);

		if (ret)
			skyprof_dump_address(&d, ret, 0);
#endif
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

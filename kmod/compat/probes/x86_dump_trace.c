// SPDX-License-Identifier: GPL-2.0
/*
 * x86 dump_trace() with stacktrace_ops whose address callback returns void,
 * and the frame-pointer walker print_context_stack_bp (up to 4.8, before
 * the x86 unwinder interface); probe_kernel_read() (up to 5.7).
 */
#include <linux/sched.h>
#include <linux/uaccess.h>
#include <asm/stacktrace.h>

void skyprof_probe(struct pt_regs *regs, unsigned long bp);

static void skyprof_probe_address(void *data, unsigned long addr, int reliable)
{
}

static int skyprof_probe_stack(void *data, char *name)
{
	return 0;
}

static const struct stacktrace_ops skyprof_probe_ops = {
	.address = skyprof_probe_address,
	.stack = skyprof_probe_stack,
	.walk_stack = print_context_stack_bp,
};

void skyprof_probe(struct pt_regs *regs, unsigned long bp)
{
	u8 insn;

	if (!probe_kernel_read(&insn, (void *)regs->ip, sizeof(insn)))
		dump_trace(current, regs, NULL, bp, &skyprof_probe_ops, NULL);
}

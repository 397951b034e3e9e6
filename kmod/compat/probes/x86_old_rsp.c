// SPDX-License-Identifier: GPL-2.0
/*
 * The per-CPU old_rsp of x86-64 before 4.1: the syscall fast path kept the
 * user rsp there and left pt_regs->sp stale.
 */
#include <linux/percpu.h>
#include <asm/processor.h>

unsigned long skyprof_probe(void);
unsigned long skyprof_probe(void)
{
	return this_cpu_read(old_rsp);
}

// SPDX-License-Identifier: GPL-2.0
/* The x86 unwinder interface (4.9+; ORC 4.14+): unwind_start from regs. */
#include <linux/sched.h>
#include <asm/unwind.h>

unsigned long skyprof_probe(struct pt_regs *regs);
unsigned long skyprof_probe(struct pt_regs *regs)
{
	struct unwind_state state;
	unsigned long sum = 0;

	for (unwind_start(&state, current, regs, NULL); !unwind_done(&state);
	     unwind_next_frame(&state))
		sum += unwind_get_return_address(&state);
	return sum + unwind_error(&state);
}

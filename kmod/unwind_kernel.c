// SPDX-License-Identifier: GPL-2.0
/*
 * Kernel stacks through the arch unwinder, started from the interrupted
 * registers (never a home-made frame-pointer walk: distro x86-64 kernels
 * use ORC without frame pointers). NMI-safe; bounded by max frames.
 */
#include <linux/ptrace.h>
#include <linux/sched.h>

#include "skyprof_kmod.h"

#ifdef SKYPROF_X86_UNWINDER
#include <asm/unwind.h>
#endif

/*
 * Stores the kernel ips, innermost first (ips[0] = the interrupted ip), and
 * returns how many. Sets SKYPROF_SF_KSTACK_TRUNC at max depth and *err when
 * the unwinder reported an error.
 */
unsigned int skyprof_unwind_kernel(struct pt_regs *regs, u64 *ips, unsigned int max,
				   u32 *flags, bool *err)
{
	unsigned int n = 0;
#ifdef SKYPROF_X86_UNWINDER
	struct unwind_state state;
	unsigned long addr;
#endif

	if (!max)
		return 0;
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
	if (unwind_error(&state))
		*err = true;
#endif
	return n;
}

/*
 * The kernel stack of current at this point (a sched_switch probe: current
 * is the task being switched out), innermost first, skipping every frame up
 * to and including the one at first_frame (the probe's), so ips[0] is in
 * the probe's caller. Same flags and *err as skyprof_unwind_kernel().
 */
unsigned int skyprof_unwind_kernel_current(void *first_frame, u64 *ips, unsigned int max,
					   u32 *flags, bool *err)
{
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
	if (unwind_error(&state))
		*err = true;
#endif
	return n;
}

// SPDX-License-Identifier: GPL-2.0
/*
 * cx16-flags: does this (virtual) CPU's CMPXCHG16B leave alone the flags it
 * must not touch? It sets only ZF; CF, PF, AF, SF and OF keep what the
 * instruction before left. QEMU 7.2's TCG computes them from a stale
 * condition-code state instead: here the raw operand of the ADD before it,
 * in the guest kernel the SLUB object pointer, which an interrupt then
 * saved as EFLAGS (tests/vm/fetch-qemu: why guests run QEMU 10.0). Run by
 * tests/vm/selftest in a guest. Exit 0: no CX16, or its flags are right;
 * 1: they are wrong.
 */
#include <cpuid.h>
#include <stdio.h>

#define CPUID1_ECX_CX16 (1u << 13)
/* CF | SF | OF: the ADD below leaves all three clear. */
#define JUNK_FLAGS 0x881ul

int main(void)
{
	static unsigned __int128 mem __attribute__((aligned(16)));
	unsigned int a, b, c, d, i, bad = 0;
	unsigned long fl = 0;

	if (!__get_cpuid(1, &a, &b, &c, &d) || !(c & CPUID1_ECX_CX16)) {
		printf("cx16-flags: no CMPXCHG16B on this CPU\n");
		return 0;
	}
	for (i = 0; i < 1000; i++) {
		mem = (unsigned __int128)2 << 64 | 1;
		/*
		 * popfq and the jump end QEMU's translation block with the
		 * flags in their raw form; the ADD of JUNK_FLAGS to zero then
		 * leaves JUNK_FLAGS as the operand QEMU keeps for lazy flags
		 * (its result has CF, SF and OF clear); the compare succeeds.
		 */
		__asm__ volatile("pushq $0x2\n\t"
				 "popfq\n\t"
				 "jmp 1f\n"
				 "1:\n\t"
				 "xor %%ecx, %%ecx\n\t"
				 "add %[junk], %%rcx\n\t"
				 "mov $1, %%eax\n\t"
				 "mov $2, %%edx\n\t"
				 "mov $3, %%ebx\n\t"
				 "mov $4, %%ecx\n\t"
				 "cmpxchg16b %[m]\n\t"
				 "pushfq\n\t"
				 "popq %[fl]\n\t"
				 : [fl] "=r"(fl), [m] "+m"(mem)
				 : [junk] "r"(JUNK_FLAGS)
				 : "rax", "rbx", "rcx", "rdx", "cc", "memory");
		if (!(fl & 0x40) || (fl & JUNK_FLAGS) || mem != ((unsigned __int128)4 << 64 | 3))
			bad++;
	}
	printf("cx16-flags: %u of 1000 CMPXCHG16B left wrong flags (last %#lx, want ZF set, CF SF "
	       "OF clear)\n",
	       bad, fl);
	return bad != 0;
}

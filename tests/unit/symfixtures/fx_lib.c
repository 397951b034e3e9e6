// SPDX-License-Identifier: GPL-2.0
/* Shared library fixture, loaded by fx_main with dlopen at a random base. */
__attribute__((noinline)) void lib_func(void)
{
	__asm__ volatile("" ::: "memory");
}

/* Not exported: only .symtab (or DWARF) names it. */
__attribute__((noinline)) static void lib_static(void)
{
	__asm__ volatile("" ::: "memory");
}

void *lib_addr(int which)
{
	lib_static();
	return which ? (void *)lib_static : (void *)lib_func;
}

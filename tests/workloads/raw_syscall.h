/* SPDX-License-Identifier: GPL-2.0 */
/*
 * System calls issued from the calling function itself (always inlined, even
 * under -fno-inline): the user pc of a task blocked in the call is inside
 * that function and its frame pointer is that function's, so a frame-pointer
 * walk from the syscall's user registers sees the exact call chain. Through
 * glibc's wrappers (built without frame pointers) the walk would skip the
 * caller of the wrapper.
 */
#ifndef SKYPROF_WL_RAW_SYSCALL_H
#define SKYPROF_WL_RAW_SYSCALL_H

#include <sys/syscall.h>
#include <unistd.h>

#if defined(__x86_64__)
__attribute__((always_inline)) static inline long raw_syscall3(long nr, long a, long b, long c)
{
	register long rdi __asm__("rdi") = a;
	register long rsi __asm__("rsi") = b;
	register long rdx __asm__("rdx") = c;
	long ret;

	__asm__ volatile("syscall"
			 : "=a"(ret)
			 : "0"(nr), "r"(rdi), "r"(rsi), "r"(rdx)
			 : "rcx", "r11", "memory");
	return ret;
}

__attribute__((always_inline)) static inline long raw_syscall6(long nr, long a, long b, long c,
							       long d, long e, long f)
{
	register long rdi __asm__("rdi") = a;
	register long rsi __asm__("rsi") = b;
	register long rdx __asm__("rdx") = c;
	register long r10 __asm__("r10") = d;
	register long r8 __asm__("r8") = e;
	register long r9 __asm__("r9") = f;
	long ret;

	__asm__ volatile("syscall"
			 : "=a"(ret)
			 : "0"(nr), "r"(rdi), "r"(rsi), "r"(rdx), "r"(r10), "r"(r8), "r"(r9)
			 : "rcx", "r11", "memory");
	return ret;
}
#else
/* Elsewhere through libc: the chain then misses the caller's own frame. */
#define raw_syscall3(nr, a, b, c) syscall(nr, a, b, c)
#define raw_syscall6(nr, a, b, c, d, e, f) syscall(nr, a, b, c, d, e, f)
#endif

#endif

// SPDX-License-Identifier: GPL-2.0
/*
 * spin [SECONDS]: burns CPU in user mode with a known call chain,
 * main -> outer -> middle -> spin_leaf, for SECONDS (default 30), then exits.
 * Built with frame pointers, no inlining, no sibling calls, non-PIE, so a
 * frame-pointer walk sees exactly that chain and the addresses match the
 * symbol table written next to the binary (spin.syms, `nm -S`).
 */
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>

static volatile sig_atomic_t stop;
volatile unsigned long spin_sink, spin_frame;

static void on_alarm(int sig)
{
	(void)sig;
	stop = 1;
}

__attribute__((noinline)) unsigned long spin_leaf(unsigned long seed)
{
	unsigned long x = seed;

	/*
	 * gcc-12 sets up no frame in a leaf function that needs no stack,
	 * even with -fno-omit-frame-pointer (-mno-omit-leaf-frame-pointer
	 * does not change it); taking the frame address forces one, so the
	 * walk sees middle as the caller.
	 */
	spin_frame = (unsigned long)__builtin_frame_address(0);
	while (!stop)
		x = x * 6364136223846793005UL + 1442695040888963407UL;
	return x;
}

__attribute__((noinline)) unsigned long middle(unsigned long seed)
{
	unsigned long r = spin_leaf(seed + 1);

	spin_sink = r;
	return r + 1;
}

__attribute__((noinline)) unsigned long outer(unsigned long seed)
{
	unsigned long r = middle(seed + 1);

	spin_sink = r;
	return r + 1;
}

int main(int argc, char **argv)
{
	unsigned int seconds = argc > 1 ? (unsigned int)atoi(argv[1]) : 30;
	unsigned long r;

	signal(SIGALRM, on_alarm);
	alarm(seconds);
	r = outer((unsigned long)getpid());
	spin_sink = r;
	return 0;
}

// SPDX-License-Identifier: GPL-2.0
/*
 * nofp_chain [SECONDS]: burns CPU with the chain
 *   main -> chain_a -> chain_b -> chain_c -> qsort (glibc) -> by_value
 * for SECONDS (default 30). Built WITHOUT frame pointers (see build.mk), like
 * most distribution code: a frame-pointer walk loses the chain, a DWARF
 * unwind of the copied stack recovers it. Most of the time is spent inside
 * glibc's qsort and the comparison callback it calls, so the unwinder has to
 * get through libc's CFI too.
 */
#include <signal.h>
#include <stdlib.h>
#include <unistd.h>

static volatile sig_atomic_t stop;
volatile unsigned long chain_sink;

static void on_alarm(int sig)
{
	(void)sig;
	stop = 1;
}

__attribute__((noinline)) int by_value(const void *a, const void *b)
{
	unsigned int x = *(const unsigned int *)a, y = *(const unsigned int *)b;

	/* A little work per comparison, so the callback shows in profiles. */
	for (int i = 0; i < 8; i++) {
		x = x * 2654435761u + 1;
		y = y * 2654435761u + 1;
	}
	chain_sink += x ^ y;
	return (*(const unsigned int *)a > *(const unsigned int *)b) -
	       (*(const unsigned int *)a < *(const unsigned int *)b);
}

__attribute__((noinline)) unsigned long chain_c(unsigned int seed)
{
	static unsigned int v[4096];
	unsigned long sum = 0;

	while (!stop) {
		for (unsigned int i = 0; i < sizeof(v) / sizeof(v[0]); i++)
			v[i] = (seed = seed * 1103515245u + 12345u);
		qsort(v, sizeof(v) / sizeof(v[0]), sizeof(v[0]), by_value);
		sum += v[0];
	}
	return sum;
}

__attribute__((noinline)) unsigned long chain_b(unsigned int seed)
{
	unsigned long r = chain_c(seed + 1);

	chain_sink = r;
	return r + 1;
}

__attribute__((noinline)) unsigned long chain_a(unsigned int seed)
{
	unsigned long r = chain_b(seed + 1);

	chain_sink = r;
	return r + 1;
}

int main(int argc, char **argv)
{
	unsigned int secs = argc > 1 ? (unsigned int)atoi(argv[1]) : 30;

	signal(SIGALRM, on_alarm);
	alarm(secs ? secs : 30);
	chain_sink = chain_a(1);
	return 0;
}

// SPDX-License-Identifier: GPL-2.0
/*
 * sleep_chain [SECONDS] [MS]: off-CPU known chain. main -> wait_outer ->
 * sleep_leaf, where sleep_leaf sleeps MS milliseconds (default 10) in
 * nanosleep, again and again for SECONDS (default 5). It measures the time
 * each nanosleep really took (CLOCK_MONOTONIC around the call) and prints
 *   sleeps=N slept_ns=TOTAL
 * at the end: what an off-CPU profile of the chain should add up to.
 * Same build rules as spin; the syscall is issued from sleep_leaf itself.
 */
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

#include "raw_syscall.h"

volatile unsigned long chain_frame;

static unsigned long long mono_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (unsigned long long)ts.tv_sec * 1000000000ull + (unsigned long long)ts.tv_nsec;
}

__attribute__((noinline)) unsigned long long sleep_leaf(long ms)
{
	struct timespec req = { .tv_sec = ms / 1000, .tv_nsec = (ms % 1000) * 1000000L };
	unsigned long long t0, t1;

	chain_frame = (unsigned long)__builtin_frame_address(0);
	t0 = mono_ns();
	raw_syscall3(SYS_nanosleep, (long)&req, 0, 0);
	t1 = mono_ns();
	return t1 - t0;
}

__attribute__((noinline)) unsigned long long wait_outer(unsigned long long end, long ms,
							 unsigned long *sleeps)
{
	unsigned long long slept = 0;

	while (mono_ns() < end) {
		slept += sleep_leaf(ms);
		(*sleeps)++;
	}
	return slept;
}

int main(int argc, char **argv)
{
	double seconds = argc > 1 ? atof(argv[1]) : 5;
	long ms = argc > 2 ? atol(argv[2]) : 10;
	unsigned long sleeps = 0;
	unsigned long long slept;

	slept = wait_outer(mono_ns() + (unsigned long long)(seconds * 1e9), ms, &sleeps);
	printf("sleeps=%lu slept_ns=%llu\n", sleeps, slept);
	return 0;
}

// SPDX-License-Identifier: GPL-2.0
/*
 * sleep_chain [SECONDS] [MS]: off-CPU known chain. main -> wait_outer ->
 * sleep_leaf, where sleep_leaf sleeps MS milliseconds (default 10) in
 * nanosleep, again and again for SECONDS (default 5). It measures the time
 * each nanosleep really took (CLOCK_MONOTONIC around the call) and the CPU
 * time the thread used inside it (CLOCK_THREAD_CPUTIME_ID: entering and
 * leaving the call, arming the timer, being woken), and prints
 *   sleeps=N wall_ns=W cpu_ns=C slept_ns=W-C
 * at the end: slept_ns, the time it was really off the CPU, is what an
 * off-CPU profile of the chain should add up to.
 * Same build rules as spin; the syscall is issued from sleep_leaf itself.
 */
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

#include "raw_syscall.h"

volatile unsigned long chain_frame;

static unsigned long long clock_ns(clockid_t id)
{
	struct timespec ts;

	clock_gettime(id, &ts);
	return (unsigned long long)ts.tv_sec * 1000000000ull + (unsigned long long)ts.tv_nsec;
}

static unsigned long long mono_ns(void)
{
	return clock_ns(CLOCK_MONOTONIC);
}

static unsigned long long cpu_total;

__attribute__((noinline)) unsigned long long sleep_leaf(long ms)
{
	struct timespec req = { .tv_sec = ms / 1000, .tv_nsec = (ms % 1000) * 1000000L };
	unsigned long long t0, t1, c0, c1;

	chain_frame = (unsigned long)__builtin_frame_address(0);
	/*
	 * The CPU-time reads (system calls) inside the wall-clock window, so
	 * that c1 - c0 is CPU time within it; what the window holds of the two
	 * reads themselves is not subtracted (small, if larger under TCG).
	 */
	t0 = mono_ns();
	c0 = clock_ns(CLOCK_THREAD_CPUTIME_ID);
	raw_syscall3(SYS_nanosleep, (long)&req, 0, 0);
	c1 = clock_ns(CLOCK_THREAD_CPUTIME_ID);
	t1 = mono_ns();
	cpu_total += c1 - c0;
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
	printf("sleeps=%lu wall_ns=%llu cpu_ns=%llu slept_ns=%llu\n", sleeps, slept, cpu_total,
	       slept - cpu_total);
	return 0;
}

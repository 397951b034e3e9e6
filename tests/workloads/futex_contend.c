// SPDX-License-Identifier: GPL-2.0
/*
 * futex_contend [SECONDS] [THREADS] [HOLD_US]: THREADS threads (default 3)
 * take turns on one futex-based lock for SECONDS (default 4), each holding
 * it HOLD_US microseconds (default 2000) of CPU work, so the others block in
 * FUTEX_WAIT. Chain of a waiter: contender -> lock_acquire -> futex_wait_leaf
 * (the syscall is issued from futex_wait_leaf itself). Prints
 *   acquisitions=N waits=W waited_ns=T
 * where waited_ns is the time the FUTEX_WAIT calls took, measured around them.
 * Same build rules as spin.
 */
#include <linux/futex.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

#include "raw_syscall.h"

static atomic_int lock_word; /* 0 free, 1 taken, 2 taken with waiters */
static atomic_ullong waited_ns, waits, acquisitions;
static unsigned long long end_ns;
static long hold_us = 2000;
volatile unsigned long futex_frame, futex_sink;

static unsigned long long mono_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (unsigned long long)ts.tv_sec * 1000000000ull + (unsigned long long)ts.tv_nsec;
}

__attribute__((noinline)) void futex_wait_leaf(void)
{
	unsigned long long t0 = mono_ns();

	futex_frame = (unsigned long)__builtin_frame_address(0);
	raw_syscall6(SYS_futex, (long)&lock_word, FUTEX_WAIT_PRIVATE, 2, 0, 0, 0);
	atomic_fetch_add(&waited_ns, mono_ns() - t0);
	atomic_fetch_add(&waits, 1);
}

__attribute__((noinline)) void lock_acquire(void)
{
	int c = 0;

	if (atomic_compare_exchange_strong(&lock_word, &c, 1))
		return;
	if (c != 2)
		c = atomic_exchange(&lock_word, 2);
	while (c != 0) {
		futex_wait_leaf();
		c = atomic_exchange(&lock_word, 2);
	}
}

__attribute__((noinline)) void lock_release(void)
{
	if (atomic_exchange(&lock_word, 0) == 2)
		raw_syscall6(SYS_futex, (long)&lock_word, FUTEX_WAKE_PRIVATE, 1, 0, 0, 0);
}

__attribute__((noinline)) void hold_work(void)
{
	unsigned long long until = mono_ns() + (unsigned long long)hold_us * 1000;
	unsigned long x = futex_sink;

	while (mono_ns() < until)
		x = x * 6364136223846793005UL + 1;
	futex_sink = x;
}

__attribute__((noinline)) void *contender(void *arg)
{
	(void)arg;
	while (mono_ns() < end_ns) {
		lock_acquire();
		hold_work();
		atomic_fetch_add(&acquisitions, 1);
		lock_release();
	}
	return NULL;
}

int main(int argc, char **argv)
{
	double seconds = argc > 1 ? atof(argv[1]) : 4;
	int n = argc > 2 ? atoi(argv[2]) : 3;
	pthread_t th[64];

	if (argc > 3)
		hold_us = atol(argv[3]);
	if (n < 2 || n > 64)
		n = 3;
	end_ns = mono_ns() + (unsigned long long)(seconds * 1e9);
	for (int i = 0; i < n; i++)
		if (pthread_create(&th[i], NULL, contender, NULL)) {
			perror("pthread_create");
			return 1;
		}
	for (int i = 0; i < n; i++)
		pthread_join(th[i], NULL);
	printf("acquisitions=%llu waits=%llu waited_ns=%llu\n", (unsigned long long)acquisitions,
	       (unsigned long long)waits, (unsigned long long)waited_ns);
	return 0;
}

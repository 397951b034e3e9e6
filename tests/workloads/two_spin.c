// SPDX-License-Identifier: GPL-2.0
/*
 * two_spin [SECONDS] [pin|alpha|beta]: two threads burn CPU in user mode for
 * SECONDS (default 30), each in a function of its own: alpha_thread ->
 * alpha_spin and beta_thread -> beta_spin, so a profile tells the threads
 * apart by function. With "pin", alpha runs on CPU 0 and beta on CPU 1.
 * With "alpha" (or "beta") that thread spins all the time and the other a
 * quarter of it (10 ms of every 40, sleeping in between), so the hot
 * function moves between two runs (report --diff). Once both
 * run it prints one line, "alpha=TID beta=TID", and flushes it; at the end
 * "cpu alpha=NS beta=NS", the CPU time each thread had (its own split, to
 * judge a profile's against). The main thread only waits. Same build rules
 * as spin.
 */
#include <pthread.h>
#include <sched.h>
#include <signal.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

static atomic_int stop;
static atomic_long tids[2];
static unsigned long long cpu_ns[2]; /* each thread's CPU time, at its end */
static int pin;
static int cold = -1; /* the thread (0 alpha, 1 beta) that spins a quarter of the time */
volatile unsigned long two_sink, two_frame;

static void pin_to(int cpu)
{
	cpu_set_t set;

	CPU_ZERO(&set);
	CPU_SET(cpu, &set);
	if (sched_setaffinity(0, sizeof(set), &set))
		perror("two_spin: sched_setaffinity");
}

static unsigned long long thread_cpu_ns(void)
{
	struct timespec t;

	clock_gettime(CLOCK_THREAD_CPUTIME_ID, &t);
	return (unsigned long long)t.tv_sec * 1000000000ULL + (unsigned long long)t.tv_nsec;
}

static unsigned long long now_ns(void)
{
	struct timespec t;

	clock_gettime(CLOCK_MONOTONIC, &t);
	return (unsigned long long)t.tv_sec * 1000000000ULL + (unsigned long long)t.tv_nsec;
}

/* The cold thread, every 4096 steps: past 10 ms of spinning, sleeps 30 ms. */
static void duty(unsigned long long *since)
{
	if (now_ns() - *since >= 10000000ULL) {
		usleep(30000);
		*since = now_ns();
	}
}

__attribute__((noinline)) unsigned long alpha_spin(unsigned long x)
{
	unsigned long long since = now_ns();
	unsigned long i = 0;

	/* A frame in the leaf, as spin's spin_leaf (gcc-12 leaves it out otherwise). */
	two_frame = (unsigned long)__builtin_frame_address(0);
	while (!atomic_load_explicit(&stop, memory_order_relaxed)) {
		x = x * 6364136223846793005UL + 1442695040888963407UL;
		if (cold == 0 && !(++i & 4095))
			duty(&since);
	}
	return x;
}

__attribute__((noinline)) unsigned long beta_spin(unsigned long x)
{
	unsigned long long since = now_ns();
	unsigned long i = 0;

	two_frame = (unsigned long)__builtin_frame_address(0);
	while (!atomic_load_explicit(&stop, memory_order_relaxed)) {
		x = x * 2862933555777941757UL + 3037000493UL;
		if (cold == 1 && !(++i & 4095))
			duty(&since);
	}
	return x;
}

__attribute__((noinline)) void *alpha_thread(void *arg)
{
	(void)arg;
	if (pin)
		pin_to(0);
	atomic_store(&tids[0], syscall(SYS_gettid));
	two_sink = alpha_spin(1);
	cpu_ns[0] = thread_cpu_ns();
	return NULL;
}

__attribute__((noinline)) void *beta_thread(void *arg)
{
	(void)arg;
	if (pin)
		pin_to(1);
	atomic_store(&tids[1], syscall(SYS_gettid));
	two_sink = beta_spin(2);
	cpu_ns[1] = thread_cpu_ns();
	return NULL;
}

int main(int argc, char **argv)
{
	unsigned int seconds = argc > 1 ? (unsigned int)atoi(argv[1]) : 30;
	pthread_t a, b;

	pin = argc > 2 && !strcmp(argv[2], "pin");
	if (argc > 2 && !strcmp(argv[2], "alpha"))
		cold = 1;
	if (argc > 2 && !strcmp(argv[2], "beta"))
		cold = 0;
	if (pthread_create(&a, NULL, alpha_thread, NULL) ||
	    pthread_create(&b, NULL, beta_thread, NULL)) {
		perror("two_spin: pthread_create");
		return 1;
	}
	while (!atomic_load(&tids[0]) || !atomic_load(&tids[1]))
		usleep(1000);
	printf("alpha=%ld beta=%ld\n", atomic_load(&tids[0]), atomic_load(&tids[1]));
	fflush(stdout);
	sleep(seconds ? seconds : 30);
	atomic_store(&stop, 1);
	pthread_join(a, NULL);
	pthread_join(b, NULL);
	printf("cpu alpha=%llu beta=%llu\n", cpu_ns[0], cpu_ns[1]);
	return 0;
}

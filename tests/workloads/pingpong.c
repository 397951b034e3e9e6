// SPDX-License-Identifier: GPL-2.0
/*
 * pingpong [SECONDS] [CPU]: a context-switch storm. Two threads bounce one
 * byte over a pair of pipes for SECONDS (default 5), both pinned to CPU
 * (default 0; -1: not pinned), so every hand-over is a switch from one to
 * the other. Prints
 *   rounds=N seconds=S switches=C switches_per_s=R
 * where switches counts both threads' context switches (getrusage).
 * Same build rules as spin; the syscalls are issued from the leaf functions.
 */
#include <pthread.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/resource.h>
#include <time.h>
#include <unistd.h>

#include "raw_syscall.h"

static int ping[2], pong[2];
static int cpu;
static unsigned long long rounds, switches[2];

static unsigned long long mono_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (unsigned long long)ts.tv_sec * 1000000000ull + (unsigned long long)ts.tv_nsec;
}

static void pin(void)
{
	cpu_set_t set;

	if (cpu < 0)
		return;
	CPU_ZERO(&set);
	CPU_SET(cpu, &set);
	if (sched_setaffinity(0, sizeof(set), &set))
		perror("sched_setaffinity");
}

static unsigned long long my_switches(void)
{
	struct rusage ru;

	getrusage(RUSAGE_THREAD, &ru);
	return (unsigned long long)(ru.ru_nvcsw + ru.ru_nivcsw);
}

__attribute__((noinline)) long bounce(int in, int out, char *c)
{
	if (raw_syscall3(SYS_read, in, (long)c, 1) != 1)
		return -1;
	return raw_syscall3(SYS_write, out, (long)c, 1);
}

__attribute__((noinline)) void *ponger(void *arg)
{
	unsigned long long s0;
	char c;

	(void)arg;
	pin();
	s0 = my_switches();
	while (bounce(ping[0], pong[1], &c) == 1 && c != 'q')
		;
	switches[1] = my_switches() - s0;
	return NULL;
}

int main(int argc, char **argv)
{
	double seconds = argc > 1 ? atof(argv[1]) : 5;
	unsigned long long t0, end, s0;
	pthread_t th;
	char c = 'x';

	cpu = argc > 2 ? atoi(argv[2]) : 0;
	if (pipe(ping) || pipe(pong) || pthread_create(&th, NULL, ponger, NULL)) {
		perror("pingpong");
		return 1;
	}
	pin();
	s0 = my_switches();
	t0 = mono_ns();
	end = t0 + (unsigned long long)(seconds * 1e9);
	while ((rounds & 255) || mono_ns() < end) {
		if (raw_syscall3(SYS_write, ping[1], (long)&c, 1) != 1 ||
		    raw_syscall3(SYS_read, pong[0], (long)&c, 1) != 1)
			break;
		rounds++;
	}
	seconds = (double)(mono_ns() - t0) / 1e9;
	c = 'q';
	raw_syscall3(SYS_write, ping[1], (long)&c, 1);
	switches[0] = my_switches() - s0;
	pthread_join(th, NULL);
	printf("rounds=%llu seconds=%.3f switches=%llu switches_per_s=%.0f\n", rounds, seconds,
	       switches[0] + switches[1], (double)(switches[0] + switches[1]) / seconds);
	return 0;
}

// SPDX-License-Identifier: GPL-2.0
/*
 * crowd [-d DELAY] [-t THREADS] [-p PARKED] [-w] SECONDS: a process whose
 * thread count and the system load rise on cue, for the continuous-profiling
 * tests (PROCESS_THREAD_COUNT and SYSTEM_LOAD policies).
 *
 * After DELAY seconds (default 0) it starts THREADS threads that sleep, and
 * PARKED threads that each clone a thread of their own with CLONE_VFORK:
 * the parent waits for that thread (which sleeps and never exits) in an
 * uninterruptible (killable) sleep, which Linux counts in the load average
 * like a runnable task, so load1 climbs towards PARKED without burning CPU
 * (a guest under TCG has little to spare) and without another process for
 * the agent's discovery to read. Each parked pair is two threads. With -w the main
 * thread works lightly (about 20 % of a CPU in crowd_work) so an on-CPU
 * profile of the process has a known function; otherwise it sleeps. Exits
 * after SECONDS (counted from the start).
 * "crowd: N threads" is printed once the threads are up.
 */
#include <pthread.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

#define PARK_STACK (64 * 1024)

volatile unsigned long crowd_sink;

static double now_s(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

static void nap_ms(long ms)
{
	struct timespec ts = { .tv_sec = ms / 1000, .tv_nsec = (ms % 1000) * 1000000L };

	nanosleep(&ts, NULL);
}

static void *sleeper(void *arg)
{
	(void)arg;
	for (;;)
		nap_ms(3600 * 1000L);
	return NULL;
}

/* The CLONE_VFORK thread: shares everything with its parent, which waits
 * for it; it only makes system calls (its TLS is its parent's) and never
 * ends. The process's exit takes it and wakes the parent. */
static int park_child(void *arg)
{
	struct timespec ts = { .tv_sec = 3600 };

	(void)arg;
	for (;;)
		syscall(SYS_nanosleep, &ts, NULL);
	return 0;
}

static void *parker(void *arg)
{
	const int flags = CLONE_VM | CLONE_FS | CLONE_FILES | CLONE_SIGHAND | CLONE_THREAD |
			  CLONE_SYSVSEM | CLONE_VFORK;
	char *stack = malloc(PARK_STACK);

	(void)arg;
	if (!stack || clone(park_child, stack + PARK_STACK, flags, NULL) < 0)
		perror("crowd: clone");
	for (;;)
		nap_ms(3600 * 1000L); /* only if the clone failed */
	return NULL;
}

__attribute__((noinline)) void crowd_work(double until)
{
	unsigned long x = 1;

	while (now_s() < until)
		for (int i = 0; i < 100000; i++)
			x = x * 6364136223846793005UL + 1442695040888963407UL;
	crowd_sink = x;
}

int main(int argc, char **argv)
{
	int delay = 0, threads = 0, parked = 0, work = 0, opt;
	double start = now_s(), end;
	pthread_t t;

	while ((opt = getopt(argc, argv, "d:t:p:w")) != -1) {
		switch (opt) {
		case 'd':
			delay = atoi(optarg);
			break;
		case 't':
			threads = atoi(optarg);
			break;
		case 'p':
			parked = atoi(optarg);
			break;
		case 'w':
			work = 1;
			break;
		default:
			fprintf(stderr, "usage: crowd [-d DELAY] [-t THREADS] [-p PARKED] [-w] "
					"SECONDS\n");
			return 2;
		}
	}
	if (optind != argc - 1) {
		fprintf(stderr, "crowd: SECONDS missing\n");
		return 2;
	}
	end = start + atof(argv[optind]);
	setvbuf(stdout, NULL, _IONBF, 0);
	if (delay)
		nap_ms(delay * 1000L);
	for (int i = 0; i < threads + parked; i++) {
		if (pthread_create(&t, NULL, i < threads ? sleeper : parker, NULL)) {
			perror("crowd: pthread_create");
			return 1;
		}
		pthread_detach(t);
	}
	printf("crowd: %d threads\n", threads + 2 * parked + 1);
	while (now_s() < end) {
		if (work)
			crowd_work(now_s() + 0.02);
		nap_ms(work ? 80 : 200);
	}
	return 0;
}

// SPDX-License-Identifier: GPL-2.0
/*
 * pipe_read [SECONDS] [GAP_US] [GO_FILE]: a reader thread blocks in read()
 * on a pipe (reader -> read_loop -> read_leaf, the syscall issued from
 * read_leaf) while the main thread computes for GAP_US microseconds
 * (default 3000) between one-byte writes, for SECONDS (default 4). With
 * GO_FILE it first waits (up to 60 s) for that file to exist. Prints
 *   reads=N read_blocked_ns=T
 * where read_blocked_ns is the time the reads took, measured around them.
 * Same build rules as spin.
 */
#include <pthread.h>
#include <stdio.h>
#include <sys/stat.h>
#include <stdlib.h>
#include <time.h>
#include <unistd.h>

#include "raw_syscall.h"

static int fds[2];
static unsigned long long read_ns, reads;
volatile unsigned long pipe_frame, pipe_sink;

static unsigned long long mono_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (unsigned long long)ts.tv_sec * 1000000000ull + (unsigned long long)ts.tv_nsec;
}

__attribute__((noinline)) long read_leaf(char *buf)
{
	unsigned long long t0 = mono_ns();
	long n;

	pipe_frame = (unsigned long)__builtin_frame_address(0);
	n = raw_syscall3(SYS_read, fds[0], (long)buf, 1);
	read_ns += mono_ns() - t0;
	return n;
}

__attribute__((noinline)) void read_loop(void)
{
	char c = 0;

	while (read_leaf(&c) == 1 && c != 'q')
		reads++;
}

__attribute__((noinline)) void *reader(void *arg)
{
	(void)arg;
	read_loop();
	return NULL;
}

__attribute__((noinline)) void compute(long us)
{
	unsigned long long until = mono_ns() + (unsigned long long)us * 1000;
	unsigned long x = pipe_sink;

	while (mono_ns() < until)
		x = x * 6364136223846793005UL + 1;
	pipe_sink = x;
}

__attribute__((noinline)) void write_loop(unsigned long long end, long gap_us)
{
	while (mono_ns() < end) {
		compute(gap_us);
		if (raw_syscall3(SYS_write, fds[1], (long)"x", 1) != 1)
			break;
	}
	raw_syscall3(SYS_write, fds[1], (long)"q", 1);
}

int main(int argc, char **argv)
{
	double seconds = argc > 1 ? atof(argv[1]) : 4;
	long gap_us = argc > 2 ? atol(argv[2]) : 3000;
	struct stat st;
	pthread_t th;

	for (int i = 0; argc > 3 && stat(argv[3], &st) && i < 6000; i++)
		usleep(10000);
	if (pipe(fds) || pthread_create(&th, NULL, reader, NULL)) {
		perror("pipe_read");
		return 1;
	}
	write_loop(mono_ns() + (unsigned long long)(seconds * 1e9), gap_us);
	pthread_join(th, NULL);
	printf("reads=%llu read_blocked_ns=%llu\n", reads, read_ns);
	return 0;
}

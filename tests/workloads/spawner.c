// SPDX-License-Identifier: GPL-2.0
/*
 * spawner [COUNT] [BATCH] [WAIT_FILE] [FORK_EVERY]: starts COUNT (default
 * 10000) short-lived processes, BATCH (default 50) at a time: half of each
 * batch exits at once, the other half says it is ready on a pipe, blocks in
 * read() on another pipe that is never written and is SIGKILLed there (the
 * parent waits for all of them to be ready first); every child is reaped
 * before the next batch. Every FORK_EVERY-th child (default 500; 1: all) is a
 * fork(); the others are clone(CLONE_VM | CLONE_FS | CLONE_FILES |
 * CLONE_SIGHAND) processes (their own pid, tgid and signal state, the
 * parent's memory, files and handlers: nothing to copy, which makes 10 000
 * of them affordable under an emulated CPU) that only issue raw system calls.
 * With WAIT_FILE it first waits (up to 30 s) for that file to exist (the
 * session to run). Prints spawned=N forked=F killed_blocked=K seconds=S.
 */
#include <sched.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "raw_syscall.h"

#define STACK_SIZE (64 * 1024)

static int fds[2], ready[2];

static double mono_s(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

/* Raw system calls only: a CLONE_VM child shares the parent's libc state. */
__attribute__((noinline)) void child_block(void)
{
	char c = 'r';

	raw_syscall3(SYS_write, ready[1], (long)&c, 1);
	raw_syscall3(SYS_read, fds[0], (long)&c, 1);
	raw_syscall3(SYS_exit, 1, 0, 0);
}

__attribute__((noinline)) int child_main(void *arg)
{
	if ((long)arg & 1)
		child_block();
	raw_syscall3(SYS_exit, 0, 0, 0);
	return 0;
}

int main(int argc, char **argv)
{
	long count = argc > 1 ? atol(argv[1]) : 10000;
	long batch = argc > 2 ? atol(argv[2]) : 50;
	long fork_every = argc > 4 ? atol(argv[4]) : 500;
	long spawned = 0, forked = 0, killed = 0;
	pid_t pids[1024];
	char *stacks;
	struct stat st;
	double t0;

	if (batch < 2 || batch > 1024)
		batch = 50;
	if (fork_every < 1)
		fork_every = 1;
	for (int i = 0; argc > 3 && *argv[3] && stat(argv[3], &st) && i < 3000; i++)
		usleep(10000);
	stacks = mmap(NULL, (size_t)batch * STACK_SIZE, PROT_READ | PROT_WRITE,
		      MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	if (stacks == MAP_FAILED || pipe(fds) || pipe(ready)) {
		perror("spawner");
		return 1;
	}
	t0 = mono_s();
	while (spawned < count) {
		long n = count - spawned < batch ? count - spawned : batch, i;

		for (i = 0; i < n; i++) {
			if ((spawned + i) % fork_every == 0) {
				pids[i] = fork();
				if (!pids[i])
					child_main((void *)i);
				forked++;
			} else {
				pids[i] = clone(child_main, stacks + (size_t)(i + 1) * STACK_SIZE,
						CLONE_VM | CLONE_FS | CLONE_FILES | CLONE_SIGHAND | SIGCHLD,
						(void *)i);
			}
			if (pids[i] < 0) {
				perror("fork/clone");
				return 1;
			}
		}
		/* Let the blocking half block, then kill it there. */
		for (i = 1; i < n; i += 2) {
			char c;

			if (read(ready[0], &c, 1) != 1) {
				perror("read");
				return 1;
			}
		}
		usleep(1000);
		for (i = 1; i < n; i += 2) {
			kill(pids[i], SIGKILL);
			killed++;
		}
		for (i = 0; i < n; i++)
			waitpid(pids[i], NULL, 0);
		spawned += n;
	}
	printf("spawned=%ld forked=%ld killed_blocked=%ld seconds=%.2f\n", spawned, forked, killed,
	       mono_s() - t0);
	return 0;
}

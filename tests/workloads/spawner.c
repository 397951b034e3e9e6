// SPDX-License-Identifier: GPL-2.0
/*
 * spawner [COUNT] [BATCH] [WAIT_FILE]: starts COUNT (default 10000)
 * short-lived processes, BATCH (default 50) at a time: half of each batch
 * exits at once, the other half says it is ready on a pipe, blocks in read()
 * on another that is never written and is SIGKILLed there (the parent waits
 * for all of them to be ready first); every child is reaped before the next
 * batch. With WAIT_FILE it first waits (up to 30 s) for that file to
 * exist (the session to run). Prints spawned=N killed_blocked=K seconds=S.
 */
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "raw_syscall.h"

static int fds[2], ready[2];

static double mono_s(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

__attribute__((noinline)) void child_block(void)
{
	char c = 'r';

	if (write(ready[1], &c, 1) != 1)
		_exit(2);
	raw_syscall3(SYS_read, fds[0], (long)&c, 1);
	_exit(1);
}

int main(int argc, char **argv)
{
	long count = argc > 1 ? atol(argv[1]) : 10000;
	long batch = argc > 2 ? atol(argv[2]) : 50;
	long spawned = 0, killed = 0;
	pid_t pids[1024];
	struct stat st;
	double t0;

	if (batch < 2 || batch > 1024)
		batch = 50;
	for (int i = 0; argc > 3 && stat(argv[3], &st) && i < 3000; i++)
		usleep(10000);
	if (pipe(fds) || pipe(ready)) {
		perror("pipe");
		return 1;
	}
	t0 = mono_s();
	while (spawned < count) {
		long n = count - spawned < batch ? count - spawned : batch, i;

		for (i = 0; i < n; i++) {
			pids[i] = fork();
			if (pids[i] < 0) {
				perror("fork");
				return 1;
			}
			if (!pids[i]) {
				if (i & 1)
					child_block();
				_exit(0);
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
	printf("spawned=%ld killed_blocked=%ld seconds=%.2f\n", spawned, killed, mono_s() - t0);
	return 0;
}

// SPDX-License-Identifier: GPL-2.0
/*
 * syscall_spin [SECONDS]: loops in a cheap system call (getppid) for SECONDS
 * (default 30), main -> outer -> syscall_loop, so that most ticks land in the
 * kernel's syscall path. Same build rules as spin.
 */
#include <signal.h>
#include <stdlib.h>
#include <sys/syscall.h>
#include <unistd.h>

static volatile sig_atomic_t stop;
volatile long syscall_sink;

static void on_alarm(int sig)
{
	(void)sig;
	stop = 1;
}

__attribute__((noinline)) long syscall_loop(void)
{
	long n = 0;

	while (!stop)
		n += syscall(SYS_getppid);
	return n;
}

__attribute__((noinline)) long outer(void)
{
	long r = syscall_loop();

	syscall_sink = r;
	return r + 1;
}

int main(int argc, char **argv)
{
	unsigned int seconds = argc > 1 ? (unsigned int)atoi(argv[1]) : 30;

	signal(SIGALRM, on_alarm);
	alarm(seconds);
	syscall_sink = outer();
	return 0;
}

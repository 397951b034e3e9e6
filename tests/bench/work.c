// SPDX-License-Identifier: GPL-2.0
/*
 * work MODE SECONDS [WORKERS] [DEPTH]: the benchmark workload of make bench.
 *
 * Starts WORKERS processes (default: one per online CPU, each pinned to its
 * own CPU), each descends DEPTH distinct functions (default 32; level_00 ->
 * level_01 -> ... -> the leaf) and then repeats a fixed unit of work until
 * SECONDS have passed:
 *   cpu  64 steps of a multiply-add recurrence (user mode only)
 *   sys  one getppid() system call (most of the time in the kernel's
 *        syscall entry and exit)
 * The workers start together and stop together: each reports ready once it
 * is pinned, the parent lets them all go at once, and after SECONDS it
 * raises a stop flag they share. So all of them run for the whole window:
 * a worker that started late or ended early would leave its CPU idle for a
 * while, and under QEMU -icount (where guest time follows the instructions
 * of all vCPUs) the others would then run faster in guest time, which
 * looks like less overhead. Each worker times its own loop (CLOCK_MONOTONIC)
 * and reports how many units it did; the parent prints
 *   units_per_s SUM OVER WORKERS OF UNITS / SECONDS
 *   units TOTAL UNITS
 *   seconds LONGEST WORKER'S SECONDS
 *   worker CPU pid PID units U seconds S
 * The profilers' cost shows up as fewer units per second than without them.
 * Built with frame pointers and no inlining, like tests/workloads, so every
 * profiler sees the whole DEPTH-deep chain with a frame-pointer walk.
 * SIGTERM or SIGINT to the parent ends the workers too, so a long run can
 * serve as background load.
 */
#include <errno.h>
#include <sched.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#define MAX_DEPTH 64

/* In a shared page: the parent raises it and every worker stops. */
static volatile int *stop;
static int sys_mode;
static pid_t worker_pids[256];
static int nr_workers;
volatile unsigned long work_sink;

/* The parent: SIGTERM/SIGINT end the workers too (for open-ended runs). */
static void on_term(int sig)
{
	for (int i = 0; i < nr_workers; i++)
		kill(worker_pids[i], SIGKILL);
	signal(sig, SIG_DFL);
	raise(sig);
}

static double now_s(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

__attribute__((noinline)) unsigned long work_leaf(unsigned long *units)
{
	unsigned long x = (unsigned long)getpid(), n = 0;

	if (sys_mode) {
		while (!*stop) {
			x += (unsigned long)syscall(SYS_getppid);
			n++;
		}
	} else {
		while (!*stop) {
			for (int i = 0; i < 64; i++)
				x = x * 6364136223846793005UL + 1442695040888963407UL;
			n++;
		}
	}
	*units = n;
	return x;
}

typedef unsigned long (*level_fn)(int depth, unsigned long *units);
static const level_fn levels[MAX_DEPTH];

/*
 * Distinct functions, so a stack is DEPTH different frames, not recursion:
 * level_0 -> level_1 -> ... -> level_{DEPTH-1} -> work_leaf.
 */
#define LEVEL(n)                                                                        \
	__attribute__((noinline)) unsigned long level_##n(int depth, unsigned long *units) \
	{                                                                               \
		unsigned long r = depth > 1 && n + 1 < MAX_DEPTH ?                      \
					  levels[(n + 1) % MAX_DEPTH](depth - 1, units) : \
					  work_leaf(units);                             \
		work_sink = r;                                                          \
		return r + 1;                                                           \
	}
LEVEL(0) LEVEL(1) LEVEL(2) LEVEL(3) LEVEL(4) LEVEL(5) LEVEL(6) LEVEL(7) LEVEL(8) LEVEL(9)
LEVEL(10) LEVEL(11) LEVEL(12) LEVEL(13) LEVEL(14) LEVEL(15) LEVEL(16) LEVEL(17) LEVEL(18)
LEVEL(19) LEVEL(20) LEVEL(21) LEVEL(22) LEVEL(23) LEVEL(24) LEVEL(25) LEVEL(26) LEVEL(27)
LEVEL(28) LEVEL(29) LEVEL(30) LEVEL(31) LEVEL(32) LEVEL(33) LEVEL(34) LEVEL(35) LEVEL(36)
LEVEL(37) LEVEL(38) LEVEL(39) LEVEL(40) LEVEL(41) LEVEL(42) LEVEL(43) LEVEL(44) LEVEL(45)
LEVEL(46) LEVEL(47) LEVEL(48) LEVEL(49) LEVEL(50) LEVEL(51) LEVEL(52) LEVEL(53) LEVEL(54)
LEVEL(55) LEVEL(56) LEVEL(57) LEVEL(58) LEVEL(59) LEVEL(60) LEVEL(61) LEVEL(62) LEVEL(63)

static const level_fn levels[MAX_DEPTH] = {
	level_0, level_1, level_2, level_3, level_4, level_5, level_6, level_7, level_8,
	level_9, level_10, level_11, level_12, level_13, level_14, level_15, level_16,
	level_17, level_18, level_19, level_20, level_21, level_22, level_23, level_24,
	level_25, level_26, level_27, level_28, level_29, level_30, level_31, level_32,
	level_33, level_34, level_35, level_36, level_37, level_38, level_39, level_40,
	level_41, level_42, level_43, level_44, level_45, level_46, level_47, level_48,
	level_49, level_50, level_51, level_52, level_53, level_54, level_55, level_56,
	level_57, level_58, level_59, level_60, level_61, level_62, level_63
};

/* Reads or writes exactly n bytes (a pipe), retrying interrupted calls. */
static int pipe_io(int fd, char *buf, size_t n, int wr)
{
	while (n) {
		ssize_t r = wr ? write(fd, buf, n) : read(fd, buf, n);

		if (r < 0 && errno == EINTR)
			continue;
		if (r <= 0)
			return -1;
		buf += r;
		n -= (size_t)r;
	}
	return 0;
}

static void worker(int cpu, int depth, int fd, int ready_fd, int go_fd)
{
	unsigned long units = 0;
	double t0, t1;
	char line[128], c = 'r';
	int n;

	if (cpu >= 0) {
		cpu_set_t set;

		CPU_ZERO(&set);
		CPU_SET(cpu, &set);
		if (sched_setaffinity(0, sizeof(set), &set))
			perror("work: sched_setaffinity");
	}
	signal(SIGTERM, SIG_DFL);
	signal(SIGINT, SIG_DFL);
	if (pipe_io(ready_fd, &c, 1, 1) || pipe_io(go_fd, &c, 1, 0))
		_exit(1);
	t0 = now_s();
	work_sink = levels[0](depth, &units);
	t1 = now_s();
	n = snprintf(line, sizeof(line), "%d %d %lu %.6f\n", cpu, (int)getpid(), units, t1 - t0);
	if (write(fd, line, (size_t)n) != n)
		_exit(1);
	_exit(0);
}

/* All workers ready, then all go; SECONDS later, all stop. */
static int run_window(int workers, int secs, int ready_fd, int go_fd)
{
	char go[256];
	struct timespec ts = { .tv_sec = secs };

	if (pipe_io(ready_fd, go, (size_t)workers, 0))
		return -1;
	memset(go, 'g', sizeof(go));
	if (pipe_io(go_fd, go, (size_t)workers, 1))
		return -1;
	while (clock_nanosleep(CLOCK_MONOTONIC, 0, &ts, &ts) == EINTR)
		;
	*stop = 1;
	return 0;
}

int main(int argc, char **argv)
{
	int secs, workers, depth, fds[2], ready[2], go[2];
	double total = 0, units_all = 0, secs_max = 0;
	char buf[4096];
	size_t len = 0;
	ssize_t r;
	FILE *f;

	if (argc < 3 || (strcmp(argv[1], "cpu") && strcmp(argv[1], "sys"))) {
		fprintf(stderr, "usage: work cpu|sys SECONDS [WORKERS] [DEPTH]\n");
		return 2;
	}
	sys_mode = !strcmp(argv[1], "sys");
	secs = atoi(argv[2]);
	workers = argc > 3 ? atoi(argv[3]) : (int)sysconf(_SC_NPROCESSORS_ONLN);
	depth = argc > 4 ? atoi(argv[4]) : 32;
	if (secs < 1 || workers < 1 || workers > 256 || depth < 1 || depth > MAX_DEPTH) {
		fprintf(stderr, "work: bad arguments\n");
		return 2;
	}
	stop = mmap(NULL, sizeof(*stop), PROT_READ | PROT_WRITE, MAP_SHARED | MAP_ANONYMOUS, -1, 0);
	if (stop == MAP_FAILED || pipe(fds) || pipe(ready) || pipe(go))
		return 1;
	signal(SIGTERM, on_term);
	signal(SIGINT, on_term);
	for (int i = 0; i < workers; i++) {
		pid_t p = fork();

		if (p < 0)
			return 1;
		if (p == 0) {
			close(fds[0]);
			worker(i % (int)sysconf(_SC_NPROCESSORS_ONLN), depth, fds[1], ready[1],
			       go[0]);
		}
		worker_pids[nr_workers++] = p;
	}
	close(fds[1]);
	if (run_window(workers, secs, ready[0], go[1])) {
		on_term(SIGTERM);
		return 1;
	}
	while ((r = read(fds[0], buf + len, sizeof(buf) - 1 - len)) > 0 ||
	       (r < 0 && errno == EINTR))
		if (r > 0)
			len += (size_t)r;
	buf[len] = '\0';
	for (int i = 0; i < workers; i++) {
		int st;

		if (wait(&st) < 0 || !WIFEXITED(st) || WEXITSTATUS(st))
			return 1;
	}
	f = fmemopen(buf, len + 1, "r");
	if (!f)
		return 1;
	{
		int cpu, pid;
		unsigned long units;
		double s;
		char out[4096];
		size_t ol = 0;

		while (fscanf(f, "%d %d %lu %lf", &cpu, &pid, &units, &s) == 4) {
			total += s > 0 ? (double)units / s : 0;
			units_all += (double)units;
			if (s > secs_max)
				secs_max = s;
			ol += (size_t)snprintf(out + ol, sizeof(out) - ol,
					       "worker %d pid %d units %lu seconds %.6f\n", cpu, pid,
					       units, s);
			if (ol >= sizeof(out))
				ol = sizeof(out) - 1;
		}
		fclose(f);
		printf("units_per_s %.1f\nunits %.0f\nseconds %.3f\n%s", total, units_all,
		       secs_max, out);
	}
	return 0;
}

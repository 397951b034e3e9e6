// SPDX-License-Identifier: GPL-2.0
/*
 * short_spin MS [reexec]: a short-lived program for the side-band tests:
 * burns MS milliseconds of CPU in short_spin_leaf (main -> short_spin_leaf;
 * short_spin2_leaf in short_spin2) and exits. With "reexec" it then execs
 * itself once more (same binary, a new address space: its libraries land
 * elsewhere), which spins MS again. Built three times: short_spin,
 * short_spin2 (another file and leaf name: two programs that can share a
 * pid) and short_spin_static (no libraries).
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

/* short_spin2 is built with -DLEAF=short_spin2_leaf: its own function name. */
#ifndef LEAF
#define LEAF short_spin_leaf
#endif

volatile unsigned long short_spin_sink;

static unsigned long long now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (unsigned long long)ts.tv_sec * 1000000000ull + ts.tv_nsec;
}

__attribute__((noinline)) void LEAF(unsigned long ms)
{
	unsigned long long end = now_ns() + ms * 1000000ull;
	unsigned long x = 1;

	short_spin_sink = (unsigned long)__builtin_frame_address(0);
	while (now_ns() < end)
		for (int i = 0; i < 1000; i++)
			x = x * 6364136223846793005ul + 1442695040888963407ul;
	short_spin_sink = x;
}

int main(int argc, char **argv)
{
	unsigned long ms = argc > 1 ? strtoul(argv[1], NULL, 0) : 15;

	LEAF(ms);
	if (argc > 2 && !strcmp(argv[2], "reexec")) {
		char *args[] = { argv[0], argv[1], NULL };

		execv("/proc/self/exe", args);
		perror("execv");
		return 1;
	}
	return 0;
}

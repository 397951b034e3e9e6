// SPDX-License-Identifier: GPL-2.0
/*
 * dl_spin LIB MS: spins a little in its own code, then dlopen()s LIB (the
 * test library libdl_leaf.so), spins MS milliseconds in its dl_leaf() and
 * exits at once: a library mapped after the process's first samples, by a
 * process that is gone before a reader could look at /proc.
 */
#include <dlfcn.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

volatile unsigned long dl_spin_sink;

__attribute__((noinline)) void dl_spin_own(unsigned long ms)
{
	struct timespec t0, t;

	clock_gettime(CLOCK_MONOTONIC, &t0);
	do {
		for (int i = 0; i < 1000; i++)
			dl_spin_sink = dl_spin_sink * 33 + 7;
		clock_gettime(CLOCK_MONOTONIC, &t);
	} while ((t.tv_sec - t0.tv_sec) * 1000 + (t.tv_nsec - t0.tv_nsec) / 1000000 < (long)ms);
}

int main(int argc, char **argv)
{
	void (*leaf)(unsigned long);
	void *h;

	if (argc < 3) {
		fprintf(stderr, "usage: dl_spin LIB MS\n");
		return 2;
	}
	dl_spin_own(20);
	h = dlopen(argv[1], RTLD_NOW);
	if (!h) {
		fprintf(stderr, "dl_spin: %s\n", dlerror());
		return 1;
	}
	*(void **)&leaf = dlsym(h, "dl_leaf");
	if (!leaf) {
		fprintf(stderr, "dl_spin: %s\n", dlerror());
		return 1;
	}
	leaf(strtoul(argv[2], NULL, 0));
	return 0;
}

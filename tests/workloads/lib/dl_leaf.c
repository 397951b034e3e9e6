// SPDX-License-Identifier: GPL-2.0
/* libdl_leaf.so: the library dl_spin loads; dl_leaf(MS) burns MS ms of CPU. */
#include <time.h>

volatile unsigned long dl_leaf_sink;

__attribute__((noinline)) void dl_leaf(unsigned long ms)
{
	struct timespec t0, t;

	clock_gettime(CLOCK_MONOTONIC, &t0);
	do {
		for (int i = 0; i < 1000; i++)
			dl_leaf_sink = dl_leaf_sink * 6364136223846793005ul + 1;
		clock_gettime(CLOCK_MONOTONIC, &t);
	} while ((t.tv_sec - t0.tv_sec) * 1000 + (t.tv_nsec - t0.tv_nsec) / 1000000 < (long)ms);
}

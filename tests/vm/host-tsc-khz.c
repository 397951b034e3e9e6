// SPDX-License-Identifier: GPL-2.0
/*
 * host-tsc-khz: the host's TSC rate in kHz (rdtsc against CLOCK_MONOTONIC_RAW
 * over 200 ms). Under TCG without -icount a guest's TSC is the host's, and
 * the guest kernel's own early calibration (a few ms of PIT ticks) goes
 * wrong when the host stalls the vCPU meanwhile: the guest's clock then runs
 * many times too fast for its whole life (the later refinement accepts only
 * 1 % corrections). tests/vm/run passes this as tsc_early_khz=.
 */
#include <stdio.h>
#include <time.h>
#include <x86intrin.h>

int main(void)
{
	struct timespec a, b, d = { 0, 200000000 };
	unsigned long long t0, t1;
	double ns;

	clock_gettime(CLOCK_MONOTONIC_RAW, &a);
	t0 = __rdtsc();
	nanosleep(&d, NULL);
	t1 = __rdtsc();
	clock_gettime(CLOCK_MONOTONIC_RAW, &b);
	ns = (double)(b.tv_sec - a.tv_sec) * 1e9 + (double)(b.tv_nsec - a.tv_nsec);
	if (ns <= 0 || t1 <= t0)
		return 1;
	printf("%.0f\n", (double)(t1 - t0) * 1e6 / ns);
	return 0;
}

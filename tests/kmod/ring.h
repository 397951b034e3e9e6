/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Reader side of the skyprof rings for the module tests: bind a
 * /dev/skyprof file to a session, map every possible CPU's ring, drain
 * records while checking each one (bounds, sizes, zero padding).
 */
#ifndef SKYPROF_TEST_RING_H
#define SKYPROF_TEST_RING_H

#include <stdint.h>
#include <stdio.h>

#include "skyprof.h"

#define KTEST_MAX_CPUS 64

struct ktest_ring {
	struct skyprof_ring_ctl *ctl;
	const uint8_t *data;
	uint64_t size;
};

struct ktest_rings {
	int fd;
	int nr;				/* CPU ids mapped: 0..nr-1 */
	struct ktest_ring ring[KTEST_MAX_CPUS];
	/* Totals of what was drained. */
	uint64_t samples, pads, bad_records, padding_errors;
	uint64_t mmaps, aspaces;	/* side-band records */
	uint64_t weight_sum;		/* off-CPU: ns of every sample */
	uint64_t per_cpu[KTEST_MAX_CPUS];
	FILE *dump;			/* text dump of every sample, or NULL */
	uint64_t since_ns;		/* count samples at/after this time in recent */
	uint64_t recent;
	/* Samples timed inside [win_start_ns, win_end_ns): the measured window. */
	uint64_t win_start_ns, win_end_ns, in_window;
};

int ktest_rings_open(struct ktest_rings *r, uint32_t id, uint64_t token, uint64_t data_size,
		     int nr_cpu_ids);
void ktest_rings_close(struct ktest_rings *r);
/* Drains every ring; returns the number of records consumed. */
uint64_t ktest_rings_drain(struct ktest_rings *r);
uint64_t ktest_rings_lost(struct ktest_rings *r);

#endif

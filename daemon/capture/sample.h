/* SPDX-License-Identifier: GPL-2.0 */
/*
 * One decoded sample, as the ring reader hands it on. Pointers point into the
 * reader's buffer and are valid only during the callback that receives the
 * sample: whoever keeps a sample copies what it needs.
 */
#ifndef SKYPROF_CAPTURE_SAMPLE_H
#define SKYPROF_CAPTURE_SAMPLE_H

#include <stdint.h>
#include <stddef.h>

struct sp_sample {
	uint64_t time_ns;
	uint64_t weight;	/* 1 on-CPU, blocked ns off-CPU */
	uint64_t cgroup_id;
	uint32_t cpu;
	uint32_t tgid;
	uint32_t tid;
	uint32_t flags;		/* SKYPROF_SF_* */
	char comm[17];		/* always NUL terminated */
	uint16_t nr_kernel;
	uint16_t nr_user;
	const uint64_t *kernel_ips; /* innermost first */
	const uint64_t *user_ips;   /* innermost first */
	/* DWARF material, present when flags & SKYPROF_SF_REGS */
	const struct skyprof_user_regs *regs;
	const uint8_t *ustack;
	uint32_t ustack_size;
};

#endif

/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Filling the fixed part of a sample record (struct skyprof_sample) without
 * a memset, for the sample handler and the off-CPU path: the record goes to
 * user space, so every byte must be written, and a memset of it before the
 * stores would write it twice, on every sample. The fixed part has no holes
 * (checked at build time), so storing each field covers it.
 */
#ifndef SKYPROF_SAMPLE_FIXED_H
#define SKYPROF_SAMPLE_FIXED_H

#include <linux/compiler.h>
#include <linux/sched.h>
#include <linux/stddef.h>
#include <asm/word-at-a-time.h>

#include <skyprof.h>
#include "compat/compat.h"

#define SKYPROF_SAMPLE_FIELDS_SIZE						\
	(sizeof_field(struct skyprof_sample, hdr) +				\
	 sizeof_field(struct skyprof_sample, time_ns) +				\
	 sizeof_field(struct skyprof_sample, weight) +				\
	 sizeof_field(struct skyprof_sample, cgroup_id) +			\
	 sizeof_field(struct skyprof_sample, cpu) +				\
	 sizeof_field(struct skyprof_sample, tgid) +				\
	 sizeof_field(struct skyprof_sample, tid) +				\
	 sizeof_field(struct skyprof_sample, flags) +				\
	 sizeof_field(struct skyprof_sample, nr_kernel) +			\
	 sizeof_field(struct skyprof_sample, nr_user) +				\
	 sizeof_field(struct skyprof_sample, ustack_size) +			\
	 sizeof_field(struct skyprof_sample, comm))

/* Fails the build when a field is added or a hole appears: set it too. */
static __always_inline void skyprof_sample_fixed_check(void)
{
	BUILD_BUG_ON(sizeof(struct skyprof_sample) != SKYPROF_SAMPLE_FIELDS_SIZE);
}

/*
 * The task's comm, a word at a time: the bytes before the first NUL, then
 * zeroes (the uapi promises NUL padding), the last byte always NUL. A
 * rename racing with us (/proc/PID/comm of another thread) can give a mix
 * of both names, as the byte-wise copy this replaces could; it is
 * harmless, hence data_race(). Byte by byte would take a loop step per
 * byte, on every sample.
 */
static __always_inline void skyprof_copy_comm(char *dst, const char *comm)
{
	const struct word_at_a_time k = WORD_AT_A_TIME_CONSTANTS;
	bool end = false;
	unsigned int i;

	BUILD_BUG_ON(sizeof_field(struct skyprof_sample, comm) != TASK_COMM_LEN);
	BUILD_BUG_ON(TASK_COMM_LEN % sizeof(unsigned long));
	for (i = 0; i < TASK_COMM_LEN; i += sizeof(unsigned long)) {
		unsigned long c = 0, bits;

		if (!end) {
			/* comm need not be word aligned in task_struct. */
			data_race(__builtin_memcpy(&c, comm + i, sizeof(c)));
			if (has_zero(c, &bits, &k)) {
				bits = prep_zero_mask(c, bits, &k);
				bits = create_zero_mask(bits);
				c &= zero_bytemask(bits);
				end = true;
			}
		}
		__builtin_memcpy(dst + i, &c, sizeof(c));
	}
	dst[TASK_COMM_LEN - 1] = '\0';
}

#endif

// SPDX-License-Identifier: GPL-2.0
/*
 * The ring record decoder against well-formed records and every way a record
 * can be wrong: truncated, oversized, misaligned, overlapping the next
 * record, inconsistent counts, unknown type or version. Buffers are
 * malloc'ed at their exact length so ASan catches any read past them.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "capture/decode.h"
#include "records.h"

#define OFF_SIZE      offsetof(struct skyprof_sample, hdr.size)
#define OFF_TYPE      offsetof(struct skyprof_sample, hdr.type)
#define OFF_VERSION   offsetof(struct skyprof_sample, hdr.version)
#define OFF_FLAGS     offsetof(struct skyprof_sample, flags)
#define OFF_NR_KERNEL offsetof(struct skyprof_sample, nr_kernel)
#define OFF_NR_USER   offsetof(struct skyprof_sample, nr_user)
#define OFF_USTACK    offsetof(struct skyprof_sample, ustack_size)
#define OFF_COMM      offsetof(struct skyprof_sample, comm)

/* An 8-aligned copy of exactly len bytes (malloc aligns to 16). */
static uint8_t *exact(const uint8_t *src, size_t len)
{
	uint8_t *p = malloc(len ? len : 1);

	assert_non_null(p);
	if (len)
		memcpy(p, src, len);
	return p;
}

static enum decode_result run(const uint8_t *src, size_t len, struct sp_sample *s, size_t *sz,
			      enum decode_skip_reason *why)
{
	uint8_t *b = exact(src, len);
	enum decode_result r = decode_record(b, len, s, sz, why);

	/* Pointers into b die with it: the tests below only compare fields. */
	if (r == DECODE_SAMPLE) {
		if (s->nr_kernel)
			assert_int_equal(s->kernel_ips[0], 0x1000);
		if (s->nr_kernel)
			assert_int_equal(s->kernel_ips[s->nr_kernel - 1],
					 0x1000 + s->nr_kernel - 1);
		if (s->nr_user)
			assert_int_equal(s->user_ips[s->nr_user - 1], 0x400000 + s->nr_user - 1);
		if (s->ustack_size)
			assert_int_equal(s->ustack[s->ustack_size - 1], (uint8_t)s->ustack_size);
		if (s->regs)
			assert_int_equal(s->regs->abi, SKYPROF_REGS_ABI_64);
	}
	free(b);
	return r;
}

static void minimal_sample(void **state)
{
	uint8_t buf[4096];
	struct sp_sample s;
	enum decode_skip_reason why;
	size_t sz, n = rec_put_sample(buf, 1, 42, 0, 0, 0, 0);

	(void)state;
	assert_int_equal(n, sizeof(struct skyprof_sample));
	assert_int_equal(run(buf, n, &s, &sz, &why), DECODE_SAMPLE);
	assert_int_equal(sz, n);
	assert_int_equal(why, DECODE_SKIP_NONE);
	assert_int_equal(s.tgid, 42);
	assert_int_equal(s.tid, 43);
	assert_int_equal(s.cpu, 1);
	assert_int_equal(s.weight, 1);
	assert_int_equal(s.cgroup_id, 7);
	assert_string_equal(s.comm, "workload");
	assert_null(s.kernel_ips);
	assert_null(s.user_ips);
	assert_null(s.regs);
	assert_null(s.ustack);
}

static void full_sample(void **state)
{
	uint8_t buf[8192];
	struct sp_sample s;
	size_t sz, n = rec_put_sample(buf, 0, 5, 12, 30, 1, 13);

	(void)state;
	assert_int_equal(n, rec_sample_size(12, 30, 1, 13));
	assert_int_equal(n % 8, 0);
	assert_int_equal(run(buf, n, &s, &sz, NULL), DECODE_SAMPLE);
	assert_int_equal(sz, n);
	assert_int_equal(s.nr_kernel, 12);
	assert_int_equal(s.nr_user, 30);
	assert_int_equal(s.ustack_size, 13);
	assert_true(s.flags & SKYPROF_SF_REGS);
}

static void max_sample_accepted(void **state)
{
	size_t cap = decode_max_record_size();
	uint8_t *buf = malloc(cap);
	struct sp_sample s;
	size_t sz, n;

	(void)state;
	assert_non_null(buf);
	n = rec_put_sample(buf, 0, 5, SKYPROF_MAX_DEPTH, SKYPROF_MAX_DEPTH, 1, SKYPROF_USTACK_MAX);
	assert_int_equal(n, cap);
	assert_int_equal(run(buf, n, &s, &sz, NULL), DECODE_SAMPLE);
	free(buf);
}

static void comm_always_terminated(void **state)
{
	uint8_t buf[256];
	struct sp_sample s;
	size_t sz, n = rec_put_sample(buf, 0, 5, 0, 0, 0, 0);

	(void)state;
	memset(buf + OFF_COMM, 'x', 16);
	assert_int_equal(run(buf, n, &s, &sz, NULL), DECODE_SAMPLE);
	assert_int_equal(strlen(s.comm), 16);
	/* Bytes after an early NUL are not passed on. */
	memcpy(buf + OFF_COMM, "ab\0junkjunkjunk", 16);
	assert_int_equal(run(buf, n, &s, &sz, NULL), DECODE_SAMPLE);
	assert_string_equal(s.comm, "ab");
	for (size_t i = 2; i < sizeof(s.comm); i++)
		assert_int_equal(s.comm[i], 0);
	/* The first NUL anywhere, in either half (the copy goes by words);
	 * high-bit bytes before it are kept as they are. */
	for (size_t nul = 0; nul < 16; nul++) {
		for (size_t i = 0; i < 16; i++)
			buf[OFF_COMM + i] =
				i < nul ? (char)(i & 1 ? 0x80 : 0x01) : (char)(i == nul ? 0 : 'j');
		assert_int_equal(run(buf, n, &s, &sz, NULL), DECODE_SAMPLE);
		assert_int_equal(strlen(s.comm), nul);
		for (size_t i = 0; i < nul; i++)
			assert_int_equal((unsigned char)s.comm[i], i & 1 ? 0x80 : 0x01);
		for (size_t i = nul; i < sizeof(s.comm); i++)
			assert_int_equal(s.comm[i], 0);
	}
}

static void truncated_rejected(void **state)
{
	uint8_t buf[1024];
	struct sp_sample s;
	size_t sz, n = rec_put_sample(buf, 0, 5, 3, 4, 0, 0);

	(void)state;
	/* Every proper prefix of a record: never a sample, never a size beyond it. */
	for (size_t len = 0; len < n; len++) {
		enum decode_result r = run(buf, len, &s, &sz, NULL);

		assert_int_equal(r, DECODE_TRUNCATED);
		assert_int_equal(sz, 0);
	}
}

static void oversized_rejected(void **state)
{
	size_t big = decode_max_record_size() + 8;
	uint8_t *buf = calloc(1, big);
	struct sp_sample s;
	size_t sz;

	(void)state;
	assert_non_null(buf);
	rec_put_sample(buf, 0, 5, 0, 0, 0, 0);
	rec_set_u32(buf, OFF_SIZE, (uint32_t)big);
	assert_int_equal(run(buf, big, &s, &sz, NULL), DECODE_BAD_SIZE);
	/* The largest u32 size, with the range too short for it. */
	rec_set_u32(buf, OFF_SIZE, 0xfffffff8u);
	assert_int_equal(run(buf, big, &s, &sz, NULL), DECODE_BAD_SIZE);
	/* Unknown types get no pass either. */
	rec_set_u32(buf, OFF_SIZE, (uint32_t)big);
	rec_set_u16(buf, OFF_TYPE, 77);
	assert_int_equal(run(buf, big, &s, &sz, NULL), DECODE_BAD_SIZE);
	free(buf);
}

static void misaligned_rejected(void **state)
{
	uint8_t *raw = malloc(512);
	struct sp_sample s;
	size_t sz, n;

	(void)state;
	assert_non_null(raw);
	for (size_t shift = 1; shift < 8; shift++) {
		n = rec_put_sample(raw + shift, 0, 5, 2, 2, 0, 0);
		assert_int_equal(decode_record(raw + shift, n, &s, &sz, NULL), DECODE_MISALIGNED);
		assert_int_equal(sz, 0);
	}
	/* A size that is not a multiple of 8 would misalign the next record. */
	n = rec_put_sample(raw, 0, 5, 2, 2, 0, 0);
	for (uint32_t bad = 1; bad < 8; bad++) {
		rec_set_u32(raw, OFF_SIZE, (uint32_t)n - 8 + bad);
		assert_int_equal(decode_record(raw, n, &s, &sz, NULL), DECODE_BAD_SIZE);
	}
	/* Sizes that cannot even hold a header. */
	rec_set_u32(raw, OFF_SIZE, 0);
	assert_int_equal(decode_record(raw, n, &s, &sz, NULL), DECODE_BAD_SIZE);
	rec_set_u32(raw, OFF_SIZE, 4);
	assert_int_equal(decode_record(raw, n, &s, &sz, NULL), DECODE_BAD_SIZE);
	free(raw);
}

/* Counts that would make the arrays run into the next record. */
static void overlapping_rejected(void **state)
{
	uint8_t buf[2048];
	struct sp_sample s;
	enum decode_skip_reason why;
	size_t sz, n;

	(void)state;
	n = rec_put_sample(buf, 0, 5, 4, 4, 0, 0);
	/* Second record right behind the first: the arrays must stop at n. */
	rec_put_sample(buf + n, 0, 6, 0, 0, 0, 0);

	rec_set_u16(buf, OFF_NR_KERNEL, 5);
	assert_int_equal(run(buf, 2 * n, &s, &sz, &why), DECODE_SKIP);
	assert_int_equal(why, DECODE_SKIP_OVERLAP);
	assert_int_equal(sz, n);

	rec_set_u16(buf, OFF_NR_KERNEL, 4);
	rec_set_u16(buf, OFF_NR_USER, 200);
	assert_int_equal(run(buf, 2 * n, &s, &sz, &why), DECODE_SKIP);
	assert_int_equal(why, DECODE_SKIP_OVERLAP);

	rec_set_u16(buf, OFF_NR_USER, 4);
	rec_set_u32(buf, OFF_USTACK, 1);
	assert_int_equal(run(buf, 2 * n, &s, &sz, &why), DECODE_SKIP);
	assert_int_equal(why, DECODE_SKIP_OVERLAP);

	rec_set_u32(buf, OFF_USTACK, 0);
	rec_set_u32(buf, OFF_FLAGS, SKYPROF_SF_REGS);
	assert_int_equal(run(buf, 2 * n, &s, &sz, &why), DECODE_SKIP);
	assert_int_equal(why, DECODE_SKIP_OVERLAP);

	/* And a record bigger than its content: rejected too, framing kept. */
	rec_set_u32(buf, OFF_FLAGS, 0);
	rec_set_u32(buf, OFF_SIZE, (uint32_t)(n + 8));
	assert_int_equal(run(buf, 2 * n, &s, &sz, &why), DECODE_SKIP);
	assert_int_equal(why, DECODE_SKIP_SLACK);
	assert_int_equal(sz, n + 8);
}

static void counts_over_limits(void **state)
{
	size_t len = decode_max_record_size();
	uint8_t *buf = calloc(1, len);
	struct sp_sample s;
	enum decode_skip_reason why;
	size_t sz, n;

	(void)state;
	assert_non_null(buf);
	n = rec_put_sample(buf, 0, 5, 0, 0, 0, 0);
	rec_set_u32(buf, OFF_SIZE, (uint32_t)(n + 8 * (SKYPROF_MAX_DEPTH + 1)));
	rec_set_u16(buf, OFF_NR_KERNEL, SKYPROF_MAX_DEPTH + 1);
	assert_int_equal(run(buf, len, &s, &sz, &why), DECODE_SKIP);
	assert_int_equal(why, DECODE_SKIP_COUNTS);

	rec_set_u16(buf, OFF_NR_KERNEL, 0);
	rec_set_u16(buf, OFF_NR_USER, 0xffff);
	assert_int_equal(run(buf, len, &s, &sz, &why), DECODE_SKIP);
	assert_int_equal(why, DECODE_SKIP_COUNTS);

	rec_set_u16(buf, OFF_NR_USER, 0);
	rec_set_u32(buf, OFF_USTACK, SKYPROF_USTACK_MAX + 1);
	assert_int_equal(run(buf, len, &s, &sz, &why), DECODE_SKIP);
	assert_int_equal(why, DECODE_SKIP_COUNTS);
	free(buf);
}

static void unknown_type_and_version(void **state)
{
	uint8_t buf[512];
	struct sp_sample s;
	enum decode_skip_reason why;
	size_t sz, n = rec_put_sample(buf, 0, 5, 1, 1, 0, 0);

	(void)state;
	rec_set_u16(buf, OFF_VERSION, SKYPROF_SAMPLE_VERSION + 1);
	assert_int_equal(run(buf, n, &s, &sz, &why), DECODE_SKIP);
	assert_int_equal(why, DECODE_SKIP_VERSION);
	assert_int_equal(sz, n);

	rec_set_u16(buf, OFF_VERSION, SKYPROF_SAMPLE_VERSION);
	rec_set_u16(buf, OFF_TYPE, 0);
	assert_int_equal(run(buf, n, &s, &sz, &why), DECODE_SKIP);
	assert_int_equal(why, DECODE_SKIP_TYPE);
	assert_int_equal(sz, n);

	/* A sample too short for its fixed part, framed correctly. */
	rec_set_u16(buf, OFF_TYPE, SKYPROF_REC_SAMPLE);
	rec_set_u32(buf, OFF_SIZE, 16);
	assert_int_equal(run(buf, n, &s, &sz, &why), DECODE_SKIP);
	assert_int_equal(why, DECODE_SKIP_SHORT);
	assert_int_equal(sz, 16);
	assert_string_not_equal(decode_skip_name(why), "?");
}

static void pad_record(void **state)
{
	uint8_t buf[4096];
	struct sp_sample s;
	size_t sz;

	(void)state;
	rec_put_pad(buf, 4096);
	assert_int_equal(run(buf, 4096, &s, &sz, NULL), DECODE_PAD);
	assert_int_equal(sz, 4096);
	rec_put_pad(buf, 8);
	assert_int_equal(run(buf, 8, &s, &sz, NULL), DECODE_PAD);
	assert_int_equal(sz, 8);
	/* A pad claiming more than the range is as truncated as anything else. */
	rec_put_pad(buf, 4096);
	assert_int_equal(run(buf, 4088, &s, &sz, NULL), DECODE_TRUNCATED);
	assert_string_equal(decode_result_name(DECODE_PAD), "pad");
}

/*
 * Random corruption of valid records: whatever comes out must stay inside
 * the range (ASan checks the reads, this checks the claims).
 */
static void random_corruption_stays_in_bounds(void **state)
{
	uint8_t buf[4096];
	unsigned seed = 12345;

	(void)state;
	for (int iter = 0; iter < 20000; iter++) {
		size_t n = rec_put_sample(buf, 0, 5, (unsigned)(rand_r(&seed) % 20),
					  (unsigned)(rand_r(&seed) % 20), rand_r(&seed) & 1,
					  (unsigned)(rand_r(&seed) % 100));
		size_t len = n, sz;
		int flips = 1 + rand_r(&seed) % 4;
		struct sp_sample s;
		uint8_t *b;
		enum decode_result r;

		for (int i = 0; i < flips; i++)
			buf[(size_t)rand_r(&seed) % (sizeof(struct skyprof_sample) + 8)] ^=
				(uint8_t)(1u << (rand_r(&seed) % 8));
		if (rand_r(&seed) % 4 == 0)
			len = (size_t)rand_r(&seed) % (n + 1);
		b = exact(buf, len);
		r = decode_record(b, len, &s, &sz, NULL);
		if (r == DECODE_SAMPLE || r == DECODE_PAD || r == DECODE_SKIP) {
			assert_true(sz >= 8 && sz <= len && sz % 8 == 0);
		} else {
			assert_int_equal(sz, 0);
		}
		if (r == DECODE_SAMPLE) {
			const uint8_t *end = b + len;
			uint64_t sum = 0;

			assert_true(strlen(s.comm) <= 16);
			if (s.nr_kernel)
				assert_true((const uint8_t *)(s.kernel_ips + s.nr_kernel) <= end);
			if (s.nr_user)
				assert_true((const uint8_t *)(s.user_ips + s.nr_user) <= end);
			if (s.ustack_size)
				assert_true(s.ustack + s.ustack_size <= end);
			for (unsigned i = 0; i < s.nr_kernel; i++)
				sum += s.kernel_ips[i];
			for (unsigned i = 0; i < s.nr_user; i++)
				sum += s.user_ips[i];
			for (unsigned i = 0; i < s.ustack_size; i++)
				sum += s.ustack[i];
			(void)sum;
		}
		free(b);
	}
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(minimal_sample),
		cmocka_unit_test(full_sample),
		cmocka_unit_test(max_sample_accepted),
		cmocka_unit_test(comm_always_terminated),
		cmocka_unit_test(truncated_rejected),
		cmocka_unit_test(oversized_rejected),
		cmocka_unit_test(misaligned_rejected),
		cmocka_unit_test(overlapping_rejected),
		cmocka_unit_test(counts_over_limits),
		cmocka_unit_test(unknown_type_and_version),
		cmocka_unit_test(pad_record),
		cmocka_unit_test(random_corruption_stays_in_bounds),
	};

	return cmocka_run_group_tests_name("decode", tests, NULL, NULL);
}

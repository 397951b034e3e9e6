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
	struct sp_record rec;
	enum decode_result r = decode_record(b, len, &rec, sz, why);

	if (r == DECODE_SAMPLE)
		*s = rec.sample;

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
	n = rec_put_sample_as(buf, 0, 5, 9, SKYPROF_MAX_DEPTH, SKYPROF_MAX_DEPTH, 1,
			      SKYPROF_USTACK_MAX);
	assert_int_equal(n, cap);
	assert_int_equal(run(buf, n, &s, &sz, NULL), DECODE_SAMPLE);
	assert_int_equal(s.as_id, 9);
	n = rec_put_sample(buf, 0, 5, SKYPROF_MAX_DEPTH, SKYPROF_MAX_DEPTH, 1, SKYPROF_USTACK_MAX);
	assert_int_equal(n, cap - sizeof(struct skyprof_sample_as));
	assert_int_equal(run(buf, n, &s, &sz, NULL), DECODE_SAMPLE);
	assert_int_equal(s.as_id, 0);
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
	struct sp_record s;
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
	rec_set_u16(buf, OFF_VERSION, SKYPROF_SAMPLE_VERSION_AS + 1);
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
		struct sp_record rec;
		struct sp_sample s;
		uint8_t *b;
		enum decode_result r;

		for (int i = 0; i < flips; i++)
			buf[(size_t)rand_r(&seed) % (sizeof(struct skyprof_sample) + 8)] ^=
				(uint8_t)(1u << (rand_r(&seed) % 8));
		if (rand_r(&seed) % 4 == 0)
			len = (size_t)rand_r(&seed) % (n + 1);
		b = exact(buf, len);
		r = decode_record(b, len, &rec, &sz, NULL);
		s = rec.sample;
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

/* A version-2 sample: its address space between the fixed part and the arrays. */
static void sample_with_aspace(void **state)
{
	uint8_t buf[4096];
	struct sp_sample s;
	enum decode_skip_reason why;
	size_t sz, n = rec_put_sample_as(buf, 1, 42, 0xabcdef, 3, 4, 1, 20);

	(void)state;
	assert_int_equal(n, rec_sample_size(3, 4, 1, 20) + 8);
	assert_int_equal(run(buf, n, &s, &sz, &why), DECODE_SAMPLE);
	assert_int_equal(sz, n);
	assert_int_equal(s.as_id, 0xabcdef);
	assert_int_equal(s.nr_kernel, 3);
	assert_int_equal(s.nr_user, 4);
	/* Called a version-1 sample, its arrays would end 8 bytes short. */
	rec_set_u16(buf, OFF_VERSION, SKYPROF_SAMPLE_VERSION);
	assert_int_equal(run(buf, n, &s, &sz, &why), DECODE_SKIP);
	assert_int_equal(why, DECODE_SKIP_SLACK);
	/* A version-1 sample called version 2 lacks those 8 bytes. */
	n = rec_put_sample(buf, 1, 42, 3, 4, 0, 0);
	rec_set_u16(buf, OFF_VERSION, SKYPROF_SAMPLE_VERSION_AS);
	assert_int_equal(run(buf, n, &s, &sz, &why), DECODE_SKIP);
	assert_int_equal(why, DECODE_SKIP_OVERLAP);
	/* Too short even for the address space. */
	rec_put_sample(buf, 1, 42, 0, 0, 0, 0);
	rec_set_u16(buf, OFF_VERSION, SKYPROF_SAMPLE_VERSION_AS);
	assert_int_equal(run(buf, sizeof(struct skyprof_sample), &s, &sz, &why), DECODE_SKIP);
	assert_int_equal(why, DECODE_SKIP_SHORT);
}

#define M_OFF(f) offsetof(struct skyprof_mmap, f)

/* One MMAP record decoded, exactly: a copy of exactly its length. */
static enum decode_result run_sb(const uint8_t *src, size_t len, struct sp_record *out,
				 enum decode_skip_reason *why)
{
	uint8_t *b = exact(src, len);
	size_t sz;
	enum decode_result r = decode_record(b, len, out, &sz, why);

	if (r == DECODE_MMAP) {
		/* the path is in bounds and terminated where it says */
		assert_true((const uint8_t *)out->mmap.path + out->mmap.path_len <= b + len);
		assert_int_equal(strlen(out->mmap.path) + 1, out->mmap.path_len);
		out->mmap.path = NULL; /* dies with b */
	}
	if (r != DECODE_TRUNCATED && r != DECODE_BAD_SIZE && r != DECODE_MISALIGNED)
		assert_int_equal(sz, len);
	free(b);
	return r;
}

static size_t good_mmap(uint8_t *buf)
{
	struct skyprof_mmap id = { .ino = 77,
				   .size = 4096,
				   .mtime_sec = 1700000000,
				   .mtime_nsec = 5,
				   .dev_major = 8,
				   .dev_minor = 1,
				   .build_id_size = 3,
				   .build_id = { 1, 2, 3 } };

	return rec_put_mmap(buf, 9, 42, 0x400000, 0x401000, 0x1000, "/usr/bin/prog",
			    SKYPROF_MMAP_F_EXE | SKYPROF_MMAP_F_BUILD_ID, &id);
}

static void mmap_record(void **state)
{
	uint8_t buf[1024];
	struct sp_record r;
	enum decode_skip_reason why;
	size_t n = good_mmap(buf);

	(void)state;
	assert_int_equal(n, rec_mmap_size(14));
	assert_int_equal(run_sb(buf, n, &r, &why), DECODE_MMAP);
	assert_int_equal(why, DECODE_SKIP_NONE);
	assert_int_equal(r.mmap.as_id, 9);
	assert_int_equal(r.mmap.tgid, 42);
	assert_int_equal(r.mmap.start, 0x400000);
	assert_int_equal(r.mmap.end, 0x401000);
	assert_int_equal(r.mmap.pgoff, 0x1000);
	assert_int_equal(r.mmap.ino, 77);
	assert_int_equal(r.mmap.size, 4096);
	assert_int_equal(r.mmap.mtime_sec, 1700000000);
	assert_int_equal(r.mmap.mtime_nsec, 5);
	assert_int_equal(r.mmap.dev_major, 8);
	assert_int_equal(r.mmap.dev_minor, 1);
	assert_int_equal(r.mmap.build_id_size, 3);
	assert_int_equal(r.mmap.build_id[2], 3);
	assert_int_equal(r.mmap.path_len, 14);
	assert_true(r.mmap.flags & SKYPROF_MMAP_F_EXE);
	/* A cut path: flagged, one NUL byte. */
	n = rec_put_mmap(buf, 9, 42, 0x400000, 0x401000, 0, "", SKYPROF_MMAP_F_PATH_CUT, NULL);
	assert_int_equal(run_sb(buf, n, &r, &why), DECODE_MMAP);
	assert_int_equal(r.mmap.path_len, 1);
	/* A path that fills the record to the byte: no padding. */
	n = rec_put_mmap(buf, 9, 42, 0x400000, 0x401000, 0, "/abcdef", 0, NULL);
	assert_int_equal(n, sizeof(struct skyprof_mmap) + 8);
	assert_int_equal(run_sb(buf, n, &r, &why), DECODE_MMAP);
}

/* Every way an MMAP record can be wrong has a reason of its own. */
static void mmap_rejected(void **state)
{
	uint8_t buf[1024];
	struct sp_record r;
	enum decode_skip_reason why;
	size_t n;
	struct {
		size_t off, width;
		uint64_t value;
		enum decode_skip_reason why;
	} cases[] = {
		{ M_OFF(reserved), 1, 1, DECODE_SKIP_RESERVED },
		{ M_OFF(reserved2), 4, 1, DECODE_SKIP_RESERVED },
		{ M_OFF(as_id), 8, 0, DECODE_SKIP_AS_ID },
		{ M_OFF(end), 8, 0x400000, DECODE_SKIP_RANGE },
		{ M_OFF(end), 8, 0x3ff000, DECODE_SKIP_RANGE },
		{ M_OFF(build_id_size), 1, SKYPROF_BUILD_ID_MAX + 1, DECODE_SKIP_BUILD_ID },
		{ M_OFF(build_id_size), 1, 0, DECODE_SKIP_BUILD_ID },	/* flag without bytes */
		{ M_OFF(build_id) + 5, 1, 0xff, DECODE_SKIP_BUILD_ID }, /* bytes past its size */
		{ M_OFF(path_len), 2, 0, DECODE_SKIP_PATH },
		{ M_OFF(path_len), 2, 13, DECODE_SKIP_PATH }, /* its last byte no NUL */
		{ M_OFF(path_len), 2, 15, DECODE_SKIP_PATH }, /* its NUL now inside */
		{ M_OFF(path_len), 2, 17, DECODE_SKIP_OVERLAP },
		{ M_OFF(path_len), 2, 0xffff, DECODE_SKIP_OVERLAP },
		{ sizeof(struct skyprof_mmap) + 4, 1, 0, DECODE_SKIP_PATH }, /* a NUL inside */
		{ sizeof(struct skyprof_mmap) + 15, 1, 'x', DECODE_SKIP_RESERVED },
		{ M_OFF(flags), 4, SKYPROF_MMAP_F_PATH_CUT | SKYPROF_MMAP_F_BUILD_ID,
		  DECODE_SKIP_PATH },
		{ M_OFF(hdr.version), 2, SKYPROF_MMAP_VERSION + 1, DECODE_SKIP_VERSION },
	};

	(void)state;
	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		n = good_mmap(buf);
		memcpy(buf + cases[i].off, &cases[i].value, cases[i].width);
		assert_int_equal(run_sb(buf, n, &r, &why), DECODE_SKIP);
		if (why != cases[i].why)
			fail_msg("case %zu: %s, not %s", i, decode_skip_name(why),
				 decode_skip_name(cases[i].why));
	}
	/* Shorter than the fixed part, longer than the path needs. */
	n = good_mmap(buf);
	rec_set_u32(buf, M_OFF(hdr.size), sizeof(struct skyprof_mmap) - 8);
	assert_int_equal(run_sb(buf, sizeof(struct skyprof_mmap) - 8, &r, &why), DECODE_SKIP);
	assert_int_equal(why, DECODE_SKIP_SHORT);
	n = good_mmap(buf);
	memset(buf + n, 0, 8);
	rec_set_u32(buf, M_OFF(hdr.size), (uint32_t)n + 8);
	assert_int_equal(run_sb(buf, n + 8, &r, &why), DECODE_SKIP);
	assert_int_equal(why, DECODE_SKIP_SLACK);
}

#define A_OFF(f) offsetof(struct skyprof_aspace, f)

static void aspace_record(void **state)
{
	uint8_t buf[256];
	struct sp_record r;
	enum decode_skip_reason why;
	size_t n = rec_put_aspace(buf, 9, 42, 3, 0, SKYPROF_ASPACE_F_EXITED);

	(void)state;
	assert_int_equal(n, sizeof(struct skyprof_aspace));
	assert_int_equal(run_sb(buf, n, &r, &why), DECODE_ASPACE);
	assert_int_equal(r.aspace.as_id, 9);
	assert_int_equal(r.aspace.tgid, 42);
	assert_int_equal(r.aspace.nr_maps, 3);
	assert_int_equal(r.aspace.first_ns, 1042);
	assert_int_equal(r.aspace.flags, SKYPROF_ASPACE_F_FIRST | SKYPROF_ASPACE_F_EXITED);
	assert_string_equal(r.aspace.comm, "workload");
	/* comm without a NUL: cut at 16, terminated */
	memset(buf + A_OFF(comm), 'c', 16);
	assert_int_equal(run_sb(buf, n, &r, &why), DECODE_ASPACE);
	assert_int_equal(strlen(r.aspace.comm), 16);

	rec_set_u64(buf, A_OFF(as_id), 0);
	assert_int_equal(run_sb(buf, n, &r, &why), DECODE_SKIP);
	assert_int_equal(why, DECODE_SKIP_AS_ID);
	n = rec_put_aspace(buf, 9, 42, SKYPROF_SIDEBAND_MAPS_MAX + 1, 0, 0);
	assert_int_equal(run_sb(buf, n, &r, &why), DECODE_SKIP);
	assert_int_equal(why, DECODE_SKIP_COUNTS);
	n = rec_put_aspace(buf, 9, 42, 1, 0, 0);
	rec_set_u16(buf, A_OFF(hdr.version), SKYPROF_ASPACE_VERSION + 1);
	assert_int_equal(run_sb(buf, n, &r, &why), DECODE_SKIP);
	assert_int_equal(why, DECODE_SKIP_VERSION);
	n = rec_put_aspace(buf, 9, 42, 1, 0, 0);
	memset(buf + n, 0, 8);
	rec_set_u32(buf, A_OFF(hdr.size), (uint32_t)n + 8);
	assert_int_equal(run_sb(buf, n + 8, &r, &why), DECODE_SKIP);
	assert_int_equal(why, DECODE_SKIP_SLACK);
	rec_set_u32(buf, A_OFF(hdr.size), (uint32_t)n - 8);
	assert_int_equal(run_sb(buf, n - 8, &r, &why), DECODE_SKIP);
	assert_int_equal(why, DECODE_SKIP_SHORT);
}

/* Random corruption of side-band records: bounds and claims hold. */
static void sideband_corruption_stays_in_bounds(void **state)
{
	uint8_t buf[1024];
	unsigned seed = 777;

	(void)state;
	for (int iter = 0; iter < 20000; iter++) {
		size_t n = iter & 1 ? good_mmap(buf) : rec_put_aspace(buf, 9, 42, 2, 0, 0);
		size_t len = n, sz;
		struct sp_record rec;
		uint8_t *b;
		enum decode_result r;

		for (int i = 0, flips = 1 + rand_r(&seed) % 3; i < flips; i++)
			buf[(size_t)rand_r(&seed) % n] ^= (uint8_t)(1u << (rand_r(&seed) % 8));
		if (rand_r(&seed) % 4 == 0)
			len = (size_t)rand_r(&seed) % (n + 1);
		b = exact(buf, len);
		r = decode_record(b, len, &rec, &sz, NULL);
		if (r == DECODE_MMAP) {
			assert_true(sz <= len);
			assert_true((const uint8_t *)rec.mmap.path + rec.mmap.path_len <= b + len);
			assert_int_equal(strlen(rec.mmap.path) + 1, rec.mmap.path_len);
			assert_true(rec.mmap.build_id_size <= SKYPROF_BUILD_ID_MAX);
			assert_true(rec.mmap.end > rec.mmap.start && rec.mmap.as_id);
		} else if (r == DECODE_ASPACE) {
			assert_true(strlen(rec.aspace.comm) <= 16);
			assert_true(rec.aspace.nr_maps <= SKYPROF_SIDEBAND_MAPS_MAX);
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
		cmocka_unit_test(sample_with_aspace),
		cmocka_unit_test(mmap_record),
		cmocka_unit_test(mmap_rejected),
		cmocka_unit_test(aspace_record),
		cmocka_unit_test(sideband_corruption_stays_in_bounds),
	};

	return cmocka_run_group_tests_name("decode", tests, NULL, NULL);
}

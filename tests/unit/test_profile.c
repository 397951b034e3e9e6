// SPDX-License-Identifier: GPL-2.0
/*
 * Aggregation tests: merging by (tgid, tid, kernel stack, user stack),
 * counts and weights, table growth, huge stacks, top functions (self and
 * inclusive, recursion counted once), and a throughput/RSS measurement of
 * 1 M samples over 10 k distinct stacks (printed; the >= 1 M samples/s and
 * < 64 MiB targets are for the optimized build, see the report).
 */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include <cmocka.h>

#include "profile/profile.h"
#include "profile/top.h"
#include "profile/view.h"
#include "profile/view_build.h"

/* profile_add of generation 0, as 0 for a new stack too. */
static int padd(struct profile *p, const struct sp_sample *s)
{
	int r = profile_add(p, s, 0);

	return r < 0 ? r : 0;
}

/* The view the tops read, kept across builds as `top` keeps it. */
static struct view tv;

static size_t ptop(struct profile *p, struct func_share *out, size_t n)
{
	return view_build(&tv, p, NULL) ? 0 : top_functions(&tv, out, n);
}

static uint64_t ptotal(struct profile *p)
{
	return view_build(&tv, p, NULL) ? 0 : top_total(&tv);
}

static struct sp_sample mk(uint32_t tgid, uint32_t tid, const uint64_t *k, uint16_t nk,
			   const uint64_t *u, uint16_t nu, uint64_t weight)
{
	struct sp_sample s = { 0 };

	s.tgid = tgid;
	s.tid = tid;
	s.kernel_ips = k;
	s.nr_kernel = nk;
	s.user_ips = u;
	s.nr_user = nu;
	s.weight = weight;
	snprintf(s.comm, sizeof(s.comm), "proc%u", tgid);
	return s;
}

static void test_merge(void **state)
{
	struct profile_meta meta = { .kind = PROFILE_ONCPU, .freq_hz = 99 };
	struct profile *p = profile_new(&meta);
	uint64_t a[2] = { 0x1000, 0x2000 }, b[2] = { 0x1000, 0x2001 };
	struct sp_sample s;
	struct profile_stack st;

	(void)state;
	s = mk(1, 1, NULL, 0, a, 2, 1);
	for (int i = 0; i < 5; i++)
		assert_int_equal(padd(p, &s), 0);
	s = mk(1, 1, NULL, 0, b, 2, 1);
	assert_int_equal(padd(p, &s), 0);
	s = mk(1, 2, NULL, 0, a, 2, 1); /* another thread */
	assert_int_equal(padd(p, &s), 0);
	s = mk(2, 2, NULL, 0, a, 2, 1); /* another process */
	assert_int_equal(padd(p, &s), 0);
	/* The same ips as kernel frames are a different stack. */
	s = mk(1, 1, a, 2, NULL, 0, 1);
	assert_int_equal(padd(p, &s), 0);
	s = mk(1, 1, a, 1, a + 1, 1, 1);
	assert_int_equal(padd(p, &s), 0);
	assert_int_equal(profile_nr_stacks(p), 6);
	assert_int_equal(profile_total_samples(p), 10);
	profile_get_stack(p, 0, &st);
	assert_int_equal(st.count, 5);
	assert_int_equal(st.nr_user, 2);
	assert_int_equal(st.user_ips[1], 0x2000);
	assert_string_equal(st.comm, "proc1");
	profile_get_stack(p, 5, &st);
	assert_int_equal(st.nr_kernel, 1);
	assert_int_equal(st.kernel_ips[0], 0x1000);
	assert_int_equal(st.user_ips[0], 0x2000);
	/* An empty stack is a stack too (a kthread with user stacks off). */
	s = mk(3, 3, NULL, 0, NULL, 0, 1);
	assert_int_equal(padd(p, &s), 0);
	assert_int_equal(padd(p, &s), 0);
	assert_int_equal(profile_nr_stacks(p), 7);
	/* A count without ips is refused, not dereferenced. */
	s = mk(3, 3, NULL, 2, NULL, 0, 1);
	assert_int_equal(padd(p, &s), -EINVAL);
	profile_free(p);
}

static void test_offcpu_weights(void **state)
{
	struct profile_meta meta = { .kind = PROFILE_OFFCPU };
	struct profile *p = profile_new(&meta);
	uint64_t u[1] = { 0x1000 };
	struct sp_sample s = mk(1, 1, NULL, 0, u, 1, 1500);
	struct profile_stack st;
	struct func_share top[2];

	(void)state;
	assert_int_equal(view_init(&tv, NULL), 0);
	assert_int_equal(padd(p, &s), 0);
	s.weight = 2500;
	assert_int_equal(padd(p, &s), 0);
	profile_get_stack(p, 0, &st);
	assert_int_equal(st.count, 2);
	assert_int_equal(st.weight, 4000);
	assert_int_equal(ptop(p, top, 2), 1);
	assert_int_equal(top[0].self, 4000); /* ns, not switches */
	assert_int_equal(ptotal(p), 4000);
	view_free(&tv);
	profile_free(p);
}

static void test_growth(void **state)
{
	struct profile *p = profile_new(NULL);
	uint64_t u[3];
	struct profile_stack st;

	(void)state;
	for (uint64_t i = 0; i < 50000; i++) {
		struct sp_sample s;

		u[0] = 0x400000 + i;
		u[1] = 0x500000;
		u[2] = i * 7;
		s = mk((uint32_t)(i % 97), 1, NULL, 0, u, 3, 1);
		assert_int_equal(padd(p, &s), 0);
		if (i % 3 == 0)
			assert_int_equal(padd(p, &s), 0);
	}
	assert_int_equal(profile_nr_stacks(p), 50000);
	for (size_t i = 0; i < 50000; i += 1111) {
		profile_get_stack(p, i, &st);
		assert_int_equal(st.user_ips[0], 0x400000 + i);
		assert_int_equal(st.count, i % 3 == 0 ? 2 : 1);
	}
	profile_free(p);
}

/* Stacks bigger than an arena block get a block of their own. */
static void test_huge_stack(void **state)
{
	struct profile *p = profile_new(NULL);
	uint64_t *u = calloc(20000, sizeof(*u)), small[1] = { 1 };
	struct profile_stack st;
	struct sp_sample s;

	(void)state;
	for (int i = 0; i < 20000; i++)
		u[i] = 0x1000 + (uint64_t)i;
	s = mk(1, 1, NULL, 0, small, 1, 1);
	assert_int_equal(padd(p, &s), 0);
	s = mk(1, 1, u, 1000, u + 1000, 19000, 1);
	assert_int_equal(padd(p, &s), 0);
	assert_int_equal(padd(p, &s), 0);
	s = mk(1, 2, NULL, 0, small, 1, 1);
	assert_int_equal(padd(p, &s), 0);
	profile_get_stack(p, 1, &st);
	assert_int_equal(st.count, 2);
	assert_int_equal(st.user_ips[18999], 0x1000 + 19999);
	profile_get_stack(p, 2, &st);
	assert_int_equal(st.tid, 2);
	free(u);
	profile_free(p);
}

static void test_top_functions(void **state)
{
	struct profile *p = profile_new(NULL);
	/* Leaf first: 0x10 <- 0x21 <- 0x31; recursion 0x10 <- 0x21 <- 0x21. */
	uint64_t s1[3] = { 0x10, 0x21, 0x31 }, s2[3] = { 0x10, 0x21, 0x21 };
	uint64_t k[1] = { 0xffffffff81000000ULL };
	struct func_share top[8];
	struct sp_sample s;
	size_t n;

	(void)state;
	assert_int_equal(view_init(&tv, NULL), 0);
	s = mk(1, 1, NULL, 0, s1, 3, 1);
	for (int i = 0; i < 6; i++)
		padd(p, &s);
	s = mk(1, 1, NULL, 0, s2, 3, 1);
	for (int i = 0; i < 3; i++)
		padd(p, &s);
	s = mk(1, 1, k, 1, s1 + 1, 2, 1);
	padd(p, &s);
	n = ptop(p, top, 8);
	/* The user leaf of the kernel sample is not a return address: 0x21
	 * stays 0x21 there. */
	assert_int_equal(n, 5);
	assert_string_equal(top[0].name, "0x10");
	assert_int_equal(top[0].self, 9);
	assert_int_equal(top[0].total, 9);
	/* 0x21 - 1 = 0x20: return addresses are looked up inside the call;
	 * recursion counts once per stack. */
	assert_string_equal(top[1].name, "0xffffffff81000000");
	assert_int_equal(top[1].kernel, 1);
	assert_string_equal(top[2].name, "0x20");
	assert_int_equal(top[2].self, 0);
	assert_int_equal(top[2].total, 9);
	assert_string_equal(top[3].name, "0x30");
	assert_int_equal(top[3].total, 7);
	assert_string_equal(top[4].name, "0x21");
	assert_int_equal(top[4].total, 1);
	/* n smaller than the list; and again after more samples (top's
	 * refresh): the view syncs incrementally. */
	assert_int_equal(ptop(p, top, 1), 1);
	s = mk(1, 1, NULL, 0, s1 + 2, 1, 1);
	for (int i = 0; i < 20; i++)
		padd(p, &s);
	assert_int_equal(ptop(p, top, 1), 1);
	assert_string_equal(top[0].name, "0x31");
	assert_int_equal(top[0].self, 20);
	assert_int_equal(ptotal(p), 30);
	view_free(&tv);
	profile_free(p);
}

static long rss_kib(void)
{
	FILE *f = fopen("/proc/self/status", "r");
	char line[256];
	long kib = -1;

	if (!f)
		return -1;
	while (fgets(line, sizeof(line), f))
		if (sscanf(line, "VmRSS: %ld kB", &kib) == 1)
			break;
	fclose(f);
	return kib;
}

/*
 * 1 M samples over 10 k distinct stacks, 12 kernel + 24 user frames each,
 * spread over 50 processes: the daemon's unit-level target. Prints the rate
 * and the RSS growth; asserts only what holds under ASan as well.
 */
static void test_throughput(void **state)
{
	enum { STACKS = 10000, SAMPLES = 1000000, NK = 12, NU = 24 };
	struct profile_meta meta = { .kind = PROFILE_ONCPU, .freq_hz = 999 };
	uint64_t(*ips)[NK + NU] = malloc(sizeof(*ips) * STACKS);
	struct sp_sample *smp = malloc(sizeof(*smp) * STACKS);
	struct profile *p;
	struct timespec t0, t1, c0, c1;
	long rss0, rss1;
	uint32_t x = 12345;
	double secs, cpu;

	(void)state;
	assert_non_null(ips);
	assert_non_null(smp);
	/* Decoded samples as the ring reader hands them on. */
	for (int i = 0; i < STACKS; i++) {
		for (int j = 0; j < NK + NU; j++)
			ips[i][j] = (j < NK ? 0xffffffff81000000ULL : 0x555555554000ULL) +
				    (uint64_t)((i * 31 + j * 977) % 65536) * 16 + (uint64_t)j;
		smp[i] = mk(1000 + (uint32_t)i % 50, 1000 + (uint32_t)i % 50, ips[i], NK,
			    ips[i] + NK, NU, 1);
	}
	rss0 = rss_kib();
	p = profile_new(&meta);
	clock_gettime(CLOCK_MONOTONIC, &t0);
	clock_gettime(CLOCK_THREAD_CPUTIME_ID, &c0);
	for (int i = 0; i < SAMPLES; i++) {
		x = x * 1103515245 + 12345; /* a cheap LCG */
		if (padd(p, &smp[(x >> 8) % STACKS]))
			fail();
	}
	clock_gettime(CLOCK_THREAD_CPUTIME_ID, &c1);
	clock_gettime(CLOCK_MONOTONIC, &t1);
	rss1 = rss_kib();
	secs = (double)(t1.tv_sec - t0.tv_sec) + (double)(t1.tv_nsec - t0.tv_nsec) / 1e9;
	cpu = (double)(c1.tv_sec - c0.tv_sec) + (double)(c1.tv_nsec - c0.tv_nsec) / 1e9;
	/* CPU time is the per-core figure; wall time also counts waiting for
	 * a CPU on a busy machine. */
	printf("profile: %d samples over %zu stacks: %.2f M samples/s per core "
	       "(%.3f s CPU, %.3f s wall); RSS +%ld KiB\n",
	       SAMPLES, profile_nr_stacks(p), SAMPLES / cpu / 1e6, cpu, secs, rss1 - rss0);
	assert_int_equal(profile_nr_stacks(p), STACKS);
	assert_int_equal(profile_total_samples(p), SAMPLES);
	assert_true(rss1 - rss0 < 64 * 1024);
	profile_free(p);
	free(smp);
	free(ips);
}

/* profile_merge: every stack of src lands in dst with its count and weight,
 * equal stacks merge, and the source is left alone. */
static void test_profile_merge(void **state)
{
	struct profile_meta meta = { .kind = PROFILE_OFFCPU };
	struct profile *dst = profile_new(&meta), *src = profile_new(&meta);
	uint64_t a[2] = { 0x1000, 0x2000 }, b[1] = { 0x3000 }, k[1] = { 0xffff1000 };
	struct sp_sample s;
	struct profile_stack st;

	(void)state;
	s = mk(1, 1, NULL, 0, a, 2, 100);
	assert_int_equal(padd(dst, &s), 0);
	assert_int_equal(padd(src, &s), 0);
	assert_int_equal(padd(src, &s), 0);
	s = mk(1, 2, k, 1, b, 1, 7);
	assert_int_equal(padd(src, &s), 0);
	assert_int_equal(profile_merge(dst, src), 0);
	assert_int_equal(profile_nr_stacks(dst), 2);
	assert_int_equal(profile_total_samples(dst), 4);
	profile_get_stack(dst, 0, &st);
	assert_int_equal(st.count, 3);
	assert_int_equal(st.weight, 300);
	profile_get_stack(dst, 1, &st);
	assert_int_equal(st.tid, 2);
	assert_int_equal(st.count, 1);
	assert_int_equal(st.weight, 7);
	assert_int_equal(st.nr_kernel, 1);
	assert_int_equal(st.kernel_ips[0], 0xffff1000);
	assert_int_equal(st.user_ips[0], 0x3000);
	assert_string_equal(st.comm, "proc1");
	assert_int_equal(profile_total_samples(src), 3);
	assert_int_equal(profile_nr_stacks(src), 2);
	profile_free(src);
	profile_free(dst);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_merge),	      cmocka_unit_test(test_offcpu_weights),
		cmocka_unit_test(test_growth),	      cmocka_unit_test(test_huge_stack),
		cmocka_unit_test(test_top_functions), cmocka_unit_test(test_throughput),
		cmocka_unit_test(test_profile_merge),
	};

	return cmocka_run_group_tests_name("profile", tests, NULL, NULL);
}

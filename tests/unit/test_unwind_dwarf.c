// SPDX-License-Identifier: GPL-2.0
/*
 * DWARF unwinder tests without a kernel: the test process snapshots its own
 * registers and the top of its stack (what the module copies) at a known
 * point deep in a chain built without frame pointers,
 *   test -> chain_a -> chain_b -> chain_c -> qsort (libc) -> by_value -> snap
 * and the unwinder must recover that chain from the snapshot alone. Then
 * corrupt and truncated copies must neither crash nor read out of bounds
 * (ASan watches), and the FP/DWARF mixing rules hold.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <cmocka.h>

#include "profile/profile.h"
#include "pipeline_fixture.h"
#include "skyprof.h"
#include "sym/symbolizer.h"
#include "unwind/unwind.h"

#define SNAP_MAX 65536

struct snapshot {
	struct skyprof_user_regs regs;
	uint8_t stack[SNAP_MAX];
	uint32_t size;
};

static struct snapshot snap;
static bool snap_taken;
static uint64_t snap_pc; /* the FP chain of a no-FP leaf: its pc alone */

/* Where [stack] ends: the copy must not run past it (like the module's
 * clamp to the VMA). */
static uint64_t stack_end(uint64_t sp)
{
	FILE *f = fopen("/proc/self/maps", "re");
	char line[512];
	uint64_t end = 0;

	while (f && fgets(line, sizeof(line), f)) {
		unsigned long long a, b;

		if (sscanf(line, "%llx-%llx", &a, &b) == 2 && sp >= a && sp < b)
			end = b;
	}
	if (f)
		fclose(f);
	return end;
}

/*
 * The registers as they are at label 1 (rip), and the stack from rsp up.
 * Not instrumented: the copy reads other frames' ASan redzones on purpose,
 * byte by byte so that no intercepted memcpy checks them.
 */
__attribute__((noinline, no_sanitize_address, optimize("omit-frame-pointer"))) static void
take_snapshot(void)
{
	__u64 *r = snap.regs.regs;
	uint64_t end, n;

	__asm__ volatile("movq %%rax, 0(%0)\n\t"
			 "movq %%rbx, 8(%0)\n\t"
			 "movq %%rcx, 16(%0)\n\t"
			 "movq %%rdx, 24(%0)\n\t"
			 "movq %%rsi, 32(%0)\n\t"
			 "movq %%rdi, 40(%0)\n\t"
			 "movq %%rbp, 48(%0)\n\t"
			 "movq %%rsp, 56(%0)\n\t"
			 "movq %%r8, 128(%0)\n\t"
			 "movq %%r9, 136(%0)\n\t"
			 "movq %%r10, 144(%0)\n\t"
			 "movq %%r11, 152(%0)\n\t"
			 "movq %%r12, 160(%0)\n\t"
			 "movq %%r13, 168(%0)\n\t"
			 "movq %%r14, 176(%0)\n\t"
			 "movq %%r15, 184(%0)\n\t"
			 "leaq 1f(%%rip), %%rax\n\t"
			 "movq %%rax, 64(%0)\n"
			 "1:\n\t"
			 :
			 : "r"(r)
			 : "rax", "memory");
	snap.regs.abi = SKYPROF_REGS_ABI_64;
	/* AX..SP, IP, R8..R15: perf's numbering, flags/segments left out. */
	snap.regs.mask = 0x1ffull | (0xffull << 16);
	end = stack_end(r[7]);
	n = end > r[7] ? end - r[7] : 0;
	if (n > SNAP_MAX)
		n = SNAP_MAX;
	for (uint64_t i = 0; i < n; i++)
		snap.stack[i] = ((const volatile uint8_t *)(uintptr_t)r[7])[i];
	snap.size = (uint32_t)n;
	snap_pc = r[8];
	snap_taken = true;
}

#define NOFP __attribute__((noinline, optimize("omit-frame-pointer")))

static NOFP int by_value(const void *a, const void *b)
{
	int x = *(const int *)a, y = *(const int *)b;

	if (!snap_taken)
		take_snapshot();
	__asm__ volatile("" ::: "memory"); /* no tail call */
	return (x > y) - (x < y);
}

static NOFP int chain_c(int n)
{
	int v[8];

	for (int i = 0; i < 8; i++)
		v[i] = (n * 7 + i * 13) % 11;
	qsort(v, 8, sizeof(v[0]), by_value);
	__asm__ volatile("" ::: "memory");
	return v[0];
}

static NOFP int chain_b(int n)
{
	int r = chain_c(n + 1);

	__asm__ volatile("" ::: "memory");
	return r + 1;
}

static NOFP int chain_a(int n)
{
	int r = chain_b(n + 1);

	__asm__ volatile("" ::: "memory");
	return r + 1;
}

static const struct symbolizer_opts quiet_opts = { .quiet = true };

static void make_sample(struct sp_sample *s, const struct snapshot *sn, const uint64_t *fp,
			uint16_t nr_fp)
{
	memset(s, 0, sizeof(*s));
	s->tgid = (uint32_t)getpid();
	s->tid = (uint32_t)gettid();
	s->weight = 1;
	s->flags = SKYPROF_SF_REGS;
	s->regs = &sn->regs;
	s->ustack = sn->stack;
	s->ustack_size = sn->size;
	s->user_ips = fp;
	s->nr_user = nr_fp;
}

static const char *name_of(struct symbolizer *sym, uint64_t ip, bool leaf)
{
	struct sym_result r;

	symbolizer_resolve(sym, (uint32_t)getpid(), leaf ? ip : ip - 1, false, &r);
	return r.frames[r.nr_frames - 1].name; /* the outermost of inlines */
}

static void take_chain(void)
{
	snap_taken = false;
	chain_a(1);
	assert_true(snap_taken);
	assert_true(snap.size > 256);
}

/* The expected functions, in order, with anything (libc internals) between. */
static void test_full_chain(void **state)
{
	static const char *const want[] = { "take_snapshot",  "by_value", "qsort",
					    "chain_c",	      "chain_b",  "chain_a",
					    "test_full_chain" };
	struct symbolizer *sym = symbolizer_new(&quiet_opts);
	struct unwind_dwarf *u = unwind_dwarf_new(sym);
	uint64_t ips[UNWIND_DWARF_MAX_FRAMES];
	struct sp_sample s;
	size_t n, w = 0;

	(void)state;
	take_chain();
	make_sample(&s, &snap, &snap_pc, 1);
	assert_int_equal(symbolizer_note_pid(sym, (uint32_t)getpid()), 0);
	n = unwind_dwarf_only(u, &s, ips, UNWIND_DWARF_MAX_FRAMES);
	for (size_t i = 0; i < n; i++) {
		const char *nm = name_of(sym, ips[i], i == 0);

		print_message("  #%zu %#llx %s\n", i, (unsigned long long)ips[i], nm);
		if (w < sizeof(want) / sizeof(want[0]) && strstr(nm, want[w]))
			w++;
	}
	assert_int_equal(w, sizeof(want) / sizeof(want[0]));
	/* The copy reaches the top of the stack: the walk ends at a root. */
	n = unwind_dwarf_sample(u, &s, ips, UNWIND_DWARF_MAX_FRAMES);
	assert_true(n > 8);
	assert_int_equal(unwind_dwarf_get_stats(u)->samples, 1);
	assert_int_equal(unwind_dwarf_get_stats(u)->dwarf_used, 1);
	assert_int_equal(unwind_dwarf_get_stats(u)->reached_root, 1);
	unwind_dwarf_free(u);
	symbolizer_free(sym);
}

/* A short copy: DWARF stops early; a longer FP chain that contains the last
 * DWARF frame is joined, one that does not is kept whole. */
static void test_mixed_mode(void **state)
{
	struct symbolizer *sym = symbolizer_new(&quiet_opts);
	struct unwind_dwarf *u = unwind_dwarf_new(sym);
	uint64_t full[UNWIND_DWARF_MAX_FRAMES], ips[UNWIND_DWARF_MAX_FRAMES];
	uint64_t fp[64];
	struct snapshot *cut = malloc(sizeof(*cut));
	struct sp_sample s;
	size_t nfull, nshort, n;

	(void)state;
	assert_non_null(cut);
	take_chain();
	make_sample(&s, &snap, NULL, 0);
	nfull = unwind_dwarf_only(u, &s, full, UNWIND_DWARF_MAX_FRAMES);
	assert_true(nfull > 6);
	/* Cut the copy to the first few frames. */
	*cut = snap;
	cut->size = 64;
	make_sample(&s, cut, NULL, 0);
	nshort = unwind_dwarf_only(u, &s, ips, UNWIND_DWARF_MAX_FRAMES);
	assert_true(nshort >= 1 && nshort < nfull);
	/* An FP chain equal to the full DWARF one (as with FP-built code). */
	n = nfull < 64 ? nfull : 64;
	memcpy(fp, full, n * sizeof(fp[0]));
	make_sample(&s, cut, fp, (uint16_t)n);
	assert_int_equal(unwind_dwarf_sample(u, &s, ips, UNWIND_DWARF_MAX_FRAMES), n);
	assert_memory_equal(ips, full, n * sizeof(ips[0]));
	assert_int_equal(unwind_dwarf_get_stats(u)->joined, 1);
	/* A longer FP chain of garbage: kept, as DWARF gave fewer frames. */
	for (size_t i = 0; i < 64; i++)
		fp[i] = 0x1000 + i;
	make_sample(&s, cut, fp, 64);
	assert_int_equal(unwind_dwarf_sample(u, &s, ips, UNWIND_DWARF_MAX_FRAMES), 64);
	assert_int_equal(ips[5], 0x1005);
	assert_int_equal(unwind_dwarf_get_stats(u)->fp_kept, 1);
	/* No regs at all: the FP chain, untouched. */
	s.flags = 0;
	assert_int_equal(unwind_dwarf_sample(u, &s, ips, 8), 8);
	free(cut);
	unwind_dwarf_free(u);
	symbolizer_free(sym);
}

/* Garbage stacks, registers and sizes: bounded output, no crash, no read
 * outside the copy (ASan). */
static void test_corrupt(void **state)
{
	struct symbolizer *sym = symbolizer_new(&quiet_opts);
	struct unwind_dwarf *u = unwind_dwarf_new(sym);
	struct snapshot *bad = malloc(sizeof(*bad));
	uint64_t ips[UNWIND_DWARF_MAX_FRAMES];
	struct sp_sample s;
	unsigned int seed = 12345;

	(void)state;
	assert_non_null(bad);
	take_chain();
	for (int round = 0; round < 300; round++) {
		uint32_t size;
		uint8_t *heap;

		*bad = snap;
		size = (uint32_t)(rand_r(&seed) % 2048);
		/* Flip bytes, or the registers, or both. */
		for (int i = 0; size && i < 32; i++)
			bad->stack[rand_r(&seed) % size] ^= (uint8_t)rand_r(&seed);
		if (round % 3 == 1)
			bad->regs.regs[7] += (uint64_t)(rand_r(&seed) % 64) - 32;
		if (round % 5 == 2)
			bad->regs.regs[8] =
				((uint64_t)rand_r(&seed) << 32) | (uint64_t)rand_r(&seed);
		if (round % 7 == 3)
			bad->regs.mask = (uint64_t)rand_r(&seed);
		if (round % 11 == 4)
			bad->regs.regs[7] = UINT64_MAX - (uint64_t)(rand_r(&seed) % 16);
		/* A heap copy of exactly size bytes, so ASan sees any overrun. */
		heap = malloc(size ? size : 1);
		assert_non_null(heap);
		memcpy(heap, bad->stack, size);
		make_sample(&s, bad, NULL, 0);
		s.ustack = size ? heap : NULL;
		s.ustack_size = size;
		assert_true(unwind_dwarf_sample(u, &s, ips, UNWIND_DWARF_MAX_FRAMES) <=
			    UNWIND_DWARF_MAX_FRAMES);
		assert_true(unwind_dwarf_only(u, &s, ips, 3) <= 3);
		free(heap);
	}
	/* An unknown process and a wrong ABI. */
	make_sample(&s, &snap, NULL, 0);
	s.tgid = 0x7ffffff0;
	assert_int_equal(unwind_dwarf_only(u, &s, ips, 8), 0);
	bad->regs.abi = SKYPROF_REGS_ABI_32;
	make_sample(&s, bad, NULL, 0);
	assert_int_equal(unwind_dwarf_only(u, &s, ips, 8), 0);
	free(bad);
	unwind_dwarf_free(u);
	symbolizer_free(sym);
}

/* Through ingest_sample: the stored user stack is the unwound one. */
static void test_profile_hook(void **state)
{
	struct symbolizer *sym = symbolizer_new(&quiet_opts);
	struct profile_meta meta = { .kind = PROFILE_ONCPU, .freq_hz = 99 };
	struct tpipe *p = tp_new(&meta, sym);
	struct profile_stack st;
	struct sp_sample s;

	(void)state;
	take_chain();
	make_sample(&s, &snap, &snap_pc, 1);
	assert_int_equal(tp_add(p, &s), 0);
	assert_int_equal(profile_nr_stacks(p->p), 1);
	profile_get_stack(p->p, 0, &st);
	assert_true(st.nr_user > 8);
	assert_non_null(ingest_unwind_stats(p->in));
	tp_free(p);
	symbolizer_free(sym);
}

/*
 * The cached-rule fast path gives libdwfl's own result: on the whole copy
 * (where it must be the one used), on copies cut at every 8 bytes and on
 * copies with flipped bytes (where it may hand over to libdwfl part-way).
 */
static void test_fast_path_matches(void **state)
{
	struct symbolizer *sym = symbolizer_new(&quiet_opts);
	struct unwind_dwarf *fast = unwind_dwarf_new(sym);
	struct unwind_dwarf *slow = unwind_dwarf_new(sym);
	uint64_t a[UNWIND_DWARF_MAX_FRAMES], b[UNWIND_DWARF_MAX_FRAMES];
	struct snapshot *bad = malloc(sizeof(*bad));
	struct sp_sample s;
	unsigned int seed = 777;
	size_t na, nb;

	(void)state;
	assert_non_null(bad);
	unwind_dwarf_set_slow_only(slow, true);
	take_chain();
	make_sample(&s, &snap, NULL, 0);
	na = unwind_dwarf_only(fast, &s, a, UNWIND_DWARF_MAX_FRAMES);
	nb = unwind_dwarf_only(slow, &s, b, UNWIND_DWARF_MAX_FRAMES);
	assert_true(na > 8);
	assert_int_equal(na, nb);
	assert_memory_equal(a, b, na * sizeof(a[0]));
	assert_int_equal(unwind_dwarf_get_stats(fast)->fast, 1);
	assert_int_equal(unwind_dwarf_get_stats(slow)->fast, 0);
	/* Again, from the cache. */
	assert_int_equal(unwind_dwarf_only(fast, &s, a, UNWIND_DWARF_MAX_FRAMES), nb);
	assert_memory_equal(a, b, nb * sizeof(a[0]));
	assert_int_equal(unwind_dwarf_get_stats(fast)->fast, 2);
	/* Fewer slots than frames. */
	assert_int_equal(unwind_dwarf_only(fast, &s, a, 3), 3);
	assert_memory_equal(a, b, 3 * sizeof(a[0]));
	for (uint32_t size = 0; size <= snap.size && size < 4096; size += 8) {
		*bad = snap;
		bad->size = size;
		make_sample(&s, bad, NULL, 0);
		na = unwind_dwarf_only(fast, &s, a, UNWIND_DWARF_MAX_FRAMES);
		nb = unwind_dwarf_only(slow, &s, b, UNWIND_DWARF_MAX_FRAMES);
		assert_int_equal(na, nb);
		assert_memory_equal(a, b, na * sizeof(a[0]));
	}
	for (int round = 0; round < 300; round++) {
		*bad = snap;
		for (int i = 0; i < 4; i++)
			bad->stack[rand_r(&seed) % (snap.size < 1024 ? snap.size : 1024)] ^=
				(uint8_t)(1u << (rand_r(&seed) % 8));
		make_sample(&s, bad, NULL, 0);
		na = unwind_dwarf_only(fast, &s, a, UNWIND_DWARF_MAX_FRAMES);
		nb = unwind_dwarf_only(slow, &s, b, UNWIND_DWARF_MAX_FRAMES);
		assert_int_equal(na, nb);
		assert_memory_equal(a, b, na * sizeof(a[0]));
	}
	print_message("  fast path: %llu of %llu samples\n",
		      (unsigned long long)unwind_dwarf_get_stats(fast)->fast,
		      3ull + 300 + snap.size / 8);
	free(bad);
	unwind_dwarf_free(fast);
	unwind_dwarf_free(slow);
	symbolizer_free(sym);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_full_chain),	  cmocka_unit_test(test_mixed_mode),
		cmocka_unit_test(test_corrupt),		  cmocka_unit_test(test_profile_hook),
		cmocka_unit_test(test_fast_path_matches),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}

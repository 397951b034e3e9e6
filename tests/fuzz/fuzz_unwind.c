// SPDX-License-Identifier: GPL-2.0
/*
 * libFuzzer harness for the DWARF unwinder's untrusted input: a sample's
 * registers and stack copy. The unwinder runs against this very process
 * (its real maps, its real libc and CFI), so the pc has to land in real
 * code to get past the first frame:
 *   bytes 0..7    pc, taken modulo the size of one of the process's
 *                 executable mappings (the harness, libc, libdw...: byte 0
 *                 picks which) and placed inside it
 *   bytes 8..15   sp
 *   bytes 16..23  the register mask
 *   bytes 24..151 rax..rdi, rbp, r8..r15 (what fits)
 *   the rest      the stack copy, malloc'ed at its exact size so ASan
 *                 flags any read past it.
 *
 * Build and run: make fuzz FUZZ_TARGETS=unwind (tests/fuzz/build.mk).
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "proc/table.h"
#include "skyprof.h"
#include "sym/symbolizer.h"
#include "unwind/unwind.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static struct symbolizer *sym;
static struct unwind_dwarf *uw;
#define MAX_TEXT 16
static struct {
	uint64_t start, len;
} text[MAX_TEXT];
static size_t nr_text;

static uint64_t rd64(const uint8_t *d, size_t size, size_t off)
{
	uint64_t v = 0;

	if (off + 8 <= size)
		memcpy(&v, d + off, 8);
	return v;
}

static void setup(void)
{
	static const struct symbolizer_opts o = { .quiet = true };
	const struct proc_gen *g;

	sym = symbolizer_new(&o);
	uw = sym ? unwind_dwarf_new(sym) : NULL;
	if (!sym || !uw || symbolizer_note_pid(sym, (uint32_t)getpid()))
		abort();
	g = proc_table_newest(symbolizer_procs(sym), (uint32_t)getpid());
	for (size_t i = 0; g && i < g->nr_maps && nr_text < MAX_TEXT; i++) {
		const struct proc_mapping *m = g->maps[i];

		if (m->limit > m->start) {
			text[nr_text].start = m->start;
			text[nr_text++].len = m->limit - m->start;
		}
	}
	if (!nr_text)
		abort();
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static const int order[] = { 0, 1, 2, 3, 4, 5, 6, 16, 17, 18, 19, 20, 21, 22, 23 };
	struct skyprof_user_regs regs = { .abi = SKYPROF_REGS_ABI_64 };
	uint64_t ips[UNWIND_DWARF_MAX_FRAMES], fp[4];
	size_t stack_off = 24 + 8 * (sizeof(order) / sizeof(order[0]));
	struct sp_sample s = { 0 };
	uint8_t *stack = NULL;
	size_t n, t;

	if (!uw)
		setup();
	t = size ? data[0] / 5 % nr_text : 0;
	regs.regs[8] = text[t].start + rd64(data, size, 0) % text[t].len;
	regs.regs[7] = rd64(data, size, 8);
	regs.mask = rd64(data, size, 16) | (1ull << 7) | (1ull << 8);
	for (size_t i = 0; i < sizeof(order) / sizeof(order[0]); i++)
		regs.regs[order[i]] = rd64(data, size, 24 + 8 * i);
	if (size > stack_off) {
		stack = malloc(size - stack_off);
		if (!stack)
			return 0;
		memcpy(stack, data + stack_off, size - stack_off);
	}
	for (size_t i = 0; i < 4; i++)
		fp[i] = rd64(data, size, 24 + 8 * i);
	s.tgid = (uint32_t)getpid();
	s.tid = (uint32_t)gettid();
	s.flags = SKYPROF_SF_REGS;
	s.regs = &regs;
	s.ustack = stack;
	s.ustack_size = (uint32_t)(size > stack_off ? size - stack_off : 0);
	s.user_ips = fp;
	s.nr_user = (uint16_t)(data && size ? data[0] % 5 : 0);
	n = unwind_dwarf_sample(uw, &s, ips, UNWIND_DWARF_MAX_FRAMES);
	if (n > UNWIND_DWARF_MAX_FRAMES)
		abort();
	free(stack);
	return 0;
}

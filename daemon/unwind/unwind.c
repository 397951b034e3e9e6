// SPDX-License-Identifier: GPL-2.0
/*
 * DWARF unwinding of copied user stacks with elfutils libdwfl (see
 * unwind.h for the contract).
 *
 * Why libdwfl rather than libunwind's remote API: the daemon already links
 * libdw/libdwfl for symbolization, libdwfl's frame unwinder is what perf's
 * unwind-libdw.c uses, it evaluates the full CFI expression language (PLT
 * entries, signal frames) and reads .eh_frame as well as .debug_frame from
 * separate debuginfo through the same find_debuginfo path the symbolizer
 * configures. libunwind would add a dependency and a second ELF reader.
 *
 * The sample's buffers are trusted for nothing: the memory callback serves
 * only 8-byte reads wholly inside [sp, sp + ustack_size) of the copy; all
 * other reads fail, which ends the unwind there. libdwfl itself stops on a
 * non-increasing CFA or an undefined return address.
 */
#include <errno.h>
#include <fcntl.h>
#include <gelf.h>
#include <limits.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <dwarf.h>
#include <elfutils/libdwfl.h>

#include "proc/aspace.h"
#include "proc/table.h"
#include "skyprof.h"
#include "sym/symbolizer.h"
#include "unwind/unwind.h"

/* perf's x86 register numbers (PERF_REG_X86_*), as the module fills them. */
enum {
	PR_AX = 0,
	PR_BX,
	PR_CX,
	PR_DX,
	PR_SI,
	PR_DI,
	PR_BP,
	PR_SP,
	PR_IP,
	PR_R8 = 16,
};

/* DWARF x86-64 register number -> perf number; 16 (rip) is the pc. */
static const int dwarf_to_perf[17] = {
	PR_AX,	   PR_DX,     PR_CX,	 PR_BX,	    PR_SI,     PR_DI,	  PR_BP,     PR_SP, PR_R8,
	PR_R8 + 1, PR_R8 + 2, PR_R8 + 3, PR_R8 + 4, PR_R8 + 5, PR_R8 + 6, PR_R8 + 7, PR_IP,
};

struct uw_proc {
	struct uw_proc *next;
	uint32_t pid;
	Dwfl *dwfl;	    /* NULL: nothing could be reported */
	size_t nr_reported; /* table mappings seen when built */
	/* The generation it was built from: a sample of another (an exec, a
	 * reused pid, which the module's address spaces tell apart) rebuilds
	 * it from that one's mappings. */
	const struct proc_gen *built;
	bool have_built;
	bool rebuilt; /* rebuilt after a pc outside every module */
};

#define UW_BUCKETS 256
#define ROOT_CACHE 1024
#define RULE_CACHE 8192

/*
 * The fast path's rule for one pc: where the CFA, the return address and
 * the caller's rbp are, when the CFI says it in the simple forms compilers
 * emit on x86-64 (CFA = rsp or rbp + offset; return address and rbp saved
 * at CFA + offset, or rbp unchanged or undefined).
 */
enum { RULE_EMPTY, RULE_SIMPLE, RULE_OTHER };
enum { BP_SAME, BP_OFFSET, BP_UNDEFINED };

struct uw_rule {
	uint64_t pc; /* the looked-up pc (pc - 1 past the first frame) */
	uint32_t pid;
	uint8_t state;	 /* RULE_* */
	uint8_t cfa_reg; /* DWARF 6 (rbp) or 7 (rsp) */
	uint8_t bp_rule; /* BP_* */
	bool ra_undefined;
	int64_t cfa_off, ra_off, bp_off;
};

struct unwind_dwarf {
	struct symbolizer *sym;
	struct proc_table *table; /* sym's */
	Dwfl_Callbacks cb;
	char *debug_path;
	struct uw_proc *procs[UW_BUCKETS];
	struct unwind_dwarf_stats stats;
	bool slow_only; /* tests: libdwfl's unwinder for every sample */

	/* pid + pc -> rule, for the fast path (RULE_CACHE entries). */
	struct uw_rule *rules;

	/* The sample being unwound, for the callbacks (one at a time). */
	const struct sp_sample *cur;
	uint64_t *out;
	size_t nr_out, max_out;

	/* (pid, address) -> is a root function: the symbol lookup of the
	 * outermost frame would otherwise cost more than the unwind. */
	struct {
		uint32_t pid;
		uint64_t addr;
		int8_t root; /* -1 empty */
	} root_cache[ROOT_CACHE];
};

static const char *default_debug_path = ":.debug:/usr/lib/debug";

struct unwind_dwarf *unwind_dwarf_new(struct symbolizer *sym)
{
	struct unwind_dwarf *u = calloc(1, sizeof(*u));

	if (!u)
		return NULL;
	u->sym = sym;
	u->table = symbolizer_procs(sym);
	u->debug_path = strdup(default_debug_path);
	u->rules = calloc(RULE_CACHE, sizeof(*u->rules));
	if (!u->debug_path || !u->rules) {
		free(u->debug_path);
		free(u->rules);
		free(u);
		return NULL;
	}
	u->cb.find_elf = dwfl_linux_proc_find_elf;
	u->cb.find_debuginfo = dwfl_standard_find_debuginfo;
	u->cb.debuginfo_path = &u->debug_path;
	for (size_t i = 0; i < ROOT_CACHE; i++)
		u->root_cache[i].root = -1;
	return u;
}

void unwind_dwarf_free(struct unwind_dwarf *u)
{
	if (!u)
		return;
	for (size_t b = 0; b < UW_BUCKETS; b++) {
		while (u->procs[b]) {
			struct uw_proc *n = u->procs[b]->next;

			if (u->procs[b]->dwfl)
				dwfl_end(u->procs[b]->dwfl);
			free(u->procs[b]);
			u->procs[b] = n;
		}
	}
	free(u->debug_path);
	free(u->rules);
	free(u);
}

void unwind_dwarf_set_slow_only(struct unwind_dwarf *u, bool slow_only)
{
	u->slow_only = slow_only;
}

const struct unwind_dwarf_stats *unwind_dwarf_get_stats(const struct unwind_dwarf *u)
{
	return &u->stats;
}

/* --- libdwfl thread callbacks: one thread, the sample's ---------------- */

static pid_t cb_next_thread(Dwfl *dwfl, void *arg, void **thread_argp)
{
	struct unwind_dwarf *u = arg;

	(void)dwfl;
	if (*thread_argp)
		return 0; /* the only thread was handed out */
	*thread_argp = u;
	return (pid_t)u->cur->tid;
}

static bool cb_get_thread(Dwfl *dwfl, pid_t tid, void *arg, void **thread_argp)
{
	struct unwind_dwarf *u = arg;

	(void)dwfl;
	if (!u->cur || (uint32_t)tid != u->cur->tid)
		return false;
	*thread_argp = u;
	return true;
}

static bool stack_word(const struct sp_sample *s, uint64_t addr, uint64_t *v)
{
	uint64_t sp = s->regs->regs[PR_SP];

	/* Written so that no sum can wrap: addr - sp only once addr >= sp. */
	if (addr < sp || addr - sp > s->ustack_size || s->ustack_size - (addr - sp) < 8)
		return false;
	memcpy(v, s->ustack + (addr - sp), 8);
	return true;
}

static bool cb_memory_read(Dwfl *dwfl, Dwarf_Addr addr, Dwarf_Word *result, void *arg)
{
	struct unwind_dwarf *u = arg;

	(void)dwfl;
	return stack_word(u->cur, addr, result);
}

static bool cb_set_initial_registers(Dwfl_Thread *thread, void *arg)
{
	struct unwind_dwarf *u = arg;
	const struct skyprof_user_regs *r = u->cur->regs;

	/* Only what the module marked valid: a register libdwfl does not know
	 * stays undefined, and a frame whose CFA needs it ends the unwind
	 * rather than producing a made-up frame. */
	for (int d = 0; d < 17; d++) {
		int pr = dwarf_to_perf[d];
		Dwarf_Word v = r->regs[pr];

		if (!(r->mask & (1ull << pr)))
			continue;
		if (!dwfl_thread_state_registers(thread, d, 1, &v))
			return false;
	}
	if (r->mask & (1ull << PR_IP))
		dwfl_thread_state_register_pc(thread, r->regs[PR_IP]);
	return true;
}

static const Dwfl_Thread_Callbacks thread_cb = {
	.next_thread = cb_next_thread,
	.get_thread = cb_get_thread,
	.memory_read = cb_memory_read,
	.set_initial_registers = cb_set_initial_registers,
};

/* --- per-process Dwfl ------------------------------------------------- */

/*
 * The address at which a file's vaddr 0 lands, from one executable mapping:
 * the PT_LOAD containing the mapping's file offset tells how far its vaddr is
 * from its offset (not always equal: lld, prelinked or custom layouts).
 */
static bool load_bias(int fd, const struct proc_mapping *m, GElf_Addr *bias, bool *is_exec)
{
	Elf *elf = elf_begin(fd, ELF_C_READ_MMAP, NULL);
	GElf_Ehdr eh;
	size_t n;
	bool ok = false;

	if (!elf)
		return false;
	if (!gelf_getehdr(elf, &eh) || elf_getphdrnum(elf, &n))
		goto out;
	*is_exec = eh.e_type == ET_EXEC;
	for (size_t i = 0; i < n; i++) {
		GElf_Phdr ph;

		if (!gelf_getphdr(elf, (int)i, &ph) || ph.p_type != PT_LOAD)
			continue;
		if (m->offset + 4096 <= ph.p_offset || m->offset >= ph.p_offset + ph.p_filesz)
			continue;
		/* Both start and offset are page-truncated alike. */
		*bias = m->start - m->offset - ((ph.p_vaddr & ~4095ull) - (ph.p_offset & ~4095ull));
		ok = true;
		break;
	}
out:
	elf_end(elf);
	return ok;
}

static void build_dwfl(struct unwind_dwarf *u, struct uw_proc *p, struct proc_gen *g)
{
	size_t nr = g ? g->nr_maps : 0;
	size_t reported = 0;
	Dwfl *d = dwfl_begin(&u->cb);

	p->nr_reported = nr;
	p->built = g;
	p->have_built = true;
	if (!d)
		return;
	dwfl_report_begin(d);
	/* Newest first, like the symbolizer's lookups: a pid noted before
	 * its exec (record's own child) keeps the pre-exec mappings too, and
	 * the stale libc must not shadow the one mapped now. */
	for (size_t i = nr; i-- > 0;) {
		struct proc_mapping *m = g->maps[i];
		GElf_Addr bias = 0;
		bool is_exec = false;
		bool dup = false;
		int fd;

		if (!m || m->path[0] != '/')
			continue; /* anonymous, [vdso], JIT: no file with CFI */
		/* One report per file: a second executable mapping of the same
		 * file is covered by the newest report's address range. */
		for (size_t j = i + 1; j < nr && !dup; j++) {
			dup = !strcmp(g->maps[j]->path, m->path);
		}
		if (dup)
			continue;
		fd = proc_table_open_mapping(u->table, m, NULL, 0);
		if (fd < 0)
			continue;
		if (!load_bias(fd, m, &bias, &is_exec)) {
			close(fd);
			continue;
		}
		/* On success libdwfl owns fd; on failure it is ours. */
		if (dwfl_report_elf(d, m->path, m->path, fd, is_exec ? 0 : bias, false))
			reported++;
		else
			close(fd);
	}
	dwfl_report_end(d, NULL, NULL);
	if (!reported || !dwfl_attach_state(d, NULL, (pid_t)p->pid, &thread_cb, u)) {
		dwfl_end(d);
		return;
	}
	p->dwfl = d;
}

static struct uw_proc *get_proc(struct unwind_dwarf *u, uint32_t pid)
{
	struct uw_proc **b = &u->procs[pid % UW_BUCKETS], *p;

	for (p = *b; p; p = p->next)
		if (p->pid == pid)
			return p;
	p = calloc(1, sizeof(*p));
	if (!p)
		return NULL;
	p->pid = pid;
	p->next = *b;
	*b = p;
	proc_table_note(u->table, pid);
	return p;
}

/* The generation s ran in: its address space's, else pid's newest. */
static struct proc_gen *sample_gen(struct unwind_dwarf *u, const struct sp_sample *s)
{
	struct proc_gen *g = s->as_id ? proc_aspace_find(u->table, s->tgid, s->as_id) : NULL;

	return g ? g : proc_table_newest(u->table, s->tgid);
}

static void forget_rules(struct unwind_dwarf *u, uint32_t pid);

/* p's Dwfl made again from g's mappings. */
static void rebuild(struct unwind_dwarf *u, struct uw_proc *p, struct proc_gen *g)
{
	forget_rules(u, p->pid);
	if (p->dwfl)
		dwfl_end(p->dwfl);
	p->dwfl = NULL;
	build_dwfl(u, p, g);
}

static int frame_cb(Dwfl_Frame *f, void *arg)
{
	struct unwind_dwarf *u = arg;
	Dwarf_Addr pc;
	bool act;

	if (!dwfl_frame_pc(f, &pc, &act))
		return DWARF_CB_ABORT;
	/* pc 0 is how a thread's outermost frame often ends. */
	if (!pc || u->nr_out >= u->max_out)
		return DWARF_CB_ABORT;
	/* Return addresses as they are: like the FP walker's, the profile
	 * adjusts non-leaf frames before symbolizing. */
	u->out[u->nr_out++] = pc;
	return DWARF_CB_OK;
}

static bool regs_usable(const struct sp_sample *s)
{
	const uint64_t need = (1ull << PR_IP) | (1ull << PR_SP);

	return (s->flags & SKYPROF_SF_REGS) && s->regs && s->regs->abi == SKYPROF_REGS_ABI_64 &&
	       (s->regs->mask & need) == need && (s->ustack || !s->ustack_size);
}

static size_t run_unwind(struct unwind_dwarf *u, struct uw_proc *p, const struct sp_sample *s,
			 uint64_t *ips, size_t max)
{
	u->cur = s;
	u->out = ips;
	u->nr_out = 0;
	u->max_out = max;
	/* The return value says why it stopped (end of CFI, a read outside
	 * the copy, ...); whatever frames came before stay valid. */
	dwfl_getthread_frames(p->dwfl, (pid_t)s->tid, frame_cb, u);
	u->cur = NULL;
	return u->nr_out;
}

/* --- fast path --------------------------------------------------------- */

/*
 * libdwfl's unwinder evaluates the CFI afresh for every frame of every
 * sample (allocating as it goes): too slow for the per-sample path at the
 * usual rates. Most frames need only the three simple rules
 * of struct uw_rule, looked up once per pc with libdw and cached; a sample
 * any of whose frames needs more (another register, an expression, a
 * signal frame, no CFI: libdwfl's own fallbacks) is unwound by libdwfl from
 * the start, so the result is libdwfl's (the unit tests compare the two on
 * whole, cut and corrupted copies). One difference by choice: where a
 * return address lies outside the copy the fast path ends the stack, where
 * libdwfl may still try its frame-pointer guess from rbp (on code without
 * frame pointers, a made-up frame); mixed mode joins the FP chain there.
 */

/* op list of dwarf_frame_register() for "saved at CFA + off" -> off. */
static bool cfa_offset_rule(const Dwarf_Op *ops, size_t nops, int64_t *off)
{
	if (!ops || nops < 1 || nops > 2 || ops[0].atom != DW_OP_call_frame_cfa)
		return false;
	if (nops == 1) {
		*off = 0;
		return true;
	}
	if (ops[1].atom != DW_OP_plus_uconst)
		return false;
	*off = (int64_t)ops[1].number;
	return true;
}

static uint8_t rule_from_frame(Dwarf_Frame *fr, struct uw_rule *r)
{
	Dwarf_Op mem[3], *ops;
	size_t nops;
	Dwarf_Addr start, end;
	bool signalp;
	int ra;

	ra = dwarf_frame_info(fr, &start, &end, &signalp);
	if (ra < 0 || signalp)
		return RULE_OTHER;
	if (dwarf_frame_cfa(fr, &ops, &nops) || nops != 1 || ops[0].atom != DW_OP_bregx ||
	    (ops[0].number != 6 && ops[0].number != 7))
		return RULE_OTHER;
	r->cfa_reg = (uint8_t)ops[0].number;
	r->cfa_off = (int64_t)ops[0].number2;
	/* dwarf_frame_register() gives no ops for both undefined (ops is then
	 * ops_mem) and the same value (ops NULL), as libdwfl reads it. */
	if (dwarf_frame_register(fr, ra, mem, &ops, &nops))
		return RULE_OTHER;
	r->ra_undefined = !nops && ops == mem;
	if (!r->ra_undefined && !cfa_offset_rule(ops, nops, &r->ra_off))
		return RULE_OTHER;
	if (dwarf_frame_register(fr, 6, mem, &ops, &nops))
		return RULE_OTHER;
	if (!nops && ops == mem)
		r->bp_rule = BP_UNDEFINED;
	else if (!nops && !ops)
		r->bp_rule = BP_SAME;
	else if (cfa_offset_rule(ops, nops, &r->bp_off))
		r->bp_rule = BP_OFFSET;
	else
		return RULE_OTHER;
	return RULE_SIMPLE;
}

/* The CFI rule at pc, as libdwfl's unwinder would find it: .eh_frame, then
 * .debug_frame. */
static uint8_t compute_rule(Dwfl *dwfl, uint64_t pc, struct uw_rule *r)
{
	Dwfl_Module *m = dwfl_addrmodule(dwfl, pc);
	Dwarf_CFI *cfi;
	Dwarf_Frame *fr = NULL;
	Dwarf_Addr bias;
	uint8_t st;

	if (!m)
		return RULE_OTHER;
	cfi = dwfl_module_eh_cfi(m, &bias);
	if (!cfi || dwarf_cfi_addrframe(cfi, pc - bias, &fr)) {
		fr = NULL;
		cfi = dwfl_module_dwarf_cfi(m, &bias);
		if (!cfi || dwarf_cfi_addrframe(cfi, pc - bias, &fr))
			return RULE_OTHER;
	}
	st = rule_from_frame(fr, r);
	free(fr);
	return st;
}

static const struct uw_rule *get_rule(struct unwind_dwarf *u, struct uw_proc *p, uint64_t pc)
{
	size_t h = (size_t)(((pc * 0x9e3779b97f4a7c15ull) >> 40) ^ p->pid) % RULE_CACHE;
	struct uw_rule *r = &u->rules[h];

	if (r->state != RULE_EMPTY && r->pc == pc && r->pid == p->pid)
		return r;
	memset(r, 0, sizeof(*r));
	r->pc = pc;
	r->pid = p->pid;
	r->state = compute_rule(p->dwfl, pc, r);
	return r;
}

static void forget_rules(struct unwind_dwarf *u, uint32_t pid)
{
	for (size_t i = 0; i < RULE_CACHE; i++)
		if (u->rules[i].pid == pid)
			u->rules[i].state = RULE_EMPTY;
}

/* The frames, or -1 when a frame needs more than the fast path knows. */
static long fast_unwind(struct unwind_dwarf *u, struct uw_proc *p, const struct sp_sample *s,
			uint64_t *ips, size_t max)
{
	const struct skyprof_user_regs *rg = s->regs;
	uint64_t pc = rg->regs[PR_IP], sp = rg->regs[PR_SP], bp = rg->regs[PR_BP];
	bool bp_ok = rg->mask & (1ull << PR_BP);
	size_t n = 0;

	if (!(rg->mask & (1ull << PR_IP)))
		return -1;
	while (pc && n < max) {
		const struct uw_rule *r;
		uint64_t cfa, ra, nbp = bp;

		ips[n++] = pc;
		if (n == max)
			break;
		r = get_rule(u, p, n == 1 ? pc : pc - 1);
		if (r->state != RULE_SIMPLE || (r->cfa_reg == 6 && !bp_ok))
			return -1;
		cfa = (r->cfa_reg == 6 ? bp : sp) + (uint64_t)r->cfa_off;
		if (r->ra_undefined)
			break;
		if (!stack_word(s, cfa + (uint64_t)r->ra_off, &ra))
			break;
		if (r->bp_rule == BP_OFFSET) {
			if (!stack_word(s, cfa + (uint64_t)r->bp_off, &nbp))
				return -1;
		} else if (r->bp_rule == BP_UNDEFINED) {
			bp_ok = false;
		}
		pc = ra;
		sp = cfa;
		bp = nbp;
	}
	return (long)n;
}

size_t unwind_dwarf_only(struct unwind_dwarf *u, const struct sp_sample *s, uint64_t *ips,
			 size_t max)
{
	struct proc_gen *g;
	struct uw_proc *p;
	size_t n;

	if (!max || !regs_usable(s))
		return 0;
	p = get_proc(u, s->tgid);
	if (!p)
		return 0;
	g = sample_gen(u, s);
	if (!p->have_built || p->built != g) {
		if (p->have_built)
			p->rebuilt = true;
		rebuild(u, p, g);
	}
	n = 0;
	if (p->dwfl) {
		long f = u->slow_only ? -1 : fast_unwind(u, p, s, ips, max);

		if (f >= 0) {
			n = (size_t)f;
			u->stats.fast++;
		} else {
			n = run_unwind(u, p, s, ips, max);
		}
	}
	/* The pc in no reported module: an exec or dlopen after first sight.
	 * A lookup of the pc makes the process table re-read the maps (nothing
	 * is symbolized); rebuild only when that found new mappings, so a pc in
	 * anonymous memory (JIT) does not rebuild on every sample. */
	if (n <= 1 && g && (!p->dwfl || !dwfl_addrmodule(p->dwfl, s->regs->regs[PR_IP]))) {
		proc_table_lookup(u->table, &g, s->regs->regs[PR_IP]);
		if (g != p->built || g->nr_maps > p->nr_reported) {
			p->rebuilt = true;
			rebuild(u, p, g);
			if (p->dwfl)
				n = run_unwind(u, p, s, ips, max);
		}
	}
	return n;
}

static bool is_root_name(const char *n)
{
	static const char *const roots[] = {
		"_start",
		"__libc_start_main",
		"__libc_start_call_main",
		"__libc_start_main_impl",
		"clone",
		"clone3",
		"__clone",
		"__clone3",
		"start_thread",
		"__GI___clone3",
		"__GI___clone",
	};

	for (size_t i = 0; i < sizeof(roots) / sizeof(roots[0]); i++)
		if (!strcmp(n, roots[i]))
			return true;
	return false;
}

static bool addr_is_root(struct unwind_dwarf *u, const struct sp_sample *s, uint64_t addr)
{
	const struct proc_gen *g = sample_gen(u, s);
	uint32_t pid = s->tgid;
	size_t h = (size_t)((addr * 0x9e3779b97f4a7c15ull) >> 54 ^ pid) % ROOT_CACHE;
	struct sym_result r;
	bool root = false;

	if (u->root_cache[h].root >= 0 && u->root_cache[h].pid == pid &&
	    u->root_cache[h].addr == addr)
		return u->root_cache[h].root;
	if (g)
		symbolizer_resolve_gen(u->sym, pid, g->gen, addr, false, &r);
	else
		symbolizer_resolve(u->sym, pid, addr, false, &r);
	for (unsigned int i = 0; i < r.nr_frames && !root; i++)
		root = is_root_name(r.frames[i].name) || is_root_name(r.frames[i].system_name);
	u->root_cache[h].pid = pid;
	u->root_cache[h].addr = addr;
	u->root_cache[h].root = root;
	return root;
}

size_t unwind_dwarf_sample(struct unwind_dwarf *u, const struct sp_sample *s, uint64_t *ips,
			   size_t max)
{
	size_t nfp = s->user_ips ? s->nr_user : 0;
	size_t n, k;

	if (nfp > max)
		nfp = max;
	if (!(s->flags & SKYPROF_SF_REGS)) {
		if (nfp)
			memcpy(ips, s->user_ips, nfp * sizeof(*ips));
		return nfp;
	}
	u->stats.samples++;
	u->stats.fp_frames += nfp;
	n = unwind_dwarf_only(u, s, ips, max);
	if (n && nfp > n) {
		/* Join: the FP chain holds the last DWARF frame's return
		 * address, so its frames past that one continue the stack
		 * where the copy (or the CFI) ended. */
		for (k = 0; k < nfp && s->user_ips[k] != ips[n - 1]; k++)
			;
		if (k + 1 < nfp && k < nfp) {
			size_t add = nfp - (k + 1);

			if (add > max - n)
				add = max - n;
			memcpy(ips + n, s->user_ips + k + 1, add * sizeof(*ips));
			n += add;
			u->stats.joined++;
		}
	}
	if (n >= nfp && n) {
		u->stats.dwarf_used++;
	} else {
		/* The FP chain is longer and does not continue the DWARF one:
		 * code without CFI, or a copy that failed. Keep it. */
		if (nfp)
			memcpy(ips, s->user_ips, nfp * sizeof(*ips));
		n = nfp;
		u->stats.fp_kept++;
	}
	u->stats.user_frames += n;
	/* The outermost frame, or the one before it (a thread's frame above
	 * clone can be the 0 terminator some libcs leave). */
	if (n && (addr_is_root(u, s, n > 1 ? ips[n - 1] - 1 : ips[0]) ||
		  (n > 2 && addr_is_root(u, s, ips[n - 2] - 1))))
		u->stats.reached_root++;
	return n;
}

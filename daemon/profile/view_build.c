// SPDX-License-Identifier: GPL-2.0
/*
 * Building the symbolized view from a live profile. Each distinct
 * (pid, address) is symbolized once and becomes one location; functions are
 * shared by (name, mangled name, file); mappings by the symbolizer's mapping
 * they came from. The indexes persist across syncs, so `top` refreshing every
 * second only symbolizes addresses it has not met before.
 *
 * The one exception: a location in JIT code that no perf map named yet is
 * looked up again at each build until one does, and then takes the name in
 * place. A JIT writes its map when it likes (a JVM with DumpPerfMapAtExit
 * at exit), and a stack met before that would otherwise stay [unknown] for
 * the rest of a live view's life, however often it recurs.
 */
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "profile/profile.h"
#include "sym/symbolizer.h"
#include "profile/view.h"
#include "profile/view_build.h"

/* A map from a 128-bit key to a u32, open addressing. */
struct kslot {
	uint64_t a, b;
	uint32_t val; /* value + 1; 0 = empty */
};

struct kmap {
	struct kslot *s;
	uint32_t nr_slots, used;
};

/* A location whose address fell in JIT code no perf map named yet. */
struct jit_wait {
	uint32_t loc; /* index into locations */
	uint32_t pid;
	uint16_t gen;
};

struct view_index {
	uint32_t synced; /* stacks already turned into samples */
	struct kmap locs, funcs, maps;
	uint32_t kernel_mapping; /* index + 1 */
	struct jit_wait *jit;	 /* looked up again at each build */
	uint32_t nr_jit, cap_jit;
};

static uint32_t khash(uint64_t a, uint64_t b, uint32_t n)
{
	uint64_t h = (a ^ (b * 0x9e3779b97f4a7c15ULL)) * 0xff51afd7ed558ccdULL;

	return (uint32_t)(h ^ (h >> 32)) & (n - 1);
}

static int64_t kmap_get(const struct kmap *m, uint64_t a, uint64_t b)
{
	if (!m->nr_slots)
		return -1;
	for (uint32_t h = khash(a, b, m->nr_slots);; h = (h + 1) & (m->nr_slots - 1)) {
		const struct kslot *s = &m->s[h];

		if (!s->val)
			return -1;
		if (s->a == a && s->b == b)
			return s->val - 1;
	}
}

static int kmap_put(struct kmap *m, uint64_t a, uint64_t b, uint32_t val)
{
	if ((m->used + 1) * 2 > m->nr_slots) {
		uint32_t n = m->nr_slots ? m->nr_slots * 2 : 256;
		struct kslot *s = calloc(n, sizeof(*s));

		if (!s)
			return -ENOMEM;
		for (uint32_t i = 0; i < m->nr_slots; i++) {
			if (!m->s[i].val)
				continue;
			uint32_t h = khash(m->s[i].a, m->s[i].b, n);

			while (s[h].val)
				h = (h + 1) & (n - 1);
			s[h] = m->s[i];
		}
		free(m->s);
		m->s = s;
		m->nr_slots = n;
	}
	uint32_t h = khash(a, b, m->nr_slots);

	while (m->s[h].val)
		h = (h + 1) & (m->nr_slots - 1);
	m->s[h].a = a;
	m->s[h].b = b;
	m->s[h].val = val + 1;
	m->used++;
	return 0;
}

static void index_free(struct view_index *ix)
{
	if (!ix)
		return;
	free(ix->locs.s);
	free(ix->funcs.s);
	free(ix->maps.s);
	free(ix->jit);
	free(ix);
}

static int64_t intern(struct view *v, const char *s)
{
	return strtab_intern(&v->strs, s ? s : "");
}

static int64_t get_function(struct view *v, const struct sym_frame *f)
{
	int64_t name = intern(v, f->name), sys = intern(v, f->system_name);
	int64_t file = intern(v, f->file), idx;
	struct view_function vf = { 0 };

	if (name < 0 || sys < 0 || file < 0)
		return -ENOMEM;
	idx = kmap_get(&v->index->funcs, (uint64_t)name << 32 | (uint64_t)sys, (uint64_t)file);
	if (idx >= 0)
		return idx;
	vf.name = (uint32_t)name;
	vf.system_name = (uint32_t)sys;
	vf.filename = (uint32_t)file;
	idx = view_add_function(v, &vf);
	if (idx < 0 || kmap_put(&v->index->funcs, (uint64_t)name << 32 | (uint64_t)sys,
				(uint64_t)file, (uint32_t)idx))
		return -ENOMEM;
	return idx;
}

static int64_t kernel_mapping(struct view *v)
{
	struct view_mapping m = { 0 };
	int64_t name, idx;

	if (v->index->kernel_mapping)
		return v->index->kernel_mapping - 1;
	name = intern(v, VIEW_KERNEL_MAPPING);
	if (name < 0)
		return -ENOMEM;
	/* The whole upper half: kernel text and modules both live there. */
	m.start = 0xffff800000000000ULL;
	m.limit = UINT64_MAX;
	m.filename = (uint32_t)name;
	m.has_functions = true;
	m.kernel = true;
	idx = view_add_mapping(v, &m);
	if (idx >= 0)
		v->index->kernel_mapping = (uint32_t)idx + 1;
	return idx;
}

static int64_t user_mapping(struct view *v, const struct sym_result *r)
{
	const struct proc_mapping *sm = r->map;
	struct view_mapping m = { 0 };
	int64_t idx = kmap_get(&v->index->maps, (uintptr_t)sm, 0);
	int64_t fn, bid;

	if (idx >= 0)
		return idx;
	fn = intern(v, sm->path);
	bid = intern(v, r->build_id);
	if (fn < 0 || bid < 0)
		return -ENOMEM;
	m.start = sm->start;
	m.limit = sm->limit;
	m.offset = sm->offset;
	m.filename = (uint32_t)fn;
	m.build_id = (uint32_t)bid;
	m.is_main = sm->is_main;
	m.has_functions = r->has_functions;
	m.has_lines = r->has_lines;
	m.has_inline = r->has_inline;
	idx = view_add_mapping(v, &m);
	if (idx < 0 || kmap_put(&v->index->maps, (uintptr_t)sm, 0, (uint32_t)idx))
		return -ENOMEM;
	return idx;
}

/* loc's lines: r's frames, appended to the view's lines. 0 or -ENOMEM. */
static int set_lines(struct view *v, struct view_location *loc, const struct sym_result *r)
{
	loc->first_line = v->nr_lines;
	for (unsigned int i = 0; i < r->nr_frames && i < SYM_MAX_FRAMES; i++) {
		struct view_line l = { 0 };
		int64_t f = get_function(v, &r->frames[i]);

		if (f < 0)
			return -ENOMEM;
		l.function = (uint32_t)f;
		l.line = r->frames[i].line;
		if (view_add_line(v, &l) < 0)
			return -ENOMEM;
	}
	loc->nr_lines = v->nr_lines - loc->first_line;
	return 0;
}

static int wait_for_jit(struct view_index *ix, uint32_t loc, uint32_t pid, uint16_t gen)
{
	if (ix->nr_jit == ix->cap_jit) {
		uint32_t cap = ix->cap_jit ? ix->cap_jit * 2 : 64;
		struct jit_wait *n = realloc(ix->jit, cap * sizeof(*n));

		if (!n)
			return -ENOMEM;
		ix->jit = n;
		ix->cap_jit = cap;
	}
	ix->jit[ix->nr_jit++] = (struct jit_wait){ .loc = loc, .pid = pid, .gen = gen };
	return 0;
}

static int64_t get_location(struct view *v, struct symbolizer *sym, uint32_t pid, uint16_t gen,
			    uint64_t addr, bool kernel)
{
	/* user addresses are per process image: pid and exec generation */
	uint64_t key_b = (kernel ? 0 : (uint64_t)gen << 32 | pid) << 1 | kernel;
	int64_t idx = kmap_get(&v->index->locs, addr, key_b), map = -1;
	struct view_location loc = { 0 };
	struct sym_result r;
	char hex[32];

	if (idx >= 0)
		return idx;
	if (sym) {
		symbolizer_resolve_gen(sym, pid, gen, addr, kernel, &r);
	} else {
		/* No symbolizer (tests, raw dumps): name frames by address. */
		memset(&r, 0, sizeof(r));
		snprintf(hex, sizeof(hex), "0x%" PRIx64, addr);
		r.nr_frames = 1;
		r.frames[0].name = hex;
	}
	if (kernel)
		map = kernel_mapping(v);
	else if (r.map)
		map = user_mapping(v, &r);
	if (map < -1)
		return -ENOMEM;
	loc.address = addr;
	loc.mapping = (uint32_t)(map + 1);
	loc.kernel = kernel;
	if (set_lines(v, &loc, &r))
		return -ENOMEM;
	idx = view_add_location(v, &loc);
	if (idx < 0 || kmap_put(&v->index->locs, addr, key_b, (uint32_t)idx))
		return -ENOMEM;
	if (r.jit_pending && wait_for_jit(v->index, (uint32_t)idx, pid, gen))
		return -ENOMEM;
	return idx;
}

/*
 * The locations in JIT code still unnamed, looked up again: each one a perf
 * map names now takes its name (and leaves the anonymous mapping, as a
 * fresh lookup would), and stops being asked about. Its old lines stay in
 * lines[], unreferenced. 0 or -ENOMEM.
 */
static int name_jit_late(struct view *v, struct symbolizer *sym)
{
	struct view_index *ix = v->index;

	for (uint32_t i = 0; i < ix->nr_jit;) {
		const struct jit_wait *w = &ix->jit[i];
		struct view_location *loc = &v->locations[w->loc];
		struct sym_result r;
		int64_t map = -1;

		symbolizer_resolve_gen(sym, w->pid, w->gen, loc->address, false, &r);
		if (r.jit_pending) {
			i++;
			continue;
		}
		if (r.map)
			map = user_mapping(v, &r);
		if (map < -1 || set_lines(v, loc, &r))
			return -ENOMEM;
		loc->mapping = (uint32_t)(map + 1);
		ix->jit[i] = ix->jit[--ix->nr_jit];
	}
	return 0;
}

/* Non-leaf frames hold return addresses: look up the call instruction. */
static uint64_t lookup_addr(uint64_t ip, unsigned int depth)
{
	return depth && ip ? ip - 1 : ip;
}

static int add_stack(struct view *v, struct symbolizer *sym, const struct profile_stack *st)
{
	uint32_t n = (uint32_t)st->nr_kernel + st->nr_user;
	uint32_t *locs = malloc((n ? n : 1) * sizeof(*locs));
	struct view_sample s = { 0 };
	int64_t comm, idx;

	if (!locs)
		return -ENOMEM;
	/* Leaf first, as pprof wants: kernel frames sit above user ones. */
	for (uint32_t i = 0; i < st->nr_kernel; i++) {
		idx = get_location(v, sym, st->tgid, st->gen, lookup_addr(st->kernel_ips[i], i),
				   true);
		if (idx < 0)
			goto oom;
		locs[i] = (uint32_t)idx;
	}
	for (uint32_t i = 0; i < st->nr_user; i++) {
		idx = get_location(v, sym, st->tgid, st->gen, lookup_addr(st->user_ips[i], i),
				   false);
		if (idx < 0)
			goto oom;
		locs[st->nr_kernel + i] = (uint32_t)idx;
	}
	comm = intern(v, st->comm);
	if (comm < 0)
		goto oom;
	s.nr_locs = n;
	s.pid = st->tgid;
	s.tid = st->tid;
	s.comm = (uint32_t)comm;
	s.count = st->count;
	s.weight = st->weight;
	if (view_add_sample(v, &s, locs) < 0)
		goto oom;
	free(locs);
	return 0;
oom:
	free(locs);
	return -ENOMEM;
}

int view_build(struct view *v, const struct profile *p, struct symbolizer *sym)
{
	size_t n = profile_nr_stacks(p);
	struct profile_stack st;

	v->meta = *profile_get_meta(p);
	/* A JIT may have written or replaced its perf map since the last
	 * build (a JVM at exit). */
	if (sym)
		symbolizer_recheck_jit(sym);
	if (v->period == 0 && v->meta.kind == PROFILE_ONCPU && v->meta.freq_hz)
		v->period = 1000000000ULL / v->meta.freq_hz;
	if (!v->index) {
		v->index = calloc(1, sizeof(*v->index));
		if (!v->index)
			return -ENOMEM;
		v->index_free = index_free;
	}
	if (sym && v->index->nr_jit && name_jit_late(v, sym))
		return -ENOMEM;
	for (uint32_t i = 0; i < v->index->synced && i < n; i++) {
		profile_get_stack(p, i, &st);
		v->samples[i].count = st.count;
		v->samples[i].weight = st.weight;
	}
	for (size_t i = v->index->synced; i < n; i++) {
		profile_get_stack(p, i, &st);
		if (add_stack(v, sym, &st))
			return -ENOMEM;
		v->index->synced++;
	}
	return 0;
}

// SPDX-License-Identifier: GPL-2.0
/*
 * Aggregation: samples merged by (tgid, tid, kernel stack, user stack).
 *
 * This is the hot path of the daemon (every ring record lands here), so it
 * allocates nothing per sample once a stack has been seen: a sample costs a
 * hash over its ips, one probe into an open-addressing table and a compare.
 * Stacks live in a bump arena of large blocks, which keeps them dense in
 * memory and makes freeing the profile a handful of free() calls.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "proc/follow.h"
#include "profile/profile.h"
#include "skyprof.h"
#include "sym/symbolizer.h"
#include "unwind/unwind.h"
#include "profile/view.h"

#define ARENA_BLOCK (256 * 1024)

struct stack_entry {
	uint64_t hash;
	uint64_t count, weight;
	uint32_t tgid, tid;
	uint16_t nr_kernel, nr_user;
	uint16_t gen; /* tgid's exec generation (symbolize.h) */
	char comm[17];
	uint64_t ips[]; /* kernel ips, then user ips */
};

struct arena_block {
	struct arena_block *next;
	size_t used, size;
	_Alignas(8) unsigned char data[];
};

struct slot {
	uint64_t hash;
	struct stack_entry *e; /* NULL: empty */
};

struct profile {
	struct profile_meta meta;
	struct symbolizer *sym;

	struct slot *slots;
	size_t nr_slots;	      /* power of two */
	struct stack_entry **entries; /* first-seen order */
	size_t nr_entries, cap_entries;
	struct arena_block *arena;
	uint64_t total_count;

	struct follow *follow; /* the processes followed (with a symbolizer only) */

	struct view *view;
	bool view_only; /* read back from a file: no raw stacks */

	/* DWARF unwinder, made on the first sample with user regs. */
	struct unwind_dwarf *uw;
};

/*
 * Hashing the ips is most of the cost of a sample, so it runs four
 * independent multiply-xor lanes (the CPU overlaps their multiplies instead
 * of waiting on one long dependency chain) and mixes them once at the end
 * with a murmur-style avalanche. The ips are well spread already; the table
 * compares full keys, so the hash only has to spread, not to resist attack.
 */
#define HK1 0x9e3779b97f4a7c15ULL
#define HK2 0xc2b2ae3d27d4eb4fULL
#define HK3 0x165667b19e3779f9ULL
#define HK4 0x27d4eb2f165667c5ULL

static inline uint64_t rotl(uint64_t x, int r)
{
	return (x << r) | (x >> (64 - r));
}

static inline __attribute__((always_inline)) void hash_words(uint64_t h[4], const uint64_t *w,
							     size_t n)
{
	/* The lanes in locals: stored through h, every step would be written
	 * back to memory, as w might alias it. */
	uint64_t a = h[0], b = h[1], c = h[2], d = h[3];
	size_t i = 0;

	/* Eight words a turn, then four, then the rest: word i always goes
	 * into lane i % 4, in order. */
	for (; i + 8 <= n; i += 8) {
		a = (a ^ w[i]) * HK1;
		b = (b ^ w[i + 1]) * HK2;
		c = (c ^ w[i + 2]) * HK3;
		d = (d ^ w[i + 3]) * HK4;
		a = (a ^ w[i + 4]) * HK1;
		b = (b ^ w[i + 5]) * HK2;
		c = (c ^ w[i + 6]) * HK3;
		d = (d ^ w[i + 7]) * HK4;
	}
	if (i + 4 <= n) {
		a = (a ^ w[i]) * HK1;
		b = (b ^ w[i + 1]) * HK2;
		c = (c ^ w[i + 2]) * HK3;
		d = (d ^ w[i + 3]) * HK4;
		i += 4;
	}
	if (i < n)
		a = (a ^ w[i++]) * HK1;
	if (i < n)
		b = (b ^ w[i++]) * HK1;
	if (i < n)
		c = (c ^ w[i++]) * HK1;
	h[0] = a;
	h[1] = b;
	h[2] = c;
	h[3] = d;
}

static uint64_t hash_sample(const struct sp_sample *s, uint16_t gen)
{
	uint64_t h[4] = { (uint64_t)s->tgid << 32 | s->tid,
			  (uint64_t)gen << 32 | (uint64_t)s->nr_kernel << 16 | s->nr_user, HK3,
			  HK4 };

	if (s->nr_kernel)
		hash_words(h, s->kernel_ips, s->nr_kernel);
	/* Rotate the lanes so kernel and user words never line up the same
	 * way for two different splits of one ip sequence. */
	h[0] = rotl(h[0], 17) ^ h[3];
	if (s->nr_user)
		hash_words(h, s->user_ips, s->nr_user);
	uint64_t r = rotl(h[0], 1) + rotl(h[1], 7) + rotl(h[2], 12) + rotl(h[3], 18);

	r ^= r >> 33;
	r *= 0xff51afd7ed558ccdULL;
	r ^= r >> 33;
	r *= 0xc4ceb9fe1a85ec53ULL;
	r ^= r >> 33;
	return r;
}

static bool same_stack(const struct stack_entry *e, const struct sp_sample *s, uint16_t gen)
{
	if (e->tgid != s->tgid || e->tid != s->tid || e->gen != gen ||
	    e->nr_kernel != s->nr_kernel || e->nr_user != s->nr_user)
		return false;
	/* A record from the ring holds both stacks back to back, as the
	 * entry does: one comparison instead of two library calls. */
	if (s->nr_kernel && s->nr_user && s->user_ips == s->kernel_ips + s->nr_kernel)
		return !memcmp(e->ips, s->kernel_ips,
			       ((size_t)s->nr_kernel + s->nr_user) * sizeof(uint64_t));
	/* memcmp only with a length: an empty stack may come as NULL. */
	return (!s->nr_kernel || !memcmp(e->ips, s->kernel_ips, s->nr_kernel * sizeof(uint64_t))) &&
	       (!s->nr_user ||
		!memcmp(e->ips + s->nr_kernel, s->user_ips, s->nr_user * sizeof(uint64_t)));
}

static void *arena_alloc(struct profile *p, size_t size)
{
	struct arena_block *b = p->arena;

	size = (size + 7) & ~(size_t)7;
	if (!b || b->size - b->used < size) {
		size_t bs = size > ARENA_BLOCK / 4 ? size : ARENA_BLOCK;

		b = malloc(sizeof(*b) + bs);
		if (!b)
			return NULL;
		b->size = bs;
		b->used = 0;
		if (bs == ARENA_BLOCK || !p->arena) {
			b->next = p->arena;
			p->arena = b;
		} else {
			/* An oversized stack: keep the current block current. */
			b->next = p->arena->next;
			p->arena->next = b;
		}
	}
	void *r = b->data + b->used;

	b->used += size;
	return r;
}

struct profile *profile_new(const struct profile_meta *meta, struct symbolizer *sym)
{
	struct profile *p = calloc(1, sizeof(*p));

	if (!p)
		return NULL;
	if (meta)
		p->meta = *meta;
	p->sym = sym;
	p->nr_slots = 1024;
	p->slots = calloc(p->nr_slots, sizeof(*p->slots));
	if (sym)
		p->follow = follow_new(sym);
	if (!p->slots || (sym && !p->follow)) {
		profile_free(p);
		return NULL;
	}
	return p;
}

struct profile *profile_from_view(struct view *v)
{
	struct profile *p = profile_new(&v->meta, NULL);

	if (!p)
		return NULL;
	p->view = v;
	p->view_only = true;
	for (uint32_t i = 0; i < v->nr_samples; i++)
		p->total_count += v->samples[i].count;
	return p;
}

void profile_free(struct profile *p)
{
	if (!p)
		return;
	unwind_dwarf_free(p->uw);
	while (p->arena) {
		struct arena_block *n = p->arena->next;

		free(p->arena);
		p->arena = n;
	}
	if (p->view) {
		view_free(p->view);
		free(p->view);
	}
	free(p->entries);
	free(p->slots);
	follow_free(p->follow);
	free(p);
}

static int grow_table(struct profile *p)
{
	size_t n = p->nr_slots * 2;
	struct slot *s = calloc(n, sizeof(*s));

	if (!s)
		return -ENOMEM;
	for (size_t i = 0; i < p->nr_entries; i++) {
		struct stack_entry *e = p->entries[i];
		size_t h = e->hash & (n - 1);

		while (s[h].e)
			h = (h + 1) & (n - 1);
		s[h].hash = e->hash;
		s[h].e = e;
	}
	free(p->slots);
	p->slots = s;
	p->nr_slots = n;
	return 0;
}

static struct stack_entry *insert(struct profile *p, const struct sp_sample *s, uint16_t gen,
				  uint64_t hash, size_t slot)
{
	size_t nips = (size_t)s->nr_kernel + s->nr_user;
	struct stack_entry *e;

	if (p->nr_entries == p->cap_entries) {
		size_t cap = p->cap_entries ? p->cap_entries * 2 : 1024;
		struct stack_entry **n = realloc(p->entries, cap * sizeof(*n));

		if (!n)
			return NULL;
		p->entries = n;
		p->cap_entries = cap;
	}
	e = arena_alloc(p, sizeof(*e) + nips * sizeof(uint64_t));
	if (!e)
		return NULL;
	e->hash = hash;
	e->count = 0;
	e->weight = 0;
	e->tgid = s->tgid;
	e->tid = s->tid;
	e->gen = gen;
	e->nr_kernel = s->nr_kernel;
	e->nr_user = s->nr_user;
	memcpy(e->comm, s->comm, sizeof(e->comm));
	e->comm[sizeof(e->comm) - 1] = '\0';
	if (s->nr_kernel)
		memcpy(e->ips, s->kernel_ips, s->nr_kernel * sizeof(uint64_t));
	if (s->nr_user)
		memcpy(e->ips + s->nr_kernel, s->user_ips, s->nr_user * sizeof(uint64_t));
	p->slots[slot].hash = hash;
	p->slots[slot].e = e;
	p->entries[p->nr_entries++] = e;
	return e;
}

/* Count n samples of s's stack (of generation gen), weighing w in all. */
static int add_counted(struct profile *p, const struct sp_sample *s, uint16_t gen, uint64_t n,
		       uint64_t w)
{
	uint64_t hash;
	size_t h;
	struct stack_entry *e;

	if ((s->nr_kernel && !s->kernel_ips) || (s->nr_user && !s->user_ips))
		return -EINVAL;
	hash = hash_sample(s, gen);
	h = hash & (p->nr_slots - 1);
	for (;;) {
		e = p->slots[h].e;
		if (!e)
			break;
		if (p->slots[h].hash == hash && same_stack(e, s, gen))
			goto found;
		h = (h + 1) & (p->nr_slots - 1);
	}
	e = insert(p, s, gen, hash, h);
	if (!e)
		return -ENOMEM;
	/* Grow at 3/4 load; the new entry is already in the old table. */
	if (p->nr_entries * 4 > p->nr_slots * 3 && grow_table(p))
		return -ENOMEM;
found:
	e->count += n;
	e->weight += w;
	p->total_count += n;
	return 0;
}

/* s with its user stack unwound by uw (DWARF). Out of line: its frame holds
 * a whole stack of ips, which the frame-pointer path should not pay for. */
static __attribute__((noinline)) int add_dwarf(struct profile *p, struct unwind_dwarf *uw,
					       const struct sp_sample *s, uint16_t gen)
{
	struct sp_sample dw = *s;
	uint64_t dw_ips[UNWIND_DWARF_MAX_FRAMES];

	dw.nr_user = (uint16_t)unwind_dwarf_sample(uw, s, dw_ips, UNWIND_DWARF_MAX_FRAMES);
	dw.user_ips = dw_ips;
	return add_counted(p, &dw, gen, 1, dw.weight);
}

/* The stack as given, or with the user part unwound by uw (DWARF). */
static inline int add_one(struct profile *p, struct unwind_dwarf *uw, const struct sp_sample *s,
			  uint16_t gen)
{
	if ((s->flags & SKYPROF_SF_REGS) && s->regs && uw)
		return add_dwarf(p, uw, s, gen);
	return add_counted(p, s, gen, 1, s->weight);
}

int profile_add_unwound(struct profile *p, struct unwind_dwarf *uw, const struct sp_sample *s,
			uint16_t gen)
{
	if (p->view_only)
		return -EINVAL;
	return add_one(p, uw, s, gen);
}

/* The stack just added as entry i is new: follow's miss check, on the ips
 * as aggregated (a DWARF unwind's, not the recorded chain). */
static __attribute__((noinline)) void check_new_stack(struct profile *p, const struct sp_sample *s,
						      size_t i)
{
	const struct stack_entry *e = p->entries[i];
	struct sp_sample n = {
		.tgid = e->tgid,
		.tid = e->tid,
		.time_ns = s->time_ns,
		.nr_user = e->nr_user,
		.user_ips = e->ips + e->nr_kernel,
	};

	follow_new_stack(p->follow, &n, e->gen);
}

int profile_add(struct profile *p, const struct sp_sample *s)
{
	uint16_t gen = 0;
	size_t before;
	int r;

	if (p->view_only)
		return -EINVAL;
	/* Hook for --dwarf: a sample with user regs and a stack copy gets
	 * its user stack from the DWARF unwinder (mixed with the FP chain,
	 * see unwind_dwarf.h) before it is aggregated, so record, top and
	 * the agent all profit and the stored stack needs no regs. */
	if ((s->flags & SKYPROF_SF_REGS) && s->regs && p->sym && !p->uw)
		p->uw = unwind_dwarf_new(p->sym);
	if (p->follow) {
		r = follow_sample(p->follow, s);
		if (r < 0)
			return r;
		gen = (uint16_t)r;
	}
	before = p->nr_entries;
	r = add_one(p, p->uw, s, gen);
	if (!r && p->follow && p->nr_entries != before)
		check_new_stack(p, s, before);
	return r;
}

int profile_merge(struct profile *dst, const struct profile *src)
{
	if (dst->view_only || src->view_only)
		return -EINVAL;
	for (size_t i = 0; i < src->nr_entries; i++) {
		const struct stack_entry *e = src->entries[i];
		struct sp_sample s = {
			.tgid = e->tgid,
			.tid = e->tid,
			.nr_kernel = e->nr_kernel,
			.nr_user = e->nr_user,
			.kernel_ips = e->ips,
			.user_ips = e->ips + e->nr_kernel,
		};
		int r;

		memcpy(s.comm, e->comm, sizeof(s.comm));
		r = add_counted(dst, &s, e->gen, e->count, e->weight);
		if (r)
			return r;
	}
	return 0;
}

const struct follow_stats *profile_follow_stats(const struct profile *p)
{
	return p->follow ? follow_get_stats(p->follow) : NULL;
}

const struct unwind_dwarf_stats *profile_unwind_stats(const struct profile *p)
{
	return p->uw ? unwind_dwarf_get_stats(p->uw) : NULL;
}

uint64_t profile_total_samples(const struct profile *p)
{
	return p->total_count;
}

void profile_set_duration(struct profile *p, uint64_t duration_ns)
{
	p->meta.duration_ns = duration_ns;
	if (p->view)
		p->view->meta.duration_ns = duration_ns;
}

void profile_set_lost(struct profile *p, uint64_t lost)
{
	p->meta.lost = lost;
	p->meta.lost_known = true;
	if (p->view) {
		p->view->meta.lost = lost;
		p->view->meta.lost_known = true;
	}
}

const struct profile_meta *profile_get_meta(const struct profile *p)
{
	return &p->meta;
}

size_t profile_nr_stacks(const struct profile *p)
{
	return p->nr_entries;
}

void profile_get_stack(const struct profile *p, size_t i, struct profile_stack *out)
{
	const struct stack_entry *e = p->entries[i];

	out->tgid = e->tgid;
	out->tid = e->tid;
	out->gen = e->gen;
	out->nr_kernel = e->nr_kernel;
	out->nr_user = e->nr_user;
	out->count = e->count;
	out->weight = e->weight;
	out->comm = e->comm;
	out->kernel_ips = e->ips;
	out->user_ips = e->ips + e->nr_kernel;
}

struct view *profile_view(struct profile *p)
{
	if (!p->view) {
		p->view = calloc(1, sizeof(*p->view));
		if (!p->view)
			return NULL;
		if (view_init(p->view, &p->meta)) {
			free(p->view);
			p->view = NULL;
			return NULL;
		}
	}
	if (!p->view_only) {
		p->view->meta = p->meta;
		if (p->sym)
			symbolizer_recheck_jit(p->sym);
		if (view_sync(p->view, p, p->sym))
			return NULL;
	}
	return p->view;
}

void profile_view_done(struct profile *p)
{
	symbolizer_trim(p->sym);
}

uint64_t profile_total_value(struct profile *p)
{
	struct view *v = profile_view(p);
	uint64_t t = 0;

	if (!v)
		return 0;
	for (uint32_t i = 0; i < v->nr_samples; i++)
		t += view_sample_value(v, &v->samples[i]);
	return t;
}

static int cmp_share(const void *a, const void *b)
{
	const struct func_share *x = a, *y = b;

	if (x->self != y->self)
		return x->self < y->self ? 1 : -1;
	if (x->total != y->total)
		return x->total < y->total ? 1 : -1;
	return strcmp(x->name, y->name);
}

size_t profile_top_functions(struct profile *p, struct func_share *out, size_t n)
{
	struct view *v = profile_view(p);
	uint32_t nstr;
	struct {
		uint64_t self, total;
		uint32_t stamp;
		bool kernel, used;
	} * acc;
	struct func_share *all;
	size_t nr = 0;

	if (!v || !n)
		return 0;
	/* Accumulate per function name (a string index), so a function
	 * reached through different locations adds up. */
	nstr = v->strs.nr;
	acc = calloc(nstr, sizeof(*acc));
	if (!acc)
		return 0;
	for (uint32_t i = 0; i < v->nr_samples; i++) {
		const struct view_sample *s = &v->samples[i];
		uint64_t val = view_sample_value(v, s);
		bool leaf = true;

		for (uint32_t j = 0; j < s->nr_locs; j++) {
			const struct view_location *l =
				&v->locations[v->sample_locs[s->first_loc + j]];

			for (uint32_t k = 0; k < l->nr_lines; k++) {
				uint32_t name =
					v->functions[v->lines[l->first_line + k].function].name;

				if (leaf) {
					acc[name].self += val;
					leaf = false;
				}
				/* stamp = sample + 1: counts a function
				 * once per stack even when it recurses. */
				if (acc[name].stamp != i + 1) {
					acc[name].stamp = i + 1;
					acc[name].total += val;
				}
				acc[name].kernel = l->kernel;
				acc[name].used = true;
			}
		}
	}
	for (uint32_t i = 0; i < nstr; i++)
		nr += acc[i].used;
	all = calloc(nr ? nr : 1, sizeof(*all));
	if (!all) {
		free(acc);
		return 0;
	}
	nr = 0;
	for (uint32_t i = 0; i < nstr; i++) {
		if (!acc[i].used)
			continue;
		snprintf(all[nr].name, sizeof(all[nr].name), "%s", view_str(v, i));
		all[nr].self = acc[i].self;
		all[nr].total = acc[i].total;
		all[nr].kernel = acc[i].kernel;
		nr++;
	}
	qsort(all, nr, sizeof(*all), cmp_share);
	if (nr > n)
		nr = n;
	memcpy(out, all, nr * sizeof(*out));
	free(all);
	free(acc);
	return nr;
}

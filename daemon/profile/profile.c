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

#include "profile/profile.h"

#define ARENA_BLOCK (256 * 1024)

struct stack_entry {
	uint64_t hash;
	uint64_t count, weight;
	uint32_t tgid, tid;
	uint16_t nr_kernel, nr_user;
	uint16_t gen; /* tgid's exec generation (proc/table.h) */
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

	struct slot *slots;
	size_t nr_slots;	      /* power of two */
	struct stack_entry **entries; /* first-seen order */
	size_t nr_entries, cap_entries;
	struct arena_block *arena;
	uint64_t total_count;
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

struct profile *profile_new(const struct profile_meta *meta)
{
	struct profile *p = calloc(1, sizeof(*p));

	if (!p)
		return NULL;
	if (meta)
		p->meta = *meta;
	p->nr_slots = 1024;
	p->slots = calloc(p->nr_slots, sizeof(*p->slots));
	if (!p->slots) {
		profile_free(p);
		return NULL;
	}
	return p;
}

void profile_free(struct profile *p)
{
	if (!p)
		return;
	while (p->arena) {
		struct arena_block *n = p->arena->next;

		free(p->arena);
		p->arena = n;
	}
	free(p->entries);
	free(p->slots);
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
	e->count = n;
	e->weight = w;
	p->total_count += n;
	return 1;
found:
	e->count += n;
	e->weight += w;
	p->total_count += n;
	return 0;
}

int profile_add(struct profile *p, const struct sp_sample *s, uint16_t gen)
{
	return add_counted(p, s, gen, 1, s->weight);
}

int profile_merge(struct profile *dst, const struct profile *src)
{
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
		if (r < 0)
			return r;
	}
	return 0;
}

uint64_t profile_total_samples(const struct profile *p)
{
	return p->total_count;
}

void profile_set_duration(struct profile *p, uint64_t duration_ns)
{
	p->meta.duration_ns = duration_ns;
}

void profile_set_lost(struct profile *p, uint64_t lost)
{
	p->meta.lost = lost;
	p->meta.lost_known = true;
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

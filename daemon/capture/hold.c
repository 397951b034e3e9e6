// SPDX-License-Identifier: GPL-2.0
/*
 * The side-band hold (hold.h).
 *
 * Three structures, each bounded:
 *  - the waiting samples, each one allocation (the sample and copies of its
 *    arrays), in one list in arrival order (the wait ends oldest first) and
 *    per address space in a list of their own (a report releases them);
 *  - the address spaces seen, in an open-addressed table: waiting (samples
 *    held), known (a report came: later samples go on at once) or gone on
 *    (samples went on without a report: later ones go on at once too, a
 *    report that late is counted); at its size limit the table forgets the
 *    known and gone-on ones (a later sample of one waits again, harmlessly);
 *  - the MMAP records waiting for their ASPACE, per ring and address space,
 *    in a short list (normally one open report per ring at a time).
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "capture/hold.h"

#define AS_SLOTS_MIN 256
#define AS_SLOTS_MAX (1u << 18) /* 8 MiB of table; half of it used at most */

enum as_state { AS_EMPTY, AS_WAITING, AS_KNOWN, AS_WENT_ON };

/* One waiting sample: s's pointers point into data. */
struct held {
	struct held *prev, *next; /* arrival order, all address spaces */
	struct held *as_next;	  /* arrival order, this address space */
	size_t bytes;
	uint64_t came_ns;
	struct sp_sample s;
	uint64_t data[]; /* kernel ips, user ips, regs, stack copy */
};

struct as_slot {
	uint64_t as_id;
	uint8_t state; /* enum as_state */
	struct held *first, *last;
};

/* The MMAP records of one ring and address space since its last ASPACE. */
struct pending {
	struct pending *next;
	uint32_t cpu;
	uint64_t as_id;
	uint64_t since_ns;
	struct sp_mmap *maps; /* paths: their own allocations */
	uint32_t nr, cap;
	size_t bytes;
};

struct hold {
	struct hold_opts o;
	const struct sp_sink *out;
	uint64_t now;
	struct held *head, *tail;
	size_t bytes;
	struct as_slot *slots;
	size_t nr_slots, nr_used;
	struct pending *pending;
	size_t pending_bytes;
	/* The last address space whose samples went straight on: samples come
	 * in runs, and this is every sample's path. Never waiting again. */
	uint64_t last_pass;
	struct hold_stats st;
};

struct hold *hold_new(const struct hold_opts *opts)
{
	struct hold *h = calloc(1, sizeof(*h));

	if (!h)
		return NULL;
	if (opts)
		h->o = *opts;
	if (!h->o.wait_ns)
		h->o.wait_ns = HOLD_WAIT_NS_DEFAULT;
	if (!h->o.max_bytes)
		h->o.max_bytes = HOLD_BYTES_DEFAULT;
	if (!h->o.max_pending_bytes)
		h->o.max_pending_bytes = HOLD_PENDING_BYTES_DEFAULT;
	h->nr_slots = AS_SLOTS_MIN;
	h->slots = calloc(h->nr_slots, sizeof(*h->slots));
	if (!h->slots) {
		free(h);
		return NULL;
	}
	return h;
}

static void pending_free(struct pending *p)
{
	for (uint32_t i = 0; i < p->nr; i++)
		free((char *)p->maps[i].path);
	free(p->maps);
	free(p);
}

void hold_free(struct hold *h)
{
	if (!h)
		return;
	while (h->head) {
		struct held *n = h->head->next;

		free(h->head);
		h->head = n;
	}
	while (h->pending) {
		struct pending *n = h->pending->next;

		pending_free(h->pending);
		h->pending = n;
	}
	free(h->slots);
	free(h);
}

void hold_begin(struct hold *h, const struct sp_sink *out, uint64_t now_ns)
{
	h->out = out;
	h->now = now_ns;
}

const struct hold_stats *hold_get_stats(const struct hold *h)
{
	return &h->st;
}

bool hold_waiting(const struct hold *h)
{
	return h->head != NULL;
}

uint64_t hold_deadline(const struct hold *h)
{
	return h->head ? h->head->came_ns + h->o.wait_ns : 0;
}

/* --- the table of address spaces ---------------------------------------- */

static size_t slot_hash(uint64_t as_id, size_t n)
{
	return (size_t)((as_id * 0x9e3779b97f4a7c15ull) >> 32) & (n - 1);
}

static struct as_slot *slot_find(struct hold *h, uint64_t as_id)
{
	size_t i = slot_hash(as_id, h->nr_slots);

	while (h->slots[i].state != AS_EMPTY) {
		if (h->slots[i].as_id == as_id)
			return &h->slots[i];
		i = (i + 1) & (h->nr_slots - 1);
	}
	return NULL;
}

/*
 * A table of n slots holding the entries of the old one, or those still
 * waiting only (keep_all false: the table is at its limit). 0 or -ENOMEM.
 */
static int rebuild(struct hold *h, size_t n, bool keep_all)
{
	struct as_slot *s = calloc(n, sizeof(*s));
	size_t used = 0;

	if (!s)
		return -ENOMEM;
	for (size_t i = 0; i < h->nr_slots; i++) {
		struct as_slot *o = &h->slots[i];
		size_t j;

		if (o->state == AS_EMPTY)
			continue;
		if (!keep_all && o->state != AS_WAITING && !o->first) {
			h->st.forgotten++;
			continue;
		}
		j = slot_hash(o->as_id, n);
		while (s[j].state != AS_EMPTY)
			j = (j + 1) & (n - 1);
		s[j] = *o;
		used++;
	}
	free(h->slots);
	h->slots = s;
	h->nr_slots = n;
	h->nr_used = used;
	return 0;
}

/* as_id's slot, a new one in state for a new address space; NULL: no memory. */
static struct as_slot *slot_get(struct hold *h, uint64_t as_id, enum as_state state)
{
	struct as_slot *e = slot_find(h, as_id);
	size_t i;

	if (e)
		return e;
	if ((h->nr_used + 1) * 2 > h->nr_slots) {
		if (h->nr_slots < AS_SLOTS_MAX ? rebuild(h, h->nr_slots * 2, true)
					       : rebuild(h, h->nr_slots, false))
			return NULL;
		/* Waiting ones alone can fill it only with a hold of that size. */
		if ((h->nr_used + 1) * 2 > h->nr_slots)
			return NULL;
	}
	i = slot_hash(as_id, h->nr_slots);
	while (h->slots[i].state != AS_EMPTY)
		i = (i + 1) & (h->nr_slots - 1);
	e = &h->slots[i];
	memset(e, 0, sizeof(*e));
	e->as_id = as_id;
	e->state = (uint8_t)state;
	h->nr_used++;
	return e;
}

/* --- waiting samples ----------------------------------------------------- */

static void unlink_held(struct hold *h, struct held *x)
{
	if (x->prev)
		x->prev->next = x->next;
	else
		h->head = x->next;
	if (x->next)
		x->next->prev = x->prev;
	else
		h->tail = x->prev;
	h->bytes -= x->bytes;
}

/*
 * Every sample e holds goes on, oldest first; *count is what they count
 * as. Returns the sink's nonzero result: then the rest still wait.
 */
static int release(struct hold *h, struct as_slot *e, uint64_t *count)
{
	while (e->first) {
		struct held *x = e->first;
		int r;

		e->first = x->as_next;
		if (!e->first)
			e->last = NULL;
		unlink_held(h, x);
		(*count)++;
		r = h->out->sample(h->out->arg, &x->s);
		free(x);
		if (r)
			return r;
	}
	return 0;
}

/* The oldest waiting address space's samples go on without their report. */
static int release_oldest(struct hold *h, uint64_t *count)
{
	struct as_slot *e = slot_find(h, h->head->s.as_id);

	if (!e)
		return -EPROTO; /* cannot happen: every held sample has its slot */
	/* (not waiting: a sink's error stopped an earlier release part-way) */
	if (e->state == AS_WAITING)
		e->state = AS_WENT_ON;
	return release(h, e, count);
}

/* A copy of s whose pointers point into itself; NULL: no memory. */
static struct held *copy_sample(const struct sp_sample *s)
{
	size_t nk = s->kernel_ips ? s->nr_kernel : 0, nu = s->user_ips ? s->nr_user : 0;
	size_t regs = s->regs ? sizeof(*s->regs) : 0, stack = s->ustack ? s->ustack_size : 0;
	size_t bytes = sizeof(struct held) + (nk + nu) * 8 + regs + ((stack + 7) & ~(size_t)7);
	struct held *x = malloc(bytes);
	uint8_t *p;

	if (!x)
		return NULL;
	memset(x, 0, sizeof(*x));
	x->bytes = bytes;
	x->s = *s;
	p = (uint8_t *)x->data;
	if (nk) {
		memcpy(p, s->kernel_ips, nk * 8);
		x->s.kernel_ips = (const uint64_t *)(void *)p;
		p += nk * 8;
	}
	if (nu) {
		memcpy(p, s->user_ips, nu * 8);
		x->s.user_ips = (const uint64_t *)(void *)p;
		p += nu * 8;
	}
	if (regs) {
		memcpy(p, s->regs, regs);
		x->s.regs = (const struct skyprof_user_regs *)(void *)p;
		p += regs;
	}
	if (stack) {
		memcpy(p, s->ustack, stack);
		x->s.ustack = p;
	}
	return x;
}

static int on_sample(void *arg, const struct sp_sample *s)
{
	struct hold *h = arg;
	struct as_slot *e;
	struct held *x;
	int r;

	if (!s->as_id || s->as_id == h->last_pass)
		return h->out->sample(h->out->arg, s);
	e = slot_find(h, s->as_id);
	if (e && e->state != AS_WAITING) {
		h->last_pass = s->as_id;
		return h->out->sample(h->out->arg, s);
	}
	x = copy_sample(s);
	/* Room first: the oldest address spaces go on without their reports. */
	while (x && h->head && h->bytes + x->bytes > h->o.max_bytes) {
		r = release_oldest(h, &h->st.when_full);
		if (r) {
			free(x);
			return r;
		}
	}
	e = x ? slot_get(h, s->as_id, AS_WAITING) : NULL;
	if (!e || x->bytes > h->o.max_bytes) {
		free(x);
		h->st.no_memory++;
		return h->out->sample(h->out->arg, s);
	}
	/* release_oldest may have let this one's earlier samples go on */
	if (e->state != AS_WAITING) {
		free(x);
		return h->out->sample(h->out->arg, s);
	}
	x->came_ns = h->now;
	x->prev = h->tail;
	if (h->tail)
		h->tail->next = x;
	else
		h->head = x;
	h->tail = x;
	if (e->last)
		e->last->as_next = x;
	else
		e->first = x;
	e->last = x;
	h->bytes += x->bytes;
	if (h->bytes > h->st.peak_bytes)
		h->st.peak_bytes = h->bytes;
	h->st.held++;
	return 0;
}

/* --- side-band records --------------------------------------------------- */

static struct pending *pending_find(struct hold *h, uint32_t cpu, uint64_t as_id,
				    struct pending ***link)
{
	struct pending **pp;

	for (pp = &h->pending; *pp; pp = &(*pp)->next)
		if ((*pp)->cpu == cpu && (*pp)->as_id == as_id)
			break;
	if (link)
		*link = pp;
	return *pp;
}

static void pending_drop(struct hold *h, struct pending **link)
{
	struct pending *p = *link;

	*link = p->next;
	h->pending_bytes -= p->bytes;
	pending_free(p);
}

static int on_mmap(void *arg, uint32_t cpu, const struct sp_mmap *m)
{
	struct hold *h = arg;
	struct pending *p = pending_find(h, cpu, m->as_id, NULL);
	size_t bytes = sizeof(*m) + m->path_len;
	char *path;

	if (h->pending_bytes + bytes + sizeof(*p) > h->o.max_pending_bytes) {
		h->st.pending_full++;
		return 0;
	}
	if (!p) {
		p = calloc(1, sizeof(*p));
		if (!p) {
			h->st.pending_full++;
			return 0;
		}
		p->cpu = cpu;
		p->as_id = m->as_id;
		p->since_ns = h->now;
		p->bytes = sizeof(*p);
		h->pending_bytes += p->bytes;
		p->next = h->pending;
		h->pending = p;
	}
	if (p->nr == p->cap) {
		uint32_t cap = p->cap ? p->cap * 2 : 8;
		struct sp_mmap *n = realloc(p->maps, cap * sizeof(*n));

		if (!n) {
			h->st.pending_full++;
			return 0;
		}
		p->maps = n;
		p->cap = cap;
	}
	/* path_len bytes, terminated here whatever the ring holds now */
	path = malloc(m->path_len);
	if (!path) {
		h->st.pending_full++;
		return 0;
	}
	memcpy(path, m->path, m->path_len);
	path[m->path_len - 1] = '\0';
	p->maps[p->nr] = *m;
	p->maps[p->nr].path = path;
	p->nr++;
	p->bytes += bytes;
	h->pending_bytes += bytes;
	return 0;
}

static int on_aspace(void *arg, uint32_t cpu, const struct sp_aspace *a)
{
	struct hold *h = arg;
	struct pending **link;
	struct pending *p = pending_find(h, cpu, a->as_id, &link);
	uint32_t have = p ? p->nr : 0, take = have < a->nr_maps ? have : a->nr_maps;
	struct sp_report rep = { .as = *a, .nr_maps = take };
	struct as_slot *e = slot_get(h, a->as_id, AS_KNOWN);
	int r = 0;

	/* The report is the last nr_maps records: earlier ones are a try
	 * that did not fit in the ring (skyprof.h). */
	h->st.orphans += have - take;
	if (take < a->nr_maps)
		h->st.short_reports++;
	if (p)
		rep.maps = p->maps + (have - take);
	h->st.reports++;
	h->st.mappings += take;
	if (a->flags & SKYPROF_ASPACE_F_FIRST)
		h->st.first_reports++;
	if (a->flags & SKYPROF_ASPACE_F_MAPS_CUT)
		h->st.maps_cut++;
	if (e && e->state == AS_WENT_ON)
		h->st.late_reports++;
	if (h->out->report)
		r = h->out->report(h->out->arg, &rep);
	if (p)
		pending_drop(h, link);
	if (r || !e)
		return r;
	if (e->state == AS_WAITING) {
		uint64_t waited = e->first ? h->now - e->first->came_ns : 0;

		if (waited > h->st.wait_max_ns)
			h->st.wait_max_ns = waited;
		/* known before its samples go on: a nonzero return leaves the
		 * rest waiting, and they must not wait for a report again */
		e->state = AS_KNOWN;
		return release(h, e, &h->st.by_report);
	}
	e->state = AS_KNOWN;
	return 0;
}

struct ring_sink hold_ring_sink(struct hold *h)
{
	return (struct ring_sink){
		.sample = on_sample, .mmap = on_mmap, .aspace = on_aspace, .arg = h
	};
}

int hold_expire(struct hold *h)
{
	struct pending **pp = &h->pending;

	while (*pp) {
		if (h->now - (*pp)->since_ns > 2 * h->o.wait_ns) {
			h->st.orphans += (*pp)->nr;
			pending_drop(h, pp);
		} else {
			pp = &(*pp)->next;
		}
	}
	while (h->head && h->now - h->head->came_ns >= h->o.wait_ns) {
		int r = release_oldest(h, &h->st.by_timeout);

		if (r)
			return r;
	}
	return 0;
}

int hold_flush(struct hold *h)
{
	while (h->head) {
		int r = release_oldest(h, &h->st.at_end);

		if (r)
			return r;
	}
	while (h->pending) {
		h->st.orphans += h->pending->nr;
		pending_drop(h, &h->pending);
	}
	return 0;
}

struct sp_report *hold_report_dup(const struct sp_report *r)
{
	size_t bytes = sizeof(*r) + r->nr_maps * sizeof(*r->maps);
	struct sp_report *c;
	struct sp_mmap *maps;
	char *paths;

	for (uint32_t i = 0; i < r->nr_maps; i++)
		bytes += strlen(r->maps[i].path) + 1;
	c = malloc(bytes);
	if (!c)
		return NULL;
	*c = *r;
	maps = (struct sp_mmap *)(void *)(c + 1);
	paths = (char *)(maps + r->nr_maps);
	for (uint32_t i = 0; i < r->nr_maps; i++) {
		size_t n = strlen(r->maps[i].path) + 1;

		maps[i] = r->maps[i];
		memcpy(paths, r->maps[i].path, n);
		maps[i].path = paths;
		maps[i].path_len = (uint16_t)n;
		paths += n;
	}
	c->maps = r->nr_maps ? maps : NULL;
	return c;
}

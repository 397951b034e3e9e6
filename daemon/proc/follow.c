// SPDX-License-Identifier: GPL-2.0
/*
 * Processes followed as samples arrive (follow.h): a table of the tgids
 * seen, each with its exec generation and what a miss may do next.
 *
 * A miss re-reads /proc/PID/maps, which takes the target's mmap lock and
 * costs in proportion to its mappings, so it is rate limited per process:
 * the first miss re-reads at once (a dlopen'ed library is then found while
 * a short-lived process still runs), a later one waits for the interval,
 * which doubles each time a re-read finds nothing new (a junk frame pointer
 * that points nowhere misses for ever) and drops back when one does (a
 * process loading its plugins one after another). A miss inside the
 * interval is not lost: the re-read runs at that process's first sample
 * after it.
 */
#include <errno.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

#include "proc/aspace.h"
#include "proc/follow.h"
#include "proc/ident.h"
#include "proc/table.h"

#define PID_EMPTY UINT32_MAX

/* An exec that keeps the name is caught within this much sample time. */
#define EXEC_RECHECK_NS 1000000000ull
/* Bounds of the interval between two re-reads a miss makes. */
#define REREAD_MIN_NS 10000000ull
#define REREAD_MAX_NS 1000000000ull

/*
 * A tgid as followed: its generation, the leader's comm as last seen, the
 * sample time of the last exec check, and when a miss may next re-read.
 */
struct follow_slot {
	uint32_t pid; /* PID_EMPTY: free */
	uint16_t gen;
	bool have_comm;
	bool pending; /* a miss waits for next_read_ns */
	bool have_ident;
	bool checked; /* exec_check has run: not a first sight */
	char comm[16];
	struct proc_ident ident; /* without a table: the image's identity */
	uint64_t checked_ns;
	uint64_t next_read_ns, backoff_ns;
	/* The address space of the last sample that named one, and its
	 * generation: samples come in runs. */
	bool have_as;
	uint16_t as_gen;
	uint64_t as_id;
	/* Without a table: every address space numbered so far. */
	struct follow_as *as;
	uint32_t nr_as, cap_as;
};

struct follow_as {
	uint64_t as_id;
	uint16_t gen;
};

struct follow {
	struct proc_table *procs;
	struct follow_slot *slots;
	size_t nr, nr_slots;
	struct follow_slot *last; /* the previous sample's: samples come in runs */
	struct follow_stats st;
};

struct follow *follow_new(struct proc_table *procs)
{
	struct follow *f = calloc(1, sizeof(*f));

	if (!f)
		return NULL;
	f->procs = procs;
	f->nr_slots = 64;
	f->slots = calloc(f->nr_slots, sizeof(*f->slots));
	if (!f->slots) {
		free(f);
		return NULL;
	}
	for (size_t i = 0; i < f->nr_slots; i++)
		f->slots[i].pid = PID_EMPTY;
	return f;
}

void follow_free(struct follow *f)
{
	if (!f)
		return;
	for (size_t i = 0; i < f->nr_slots; i++)
		if (f->slots[i].pid != PID_EMPTY)
			free(f->slots[i].as);
	free(f->slots);
	free(f);
}

const struct follow_stats *follow_get_stats(const struct follow *f)
{
	return &f->st;
}

static size_t pid_hash(uint32_t pid, size_t nr_slots)
{
	return (pid * 2654435761U) & (nr_slots - 1);
}

static int grow(struct follow *f)
{
	size_t n = f->nr_slots * 2;
	struct follow_slot *s = calloc(n, sizeof(*s));

	if (!s)
		return -ENOMEM;
	for (size_t i = 0; i < n; i++)
		s[i].pid = PID_EMPTY;
	for (size_t i = 0; i < f->nr_slots; i++) {
		size_t h;

		if (f->slots[i].pid == PID_EMPTY)
			continue;
		h = pid_hash(f->slots[i].pid, n);
		while (s[h].pid != PID_EMPTY)
			h = (h + 1) & (n - 1);
		s[h] = f->slots[i];
	}
	free(f->slots);
	f->slots = s;
	f->nr_slots = n;
	f->last = NULL;
	return 0;
}

/* pid's slot, a new one (not yet checked) on first sight. NULL: no memory. */
static __attribute__((noinline)) struct follow_slot *slot_find(struct follow *f, uint32_t pid)
{
	size_t h;

	if ((f->nr + 1) * 2 > f->nr_slots && grow(f))
		return NULL;
	h = pid_hash(pid, f->nr_slots);
	while (f->slots[h].pid != PID_EMPTY && f->slots[h].pid != pid)
		h = (h + 1) & (f->nr_slots - 1);
	if (f->slots[h].pid == PID_EMPTY) {
		memset(&f->slots[h], 0, sizeof(f->slots[h]));
		f->slots[h].pid = pid;
		f->nr++;
	}
	f->last = &f->slots[h];
	return f->last;
}

/* Every sample asks: the previous sample's slot inline, as samples come in
 * runs of one process. */
static inline struct follow_slot *slot_of(struct follow *f, uint32_t pid)
{
	if (f->last && f->last->pid == pid)
		return f->last;
	return slot_find(f, pid);
}

static void reread(struct follow *f, struct follow_slot *e, uint64_t now_ns)
{
	uint16_t gen = e->gen;
	int n = proc_table_refresh(f->procs, e->pid, &gen);

	f->st.rereads++;
	e->pending = false;
	if (n > 0) {
		f->st.found += (uint64_t)n;
		e->backoff_ns = REREAD_MIN_NS;
	} else {
		e->backoff_ns = e->backoff_ns ? e->backoff_ns * 2 : REREAD_MIN_NS;
		if (e->backoff_ns > REREAD_MAX_NS)
			e->backoff_ns = REREAD_MAX_NS;
	}
	e->next_read_ns = now_ns + e->backoff_ns;
	/* It exec'd meanwhile: the refresh captured the new image. */
	e->gen = gen;
}

/*
 * e's newest generation, after comparing the live process with the image
 * it had: through the process table, which captures a new generation's
 * maps, or without one by the identity alone. A gone pid is no error.
 */
static void exec_check(struct follow *f, struct follow_slot *e)
{
	struct proc_ident now;

	e->checked = true;
	if (f->procs) {
		e->gen = proc_table_exec_check(f->procs, e->pid);
		return;
	}
	if (ident_read(NULL, e->pid, &now))
		return;
	if (!e->have_ident) {
		e->ident = now;
		e->have_ident = true;
	} else if (!ident_same(&e->ident, &now) && e->gen < UINT16_MAX) {
		e->ident = now;
		e->gen++;
	}
}

int follow_note(struct follow *f, uint32_t pid)
{
	struct follow_slot *e = slot_of(f, pid);

	if (!e)
		return -ENOMEM;
	if (!e->checked)
		exec_check(f, e);
	return 0;
}

/*
 * Without a table, the generation of address space as_id of e's process,
 * numbered here as the table would: the first address space of a process
 * noted before (or met in samples naming none) is the image it had then,
 * each later one the next generation. -ENOMEM or the generation.
 */
static int own_as_gen(struct follow_slot *e, uint64_t as_id)
{
	uint16_t gen;

	for (uint32_t i = 0; i < e->nr_as; i++)
		if (e->as[i].as_id == as_id)
			return e->as[i].gen;
	if (e->nr_as == e->cap_as) {
		uint32_t cap = e->cap_as ? e->cap_as * 2 : 2;
		struct follow_as *n = realloc(e->as, cap * sizeof(*n));

		if (!n)
			return -ENOMEM;
		e->as = n;
		e->cap_as = cap;
	}
	if (e->nr_as && e->gen < UINT16_MAX)
		e->gen++;
	gen = e->gen;
	e->checked = true;
	/* the image's identity is the new one's: an identity check after
	 * this takes it as it finds it */
	e->have_ident = false;
	e->as[e->nr_as++] = (struct follow_as){ .as_id = as_id, .gen = gen };
	return gen;
}

/* The generation of address space as_id of pid (its first sample at ns). */
static int as_gen(struct follow *f, uint32_t pid, uint64_t as_id, uint64_t ns, bool sample)
{
	struct follow_slot *e = slot_of(f, pid);
	struct proc_gen *g;
	int gen;

	if (!e)
		return -ENOMEM;
	if (e->have_as && e->as_id == as_id)
		return e->as_gen;
	if (f->procs) {
		g = proc_aspace_gen(f->procs, pid, as_id, -1, ns);
		if (!g)
			return -ENOMEM;
		/* a sample that went on without its report: /proc, once */
		if (sample && !g->nr_reports)
			proc_aspace_fallback(f->procs, g, ns);
		gen = g->gen;
	} else {
		gen = own_as_gen(e, as_id);
		if (gen < 0)
			return gen;
	}
	e->have_as = true;
	e->as_id = as_id;
	e->as_gen = (uint16_t)gen;
	return gen;
}

int follow_report(struct follow *f, const struct sp_report *r)
{
	struct proc_gen *g;
	int gen;

	if (r->as.tgid == PID_EMPTY || !r->as.as_id)
		return 0;
	gen = as_gen(f, r->as.tgid, r->as.as_id, r->as.first_ns, false);
	if (gen < 0 || !f->procs)
		return gen;
	g = proc_aspace_find(f->procs, r->as.tgid, r->as.as_id);
	if (g && proc_aspace_report(f->procs, g, r))
		return -ENOMEM;
	return gen;
}

int follow_sample(struct follow *f, const struct sp_sample *s)
{
	struct follow_slot *e;
	bool leader = s->tid == s->tgid;

	if (s->tgid == PID_EMPTY)
		return 0;
	/* The module named its address space: that is its generation, the
	 * image's identity in /proc is not asked. */
	if (s->as_id)
		return as_gen(f, s->tgid, s->as_id, s->time_ns, true);
	e = slot_of(f, s->tgid);
	if (!e)
		return -ENOMEM;
	/* comm is NUL padded (decode.c): a fixed-size compare, no strncmp call. */
	if (!e->checked ||
	    (leader && ((e->have_comm && memcmp(e->comm, s->comm, sizeof(e->comm))) ||
			s->time_ns > e->checked_ns + EXEC_RECHECK_NS))) {
		exec_check(f, e);
		e->checked_ns = s->time_ns;
	}
	if (leader) {
		memcpy(e->comm, s->comm, sizeof(e->comm));
		e->have_comm = true;
	}
	if (e->pending && s->time_ns >= e->next_read_ns)
		reread(f, e, s->time_ns);
	return e->gen;
}

void follow_new_stack(struct follow *f, const struct sp_sample *s, uint16_t gen)
{
	struct follow_slot *e;

	if (!f->procs || s->tgid == PID_EMPTY || !s->nr_user || !s->user_ips ||
	    !proc_table_maps_miss(f->procs, s->tgid, gen, s->user_ips, s->nr_user))
		return;
	f->st.misses++;
	e = slot_of(f, s->tgid);
	if (!e || e->gen != gen)
		return;
	if (s->time_ns >= e->next_read_ns)
		reread(f, e, s->time_ns);
	else
		e->pending = true;
}

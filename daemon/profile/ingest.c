// SPDX-License-Identifier: GPL-2.0
/*
 * The per-sample path of the daemon: every ring record comes through
 * ingest_sample, so it allocates nothing and a frame-pointer sample pays
 * for no DWARF buffer (see ingest_dwarf).
 */
#include <errno.h>
#include <stdbool.h>
#include <stdlib.h>

#include "proc/aspace.h"
#include "proc/follow.h"
#include "proc/jvm_ask.h"
#include "profile/ingest.h"
#include "profile/profile.h"
#include "skyprof.h"
#include "sym/symbolizer.h"
#include "unwind/unwind.h"

struct ingest {
	struct follow *follow;
	struct symbolizer *maps;       /* follow's, NULL: identity only */
	struct symbolizer *unwind_sym; /* the unwinder's maps */
	struct unwind_dwarf *uw;       /* made on the first sample with regs */
	uint32_t only_pid;
	struct jvm_ask *ask; /* NULL: no JVM is asked */
	bool ask_any;
};

struct ingest *ingest_new(struct symbolizer *maps, struct symbolizer *unwind)
{
	struct ingest *in = calloc(1, sizeof(*in));

	if (!in)
		return NULL;
	in->maps = maps;
	in->unwind_sym = unwind ? unwind : maps;
	in->follow = follow_new(maps ? symbolizer_procs(maps) : NULL);
	if (!in->follow) {
		free(in);
		return NULL;
	}
	return in;
}

void ingest_free(struct ingest *in)
{
	if (!in)
		return;
	unwind_dwarf_free(in->uw);
	follow_free(in->follow);
	free(in);
}

int ingest_note(struct ingest *in, uint32_t pid)
{
	return follow_note(in->follow, pid);
}

void ingest_only(struct ingest *in, uint32_t pid)
{
	in->only_pid = pid;
}

void ingest_ask_jvms(struct ingest *in, struct jvm_ask *ask, bool any)
{
	in->ask = ask;
	in->ask_any = any;
}

/* A new stack of a JVM being asked: is its leaf JIT code no answer named? */
static void check_jvm(struct ingest *in, const struct profile_stack *e)
{
	if (in->ask_any)
		jvm_ask_add(in->ask, e->tgid, e->gen);
	if (e->nr_user && jvm_ask_asking(in->ask, e->tgid) &&
	    symbolizer_jit_unnamed_at(in->maps, e->tgid, e->user_ips[0]))
		jvm_ask_unnamed(in->ask, e->tgid);
}

/* The stack just added to p is new: follow's miss check, on the ips as
 * aggregated (a DWARF unwind's, not the recorded chain). */
static __attribute__((noinline)) void check_new_stack(struct ingest *in, struct profile *p,
						      const struct sp_sample *s)
{
	struct profile_stack e;

	profile_get_stack(p, profile_nr_stacks(p) - 1, &e);
	struct sp_sample n = {
		.tgid = e.tgid,
		.tid = e.tid,
		.time_ns = s->time_ns,
		.nr_user = e.nr_user,
		.user_ips = e.user_ips,
	};

	follow_new_stack(in->follow, &n, e.gen);
	if (in->ask)
		check_jvm(in, &e);
}

/* s with its user stack unwound by DWARF. Out of line: its frame holds a
 * whole stack of ips, which the frame-pointer path should not pay for. */
static __attribute__((noinline)) int ingest_dwarf(struct ingest *in, struct profile *p,
						  const struct sp_sample *s, uint16_t gen)
{
	struct sp_sample dw = *s;
	uint64_t dw_ips[UNWIND_DWARF_MAX_FRAMES];

	dw.nr_user = (uint16_t)unwind_dwarf_sample(in->uw, s, dw_ips, UNWIND_DWARF_MAX_FRAMES);
	dw.user_ips = dw_ips;
	return profile_add(p, &dw, gen);
}

int ingest_sample(struct ingest *in, struct profile *p, const struct sp_sample *s)
{
	uint16_t gen = 0;
	bool regs = (s->flags & SKYPROF_SF_REGS) && s->regs;
	int r;

	if (!in->only_pid || s->tgid == in->only_pid) {
		r = follow_sample(in->follow, s);
		if (r < 0)
			return r;
		gen = (uint16_t)r;
	}
	/* --dwarf: a sample with user regs and a stack copy gets its user
	 * stack from the DWARF unwinder (mixed with the FP chain, see
	 * unwind/unwind.h) before it is aggregated, so the stored stack needs
	 * no regs. */
	if (regs && !in->uw && in->unwind_sym)
		in->uw = unwind_dwarf_new(in->unwind_sym);
	r = regs && in->uw ? ingest_dwarf(in, p, s, gen) : profile_add(p, s, gen);
	if (r < 0)
		return r;
	if (r > 0 && in->maps)
		check_new_stack(in, p, s);
	return gen;
}

int ingest_report(struct ingest *in, const struct sp_report *r)
{
	struct proc_table *t;
	struct proc_gen *g;
	int gen;

	if (in->only_pid && r->as.tgid != in->only_pid)
		return 0;
	gen = follow_report(in->follow, r);
	if (gen < 0 || !in->unwind_sym || in->unwind_sym == in->maps)
		return gen;
	/* The unwinder's own table (the agent's): the same generation. */
	t = symbolizer_procs(in->unwind_sym);
	g = proc_aspace_gen(t, r->as.tgid, r->as.as_id, gen, r->as.first_ns);
	if (g && proc_aspace_report(t, g, r))
		return -ENOMEM;
	return gen;
}

int ingest_sink_sample(void *sink, const struct sp_sample *s)
{
	struct ingest_sink *k = sink;
	int r = ingest_sample(k->in, k->prof, s);

	if (r < 0) {
		k->error = r;
		return r;
	}
	k->samples++;
	if (s->flags & SKYPROF_SF_OFFCPU)
		k->blocked_ns += s->weight;
	return 0;
}

int ingest_sink_report(void *sink, const struct sp_report *r)
{
	struct ingest_sink *k = sink;
	int gen = ingest_report(k->in, r);

	if (gen < 0) {
		k->error = gen;
		return gen;
	}
	return 0;
}

const struct follow_stats *ingest_follow_stats(const struct ingest *in)
{
	return in->maps ? follow_get_stats(in->follow) : NULL;
}

const struct unwind_dwarf_stats *ingest_unwind_stats(const struct ingest *in)
{
	return in->uw ? unwind_dwarf_get_stats(in->uw) : NULL;
}

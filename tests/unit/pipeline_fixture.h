/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The daemon's pipeline as record wires it, for tests: samples through
 * profile/ingest.h (with a symbolizer: processes followed, DWARF unwinding)
 * or straight into the profile (without one: generation 0), and a view
 * built from the profile and the symbolizer for tops and outputs.
 */
#ifndef SKYPROF_TESTS_PIPELINE_FIXTURE_H
#define SKYPROF_TESTS_PIPELINE_FIXTURE_H

#include <errno.h>
#include <stdlib.h>

#include "output/output.h"
#include "profile/ingest.h"
#include "profile/profile.h"
#include "profile/top.h"
#include "profile/view.h"
#include "profile/view_build.h"

struct tpipe {
	struct symbolizer *sym;
	struct ingest *in; /* NULL without a symbolizer */
	struct profile *p;
	struct view v;
};

static inline struct tpipe *tp_new(const struct profile_meta *meta, struct symbolizer *sym)
{
	struct tpipe *t = calloc(1, sizeof(*t));

	if (!t)
		return NULL;
	t->sym = sym;
	t->in = sym ? ingest_new(sym, NULL) : NULL;
	t->p = profile_new(meta);
	if ((sym && !t->in) || !t->p || view_init(&t->v, meta)) {
		ingest_free(t->in);
		profile_free(t->p);
		free(t);
		return NULL;
	}
	return t;
}

static inline void tp_free(struct tpipe *t)
{
	if (!t)
		return;
	view_free(&t->v);
	profile_free(t->p);
	ingest_free(t->in);
	free(t);
}

/* 0 or -errno, as profile_add once returned. */
static inline int tp_add(struct tpipe *t, const struct sp_sample *s)
{
	int r = t->in ? ingest_sample(t->in, t->p, s) : profile_add(t->p, s, 0);

	return r < 0 ? r : 0;
}

static inline struct view *tp_view(struct tpipe *t)
{
	return view_build(&t->v, t->p, t->sym) ? NULL : &t->v;
}

static inline size_t tp_top(struct tpipe *t, struct func_share *out, size_t n)
{
	struct view *v = tp_view(t);

	return v ? top_functions(v, out, n) : 0;
}

static inline uint64_t tp_total(struct tpipe *t)
{
	struct view *v = tp_view(t);

	return v ? top_total(v) : 0;
}

static inline int tp_write(struct tpipe *t, const char *path, int format)
{
	struct view *v = tp_view(t);

	return v ? output_write(v, path, format) : -ENOMEM;
}

#endif

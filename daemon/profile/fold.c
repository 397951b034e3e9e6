// SPDX-License-Identifier: GPL-2.0
/* Folding a view into merged stack lines; see fold.h. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "profile/fold.h"

struct linebuf {
	char *s;
	size_t len, cap;
};

static int put(struct linebuf *b, const char *s, size_t n)
{
	if (b->len + n + 1 > b->cap) {
		size_t cap = b->cap ? b->cap : 4096;
		char *p;

		while (b->len + n + 1 > cap)
			cap *= 2;
		p = realloc(b->s, cap);
		if (!p)
			return -ENOMEM;
		b->s = p;
		b->cap = cap;
	}
	memcpy(b->s + b->len, s, n);
	b->len += n;
	b->s[b->len] = '\0';
	return 0;
}

/* A frame name may hold anything but the format's separators. */
static int put_name(struct linebuf *b, const char *name)
{
	size_t start = b->len;

	if (!*name)
		name = "[unknown]";
	if (put(b, name, strlen(name)))
		return -ENOMEM;
	for (size_t i = start; i < b->len; i++) {
		if (b->s[i] == ';')
			b->s[i] = ':';
		else if (b->s[i] == '\n' || b->s[i] == '\r')
			b->s[i] = ' ';
	}
	return 0;
}

struct walk {
	const struct view *v;
	struct linebuf *b;
	size_t comm_len; /* the line up to the end of the comm frame */
	bool seen_main;
};

/*
 * The user frames above the first `main` from the root are the C runtime's
 * process start (_start, __libc_start_main, __libc_start_call_main, or their
 * addresses in a stripped libc, which print as [unknown]): they say nothing
 * about the program and split one program path into several. The folded
 * lines and the flame graph therefore start the user stack at `main`, as the
 * program's own entry; threads (start_thread/clone roots) are left alone,
 * and the pprof output keeps every frame.
 */
static int frame(void *arg, uint32_t func, bool kernel)
{
	struct walk *w = arg;
	const char *name = view_str(w->v, w->v->functions[func].name);

	if (!kernel && !w->seen_main && !strcmp(name, "main")) {
		w->seen_main = true;
		w->b->len = w->comm_len;
	}
	if (put(w->b, ";", 1) || put_name(w->b, name))
		return -ENOMEM;
	return kernel ? put(w->b, "_[k]", 4) : 0;
}

int fold_build(struct fold *f, const struct view *v)
{
	struct linebuf b = { 0 };
	struct walk w = { v, &b };
	int r = 0;

	memset(f, 0, sizeof(*f));
	if (strtab_init(&f->lines))
		return -ENOMEM;
	for (uint32_t i = 0; i < v->nr_samples && !r; i++) {
		const struct view_sample *s = &v->samples[i];
		uint64_t val = view_sample_value(v, s);
		int64_t idx;

		if (!val)
			continue;
		b.len = 0;
		r = put_name(&b, view_str(v, s->comm));
		if (!r && v->per_thread) {
			/* perf script's comm-tid: one frame per thread under
			 * its process. */
			char tid[16];

			snprintf(tid, sizeof(tid), "-%u", s->tid);
			r = put(&b, ";", 1);
			if (!r)
				r = put_name(&b, view_str(v, s->comm));
			if (!r)
				r = put(&b, tid, strlen(tid));
		}
		w.comm_len = b.len;
		w.seen_main = false;
		if (!r)
			r = view_walk_root_first(v, s, frame, &w);
		if (r)
			break;
		idx = strtab_intern_len(&f->lines, b.s, b.len);
		if (idx < 0) {
			r = -ENOMEM;
			break;
		}
		if ((uint32_t)idx >= f->cap) {
			uint32_t cap = f->cap ? f->cap * 2 : 1024;
			uint64_t *nv;

			while (cap <= (uint32_t)idx)
				cap *= 2;
			nv = realloc(f->values, cap * sizeof(*nv));
			if (!nv) {
				r = -ENOMEM;
				break;
			}
			memset(nv + f->cap, 0, (cap - f->cap) * sizeof(*nv));
			f->values = nv;
			f->cap = cap;
		}
		f->values[idx] += val;
		f->total += val;
	}
	free(b.s);
	if (r)
		fold_free(f);
	return r;
}

void fold_free(struct fold *f)
{
	strtab_free(&f->lines);
	free(f->values);
	memset(f, 0, sizeof(*f));
}

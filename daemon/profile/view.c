// SPDX-License-Identifier: GPL-2.0
/* The symbolized view: storage and traversal (see view.h). */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "profile/view.h"

int view_init(struct view *v, const struct profile_meta *meta)
{
	memset(v, 0, sizeof(*v));
	if (meta)
		v->meta = *meta;
	if (v->meta.kind == PROFILE_ONCPU && v->meta.freq_hz)
		v->period = 1000000000ULL / v->meta.freq_hz;
	return strtab_init(&v->strs);
}

void view_free(struct view *v)
{
	if (v->index)
		v->index_free(v->index);
	strtab_free(&v->strs);
	free(v->mappings);
	free(v->functions);
	free(v->locations);
	free(v->lines);
	free(v->samples);
	free(v->sample_locs);
	memset(v, 0, sizeof(*v));
}

/* Makes room for n more elements of size sz in *arr (nr used, *cap). */
static int reserve(void **arr, uint32_t nr, uint32_t *cap, size_t sz, uint32_t n)
{
	uint64_t want = (uint64_t)nr + n;
	uint64_t c = *cap;
	void *a;

	if (want <= c)
		return 0;
	if (want > UINT32_MAX / 2)
		return -ENOMEM;
	while (c < want)
		c = c ? c * 2 : 64;
	a = realloc(*arr, c * sz);
	if (!a)
		return -ENOMEM;
	*arr = a;
	*cap = (uint32_t)c;
	return 0;
}

static int64_t append(void **arr, uint32_t *nr, uint32_t *cap, size_t sz, const void *elem)
{
	if (reserve(arr, *nr, cap, sz, 1))
		return -ENOMEM;
	memcpy((char *)*arr + (size_t)*nr * sz, elem, sz);
	return (*nr)++;
}

#define APPEND(v, field, elem)                                                                     \
	append((void **)&(v)->field, &(v)->nr_##field, &(v)->cap_##field, sizeof(*(v)->field),     \
	       (elem))

int64_t view_add_mapping(struct view *v, const struct view_mapping *m)
{
	return APPEND(v, mappings, m);
}

int64_t view_add_function(struct view *v, const struct view_function *f)
{
	return APPEND(v, functions, f);
}

int64_t view_add_line(struct view *v, const struct view_line *l)
{
	return APPEND(v, lines, l);
}

int64_t view_add_location(struct view *v, const struct view_location *l)
{
	return APPEND(v, locations, l);
}

int64_t view_add_sample(struct view *v, const struct view_sample *s, const uint32_t *locs)
{
	struct view_sample copy = *s;

	if (reserve((void **)&v->sample_locs, v->nr_sample_locs, &v->cap_sample_locs,
		    sizeof(*v->sample_locs), s->nr_locs))
		return -ENOMEM;
	copy.first_loc = v->nr_sample_locs;
	if (s->nr_locs)
		memcpy(v->sample_locs + v->nr_sample_locs, locs, s->nr_locs * sizeof(*locs));
	v->nr_sample_locs += s->nr_locs;
	return APPEND(v, samples, &copy);
}

int view_walk_root_first(const struct view *v, const struct view_sample *s, view_frame_fn fn,
			 void *arg)
{
	for (uint32_t j = s->nr_locs; j-- > 0;) {
		const struct view_location *l = &v->locations[v->sample_locs[s->first_loc + j]];

		/* lines[] is innermost first: the caller comes last. */
		for (uint32_t k = l->nr_lines; k-- > 0;) {
			int r = fn(arg, v->lines[l->first_line + k].function, l->kernel);

			if (r)
				return r;
		}
	}
	return 0;
}

uint32_t view_filter(struct view *v,
		     bool (*keep)(void *arg, const struct view *v, const struct view_sample *s),
		     void *arg)
{
	uint32_t n = 0;

	/* sample_locs stay where they are: a kept sample's first_loc is
	 * still right, the dropped ones' entries are merely unused. */
	for (uint32_t i = 0; i < v->nr_samples; i++)
		if (keep(arg, v, &v->samples[i]))
			v->samples[n++] = v->samples[i];
	v->nr_samples = n;
	return n;
}

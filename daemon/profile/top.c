// SPDX-License-Identifier: GPL-2.0
/*
 * Top functions of a view: accumulated per function name (a string index of
 * the view), so a function reached through different locations adds up.
 */
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "profile/top.h"
#include "profile/view.h"

uint64_t top_total(const struct view *v)
{
	uint64_t t = 0;

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

size_t top_functions(const struct view *v, struct func_share *out, size_t n)
{
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

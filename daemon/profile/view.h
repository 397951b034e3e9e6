/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The symbolized view of a profile, in pprof's own shape: strings, mappings,
 * functions, locations (one per distinct address, several lines when
 * inlined) and samples that list location indices leaf first.
 *
 * Every output writes from a view, and `skyprof report` reads a pprof file
 * back into one, so converting a saved profile and writing a fresh one take
 * the same path. A view built from a live profile is kept in sync
 * incrementally: a location is symbolized once, however often it is written.
 */
#ifndef SKYPROF_PROFILE_VIEW_H
#define SKYPROF_PROFILE_VIEW_H

#include <stdbool.h>
#include <stdint.h>

#include "profile/profile.h"
#include "lib/strtab.h"

/* The mapping every kernel location points at, as perf names it. */
#define VIEW_KERNEL_MAPPING "[kernel.kallsyms]"

struct view_mapping {
	uint64_t start, limit, offset;
	uint32_t filename, build_id; /* string indices */
	bool has_functions, has_lines, has_inline;
	bool kernel;
	bool is_main; /* a process's executable: written first */
};

struct view_function {
	uint32_t name, system_name, filename; /* string indices */
	int64_t start_line;
};

struct view_line {
	uint32_t function; /* index into functions */
	int64_t line;
};

struct view_location {
	uint64_t address;
	uint32_t mapping;	       /* index + 1 into mappings; 0: none */
	uint32_t first_line, nr_lines; /* lines[], innermost first */
	bool kernel;
};

struct view_sample {
	uint32_t first_loc, nr_locs; /* sample_locs[], leaf first */
	uint32_t pid, tid;
	uint32_t comm;	 /* string index */
	uint64_t count;	 /* samples (on-CPU) or switches */
	uint64_t weight; /* samples (on-CPU) or blocked ns */
};

struct view {
	struct profile_meta meta;
	uint64_t period; /* ns per on-CPU sample, 0 unknown */
	struct strtab strs;
	/* PROFILE_OTHER: the sample type and unit the weights are (string
	 * indices), e.g. inuse_space / bytes. */
	uint32_t value_type, value_unit;
	/* Folded lines and flame graphs get a "comm-tid" frame under the
	 * process (--per-thread); pprof has tid labels either way. */
	bool per_thread;

	struct view_mapping *mappings;
	uint32_t nr_mappings, cap_mappings;
	struct view_function *functions;
	uint32_t nr_functions, cap_functions;
	struct view_location *locations;
	uint32_t nr_locations, cap_locations;
	struct view_line *lines;
	uint32_t nr_lines, cap_lines;
	struct view_sample *samples;
	uint32_t nr_samples, cap_samples;
	uint32_t *sample_locs; /* location indices */
	uint32_t nr_sample_locs, cap_sample_locs;

	/* Dedup indexes, used while building from a live profile
	 * (profile/view_build.h), and what frees them. */
	struct view_index *index;
	void (*index_free)(struct view_index *index);
};

int view_init(struct view *v, const struct profile_meta *meta);
void view_free(struct view *v);

/* Appenders; each returns the new element's index or -ENOMEM. */
int64_t view_add_mapping(struct view *v, const struct view_mapping *m);
int64_t view_add_function(struct view *v, const struct view_function *f);
int64_t view_add_line(struct view *v, const struct view_line *l);
int64_t view_add_location(struct view *v, const struct view_location *l);
int64_t view_add_sample(struct view *v, const struct view_sample *s, const uint32_t *locs);

/* The value a folded line, a flame graph and `top` count: samples on-CPU,
 * blocked ns off-CPU, the chosen sample type for another kind. */
static inline uint64_t view_sample_value(const struct view *v, const struct view_sample *s)
{
	return v->meta.kind == PROFILE_ONCPU ? s->count : s->weight;
}

/* Keeps only the samples keep() says yes to (the pprof output included);
 * for a view read from a file (report), not one synced from a live profile,
 * whose sample i must stay stack i. Returns how many are left. */
uint32_t view_filter(struct view *v,
		     bool (*keep)(void *arg, const struct view *v, const struct view_sample *s),
		     void *arg);

static inline const char *view_str(const struct view *v, uint32_t i)
{
	return strtab_get(&v->strs, i);
}

/*
 * One frame of a sample, root first, with inline frames expanded: the names
 * the folded, SVG and JSON outputs print. Calls fn for each; stops early and
 * returns its nonzero result.
 */
typedef int (*view_frame_fn)(void *arg, uint32_t func, bool kernel);
int view_walk_root_first(const struct view *v, const struct view_sample *s, view_frame_fn fn,
			 void *arg);

#endif

/* SPDX-License-Identifier: GPL-2.0 */
/*
 * A small hand-built view with known stacks, for the output tests:
 *
 *   workload;main;outer;middle;inl;spin_leaf          90  (inl inlined in middle)
 *   workload;main;do_syscall_64_[k];schedule_[k]      10  (tid 101)
 *   other;main                                         5
 */
#ifndef SKYPROF_TEST_VIEW_FIXTURE_H
#define SKYPROF_TEST_VIEW_FIXTURE_H

#include <stdlib.h>
#include <string.h>

#include "profile/profile.h"
#include "profile/view.h"

#define VF_TOTAL 105

static inline uint32_t vf_func(struct view *v, const char *name)
{
	struct view_function f = { 0 };

	f.name = (uint32_t)strtab_intern(&v->strs, name);
	f.system_name = f.name;
	f.filename = (uint32_t)strtab_intern(&v->strs, "workload.c");
	return (uint32_t)view_add_function(v, &f);
}

/* A location with lines (innermost first) in mapping m (index + 1). */
static inline uint32_t vf_loc(struct view *v, uint64_t addr, uint32_t m, bool kernel,
			      const uint32_t *funcs, uint32_t n)
{
	struct view_location l = { 0 };

	l.address = addr;
	l.mapping = m;
	l.kernel = kernel;
	l.first_line = v->nr_lines;
	for (uint32_t i = 0; i < n; i++) {
		struct view_line ln = { funcs[i], 10 + i };

		view_add_line(v, &ln);
	}
	l.nr_lines = n;
	return (uint32_t)view_add_location(v, &l);
}

static inline struct view *vf_make(enum profile_kind kind)
{
	struct profile_meta meta = { .kind = kind,
				     .freq_hz = 100,
				     .start_ns = 1700000000000000000ULL,
				     .duration_ns = 5000000000ULL };
	struct view *v = calloc(1, sizeof(*v));
	struct view_mapping exe = { 0 }, k = { 0 };
	struct view_sample s = { 0 };
	uint32_t f_main, f_outer, f_middle, f_inl, f_leaf, f_sys, f_sched, lm, lo, lmid, ll, lsys,
		lsched;
	uint32_t mid_lines[2];
	uint32_t st1[4], st2[3], st3[1];

	view_init(v, &meta);
	exe.start = 0x400000;
	exe.limit = 0x500000;
	exe.filename = (uint32_t)strtab_intern(&v->strs, "/usr/bin/workload");
	exe.build_id = (uint32_t)strtab_intern(&v->strs, "0123456789abcdef");
	exe.is_main = exe.has_functions = exe.has_lines = exe.has_inline = true;
	view_add_mapping(v, &exe);
	k.start = 0xffff800000000000ULL;
	k.limit = UINT64_MAX;
	k.filename = (uint32_t)strtab_intern(&v->strs, VIEW_KERNEL_MAPPING);
	k.kernel = k.has_functions = true;
	view_add_mapping(v, &k);

	f_main = vf_func(v, "main");
	f_outer = vf_func(v, "outer");
	f_middle = vf_func(v, "middle");
	f_inl = vf_func(v, "inl");
	f_leaf = vf_func(v, "spin_leaf");
	f_sys = vf_func(v, "do_syscall_64");
	f_sched = vf_func(v, "schedule");
	lm = vf_loc(v, 0x401000, 1, false, &f_main, 1);
	lo = vf_loc(v, 0x402000, 1, false, &f_outer, 1);
	mid_lines[0] = f_inl;
	mid_lines[1] = f_middle;
	lmid = vf_loc(v, 0x403000, 1, false, mid_lines, 2);
	ll = vf_loc(v, 0x404000, 1, false, &f_leaf, 1);
	lsys = vf_loc(v, 0xffffffff81000100ULL, 2, true, &f_sys, 1);
	lsched = vf_loc(v, 0xffffffff81000200ULL, 2, true, &f_sched, 1);

	st1[0] = ll;
	st1[1] = lmid;
	st1[2] = lo;
	st1[3] = lm;
	s.nr_locs = 4;
	s.pid = s.tid = 100;
	s.comm = (uint32_t)strtab_intern(&v->strs, "workload");
	s.count = 90;
	s.weight = kind == PROFILE_OFFCPU ? 90000 : 90;
	view_add_sample(v, &s, st1);

	st2[0] = lsched;
	st2[1] = lsys;
	st2[2] = lm;
	s.nr_locs = 3;
	s.tid = 101;
	s.count = 10;
	s.weight = kind == PROFILE_OFFCPU ? 10000 : 10;
	view_add_sample(v, &s, st2);

	st3[0] = lm;
	s.nr_locs = 1;
	s.pid = s.tid = 200;
	s.comm = (uint32_t)strtab_intern(&v->strs, "other");
	s.count = 5;
	s.weight = kind == PROFILE_OFFCPU ? 5000 : 5;
	view_add_sample(v, &s, st3);
	return v;
}

/* Frees a view made by vf_make or read by pprof_read_file. */
static inline void vf_free(struct view *v)
{
	if (v) {
		view_free(v);
		free(v);
	}
}

/* The samples of a view (counts, whatever the kind). */
static inline uint64_t vf_count(const struct view *v)
{
	uint64_t n = 0;

	for (uint32_t i = 0; i < v->nr_samples; i++)
		n += v->samples[i].count;
	return n;
}

#endif

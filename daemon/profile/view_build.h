/* SPDX-License-Identifier: GPL-2.0 */
/*
 * A view (profile/view.h) built from a live profile and a symbolizer, kept
 * in sync incrementally: new stacks become samples (their new addresses
 * symbolized), known ones get their counts refreshed. Sample i is stack i
 * of the profile, so a view follows one profile all its life.
 */
#ifndef SKYPROF_PROFILE_VIEW_BUILD_H
#define SKYPROF_PROFILE_VIEW_BUILD_H

struct profile;
struct symbolizer;
struct view;

/*
 * Brings v (view_init'ed) up to date with p, its meta included. sym may be
 * NULL: frames are then named by address. 0 or -ENOMEM. After the last
 * build of a view that is written out, symbolizer_trim frees what
 * symbolizing held.
 */
int view_build(struct view *v, const struct profile *p, struct symbolizer *sym);

#endif

/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Folded stacks: "comm;user root;...;user leaf;kernel root_[k];...;leaf_[k]"
 * ("comm;comm-tid;..." with the view's per_thread) with the samples
 * (on-CPU) or blocked ns (off-CPU) of every sample that folds to the same
 * line summed. The folded output prints them; the flame graph is laid out
 * from the same lines, as flamegraph.pl does, so the two always show the
 * same stacks.
 */
#ifndef SKYPROF_PROFILE_FOLD_H
#define SKYPROF_PROFILE_FOLD_H

#include <stdint.h>

#include "lib/strtab.h"
#include "profile/view.h"

struct fold {
	struct strtab lines; /* line i >= 1; line 0 is "" and unused */
	uint64_t *values;    /* values[i] for line i */
	uint32_t cap;
	uint64_t total;
};

int fold_build(struct fold *f, const struct view *v);
void fold_free(struct fold *f);

#endif

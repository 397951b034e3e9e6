// SPDX-License-Identifier: GPL-2.0
/*
 * The folded ("collapsed") stack output: one line per distinct stack, root
 * first, process name as the root frame, kernel frames suffixed _[k], then a
 * space and the samples (on-CPU) or blocked nanoseconds (off-CPU).
 * `report --diff` writes two counts, base then new.
 */
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <string.h>

#include "profile/fold.h"
#include "output/output.h"

int output_folded_write(const struct view *v, FILE *f)
{
	struct fold fo;
	int r = fold_build(&fo, v);

	if (r)
		return r;
	for (uint32_t i = 1; i < fo.lines.nr; i++)
		if (fprintf(f, "%s %" PRIu64 "\n", strtab_get(&fo.lines, i), fo.values[i]) < 0) {
			r = -EIO;
			break;
		}
	fold_free(&fo);
	return r;
}

/* flamegraph.pl's difffolded.pl format: "stack base new", every stack of
 * either profile, so a stack that vanished shows with new 0. */
int output_folded_diff_write(const struct view *base, const struct view *v, FILE *f)
{
	struct fold fb, fn;
	int r = fold_build(&fb, base);

	if (r)
		return r;
	r = fold_build(&fn, v);
	if (r) {
		fold_free(&fb);
		return r;
	}
	for (uint32_t i = 1; i < fn.lines.nr && !r; i++) {
		int64_t j = strtab_find(&fb.lines, strtab_get(&fn.lines, i));

		if (fprintf(f, "%s %" PRIu64 " %" PRIu64 "\n", strtab_get(&fn.lines, i),
			    j > 0 ? fb.values[j] : 0, fn.values[i]) < 0)
			r = -EIO;
	}
	for (uint32_t j = 1; j < fb.lines.nr && !r; j++)
		if (strtab_find(&fn.lines, strtab_get(&fb.lines, j)) <= 0 &&
		    fprintf(f, "%s %" PRIu64 " 0\n", strtab_get(&fb.lines, j), fb.values[j]) < 0)
			r = -EIO;
	fold_free(&fb);
	fold_free(&fn);
	return r;
}

// SPDX-License-Identifier: GPL-2.0
/*
 * The folded ("collapsed") stack output: one line per distinct stack, root
 * first, process name as the root frame, kernel frames suffixed _[k], then a
 * space and the samples (on-CPU) or blocked nanoseconds (off-CPU).
 */
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>

#include "fold.h"
#include "output.h"

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

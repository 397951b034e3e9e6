// SPDX-License-Identifier: GPL-2.0
#include "output/top_table.h"

static double share(uint64_t part, uint64_t total)
{
	return total ? 100.0 * (double)part / (double)total : 0.0;
}

void output_top_table_print(FILE *f, const struct func_share *top, size_t n, uint64_t total)
{
	fprintf(f, "%8s %8s  %s\n", "self%", "total%", "function");
	for (size_t i = 0; i < n; i++)
		fprintf(f, "%7.2f%% %7.2f%%  %s%s\n", share(top[i].self, total),
			share(top[i].total, total), top[i].name, top[i].kernel ? " [k]" : "");
}

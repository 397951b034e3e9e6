// SPDX-License-Identifier: GPL-2.0
/* struct_size() and array_size() of linux/overflow.h (4.18+). */
#include <linux/bug.h>
#include <linux/kernel.h>
#include <linux/overflow.h>
#include <linux/types.h>

unsigned long skyprof_probe(size_t n);

struct skyprof_probe_s {
	int n;
	u64 a[];
};

unsigned long skyprof_probe(size_t n)
{
	struct skyprof_probe_s *p = NULL;

	return struct_size(p, a, n) + array_size(n, sizeof(u64));
}

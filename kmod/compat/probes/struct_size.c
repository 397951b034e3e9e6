// SPDX-License-Identifier: GPL-2.0
/* struct_size() and array_size() of linux/overflow.h (4.18+). */
#include <linux/bug.h>
#include <linux/kernel.h>
#include <linux/overflow.h>
#include <linux/types.h>

struct skyprof_probe_s {
	int n;
	u64 a[];
};

size_t skyprof_probe(struct skyprof_probe_s *p, size_t n);
size_t skyprof_probe(struct skyprof_probe_s *p, size_t n)
{
	return struct_size(p, a, n) + array_size(n, sizeof(u64));
}

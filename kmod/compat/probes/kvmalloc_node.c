// SPDX-License-Identifier: GPL-2.0
/* kvmalloc_node()/kvfree() (4.12+, RHEL 7 backport). */
#include <linux/mm.h>
#include <linux/slab.h>

void skyprof_probe(size_t n);
void skyprof_probe(size_t n)
{
	kvfree(kvmalloc_node(n, GFP_KERNEL, 0));
}

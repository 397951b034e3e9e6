// SPDX-License-Identifier: GPL-2.0
/* sizeof_field() (5.5+; FIELD_SIZEOF before). */
#include <linux/stddef.h>
#include <linux/kernel.h>

struct skyprof_probe_s {
	int a;
};

size_t skyprof_probe(void);
size_t skyprof_probe(void)
{
	return sizeof_field(struct skyprof_probe_s, a);
}

// SPDX-License-Identifier: GPL-2.0
/* sizeof_field() (5.5+; FIELD_SIZEOF before). */
#include <linux/stddef.h>
#include <linux/kernel.h>

unsigned long skyprof_probe(void);

struct skyprof_probe_s {
	int a;
};

unsigned long skyprof_probe(void)
{
	return sizeof_field(struct skyprof_probe_s, a);
}

// SPDX-License-Identifier: GPL-2.0
/* bitmap_zalloc()/bitmap_free() (4.19+). */
#include <linux/bitmap.h>
#include <linux/slab.h>

void skyprof_probe(unsigned int n);
void skyprof_probe(unsigned int n)
{
	bitmap_free(bitmap_zalloc(n, GFP_KERNEL));
}

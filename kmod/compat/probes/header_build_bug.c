// SPDX-License-Identifier: GPL-2.0
/* linux/build_bug.h (4.13+; before, BUILD_BUG_ON lived in linux/bug.h). */
#include <linux/build_bug.h>

int skyprof_probe(void);
int skyprof_probe(void)
{
	BUILD_BUG_ON(sizeof(int) < 2);
	return 0;
}

// SPDX-License-Identifier: GPL-2.0
/* data_race() (5.8+). */
#include <linux/compiler.h>

int skyprof_probe(const int *p);
int skyprof_probe(const int *p)
{
	/* A racy read the caller accepts. */
	return data_race(*p);
}

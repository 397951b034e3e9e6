// SPDX-License-Identifier: GPL-2.0
/* CAP_PERFMON (5.8+). */
#include <linux/capability.h>

int skyprof_probe(void);
int skyprof_probe(void)
{
	return CAP_PERFMON;
}

// SPDX-License-Identifier: GPL-2.0
/* unsigned long copy_from_user_nmi(void *to, const void __user *from, unsigned long n) (x86). */
#include <linux/uaccess.h>

unsigned long skyprof_probe(void *to, const void __user *from, unsigned long n);
unsigned long skyprof_probe(void *to, const void __user *from, unsigned long n)
{
	unsigned long (*fn)(void *, const void __user *, unsigned long) = copy_from_user_nmi;

	return fn(to, from, n);
}

// SPDX-License-Identifier: GPL-2.0
/* compat_ptr_ioctl (5.5+). */
#include <linux/fs.h>

long skyprof_probe(struct file *f, unsigned int cmd, unsigned long arg);
long skyprof_probe(struct file *f, unsigned int cmd, unsigned long arg)
{
	long (*fn)(struct file *, unsigned int, unsigned long) = compat_ptr_ioctl;

	return fn(f, cmd, arg);
}

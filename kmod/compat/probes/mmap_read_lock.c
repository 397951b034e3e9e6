// SPDX-License-Identifier: GPL-2.0
/* mmap_read_lock (5.8+): before, down_read(&mm->mmap_sem). */
#include <linux/mm.h>
#include <linux/mmap_lock.h>

void skyprof_probe(struct mm_struct *mm);
void skyprof_probe(struct mm_struct *mm)
{
	mmap_read_lock(mm);
	mmap_read_unlock(mm);
}

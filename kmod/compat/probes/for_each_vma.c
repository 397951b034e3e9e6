// SPDX-License-Identifier: GPL-2.0
/* VMA_ITERATOR/for_each_vma (6.1+: the maple tree; mm->mmap is gone). */
#include <linux/mm.h>

unsigned long skyprof_probe(struct mm_struct *mm);
unsigned long skyprof_probe(struct mm_struct *mm)
{
	VMA_ITERATOR(vmi, mm, 0);
	struct vm_area_struct *vma;
	unsigned long n = 0;

	for_each_vma(vmi, vma)
		n += vma->vm_end - vma->vm_start;
	return n;
}

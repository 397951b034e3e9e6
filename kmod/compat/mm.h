/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Address spaces across kernel versions: pinning an mm, its lock, walking
 * its VMAs, and a mapped file's path and identity as the process sees
 * them (see docs/kernel-compat.md). Included by the files that walk
 * address spaces (sideband.c); every name here is skyprof_mm_* or
 * SKYPROF_*, so callers never test the kernel.
 */
#ifndef SKYPROF_COMPAT_MM_H
#define SKYPROF_COMPAT_MM_H

#include <linux/atomic.h>
#include <linux/fs.h>
#include <linux/mm.h>
#include <linux/mm_types.h>
#include <linux/sched.h>
#ifdef SKYPROF_HAVE_HEADER_SCHED_MM
#include <linux/sched/mm.h>
#endif
#ifdef SKYPROF_HAVE_MMAP_READ_LOCK
#include <linux/mmap_lock.h>
#endif

#include "compat/compat.h"

/*
 * Pins, from any context (NMI included): mm_users keeps the VMAs (exit_mmap
 * waits for the last one), mm_count only the struct, so that its address
 * is not handed to another address space while we hold it. 4.4 has
 * neither helper (4.11); RHEL 7 backported both.
 */
static __always_inline bool skyprof_mm_get_users(struct mm_struct *mm)
{
#if defined(SKYPROF_HAVE_HEADER_SCHED_MM) || defined(SKYPROF_HAVE_MMGET_NOT_ZERO)
	return mmget_not_zero(mm);
#else
	return atomic_inc_not_zero(&mm->mm_users);
#endif
}

static __always_inline void skyprof_mm_grab(struct mm_struct *mm)
{
#if defined(SKYPROF_HAVE_HEADER_SCHED_MM) || defined(SKYPROF_HAVE_MMGRAB)
	mmgrab(mm);
#else
	atomic_inc(&mm->mm_count);
#endif
}

/* No users left: the address space was torn down (or is being). */
static inline bool skyprof_mm_dead(struct mm_struct *mm)
{
	return !atomic_read(&mm->mm_users);
}

/* Process context only: the lock sleeps. */
static inline void skyprof_mm_read_lock(struct mm_struct *mm)
{
#ifdef SKYPROF_HAVE_MMAP_READ_LOCK
	mmap_read_lock(mm);
#else
	down_read(&mm->mmap_sem);
#endif
}

static inline void skyprof_mm_read_unlock(struct mm_struct *mm)
{
#ifdef SKYPROF_HAVE_MMAP_READ_LOCK
	mmap_read_unlock(mm);
#else
	up_read(&mm->mmap_sem);
#endif
}

/*
 * Every VMA of mm in address order, the mmap lock held:
 *	for (vma = skyprof_vma_first(mm, &it); vma; vma = skyprof_vma_next(&it, vma))
 * The list (mm->mmap, vm_next) up to 6.0, the maple tree's iterator from 6.1.
 */
#ifdef SKYPROF_HAVE_FOR_EACH_VMA
struct skyprof_vma_iter {
	struct vma_iterator vmi;
};

static inline struct vm_area_struct *skyprof_vma_first(struct mm_struct *mm,
						       struct skyprof_vma_iter *it)
{
	/* A fresh iterator holds pointers only: a copy is as good. */
	VMA_ITERATOR(vmi, mm, 0);

	it->vmi = vmi;
	return vma_next(&it->vmi);
}

static inline struct vm_area_struct *skyprof_vma_next(struct skyprof_vma_iter *it,
						      struct vm_area_struct *vma)
{
	return vma_next(&it->vmi);
}
#else
struct skyprof_vma_iter {
	int unused;
};

static inline struct vm_area_struct *skyprof_vma_first(struct mm_struct *mm,
						       struct skyprof_vma_iter *it)
{
	return mm->mmap;
}

static inline struct vm_area_struct *skyprof_vma_next(struct skyprof_vma_iter *it,
						      struct vm_area_struct *vma)
{
	return vma->vm_next;
}
#endif

/*
 * A mapped file's path and inode as the process sees them: on 6.8+ an
 * overlayfs mapping's vm_file is the backing file, whose user path and
 * inode are the overlay's (what /proc/PID/maps prints).
 */
static inline const struct path *skyprof_file_user_path(struct file *f)
{
#ifdef SKYPROF_HAVE_FILE_USER_PATH
	return file_user_path(f);
#else
	return &f->f_path;
#endif
}

static inline const struct inode *skyprof_file_user_inode(struct file *f)
{
#ifdef SKYPROF_HAVE_FILE_USER_PATH
	return file_user_inode(f);
#else
	return file_inode(f);
#endif
}

/*
 * Is vma the vDSO's text? The one executable mapping without a file that
 * every process has; on x86 its address is in the mm's context on every
 * kernel of the matrix.
 */
static inline bool skyprof_vma_is_vdso(struct mm_struct *mm, struct vm_area_struct *vma)
{
#ifdef CONFIG_X86
	return vma->vm_start == (unsigned long)mm->context.vdso;
#else
	return false;
#endif
}

/* i_mtime: struct timespec (3.10, 4.4), timespec64 (4.18+), accessors (6.7+). */
static inline void skyprof_inode_mtime(const struct inode *inode, s64 *sec, u32 *nsec)
{
#ifdef SKYPROF_HAVE_INODE_GET_MTIME_SEC
	*sec = inode_get_mtime_sec(inode);
	*nsec = inode_get_mtime_nsec(inode);
#else
	*sec = inode->i_mtime.tv_sec;
	*nsec = inode->i_mtime.tv_nsec;
#endif
}

/*
 * The inode of mm's executable, for comparison only (never dereferenced):
 * exe_file is RCU-managed from 4.1 and a struct file is freed after a grace
 * period on every version, so its f_inode may be read in an RCU section.
 */
static inline const struct inode *skyprof_mm_exe_inode(struct mm_struct *mm)
{
	const struct inode *inode = NULL;
	struct file *f;

	rcu_read_lock();
	f = rcu_dereference_raw(mm->exe_file);
	if (f)
		inode = READ_ONCE(f->f_inode);
	rcu_read_unlock();
	return inode;
}

#endif /* SKYPROF_COMPAT_MM_H */

// SPDX-License-Identifier: GPL-2.0
/*
 * /dev/skyprof, the data channel. A file is bound to one session with
 * SKYPROF_IOC_BIND (id + secret token from SESSION_START), then maps per CPU
 * the control page (shared, read-write: the reader owns data_tail) and the
 * data area (shared, read-only; VM_MAYWRITE cleared so mprotect cannot
 * upgrade it), and polls for data.
 *
 * The file holds a reference on the rings and every mapping holds the file,
 * so ring memory lives until the last munmap/close, whatever happens to the
 * session; the file also pins the module (fops.owner), so rmmod waits for
 * readers to go (it fails with EBUSY while one is open).
 *
 * The node is 0666: the privilege check (CAP_PERFMON or CAP_SYS_ADMIN in
 * init_user_ns) is ours, on open, ioctl and mmap, answering -EPERM.
 */
#include <linux/fs.h>
#include <linux/miscdevice.h>
#include <linux/mm.h>
#include <linux/module.h>
#include <linux/mutex.h>
#include <linux/poll.h>
#include <linux/slab.h>
#include <linux/uaccess.h>
#include <linux/vmalloc.h>

#include "skyprof_kmod.h"

struct skyprof_file {
	struct mutex lock;		/* serializes bind against mmap */
	struct skyprof_rings *rings;	/* set once by bind, release-published */
};

static int skyprof_dev_open(struct inode *inode, struct file *file)
{
	struct skyprof_file *f;

	if (!skyprof_capable())
		return -EPERM;
	f = kzalloc(sizeof(*f), GFP_KERNEL);
	if (!f)
		return -ENOMEM;
	mutex_init(&f->lock);
	file->private_data = f;
	return stream_open(inode, file);
}

static int skyprof_dev_release(struct inode *inode, struct file *file)
{
	struct skyprof_file *f = file->private_data;

	if (f->rings)
		skyprof_rings_put(f->rings);
	kfree(f);
	return 0;
}

static long skyprof_dev_bind(struct skyprof_file *f, void __user *arg)
{
	struct skyprof_rings *rings;
	struct skyprof_bind b;
	long ret = 0;

	if (copy_from_user(&b, arg, sizeof(b)))
		return -EFAULT;
	if (b.reserved || !b.session_id)
		return -EINVAL;
	mutex_lock(&f->lock);
	if (f->rings) {
		ret = -EBUSY;
		goto out;
	}
	rings = skyprof_session_bind(b.session_id, b.token);
	if (IS_ERR(rings)) {
		ret = PTR_ERR(rings);
		goto out;
	}
	/* Pairs with the acquire in skyprof_dev_poll(). */
	smp_store_release(&f->rings, rings);
out:
	mutex_unlock(&f->lock);
	return ret;
}

static long skyprof_dev_ioctl(struct file *file, unsigned int cmd, unsigned long arg)
{
	if (!skyprof_capable())
		return -EPERM;
	switch (cmd) {
	case SKYPROF_IOC_BIND:
		return skyprof_dev_bind(file->private_data, (void __user *)arg);
	default:
		return -ENOTTY;
	}
}

static int skyprof_dev_mmap(struct file *file, struct vm_area_struct *vma)
{
	struct skyprof_file *f = file->private_data;
	unsigned long size = vma->vm_end - vma->vm_start;
	unsigned long cpu = vma->vm_pgoff / SKYPROF_MMAP_CPU_STRIDE;
	unsigned long part = vma->vm_pgoff % SKYPROF_MMAP_CPU_STRIDE;
	struct skyprof_ring *ring;
	void *mem;
	int ret = -EINVAL;

	if (!skyprof_capable())
		return -EPERM;
	if (!(vma->vm_flags & VM_SHARED))
		return -EINVAL;
	/* Nothing in the rings is code. */
	if (vma->vm_flags & VM_EXEC)
		return -EPERM;
	mutex_lock(&f->lock);
	if (!f->rings || cpu >= f->rings->nr || !f->rings->ring[cpu])
		goto out;
	ring = f->rings->ring[cpu];
	if (part == 0) {
		if (size != PAGE_SIZE)
			goto out;
		mem = ring->ctl;
	} else if (part == 1) {
		if (size != ring->size)
			goto out;
		if (vma->vm_flags & VM_WRITE) {
			ret = -EPERM;
			goto out;
		}
		skyprof_vm_flags_clear(vma, VM_MAYWRITE);
		mem = ring->data;
	} else {
		goto out;
	}
	skyprof_vm_flags_set(vma, VM_DONTCOPY);
	skyprof_vm_flags_clear(vma, VM_MAYEXEC);
	/* Sets VM_DONTEXPAND | VM_DONTDUMP; the pages stay vmalloc-owned. */
	ret = remap_vmalloc_range(vma, mem, 0);
out:
	mutex_unlock(&f->lock);
	return ret;
}

static __poll_t skyprof_dev_poll(struct file *file, poll_table *wait)
{
	struct skyprof_file *f = file->private_data;
	/* Pairs with the release in skyprof_dev_bind(). */
	struct skyprof_rings *rings = smp_load_acquire(&f->rings);
	__poll_t mask = 0;

	if (!rings)
		return EPOLLERR;
	poll_wait(file, &rings->wq, wait);
	if (skyprof_rings_readable(rings))
		mask |= EPOLLIN | EPOLLRDNORM;
	if (READ_ONCE(rings->ended))
		mask |= EPOLLHUP;
	return mask;
}

static const struct file_operations skyprof_dev_fops = {
	.owner = THIS_MODULE,
	.open = skyprof_dev_open,
	.release = skyprof_dev_release,
	.unlocked_ioctl = skyprof_dev_ioctl,
#ifdef CONFIG_COMPAT
	.compat_ioctl = skyprof_compat_ptr_ioctl,
#endif
	.mmap = skyprof_dev_mmap,
	.poll = skyprof_dev_poll,
};

static struct miscdevice skyprof_miscdev = {
	.minor = MISC_DYNAMIC_MINOR,
	.name = SKYPROF_DEVICE_NAME,
	.fops = &skyprof_dev_fops,
	.mode = 0666,
};

int skyprof_chardev_init(void)
{
	return misc_register(&skyprof_miscdev);
}

void skyprof_chardev_exit(void)
{
	misc_deregister(&skyprof_miscdev);
}

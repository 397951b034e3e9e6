// SPDX-License-Identifier: GPL-2.0
/* The cgroup id as the kernfs node's inode number, before cgroup_id() (4.x). */
#include <linux/cgroup.h>
#include <linux/kernfs.h>

u64 skyprof_probe(struct cgroup *cgrp);
u64 skyprof_probe(struct cgroup *cgrp)
{
	return cgrp->kn->id.ino;
}

// SPDX-License-Identifier: GPL-2.0
/* The cgroup id as the 64-bit kernfs node id, before cgroup_id() (4.x). */
#include <linux/cgroup.h>
#include <linux/kernfs.h>

u64 skyprof_probe(struct cgroup *cgrp);
u64 skyprof_probe(struct cgroup *cgrp)
{
	return cgrp->kn->id.id;
}

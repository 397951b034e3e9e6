// SPDX-License-Identifier: GPL-2.0
/* cgroup_id() returning the u64 kernfs id (5.5+), task_dfl_cgroup(). */
#include <linux/cgroup.h>
#include <linux/sched.h>

u64 skyprof_probe(struct task_struct *t);
u64 skyprof_probe(struct task_struct *t)
{
	struct cgroup *cgrp = task_dfl_cgroup(t);

	return cgroup_id(cgrp) + cgroup_is_descendant(cgrp, cgrp);
}

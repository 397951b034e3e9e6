// SPDX-License-Identifier: GPL-2.0
/* The cgroup v2 (default hierarchy) cgroup of a task and the subtree test (4.5+). */
#include <linux/cgroup.h>
#include <linux/sched.h>

bool skyprof_probe(struct task_struct *t, struct cgroup *ancestor);
bool skyprof_probe(struct task_struct *t, struct cgroup *ancestor)
{
	return cgroup_is_descendant(task_dfl_cgroup(t), ancestor);
}

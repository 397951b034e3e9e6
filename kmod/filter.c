// SPDX-License-Identifier: GPL-2.0
/*
 * Target selection: which ticks become samples. The idle task is never a
 * target; kernel threads only when the session asks (SKYPROF_F_KTHREADS);
 * then either every task, sorted tgid and tid lists (binary search, bounded
 * by log2(SKYPROF_MAX_TGIDS) steps) or the tasks of a cgroup v2 subtree.
 * skyprof_filter_match() runs in the sample handler (hardirq or NMI): no
 * locks, RCU read side only.
 */
#include <linux/cgroup.h>
#include <linux/err.h>
#include <linux/rcupdate.h>
#include <linux/sched.h>

#include "follow.h"
#include "skyprof_kmod.h"

bool skyprof_filter_cgroup_supported(void)
{
#ifdef SKYPROF_CGROUP_FILTER
	return true;
#else
	return false;
#endif
}

int skyprof_filter_setup(struct skyprof_session *s, struct netlink_ext_ack *extack)
{
#ifdef SKYPROF_CGROUP_FILTER
	struct cgroup *cgrp;

	if (!s->cfg.cgroup_path)
		return 0;
	cgrp = cgroup_get_from_path(s->cfg.cgroup_path);
	if (IS_ERR(cgrp)) {
		NL_SET_ERR_MSG_MOD(extack, "target cgroup not found in the cgroup v2 hierarchy");
		return PTR_ERR(cgrp);
	}
	s->cgrp = cgrp;
	return 0;
#else
	if (!s->cfg.cgroup_path)
		return 0;
	NL_SET_ERR_MSG_MOD(extack, "cgroup targets are not supported on this kernel");
	return -EOPNOTSUPP;
#endif
}

void skyprof_filter_release(struct skyprof_session *s)
{
#ifdef SKYPROF_CGROUP_FILTER
	if (s->cgrp)
		cgroup_put(s->cgrp);
#endif
	s->cgrp = NULL;
}

/* Binary search of a sorted, unique tgid or tid list. */
static bool skyprof_tgid_listed(const u32 *tgids, u32 nr, u32 tgid)
{
	u32 lo = 0, hi = nr;

	while (lo < hi) {
		u32 mid = lo + (hi - lo) / 2;

		if (tgids[mid] == tgid)
			return true;
		if (tgids[mid] < tgid)
			lo = mid + 1;
		else
			hi = mid;
	}
	return false;
}

/* Is the process tgid a target: listed, or followed from a listed one? */
bool skyprof_filter_match_tgid(struct skyprof_session *s, u32 tgid)
{
	if (skyprof_tgid_listed(s->cfg.tgids, s->cfg.nr_tgids, tgid))
		return true;
	return s->follow && skyprof_follow_has(s->follow, tgid);
}

/*
 * The tgid and tid lists (a task must be in each one given) or the cgroup
 * (skyprof_filter_match has done the rest).
 */
bool skyprof_filter_match_targets(struct skyprof_session *s, struct task_struct *task)
{
	if (s->cfg.nr_tids &&
	    !skyprof_tgid_listed(s->cfg.tids, s->cfg.nr_tids, task->pid))
		return false;
	if (s->cfg.nr_tgids)
		return skyprof_filter_match_tgid(s, task->tgid);
#ifdef SKYPROF_CGROUP_FILTER
	if (s->cgrp) {
		bool in;

		/* The task's css_set is RCU-protected; ours is pinned. */
		rcu_read_lock();
		in = cgroup_is_descendant(task_dfl_cgroup(task), s->cgrp);
		rcu_read_unlock();
		return in;
	}
#endif
	return true;
}

// SPDX-License-Identifier: GPL-2.0
/*
 * skyprof.ko: sampling profiler (on-CPU: perf events / hrtimers; off-CPU:
 * sched_switch; kernel and user stacks, per-CPU mmap'ed rings, generic
 * netlink control).
 *
 * Init order: sessions (workqueue, cpuhp state, netlink notifier), source
 * probing, the device, then the netlink family last (nothing can start a
 * session before everything under it exists). Exit: end every session while
 * the family can still multicast SESSION_ENDED(UNLOAD), then undo init in
 * reverse.
 */
#include <linux/init.h>
#include <linux/module.h>
#include <net/genetlink.h>

#include "skyprof_kmod.h"

static int __init skyprof_init(void)
{
	int ret;

	ret = skyprof_sessions_init();
	if (ret)
		return ret;
	skyprof_perf_init();
	skyprof_offcpu_init();
	skyprof_follow_init();
	ret = skyprof_chardev_init();
	if (ret)
		goto err_sessions;
	ret = skyprof_genl_init();
	if (ret)
		goto err_chardev;
	return 0;

err_chardev:
	skyprof_chardev_exit();
err_sessions:
	skyprof_sessions_exit();
	return ret;
}

static void __exit skyprof_exit(void)
{
	skyprof_sessions_end_all();
	skyprof_offcpu_exit();
	skyprof_follow_exit();
	skyprof_genl_exit();
	skyprof_chardev_exit();
	skyprof_sessions_exit();
}

module_init(skyprof_init);
module_exit(skyprof_exit);

MODULE_LICENSE("GPL");
MODULE_DESCRIPTION("skyprof on-CPU and off-CPU sampling profiler");
MODULE_VERSION(SKYPROF_VERSION);
MODULE_ALIAS_GENL_FAMILY(SKYPROF_GENL_NAME);

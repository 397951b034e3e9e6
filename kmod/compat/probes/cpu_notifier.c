// SPDX-License-Identifier: GPL-2.0
/* CPU hotplug notifiers (removed in 4.10) and work_on_cpu. */
#include <linux/cpu.h>
#include <linux/notifier.h>
#include <linux/workqueue.h>

static int skyprof_probe_cb(struct notifier_block *nb, unsigned long action, void *hcpu)
{
	switch (action & ~CPU_TASKS_FROZEN) {
	case CPU_ONLINE:
	case CPU_DOWN_PREPARE:
	case CPU_DOWN_FAILED:
		break;
	}
	return NOTIFY_OK;
}

static struct notifier_block skyprof_probe_nb = {
	.notifier_call = skyprof_probe_cb,
};

static long skyprof_probe_fn(void *arg)
{
	return 0;
}

long skyprof_probe(void);
long skyprof_probe(void)
{
	long ret = register_cpu_notifier(&skyprof_probe_nb);

	get_online_cpus();
	ret += work_on_cpu(0, skyprof_probe_fn, NULL);
	put_online_cpus();
	unregister_cpu_notifier(&skyprof_probe_nb);
	return ret;
}

// SPDX-License-Identifier: GPL-2.0
/*
 * One multi-instance CPU hotplug state on kernels before cpuhp states (4.10):
 * a CPU notifier and a list of instances, with the semantics session.c
 * relies on from cpuhp_state_add_instance() and friends:
 *  - adding an instance runs the online callback for every online CPU, on
 *    that CPU, and undoes it (offline callback on the CPUs done) when one
 *    fails;
 *  - removing an instance runs the offline callback for every online CPU;
 *  - a CPU coming online runs the online callback of every instance on that
 *    CPU (CPU_ONLINE: its workqueue workers are bound again by then); a CPU
 *    going down runs the offline callback of every instance first
 *    (CPU_DOWN_PREPARE), and online again if the unplug fails.
 * The online callback runs on its CPU through work_on_cpu(), in process
 * context as a cpuhp callback would; the offline callback runs in the
 * caller (cancelling an hrtimer or releasing a perf event works from any
 * CPU).
 *
 * Locking: the instance list is changed with the CPU hotplug lock held for
 * reading (get_online_cpus) and skyprof_cpuhp_mutex; the notifier runs with
 * the hotplug lock held for writing and takes the mutex too, so it never
 * sees a list being changed.
 */
#include <linux/cpu.h>
#include <linux/list.h>
#include <linux/mutex.h>
#include <linux/notifier.h>
#include <linux/workqueue.h>

#include "compat.h"

#ifdef SKYPROF_CPU_NOTIFIER

static skyprof_cpuhp_fn skyprof_cpuhp_online;
static skyprof_cpuhp_fn skyprof_cpuhp_offline;
static HLIST_HEAD(skyprof_cpuhp_instances);
/* The instance list (see above). */
static DEFINE_MUTEX(skyprof_cpuhp_mutex);

struct skyprof_cpuhp_call {
	unsigned int cpu;
	struct hlist_node *node;
};

static long skyprof_cpuhp_online_fn(void *arg)
{
	struct skyprof_cpuhp_call *c = arg;

	return skyprof_cpuhp_online(c->cpu, c->node);
}

static int skyprof_cpuhp_up(unsigned int cpu, struct hlist_node *node)
{
	struct skyprof_cpuhp_call c = { .cpu = cpu, .node = node };

	return work_on_cpu(cpu, skyprof_cpuhp_online_fn, &c);
}

static int skyprof_cpuhp_notify(struct notifier_block *nb, unsigned long action, void *hcpu)
{
	unsigned int cpu = (unsigned long)hcpu;
	struct hlist_node *node;

	switch (action & ~CPU_TASKS_FROZEN) {
	case CPU_ONLINE:
	case CPU_DOWN_FAILED:
		mutex_lock(&skyprof_cpuhp_mutex);
		/* Failures leave the CPU unsampled, never offline. */
		hlist_for_each(node, &skyprof_cpuhp_instances)
			skyprof_cpuhp_up(cpu, node);
		mutex_unlock(&skyprof_cpuhp_mutex);
		break;
	case CPU_DOWN_PREPARE:
		mutex_lock(&skyprof_cpuhp_mutex);
		hlist_for_each(node, &skyprof_cpuhp_instances)
			skyprof_cpuhp_offline(cpu, node);
		mutex_unlock(&skyprof_cpuhp_mutex);
		break;
	}
	return NOTIFY_OK;
}

static struct notifier_block skyprof_cpuhp_nb = {
	.notifier_call = skyprof_cpuhp_notify,
};

/* Returns a positive state number, as cpuhp_setup_state_multi() would. */
int skyprof_cpuhp_setup(const char *name, skyprof_cpuhp_fn online, skyprof_cpuhp_fn offline)
{
	int ret;

	skyprof_cpuhp_online = online;
	skyprof_cpuhp_offline = offline;
	ret = register_cpu_notifier(&skyprof_cpuhp_nb);
	return ret ? ret : 1;
}

/* Every instance has been removed. */
void skyprof_cpuhp_remove(int state)
{
	unregister_cpu_notifier(&skyprof_cpuhp_nb);
}

int skyprof_cpuhp_add_instance(int state, struct hlist_node *node)
{
	unsigned int cpu, undo;
	int ret = 0;

	get_online_cpus();
	mutex_lock(&skyprof_cpuhp_mutex);
	for_each_online_cpu(cpu) {
		ret = skyprof_cpuhp_up(cpu, node);
		if (ret)
			break;
	}
	if (ret) {
		for_each_online_cpu(undo) {
			if (undo == cpu)
				break;
			skyprof_cpuhp_offline(undo, node);
		}
	} else {
		hlist_add_head(node, &skyprof_cpuhp_instances);
	}
	mutex_unlock(&skyprof_cpuhp_mutex);
	put_online_cpus();
	return ret;
}

void skyprof_cpuhp_remove_instance(int state, struct hlist_node *node)
{
	unsigned int cpu;

	get_online_cpus();
	mutex_lock(&skyprof_cpuhp_mutex);
	for_each_online_cpu(cpu)
		skyprof_cpuhp_offline(cpu, node);
	hlist_del_init(node);
	mutex_unlock(&skyprof_cpuhp_mutex);
	put_online_cpus();
}

#endif /* SKYPROF_CPU_NOTIFIER */

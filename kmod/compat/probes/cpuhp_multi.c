// SPDX-License-Identifier: GPL-2.0
/* Multi-instance dynamic cpuhp states (4.10+; the CPU notifiers went then). */
#include <linux/cpuhotplug.h>

static int skyprof_probe_cb(unsigned int cpu, struct hlist_node *node)
{
	return 0;
}

int skyprof_probe(struct hlist_node *node);
int skyprof_probe(struct hlist_node *node)
{
	int state = cpuhp_setup_state_multi(CPUHP_AP_ONLINE_DYN, "probe", skyprof_probe_cb,
					    skyprof_probe_cb);

	cpuhp_state_add_instance(state, node);
	cpuhp_state_remove_instance(state, node);
	cpuhp_remove_multi_state(state);
	return state;
}

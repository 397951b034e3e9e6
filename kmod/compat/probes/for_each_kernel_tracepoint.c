// SPDX-License-Identifier: GPL-2.0
/* for_each_kernel_tracepoint + tracepoint_probe_register by struct tracepoint (3.15+). */
#include <linux/tracepoint.h>

static void skyprof_probe_fn(struct tracepoint *tp, void *priv)
{
}

int skyprof_probe(struct tracepoint *tp, void *probe);
int skyprof_probe(struct tracepoint *tp, void *probe)
{
	for_each_kernel_tracepoint(skyprof_probe_fn, NULL);
	tracepoint_synchronize_unregister();
	return tracepoint_probe_register(tp, probe, NULL) +
	       tracepoint_probe_unregister(tp, probe, NULL);
}

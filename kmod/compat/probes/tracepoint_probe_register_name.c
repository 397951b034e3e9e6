// SPDX-License-Identifier: GPL-2.0
/* tracepoint_probe_register(const char *name, probe, data): before 3.15, and RHEL 7. */
#include <linux/tracepoint.h>

int skyprof_probe(void *probe);
int skyprof_probe(void *probe)
{
	int (*reg)(const char *, void *, void *) = tracepoint_probe_register;
	int (*unreg)(const char *, void *, void *) = tracepoint_probe_unregister;

	tracepoint_synchronize_unregister();
	return reg("sched_switch", probe, NULL) + unreg("sched_switch", probe, NULL);
}

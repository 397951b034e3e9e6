// SPDX-License-Identifier: GPL-2.0
/* perf_event_create_kernel_counter with the 3-argument overflow handler (3.1+). */
#include <linux/perf_event.h>

static void skyprof_probe_handler(struct perf_event *event, struct perf_sample_data *data,
				  struct pt_regs *regs)
{
}

struct perf_event *skyprof_probe(struct perf_event_attr *attr);
struct perf_event *skyprof_probe(struct perf_event_attr *attr)
{
	return perf_event_create_kernel_counter(attr, 0, NULL, skyprof_probe_handler, NULL);
}

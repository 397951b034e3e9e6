/* SPDX-License-Identifier: GPL-2.0 */
/*
 * EBPFProfilingService's task query (queryTasks): the OAP's new profiling
 * tasks for the registered processes go to the main thread's inbox. Its
 * data stream (collectProfilingData) is sent from the upload queue by
 * collect.c.
 */
#ifndef SKYPROF_AGENT_OAP_EBPF_PROFILING_H
#define SKYPROF_AGENT_OAP_EBPF_PROFILING_H

struct agent_oap;

void ebpf_profiling_query_tasks(struct agent_oap *o);

#endif

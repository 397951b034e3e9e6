/* SPDX-License-Identifier: GPL-2.0 */
/*
 * EBPFProcessService: registers the discovered processes with the OAP
 * (reportProcesses), which answers with their process ids, and keeps the
 * registered ones alive (keepAlive).
 */
#ifndef SKYPROF_AGENT_OAP_EBPF_PROCESS_H
#define SKYPROF_AGENT_OAP_EBPF_PROCESS_H

#include <stdbool.h>

struct agent_oap;

/* Report the NEW processes, or all when full. */
void ebpf_process_report(struct agent_oap *o, bool full);
/* One keepAlive for every registered process. */
void ebpf_process_keep_alive(struct agent_oap *o);

#endif

// SPDX-License-Identifier: GPL-2.0
/* EBPFProfilingService's queryTasks; see ebpf_profiling.h. */
#include <errno.h>
#include <inttypes.h>
#include <stdint.h>

#include "agent/log.h"
#include "agent/oap/ebpf_profiling.h"
#include "agent/oap/inbox.h"
#include "agent/oap/state.h"
#include "agent/oap/rpc.h"
#include "agent/task.h"
#include "sw_ebpf_profiling.pb-c.h"

#define PATH_QUERY "/skywalking.v3.EBPFProfilingService/queryTasks"

void ebpf_profiling_query_tasks(struct agent_oap *o)
{
	Skywalking__V3__EBPFProfilingTaskQuery q = SKYWALKING__V3__EBPFPROFILING_TASK_QUERY__INIT;
	Skywalking__V3__Commands *cmds;

	q.roverinstanceid = o->agent_id;
	q.latestupdatetime = (int64_t)o->latest_update_ms;
	if (rpc_call_commands(o, "queryTasks", PATH_QUERY, &q.base, &cmds) || !cmds)
		return;
	for (size_t i = 0; i < cmds->n_commands; i++) {
		struct task_spec t;
		char err[256];
		int r = task_parse_command(cmds->commands[i], &t, err, sizeof(err));

		if (r == -ENOENT) {
			log_debug("OAP: command '%s' is not for this agent; ignored",
				  cmds->commands[i] && cmds->commands[i]->command
					  ? cmds->commands[i]->command
					  : "");
			continue;
		}
		if (r) {
			o->st.commands_rejected++;
			log_warn("OAP: rejected a task command: %s", err);
			/* A task with a readable update time is not asked for again. */
			if (t.update_ms > o->latest_update_ms)
				o->latest_update_ms = t.update_ms;
			continue;
		}
		if (t.update_ms > o->latest_update_ms)
			o->latest_update_ms = t.update_ms;
		o->st.tasks_received++;
		log_info("OAP: task %s: %s for process %s, start %" PRIu64 ", %" PRIu64 " s",
			 t.task_id, task_target_name(t.target), t.process_id, t.start_ms,
			 t.duration_s);
		if (inbox_push(o->inbox, &t))
			log_warn("OAP: out of memory queueing task %s", t.task_id);
	}
	skywalking__v3__commands__free_unpacked(cmds, NULL);
}

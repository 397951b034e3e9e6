// SPDX-License-Identifier: GPL-2.0
/* ContinuousProfilingService; see continuous_profiling.h. */
#include <pthread.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "agent/continuous.h"
#include "agent/log.h"
#include "agent/oap/continuous_profiling.h"
#include "agent/oap/inbox.h"
#include "agent/oap/state.h"
#include "agent/oap/rpc.h"
#include "agent/procs.h"
#include "agent/task.h"
#include "sw_continuous.pb-c.h"

#define PATH_POLICIES  "/skywalking.v3.ContinuousProfilingService/queryPolicies"
#define PATH_CONT_TASK "/skywalking.v3.ContinuousProfilingService/reportProfilingTask"

/* One entry per distinct service of the registered processes, with the
 * policy version held for it: the OAP answers only for changed ones. */
void continuous_profiling_query_policies(struct agent_oap *o)
{
	Skywalking__V3__ContinuousProfilingPolicyQuery q =
		SKYWALKING__V3__CONTINUOUS_PROFILING_POLICY_QUERY__INIT;
	Skywalking__V3__ContinuousProfilingServicePolicyQuery *ents = NULL, **ep = NULL;
	struct agent_procs *t = o->procs;
	char(*uuids)[128] = NULL;
	char **names = NULL;
	Skywalking__V3__Commands *cmds;
	size_t n = 0;

	pthread_mutex_lock(&t->lock);
	names = calloc(t->n ? t->n : 1, sizeof(*names));
	for (size_t i = 0; names && i < t->n; i++) {
		bool dup = false;

		if (t->v[i].state != PROC_REPORTED)
			continue;
		for (size_t k = 0; k < n && !dup; k++)
			dup = !strcmp(names[k], t->v[i].service);
		if (!dup && !(names[n++] = strdup(t->v[i].service)))
			n--;
	}
	pthread_mutex_unlock(&t->lock);
	if (!n)
		goto out;
	ents = calloc(n, sizeof(*ents));
	ep = calloc(n, sizeof(*ep));
	uuids = calloc(n, sizeof(*uuids));
	if (!ents || !ep || !uuids)
		goto out;
	for (size_t i = 0; i < n; i++) {
		skywalking__v3__continuous_profiling_service_policy_query__init(&ents[i]);
		continuous_policies_uuid(o->policies, names[i], uuids[i], sizeof(uuids[i]));
		ents[i].servicename = names[i];
		ents[i].uuid = uuids[i];
		ep[i] = &ents[i];
	}
	q.n_policies = n;
	q.policies = ep;
	if (rpc_call_commands(o, "queryPolicies", PATH_POLICIES, &q.base, &cmds) || !cmds)
		goto out;
	for (size_t i = 0; i < cmds->n_commands; i++) {
		const Skywalking__V3__Command *c = cmds->commands[i];
		const char *js = rpc_command_arg(c, "ServiceWithPolicyJSON");
		struct continuous_apply_stats st;
		char err[256];

		if (!c || !c->command || strcmp(c->command, "ContinuousProfilingPolicyQuery"))
			continue;
		if (!js) {
			log_warn("OAP: policy command without ServiceWithPolicyJSON; ignored");
			o->st.commands_rejected++;
			continue;
		}
		if (continuous_policies_apply(o->policies, js, strlen(js), NULL, &st, err,
					      sizeof(err))) {
			log_warn("OAP: continuous policies rejected: %s", err);
			o->st.commands_rejected++;
			continue;
		}
		o->st.policies_applied += st.services;
	}
	skywalking__v3__commands__free_unpacked(cmds, NULL);
out:
	for (size_t i = 0; names && i < n; i++)
		free(names[i]);
	free(names);
	free(ents);
	free(ep);
	free(uuids);
}

/* Report one fired policy; the task id of the answer becomes a task for the
 * main thread, run like a UI task. false when the call failed (retry). */
static bool report_trigger(struct agent_oap *o, const struct continuous_trigger *tr)
{
	Skywalking__V3__ContinuousProfilingReport r =
		SKYWALKING__V3__CONTINUOUS_PROFILING_REPORT__INIT;
	Skywalking__V3__ContinuousProfilingCause causes[CONTINUOUS_NR_MONITORS],
		*cp[CONTINUOUS_NR_MONITORS];
	Skywalking__V3__ContinuousProfilingSingleValueCause sv[CONTINUOUS_NR_MONITORS];
	Skywalking__V3__ContinuousOnCPUProfilingTask on =
		SKYWALKING__V3__CONTINUOUS_ON_CPUPROFILING_TASK__INIT;
	Skywalking__V3__ContinuousOffCPUProfilingTask off =
		SKYWALKING__V3__CONTINUOUS_OFF_CPUPROFILING_TASK__INIT;
	Skywalking__V3__Commands *cmds;
	struct task_spec t = { 0 };
	const char *id = NULL;

	r.layer = (char *)tr->layer;
	r.servicename = (char *)tr->service;
	r.instancename = (char *)tr->instance;
	r.processname = (char *)tr->process;
	r.duration = (int32_t)tr->duration_s;
	for (size_t i = 0; i < tr->nr_causes; i++) {
		skywalking__v3__continuous_profiling_cause__init(&causes[i]);
		skywalking__v3__continuous_profiling_single_value_cause__init(&sv[i]);
		sv[i].threshold = tr->causes[i].threshold;
		sv[i].current = tr->causes[i].current;
		causes[i].type = tr->causes[i].monitor; /* our numbers are the enum's */
		causes[i].cause_case =
			SKYWALKING__V3__CONTINUOUS_PROFILING_CAUSE__CAUSE_SINGLE_VALUE;
		causes[i].singlevalue = &sv[i];
		cp[i] = &causes[i];
	}
	r.n_causes = tr->nr_causes;
	r.causes = cp;
	if (tr->target == AGENT_TARGET_OFF_CPU) {
		r.target_task_case =
			SKYWALKING__V3__CONTINUOUS_PROFILING_REPORT__TARGET_TASK_OFF_CPU;
		r.offcpu = &off;
	} else {
		r.target_task_case =
			SKYWALKING__V3__CONTINUOUS_PROFILING_REPORT__TARGET_TASK_ON_CPU;
		r.oncpu = &on;
	}
	if (rpc_call_commands(o, "reportProfilingTask", PATH_CONT_TASK, &r.base, &cmds))
		return false;
	for (size_t i = 0; cmds && i < cmds->n_commands && !id; i++) {
		const Skywalking__V3__Command *c = cmds->commands[i];

		if (c && c->command && !strcmp(c->command, "ContinuousProfilingReportTask"))
			id = rpc_command_arg(c, "TaskId");
	}
	if (!id || !*id || strlen(id) >= sizeof(t.task_id)) {
		/* Without an id the data could not be found in the UI: do not profile. */
		log_warn("OAP: reportProfilingTask for %s (pid's process %s): no usable TaskId in "
			 "the answer; not profiling",
			 tr->process, tr->process_id);
		o->st.triggers_failed++;
	} else {
		snprintf(t.task_id, sizeof(t.task_id), "%s", id);
		snprintf(t.process_id, sizeof(t.process_id), "%s", tr->process_id);
		t.target = tr->target;
		t.trigger = TASK_TRIGGER_CONTINUOUS;
		/* the OAP stores the task with start = now and the reported duration */
		t.start_ms = t.update_ms = (uint64_t)time(NULL) * 1000;
		t.duration_s = tr->duration_s;
		o->st.triggers_reported++;
		log_info("OAP: continuous task %s: %s for process %s, %u s", t.task_id,
			 task_target_name(t.target), t.process_id, tr->duration_s);
		if (inbox_push(o->inbox, &t))
			log_warn("OAP: out of memory queueing task %s", t.task_id);
	}
	if (cmds)
		skywalking__v3__commands__free_unpacked(cmds, NULL);
	return true;
}

void continuous_profiling_report_triggers(struct agent_oap *o)
{
	struct continuous_trigger tr;

	while (continuous_trigger_pop(o->policies, &tr))
		if (!report_trigger(o, &tr)) {
			/* back in line for after the backoff; a full queue loses it (logged) */
			if (!continuous_trigger_push(o->policies, &tr))
				log_warn("continuous: trigger for %s dropped: queue full",
					 tr.process);
			break;
		}
}

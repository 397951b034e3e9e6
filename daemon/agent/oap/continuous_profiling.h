/* SPDX-License-Identifier: GPL-2.0 */
/*
 * ContinuousProfilingService: the policies of the registered processes'
 * services (queryPolicies), and the report of a policy that fired
 * (reportProfilingTask), whose answer names the task the data goes to.
 */
#ifndef SKYPROF_AGENT_OAP_CONTINUOUS_PROFILING_H
#define SKYPROF_AGENT_OAP_CONTINUOUS_PROFILING_H

struct agent_oap;

/* Ask for the policies that changed; apply them. */
void continuous_profiling_query_policies(struct agent_oap *o);
/* Report the fired policies; each answered one becomes a task in the inbox. */
void continuous_profiling_report_triggers(struct agent_oap *o);

#endif

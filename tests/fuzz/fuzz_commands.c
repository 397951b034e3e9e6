// SPDX-License-Identifier: GPL-2.0
/*
 * libFuzzer harness for the answers the OAP sends the agent, handled the
 * way agent/oap/ handles them. The first byte picks the message:
 *  even: Commands (queryTasks, queryPolicies, reportProfilingTask, keepAlive
 *        answers): every command through task_parse_command, and the
 *        arguments the continuous-profiling calls read (TaskId,
 *        ServiceWithPolicyJSON, the latter applied to a policy store);
 *  odd:  EBPFReportProcessDownstream (reportProcesses' answer), walked as
 *        the registration walks it.
 *
 * Build and run: make fuzz FUZZ_TARGETS=commands (tests/fuzz/build.mk).
 */
#include <errno.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "agent/continuous.h"
#include "agent/log.h"
#include "agent/task.h"
#include "sw_command.pb-c.h"
#include "sw_ebpf_process.pb-c.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static volatile size_t sink;

static const char *arg(const Skywalking__V3__Command *c, const char *key)
{
	for (size_t i = 0; c && i < c->n_args; i++)
		if (c->args[i] && c->args[i]->key && c->args[i]->value &&
		    !strcmp(c->args[i]->key, key))
			return c->args[i]->value;
	return NULL;
}

static void commands(const uint8_t *d, size_t n)
{
	Skywalking__V3__Commands *c = skywalking__v3__commands__unpack(NULL, n, d);
	struct continuous_policies pol;

	if (!c)
		return;
	continuous_policies_init(&pol);
	for (size_t i = 0; i < c->n_commands; i++) {
		const Skywalking__V3__Command *cmd = c->commands[i];
		struct task_spec t;
		char err[256];
		const char *s;
		int r = task_parse_command(cmd, &t, err, sizeof(err));

		if (!r) {
			/* What the runner gets must be NUL-terminated and sane. */
			if (strnlen(t.task_id, sizeof(t.task_id)) == sizeof(t.task_id) ||
			    strnlen(t.process_id, sizeof(t.process_id)) == sizeof(t.process_id) ||
			    !t.task_id[0] || !t.process_id[0])
				abort();
			sink += task_end_ms(&t) + strlen(task_target_name(t.target));
		} else if (r != -ENOENT && strnlen(err, sizeof(err)) == sizeof(err)) {
			abort();
		}
		if ((s = arg(cmd, "TaskId")))
			sink += strlen(s);
		if ((s = arg(cmd, "ServiceWithPolicyJSON"))) {
			struct continuous_apply_stats st;

			continuous_policies_apply(&pol, s, strlen(s), NULL, &st, err, sizeof(err));
		}
	}
	continuous_policies_free(&pol);
	skywalking__v3__commands__free_unpacked(c, NULL);
}

static void downstream(const uint8_t *d, size_t n)
{
	Skywalking__V3__EBPFReportProcessDownstream *r =
		skywalking__v3__ebpfreport_process_downstream__unpack(NULL, n, d);

	if (!r)
		return;
	for (size_t i = 0; i < r->n_processes; i++) {
		Skywalking__V3__EBPFProcessDownstream *p = r->processes[i];
		Skywalking__V3__EBPFProcessEntityMetadata *e;

		if (!p ||
		    p->process_case !=
			    SKYWALKING__V3__EBPFPROCESS_DOWNSTREAM__PROCESS_HOST_PROCESS ||
		    !p->hostprocess || !(e = p->hostprocess->entitymetadata))
			continue;
		sink += strlen(p->processid) + (size_t)p->hostprocess->pid;
		sink += strlen(e->layer) + strlen(e->servicename) + strlen(e->instancename) +
			strlen(e->processname);
		for (size_t l = 0; l < e->n_labels; l++)
			sink += strlen(e->labels[l]);
	}
	skywalking__v3__ebpfreport_process_downstream__free_unpacked(r, NULL);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	log_set_level(LOG_LVL_ERROR);
	if (!size)
		return 0;
	if (data[0] & 1)
		downstream(data + 1, size - 1);
	else
		commands(data + 1, size - 1);
	return 0;
}

// SPDX-License-Identifier: GPL-2.0
/* Task commands and rover's task rules; see task.h. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "agent/task.h"
#include "sw_command.pb-c.h"

static const char *arg(const Skywalking__V3__Command *c, const char *key)
{
	for (size_t i = 0; i < c->n_args; i++)
		if (c->args[i] && c->args[i]->key && !strcmp(c->args[i]->key, key))
			return c->args[i]->value ? c->args[i]->value : "";
	return NULL;
}

/* A non-negative decimal that fits 63 bits, nothing else. */
static int parse_u64(const char *s, uint64_t *out)
{
	uint64_t v = 0;

	if (!s || !*s)
		return -EINVAL;
	for (; *s; s++) {
		if (*s < '0' || *s > '9' || v > (UINT64_MAX / 2 - 9) / 10)
			return -EINVAL;
		v = v * 10 + (uint64_t)(*s - '0');
	}
	*out = v;
	return 0;
}

int task_parse_command(const Skywalking__V3__Command *cmd, struct task_spec *out, char *err,
		       size_t errlen)
{
	static const char *const required[] = {
		"TaskId",     "ProcessId",     "TaskUpdateTime",     "TriggerType",
		"TargetType", "TaskStartTime", "ExtensionConfigJSON"
	};
	const char *v;

	memset(out, 0, sizeof(*out));
	if (!cmd || !cmd->command || strcmp(cmd->command, TASK_COMMAND_NAME))
		return -ENOENT;
	for (size_t i = 0; i < sizeof(required) / sizeof(required[0]); i++)
		if (!arg(cmd, required[i])) {
			snprintf(err, errlen, "missing argument %s", required[i]);
			return -EINVAL;
		}
	v = arg(cmd, "TaskId");
	if (!*v || strlen(v) >= sizeof(out->task_id)) {
		snprintf(err, errlen, "TaskId '%.64s' is empty or too long", v);
		return -EINVAL;
	}
	snprintf(out->task_id, sizeof(out->task_id), "%s", v);

	v = arg(cmd, "TargetType");
	if (!strcmp(v, "ON_CPU")) {
		out->target = AGENT_TARGET_ON_CPU;
	} else if (!strcmp(v, "OFF_CPU")) {
		out->target = AGENT_TARGET_OFF_CPU;
	} else if (!strcmp(v, "NETWORK")) {
		snprintf(err, errlen, "TargetType NETWORK is not supported by skyprof");
		return -EINVAL;
	} else {
		snprintf(err, errlen, "unknown TargetType '%.32s'", v);
		return -EINVAL;
	}

	v = arg(cmd, "TriggerType");
	if (strcmp(v, "FIXED_TIME")) {
		snprintf(err, errlen,
			 "unknown TriggerType '%.32s' (queryTasks only hands out "
			 "FIXED_TIME)",
			 v);
		return -EINVAL;
	}
	out->trigger = TASK_TRIGGER_FIXED_TIME;

	v = arg(cmd, "ProcessId");
	if (!*v || strchr(v, ',') || strlen(v) >= sizeof(out->process_id)) {
		snprintf(err, errlen, "ProcessId '%.80s': an %s task takes exactly one process", v,
			 task_target_name(out->target));
		return -EINVAL;
	}
	snprintf(out->process_id, sizeof(out->process_id), "%s", v);

	if (parse_u64(arg(cmd, "TaskStartTime"), &out->start_ms)) {
		snprintf(err, errlen, "TaskStartTime '%.32s' is not a time in ms",
			 arg(cmd, "TaskStartTime"));
		return -EINVAL;
	}
	if (parse_u64(arg(cmd, "TaskUpdateTime"), &out->update_ms)) {
		snprintf(err, errlen, "TaskUpdateTime '%.32s' is not a time in ms",
			 arg(cmd, "TaskUpdateTime"));
		return -EINVAL;
	}
	v = arg(cmd, "FixedTriggerDuration");
	if (!v) {
		snprintf(err, errlen, "missing argument FixedTriggerDuration (FIXED_TIME task)");
		return -EINVAL;
	}
	if (parse_u64(v, &out->duration_s) || !out->duration_s || out->duration_s > 7 * 86400) {
		snprintf(err, errlen, "FixedTriggerDuration '%.32s' is not 1 s to 7 days", v);
		return -EINVAL;
	}
	/* ExtensionConfigJSON is the network sampling config; for CPU tasks the
	 * OAP sends the literal "null", and nothing in it applies to us. */
	return 0;
}

uint64_t task_end_ms(const struct task_spec *t)
{
	return t->start_ms + t->duration_s * 1000;
}

bool task_same_key(const struct task_spec *a, const struct task_spec *b)
{
	return a->target == b->target && a->trigger == b->trigger &&
	       !strcmp(a->process_id, b->process_id);
}

enum task_decision task_decide(const struct task_spec *held, const struct task_spec *incoming,
			       uint64_t now_ms)
{
	if (now_ms > task_end_ms(incoming))
		return TASK_EXPIRED;
	if (!held)
		return TASK_NEW;
	if (!strcmp(held->task_id, incoming->task_id) && held->start_ms == incoming->start_ms)
		return TASK_EXTEND;
	return TASK_REPLACE;
}

const char *task_target_name(int target)
{
	switch (target) {
	case AGENT_TARGET_ON_CPU:
		return "ON_CPU";
	case AGENT_TARGET_OFF_CPU:
		return "OFF_CPU";
	default:
		return "NONE";
	}
}

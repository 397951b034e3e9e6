/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Profiling tasks as the OAP hands them out: the EBPFProfilingTaskQuery
 * command parsed and checked (everything in it comes off the network), and
 * rover's rules for what a task that arrives means for the ones we hold.
 * Pure functions over plain structs, so every rule is unit-tested.
 */
#ifndef SKYPROF_AGENT_TASK_H
#define SKYPROF_AGENT_TASK_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "agent/config.h"

struct Skywalking__V3__Command;

#define TASK_ID_MAX 128

enum task_trigger {
	TASK_TRIGGER_FIXED_TIME,
	TASK_TRIGGER_CONTINUOUS, /* reportProfilingTask (issue 8) */
	TASK_TRIGGER_LOCAL,	 /* the embedded default's schedule */
};

/* One task for one process: what the runner needs. */
struct task_spec {
	char task_id[TASK_ID_MAX];
	char process_id[TASK_ID_MAX];
	int target;	     /* enum agent_target */
	int trigger;	     /* enum task_trigger */
	uint64_t start_ms;   /* TaskStartTime, ms epoch */
	uint64_t update_ms;  /* TaskUpdateTime */
	uint64_t duration_s; /* FixedTriggerDuration */
};

#define TASK_COMMAND_NAME "EBPFProfilingTaskQuery"

/*
 * Parse one command. 0 and *out; -ENOENT for a command of another name
 * (not ours to judge); -EINVAL with the reason in err for a malformed one:
 * a missing argument, a bad number, an unknown TargetType or TriggerType,
 * NETWORK (not supported), or not exactly one ProcessId.
 */
int task_parse_command(const struct Skywalking__V3__Command *cmd, struct task_spec *out, char *err,
		       size_t errlen);

/* When the task ends: start + duration. */
uint64_t task_end_ms(const struct task_spec *t);

/* Rover keys tasks by (process ids, target, trigger). */
bool task_same_key(const struct task_spec *a, const struct task_spec *b);

enum task_decision {
	TASK_EXPIRED, /* over already: drop it */
	TASK_NEW,     /* nothing held on its key: schedule it */
	TASK_EXTEND,  /* the same task again: move its end */
	TASK_REPLACE, /* another task on the same key: stop the held one first */
};

/* held: the task held on incoming's key, or NULL. */
enum task_decision task_decide(const struct task_spec *held, const struct task_spec *incoming,
			       uint64_t now_ms);

const char *task_target_name(int target);

#endif

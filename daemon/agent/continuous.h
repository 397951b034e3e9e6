/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Continuous profiling as SkyWalking means it (docs/agent.md, "Continuous
 * profiling", has the protocol's side): per-service policies from the OAP
 * (queryPolicies' ServiceWithPolicyJSON) or from the local config, local metrics sampled
 * every second from /proc, and a trigger when at least Count of the last
 * Period one-second windows reach a threshold.
 *
 * Split so the rules are testable without a process or an OAP:
 *  - continuous_policies_apply(): JSON (text or the reader's value) -> policy
 *    store (validation, deletion);
 *  - continuous_parse_stat() / continuous_cpu_percent() / continuous_parse_loadavg(): /proc;
 *  - continuous_window_*: the Period/Count evaluation.
 * The store is shared by the OAP thread (writes policies, reads UUIDs, sends
 * trigger reports) and the main thread (evaluates, queues triggers), so it
 * has a lock; the per-process metric state is the main thread's alone.
 */
#ifndef SKYPROF_AGENT_CONTINUOUS_H
#define SKYPROF_AGENT_CONTINUOUS_H

#include <pthread.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* The monitor types we measure; the numbers are the proto enum's. */
enum continuous_monitor {
	CONTINUOUS_PROCESS_CPU = 0,
	CONTINUOUS_THREAD_COUNT = 1,
	CONTINUOUS_SYSTEM_LOAD = 2,
	CONTINUOUS_NR_MONITORS,
};

/* Targets a policy can name that we run: index 0 ON_CPU, 1 OFF_CPU. */
#define CONTINUOUS_NR_TARGETS 2

/* Longest Period accepted (one-second windows kept per process). */
#define CONTINUOUS_WINDOW_MAX 600

struct continuous_item {
	bool set;
	double threshold;
	uint32_t period, count;
};

struct continuous_policy {
	char *service;
	char *uuid;
	struct continuous_item items[CONTINUOUS_NR_TARGETS][CONTINUOUS_NR_MONITORS];
};

struct continuous_apply_stats {
	unsigned int services;	  /* entries applied (set or deleted) */
	unsigned int deleted;	  /* entries with an empty UUID */
	unsigned int items;	  /* check items taken */
	unsigned int rejected;	  /* entries or items refused (each logged) */
	unsigned int unsupported; /* NETWORK / HTTP_* items (each logged) */
};

/* A fired policy on its way to reportProfilingTask (main -> OAP thread). */
struct continuous_trigger {
	char layer[64], service[256], instance[256], process[256];
	char process_id[128];
	int target; /* enum agent_target */
	uint32_t duration_s;
	size_t nr_causes;
	struct {
		int monitor;
		double threshold, current;
	} causes[CONTINUOUS_NR_MONITORS];
};

#define CONTINUOUS_MAX_TRIGGERS 32

struct continuous_policies {
	pthread_mutex_t lock;
	struct continuous_policy *v;
	size_t n;
	/* fired, not reported yet; bounded so a dead OAP cannot grow it */
	struct continuous_trigger triggers[CONTINUOUS_MAX_TRIGGERS];
	size_t nr_triggers;
};

/* Queue a trigger for the OAP thread; false when the queue is full. Locks. */
bool continuous_trigger_push(struct continuous_policies *p, const struct continuous_trigger *t);
/* Take the oldest; false when none. Locks. */
bool continuous_trigger_pop(struct continuous_policies *p, struct continuous_trigger *out);

void continuous_policies_init(struct continuous_policies *p);
void continuous_policies_free(struct continuous_policies *p);

/*
 * Apply a ServiceWithPolicyJSON array. Invalid JSON: -EINVAL with the
 * reason in err, nothing changes. Otherwise each entry is applied on its
 * own: an entry with an empty UUID deletes that service's policy; invalid
 * items are logged and skipped while the valid ones of the same entry
 * apply. default_uuid fills a missing UUID (the local config has none);
 * NULL makes a missing UUID an error for that entry. Locks.
 */
int continuous_policies_apply(struct continuous_policies *p, const char *json, size_t len,
			      const char *default_uuid, struct continuous_apply_stats *st,
			      char *err, size_t errlen);
/* The same, from the value the JSON reader gives (the config's YAML policies). */
struct json;
int continuous_policies_apply_value(struct continuous_policies *p, const struct json *root,
				    const char *default_uuid, struct continuous_apply_stats *st,
				    char *err, size_t errlen);

/* A copy of the service's policy (false when none). Locks. */
bool continuous_policies_get(struct continuous_policies *p, const char *service,
			     struct continuous_policy *out);

/* The UUID held for service, "" when none, into out. Locks. */
void continuous_policies_uuid(struct continuous_policies *p, const char *service, char *out,
			      size_t outlen);

/* --- /proc ----------------------------------------------------------------------- */

/*
 * /proc/PID/stat: utime + stime (clock ticks) and num_threads. The command
 * name may hold spaces and ')' so fields are counted from the last ')'.
 */
int continuous_parse_stat(const char *buf, uint64_t *ticks, uint32_t *threads);
/* /proc/loadavg: load1. */
int continuous_parse_loadavg(const char *buf, double *load1);
/*
 * CPU % over the interval between two stat reads: 100 = one core busy the
 * whole time (so a process on 2 cores can show 200). Not a lifetime
 * average: a process that idled for an hour and spins now shows ~100.
 */
double continuous_cpu_percent(uint64_t prev_ticks, uint64_t cur_ticks, long clk_tck,
			      uint64_t elapsed_ms);

/* --- windows --------------------------------------------------------------------- */

/* The last CONTINUOUS_WINDOW_MAX one-second values of one metric, newest last. */
struct continuous_window {
	double v[CONTINUOUS_WINDOW_MAX];
	size_t head, n;
};

void continuous_window_push(struct continuous_window *w, double v);
/*
 * Rover's rule: at least count of the last period values are >= threshold.
 * With fewer than period values collected it does not fire yet (a process
 * seen for 2 s cannot have 3 of 5 windows over). *current: the newest value
 * that reached the threshold (what the UI shows as the cause).
 */
bool continuous_window_fires(const struct continuous_window *w, double threshold, uint32_t period,
			     uint32_t count, double *current);
/* The newest value (0 when empty). */
double continuous_window_last(const struct continuous_window *w);

const char *continuous_monitor_name(int m);
/* "process_cpu", ...: the meter suffix. */
const char *continuous_meter_suffix(int m);

#endif

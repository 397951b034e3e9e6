/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Process discovery for hosts, as rover 0.5's REGEX scanner: every
 * scanner.period the agent reads /proc, matches each process's command line
 * against the finders in order, and names the first match's entity from
 * the finder's templates. Entities are unique (the first pid wins), a pid
 * is tracked with its start time so a reused pid is a new process, and an
 * exited process is dropped.
 *
 * The table is shared by the main thread (scans, task lookups) and the OAP
 * thread (reports, keepAlive), so every access holds its lock.
 */
#ifndef SKYPROF_AGENT_PROCS_H
#define SKYPROF_AGENT_PROCS_H

#include <pthread.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "agent/entity.h"

struct agent_config;
struct template_host;

enum proc_state {
	PROC_NEW,      /* not reported yet */
	PROC_REPORTED, /* the OAP answered with its process id */
	PROC_IGNORED,  /* reported, but the OAP did not echo it back */
};

struct agent_proc {
	uint32_t pid;
	uint64_t start_time; /* /proc/PID/stat field 22: pid reuse detection */
	char *exe_path, *exe_name, *cmdline;
	char *layer, *service, *instance, *process;
	char **labels; /* sorted, as rover compares them */
	size_t nr_labels;
	bool support_profiling; /* ELF with symbols, not an interpreter (rover's rule) */
	int state;		/* enum proc_state */
	char process_id[ENTITY_ID_LEN + 1];  /* from the OAP */
	char expected_id[ENTITY_ID_LEN + 1]; /* our formula, for the cross-check */
	bool seen;			     /* in the current scan */
};

struct agent_procs {
	pthread_mutex_t lock;
	struct agent_proc *v;
	size_t n, cap;
	uint32_t self;	       /* our own pid, never a target */
	const char *proc_root; /* "/proc" unless testing */
};

void procs_init(struct agent_procs *t, const char *proc_root);
void procs_free(struct agent_procs *t);

/*
 * One scan. Returns how many processes were added (logged at info) or
 * -errno when /proc cannot be read.
 */
int procs_scan(struct agent_procs *t, const struct agent_config *c, const struct template_host *h);

/* The pid of the reported process with this OAP id; 0 when none. Locks. */
uint32_t procs_pid_of(struct agent_procs *t, const char *process_id);

/* Every process back to NEW: after a reconnect, the OAP may have forgotten them. */
void procs_mark_all_new(struct agent_procs *t);

/*
 * The pieces, for tests: the command line from /proc/PID/cmdline bytes (NUL
 * separated, maybe without the final NUL), and rover's interpreter rule.
 */
char *procs_cmdline_from(const char *buf, size_t len);
/* /proc/PID/stat's start time (field 22, clock ticks since boot); 0 if none. */
uint64_t procs_start_time_from(const char *buf);
bool procs_exe_name_supported(const char *exe_name);

#endif

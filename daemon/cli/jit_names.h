/* SPDX-License-Identifier: GPL-2.0 */
/*
 * JIT frames' names in `record` and `top`. The JVMs among the processes
 * being profiled (-p, -t's, a --cgroup's, the command and what it starts;
 * not -a's: every JVM of the host is not signalled for a system-wide
 * profile) are asked for their perf maps while the session runs
 * (proc/jvm_ask.h), unless --no-jvm-attach; each answer goes into the
 * symbolizer as it comes, so a JVM that exits is still named. At the end
 * of a record, one note per process with JIT frames says what is still
 * missing: a perf map, and how its runtime writes one; or, for a JVM whose
 * frames are named, frame pointers for whole stacks.
 */
#ifndef SKYPROF_CLI_JIT_NAMES_H
#define SKYPROF_CLI_JIT_NAMES_H

#include <stdbool.h>
#include <stdint.h>

struct ingest;
struct record_opts;
struct symbolizer;
struct jit_names;

/*
 * NULL when no JVM is to be asked (--no-jvm-attach, -a) or without memory.
 * cmd_pid: the command's process (0: none). The lines it has to say go to
 * stderr with to_stderr (record), else only to jit_names_last (top).
 */
struct jit_names *jit_names_new(struct symbolizer *sym, struct ingest *in,
				const struct record_opts *o, uint32_t cmd_pid, bool to_stderr);
void jit_names_free(struct jit_names *jn);

/* Between two reads of the rings: never waits. left_ns: time to the planned
 * end, UINT64_MAX for none. jn may be NULL (so for the rest). */
void jit_names_poll(struct jit_names *jn, uint64_t left_ns);
/* The session is over: with wait, each JVM still running is asked once
 * more and waited for (bounded), before the profile is symbolized. */
void jit_names_finish(struct jit_names *jn, bool wait);
/* The last line said ("" none), for top's header. */
const char *jit_names_last(const struct jit_names *jn);

/* record's notes after the outputs, for every process with JIT frames. */
void jit_names_notes(const struct jit_names *jn, struct symbolizer *sym);

#endif

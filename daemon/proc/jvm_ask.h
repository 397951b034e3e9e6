/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The JVMs being profiled, asked for the names of their JIT-compiled code
 * while they run, so that a JVM started without profiling flags (no
 * -XX:+DumpPerfMapAtExit, no agent) gets its Java frames named without a
 * restart: record, top and the agent's tasks alike.
 *
 * A process added here is probed once (proc/jvm_probe.h): one that is not a
 * HotSpot JVM, or that writes its own perf map (an agent inside holds it
 * open), is left alone. A JVM is asked over its attach mechanism
 * (proc/jvm_attach.h) for Compiler.perfmap, which makes it write
 * /tmp/perf-NSPID.map (JDK 17+); on a JVM that does not know the command
 * (JDK 9 to 16) for Compiler.codelist, whose answer lists its compiled
 * methods with their addresses (JDK 8 has neither). It is asked again while
 * its compiled code grows: the next request comes INTERVAL_MIN after an
 * answer that grew (by 1/32: a batch of compilations), twice as late after
 * one that did not (up to INTERVAL_MAX), and INTERVAL_MIN after the last
 * one when a sample ran JIT code no answer named (jvm_ask_unnamed); once
 * more shortly before a planned end, and at the end (jvm_ask_finish). A
 * JVM that exits is covered by its last answer.
 *
 * A JVM that refuses, does not answer in time, or runs with
 * -XX:+DisableAttachMechanism costs the run one line (hooks.say) and is
 * not asked again. Nothing here blocks but jvm_ask_finish.
 */
#ifndef SKYPROF_PROC_JVM_ASK_H
#define SKYPROF_PROC_JVM_ASK_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "proc/jvm_probe.h"
#include "proc/jvm_reply.h"

#define JVM_ASK_INTERVAL_MIN_NS 2000000000ull
#define JVM_ASK_INTERVAL_MAX_NS 60000000000ull
#define JVM_ASK_END_LEAD_NS	3000000000ull /* the last request before a planned end */

struct jvm_ask_hooks {
	void *arg;
	/* One line for the user, without a prefix or a newline. */
	void (*say)(void *arg, const char *line);
	/*
	 * pid answered: it wrote its perf map anew (methods NULL), or listed
	 * its n compiled methods (Compiler.codelist; valid during the call).
	 */
	void (*answered)(void *arg, uint32_t pid, const struct jvm_method *methods, size_t n);
};

struct jvm_ask;

/* proc_root NULL: "/proc". NULL on -ENOMEM. */
struct jvm_ask *jvm_ask_new(const char *proc_root, const struct jvm_ask_hooks *hooks);
void jvm_ask_free(struct jvm_ask *j);

/*
 * pid is being profiled: it is probed at the next poll and asked if it is a
 * JVM (the java launcher, before it has loaded libjvm.so, is looked at again
 * for 30 s: a process called java, or with libjli.so mapped). gen: its image's generation as the
 * caller numbers them (proc/follow.h; 0 when unknown): a newer one (an exec) is probed anew. A pid
 * already added costs a hash lookup. 0 or -ENOMEM.
 */
int jvm_ask_add(struct jvm_ask *j, uint32_t pid, uint16_t gen);

/* Is pid a JVM that answered and is asked again (jvm_ask_unnamed matters)? */
bool jvm_ask_asking(const struct jvm_ask *j, uint32_t pid);

/*
 * pid ran JIT code that its answers so far do not name (a method compiled
 * since the last one): it is asked again as soon as INTERVAL_MIN after that
 * answer allows, however long the interval had grown.
 */
void jvm_ask_unnamed(struct jvm_ask *j, uint32_t pid);

/*
 * Probes what was added, steps the requests in flight and starts those due;
 * never waits. left_ns: the time left until a planned end (UINT64_MAX: none
 * planned), which each JVM is asked once more shortly before.
 */
void jvm_ask_poll(struct jvm_ask *j, uint64_t left_ns);

/*
 * The run ends. wait: the requests in flight are waited for, and each JVM
 * still running that answered before is asked once more and waited for
 * (every wait bounded, proc/jvm_attach.h); else those in flight are
 * dropped. Then one line for each JVM that answered: how often, and how
 * long a request took.
 */
void jvm_ask_finish(struct jvm_ask *j, bool wait);

/* What came of pid, for the notes at the end of a run. */
struct jvm_ask_result {
	bool jvm;      /* a HotSpot JVM */
	bool answered; /* at least once */
	bool own_map;  /* it writes its own perf map: not asked */
	enum jvm_flag preserve_fp;
	char why[192]; /* why it was not asked or did not answer; "" */
};
/* false: pid was never added or is not a JVM. */
bool jvm_ask_result(const struct jvm_ask *j, uint32_t pid, struct jvm_ask_result *out);

#endif

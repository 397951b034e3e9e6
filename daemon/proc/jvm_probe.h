/* SPDX-License-Identifier: GPL-2.0 */
/*
 * What asking a process for its JIT names over HotSpot's attach mechanism
 * (proc/jvm_attach.h) takes to know of it, read from /proc while it lives:
 * whether it is a HotSpot JVM at all (libjvm.so mapped, and not OpenJ9's,
 * whose SIGQUIT writes a javacore file), its ids and pid in its own
 * namespace, whether SIGQUIT has a handler (sent to a process without one,
 * it kills it), the -XX flags its command line and environment give, and
 * whether it holds its own perf map open (an agent in the JVM writes it as
 * code is compiled: asking would rewrite it under the agent).
 */
#ifndef SKYPROF_PROC_JVM_PROBE_H
#define SKYPROF_PROC_JVM_PROBE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "proc/ident.h"

/* A boolean -XX flag as given: -XX:+Name, -XX:-Name, or not at all. */
enum jvm_flag {
	JVM_FLAG_UNSET = 0,
	JVM_FLAG_ON = 1,
	JVM_FLAG_OFF = -1,
};

struct jvm_probe {
	bool hotspot;	   /* a HotSpot libjvm.so is mapped */
	bool launcher;	   /* not yet, but the java launcher is (libjli.so, or exe java) */
	bool quit_caught;  /* SIGQUIT has a handler and is not ignored */
	bool map_open;	   /* it holds /tmp/perf-NSPID.map open */
	bool own_mntns;	   /* in our mount namespace: its /tmp is ours */
	uint32_t nspid;	   /* as it sees itself (innermost NSpid) */
	uint32_t uid, gid; /* effective */
	enum jvm_flag disable_attach; /* -XX:+DisableAttachMechanism */
	enum jvm_flag preserve_fp;    /* -XX:+PreserveFramePointer */
	struct proc_ident ident;
	char comm[16];
};

/* proc_root NULL: "/proc". 0, or -errno (-ESRCH: gone). */
int jvm_probe_read(const char *proc_root, uint32_t pid, struct jvm_probe *out);

/*
 * The pieces, for tests. _status: Uid, Gid, NSpid and the SIGQUIT bits of
 * /proc/PID/status as text (out's other fields untouched; nspid stays 0
 * without NSpid, as on 3.10). 0 or -EINVAL.
 */
int jvm_probe_status(const char *text, size_t len, struct jvm_probe *out);
/*
 * flag (a name without -XX:+) as the JVM would take it from its command
 * line (/proc/PID/cmdline: NUL-separated, the JVM's options before the main
 * class or -jar), and env (/proc/PID/environ) : JAVA_TOOL_OPTIONS, then
 * JDK_JAVA_OPTIONS, the command line and _JAVA_OPTIONS, the last one given
 * winning. Either may be NULL.
 */
enum jvm_flag jvm_probe_flag(const char *cmdline, size_t cmd_len, const char *env, size_t env_len,
			     const char *flag);
/* What path (a mapping's) is: HotSpot's libjvm.so (1), OpenJ9's VM (-1),
 * the java launcher's libjli.so (2: a JVM is about to be loaded), or none (0). */
int jvm_probe_library(const char *path);

#endif

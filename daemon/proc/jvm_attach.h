/* SPDX-License-Identifier: GPL-2.0 */
/*
 * One request to a HotSpot JVM over its attach mechanism, made the way jcmd
 * makes it, without blocking the caller (each step does what can be done
 * now; jvm_attach_wait steps until the end):
 *
 *  1. The JVM listens on the UNIX socket /tmp/.java_pid<NSPID> once its
 *     attach listener runs. If the socket is not there, the file
 *     /tmp/.attach_pid<NSPID> (else in its working directory) is created
 *     and the JVM is sent SIGQUIT: its signal handler finds the file and
 *     starts the listener. Sent only when /proc says SIGQUIT has a handler
 *     (without one the signal kills), only while the pid is still the
 *     image asked for, and once per request; the file is removed after.
 *  2. Connect, with our effective uid and gid switched to the JVM's for the
 *     connect(): the JVM takes the peer's credentials (SO_PEERCRED) and
 *     answers only its own user (JDK 8) or root too (JDK 11+). The switch
 *     is this thread's only (raw setresuid/setresgid, not glibc's, which
 *     would switch every thread), and undone at once. The trigger file is
 *     created under the JVM's ids too: a directory of the JVM's cannot make
 *     us write where its user could not.
 *  3. Send "1\0jcmd\0COMMAND\0\0\0" (protocol version 1, the "jcmd"
 *     operation, its three arguments), read the answer until the JVM
 *     closes the connection (proc/jvm_reply.h).
 *
 * A JVM in a container is reached through /proc/PID/root (its /tmp) and
 * /proc/PID/cwd, and named by the pid it sees (NSpid); the signal goes to
 * the pid in ours. Each wait is bounded: the socket must appear within
 * JVM_ATTACH_SOCKET_NS of the signal, the answer within JVM_ATTACH_ANSWER_NS
 * of the connect.
 */
#ifndef SKYPROF_PROC_JVM_ATTACH_H
#define SKYPROF_PROC_JVM_ATTACH_H

#include <limits.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "proc/ident.h"
#include "proc/jvm_probe.h"

#define JVM_ATTACH_SOCKET_NS  10000000000ull /* as jcmd's default attach timeout */
#define JVM_ATTACH_ANSWER_NS  10000000000ull
#define JVM_ATTACH_ANSWER_MAX (64u << 20)

struct jvm_attach_target {
	uint32_t pid;		       /* in our pid namespace: where the signal goes */
	uint32_t nspid;		       /* its own: names its files */
	uint32_t uid, gid;	       /* its effective ids */
	struct proc_ident ident;       /* signalled only while pid is still this image */
	char tmp_dir[PATH_MAX];	       /* its /tmp as we reach it */
	char cwd_dir[PATH_MAX];	       /* its working directory as we reach it; "" none */
	const char *proc_root;	       /* "/proc" unless testing */
	uint64_t socket_ns, answer_ns; /* 0: the defaults above */
};

/* The target for pid as proc/jvm_probe.h read it (own_mntns: its /tmp is
 * ours, else /proc/PID/root/tmp). false: a path did not fit. */
bool jvm_attach_target_of(struct jvm_attach_target *t, const char *proc_root, uint32_t pid,
			  const struct jvm_probe *p);

enum jvm_attach_state {
	JVM_ATTACH_PENDING = 0,
	JVM_ATTACH_DONE = 1,	/* answer, answer_len: what it said */
	JVM_ATTACH_FAILED = -1, /* why, err */
};

enum jvm_attach_why {
	JVM_WHY_NONE = 0,
	JVM_WHY_NO_HANDLER, /* no socket, and SIGQUIT has no handler (yet): not sent */
	JVM_WHY_GONE,	    /* the process exited, or the pid is another image */
	JVM_WHY_NO_SOCKET,  /* signalled, no socket within socket_ns */
	JVM_WHY_BAD_SOCKET, /* the socket is not the JVM's user's */
	JVM_WHY_CONNECT,    /* connect() failed */
	JVM_WHY_CLOSED,	    /* closed without an answer (refused our credentials) */
	JVM_WHY_TIMEOUT,    /* no (complete) answer within answer_ns */
	JVM_WHY_IO,	    /* another error (memory, a system call) */
};

struct jvm_attach {
	struct jvm_attach_target t;
	int phase; /* jvm_attach.c's */
	int fd;
	char request[320];
	size_t req_len, req_off;
	char *answer;
	size_t answer_len, answer_cap;
	uint64_t deadline_ns;
	bool signalled;
	char trigger[PATH_MAX]; /* the file we made, "" none */
	enum jvm_attach_why why;
	char err[192];
};

/*
 * Starts a request of command (a diagnostic command: "Compiler.perfmap")
 * to t's JVM. The first step runs now. Returns its state.
 */
enum jvm_attach_state jvm_attach_begin(struct jvm_attach *a, const struct jvm_attach_target *t,
				       const char *command, uint64_t now_ns);
/* What can be done now; the state. */
enum jvm_attach_state jvm_attach_step(struct jvm_attach *a, uint64_t now_ns);
/* Steps until the request is done or failed (bounded by its deadlines). */
enum jvm_attach_state jvm_attach_wait(struct jvm_attach *a);
/* Closes the connection, removes a trigger file left, frees the answer. */
void jvm_attach_end(struct jvm_attach *a);

#endif

/* SPDX-License-Identifier: GPL-2.0 */
/*
 * What a HotSpot JVM answers on its attach socket (proc/jvm_attach.h), read
 * as untrusted input: whatever listens on the socket wrote it.
 *
 * An answer is the operation's result as a decimal number on a line of its
 * own (0 done, -1 the command failed, 101 a protocol version the JVM does
 * not speak), then the command's output. Compiler.perfmap (JDK 17+) has no
 * output: it wrote /tmp/perf-PID.map. Compiler.codelist (JDK 9+; JDK 11 has
 * no Compiler.perfmap) prints one line per compiled method alive:
 *   ID LEVEL STATE NAME [0xHEADER, 0xCODE_BEGIN - 0xCODE_END]
 * (JDK 9 and 10 without STATE), NAME as the JVM's name_and_sig_as_C_string
 * writes it: "java.lang.String.hashCode()I", the signature in descriptor
 * form. JDK 8 has neither command.
 */
#ifndef SKYPROF_PROC_JVM_REPLY_H
#define SKYPROF_PROC_JVM_REPLY_H

#include <stddef.h>
#include <stdint.h>

#define JVM_REPLY_BAD_VERSION 101

struct jvm_reply {
	int status;	  /* the result line's number */
	const char *text; /* the output after it, in the caller's buffer */
	size_t len;
};

/* 0, or -EINVAL when buf does not start with a result line. */
int jvm_reply_parse(const char *buf, size_t len, struct jvm_reply *out);

/*
 * The output's first non-empty line, for a message: at most n - 1 bytes,
 * anything but printable ASCII replaced by '?'; "" when there is none.
 */
void jvm_reply_first_line(const struct jvm_reply *r, char *out, size_t n);

/* A compiled method of Compiler.codelist: [start, end) and its name. */
struct jvm_method {
	uint64_t start, end;
	const char *name; /* NUL-terminated; valid during the callback only */
};

/*
 * Calls fn for each well-formed Compiler.codelist line of text[0..len)
 * (others are skipped), its name written as Compiler.perfmap writes it
 * ("int java.lang.String.hashCode()") when the descriptor parses. Returns
 * how many lines fn took, or fn's first negative return.
 */
int jvm_reply_codelist(const char *text, size_t len,
		       int (*fn)(void *arg, const struct jvm_method *m), void *arg);

/*
 * "Class.method(DESCRIPTOR)RET" -> "RET Class.method(T1, T2)" in out[n].
 * Returns the length, or -EINVAL (out then holds the name as it came, cut
 * to fit) when it is not of that form.
 */
int jvm_reply_method_name(const char *in, size_t len, char *out, size_t n);

#endif

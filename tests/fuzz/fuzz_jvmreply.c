// SPDX-License-Identifier: GPL-2.0
/*
 * libFuzzer harness for what a JVM answers on its attach socket
 * (proc/jvm_reply.h): whatever listens on /tmp/.java_pid<PID> wrote it,
 * so it is untrusted. The input is parsed as an answer (result line, first
 * line for a message), its output as Compiler.codelist's lines, each name
 * turned from its descriptor, and the whole input as a descriptor too.
 *
 * Build and run: make fuzz FUZZ_TARGETS=jvmreply (tests/fuzz/build.mk).
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "proc/jvm_reply.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static int take(void *arg, const struct jvm_method *m)
{
	size_t *n = arg;

	/* what the callback is given must be a string in bounds, a range */
	*n += strlen(m->name);
	if (m->end <= m->start)
		abort();
	return 0;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	const char *buf = (const char *)data;
	struct jvm_reply r;
	char line[160], name[64];
	size_t n = 0;

	if (!jvm_reply_parse(buf, size, &r)) {
		jvm_reply_first_line(&r, line, sizeof(line));
		if (strlen(line) >= sizeof(line))
			abort();
		jvm_reply_codelist(r.text, r.len, take, &n);
	}
	jvm_reply_codelist(buf, size, take, &n);
	jvm_reply_method_name(buf, size, name, sizeof(name));
	if (strlen(name) >= sizeof(name))
		abort();
	return 0;
}

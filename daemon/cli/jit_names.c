// SPDX-License-Identifier: GPL-2.0
/* JIT frames' names in record and top (jit_names.h). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "cli/jit_names.h"
#include "cli/options.h"
#include "proc/jvm_ask.h"
#include "profile/ingest.h"
#include "sym/symbolizer.h"

struct jit_names {
	struct symbolizer *sym;
	struct jvm_ask *ask;
	bool to_stderr, tty;
	char last[512];
};

static void say(void *arg, const char *line)
{
	struct jit_names *jn = arg;

	snprintf(jn->last, sizeof(jn->last), "%s", line);
	if (jn->to_stderr)
		fprintf(stderr, "%sskyprof: %s\n", jn->tty ? "\r\033[K" : "", line);
}

static void answered(void *arg, uint32_t pid, const struct jvm_method *m, size_t n)
{
	struct jit_names *jn = arg;

	if (m)
		symbolizer_jit_add(jn->sym, pid, m, n);
	else
		symbolizer_jit_reread(jn->sym, pid);
}

struct jit_names *jit_names_new(struct symbolizer *sym, struct ingest *in,
				const struct record_opts *o, uint32_t cmd_pid, bool to_stderr)
{
	struct jit_names *jn;
	struct jvm_ask_hooks h = { .say = say, .answered = answered };

	if (o->no_jvm_attach || o->capture.target == TARGET_ALL)
		return NULL;
	jn = calloc(1, sizeof(*jn));
	if (!jn)
		return NULL;
	h.arg = jn;
	jn->sym = sym;
	jn->to_stderr = to_stderr;
	jn->tty = to_stderr && isatty(STDERR_FILENO);
	jn->ask = jvm_ask_new(NULL, &h);
	if (!jn->ask) {
		free(jn);
		return NULL;
	}
	/* the named ones are probed at once; every other sampled process
	 * (the command's children, a cgroup's tasks) as it is met */
	for (uint32_t i = 0; i < o->capture.nr_pids; i++)
		jvm_ask_add(jn->ask, o->capture.pids[i], 0);
	if (cmd_pid)
		jvm_ask_add(jn->ask, cmd_pid, 0);
	ingest_ask_jvms(in, jn->ask, true);
	return jn;
}

void jit_names_free(struct jit_names *jn)
{
	if (!jn)
		return;
	jvm_ask_free(jn->ask);
	free(jn);
}

void jit_names_poll(struct jit_names *jn, uint64_t left_ns)
{
	if (jn)
		jvm_ask_poll(jn->ask, left_ns);
}

void jit_names_finish(struct jit_names *jn, bool wait)
{
	if (jn)
		jvm_ask_finish(jn->ask, wait);
}

const char *jit_names_last(const struct jit_names *jn)
{
	return jn ? jn->last : "";
}

#define NOTES_MAX 4

struct notes {
	const struct jit_names *jn;
	unsigned int shown, more;
};

/* How the runtime of exe (a basename) writes a perf map. */
static const char *how_to_map(const char *base, bool asked)
{
	if (!strcmp(base, "java"))
		return asked ? "start the JVM with -XX:+PreserveFramePointer "
			       "-XX:+DumpPerfMapAtExit (JDK 17+; perf-map-agent on JDK 8)"
			     : "start the JVM with -XX:+PreserveFramePointer "
			       "-XX:+DumpPerfMapAtExit (JDK 17+), or have skyprof ask it (no "
			       "--no-jvm-attach); perf-map-agent on JDK 8";
	if (!strcmp(base, "node") || !strcmp(base, "nodejs"))
		return "start node with --perf-basic-prof (and --interpreted-frames-native-stack)";
	if (!strncmp(base, "python", 6))
		return "start Python 3.12+ with -X perf";
	return "its runtime writes no /tmp/perf-PID.map";
}

static void note(void *arg, const struct sym_jit_proc *p)
{
	struct notes *n = arg;
	const char *base = strrchr(p->exe, '/');
	struct jvm_ask_result r;
	bool jvm = n->jn && jvm_ask_result(n->jn->ask, p->pid, &r);
	bool named = jvm && (r.answered || r.own_map);

	base = base ? base + 1 : p->exe;
	if (!base[0])
		base = "?";
	/* a JVM named with frame pointers lacks nothing; a process that
	 * writes its own map, the names it lacks are its own affair */
	if ((named && r.preserve_fp == JVM_FLAG_ON) || (!named && (!p->unnamed || p->has_map)))
		return;
	if (n->shown == NOTES_MAX) {
		n->more++;
		return;
	}
	n->shown++;
	if (named)
		fprintf(stderr,
			"skyprof: note: JIT frames of pid %u (%s) are named from %s; "
			"for whole stacks start the JVM with -XX:+PreserveFramePointer "
			"(without it, a stack ends at its first JIT frame)\n",
			p->pid, base,
			r.answered ? "the perf map it wrote when asked" : "its own perf map");
	else if (jvm && r.why[0])
		fprintf(stderr, "skyprof: note: JIT frames of pid %u (%s) are unnamed: %s; %s\n",
			p->pid, base, r.why, how_to_map(base, true));
	else
		fprintf(stderr, "skyprof: note: JIT frames of pid %u (%s) are unnamed: %s\n",
			p->pid, base, how_to_map(base, n->jn != NULL));
}

void jit_names_notes(const struct jit_names *jn, struct symbolizer *sym)
{
	struct notes n = { .jn = jn };

	symbolizer_jit_each(sym, note, &n);
	if (n.more)
		fprintf(stderr, "skyprof: note: and %u more processes with JIT frames\n", n.more);
}
